"""``scorekeeper export``: every source row in one versioned, deterministic JSON file.

The file holds the rows of every exported table (``services.data_tables``): clubs,
players, seasons, saved rule sets, matches with their frozen rules, sides, seats, deals
with each side's entry as typed, known names and the audit trail, with their primary keys
and public ids, so links keep working after an import. Derived rows and columns (totals,
scores, side results, standing lines, ratings) are left out: the import rebuilds them.

The output is deterministic: keys sorted, rows in primary-key order, timestamps in UTC,
one row per line. Exporting, importing into an empty database and exporting again gives
the same bytes but for ``exported_at``. The rows are read in one snapshot (REPEATABLE READ
on PostgreSQL, a deferred read transaction on SQLite), so an export taken while phones
save is consistent and makes no phone wait.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, inspect, select, text

from ..database import READ_ONLY
from ..engine.errors import phrase
from ..extensions import db
from .backup import check_target, place, temporary_beside
from .data_tables import FORMAT, VERSION, Refused, encode, exported_columns, exported_tables


@dataclass(frozen=True)
class Exported:
    """An export written: where, its size in bytes, and the rows per table."""

    path: Path
    size: int
    counts: dict[str, int]


def document(exported_at: datetime | None = None) -> dict[str, Any]:
    """The export of the app's database as a JSON-ready dict."""
    tables = exported_tables(db.metadata)
    with snapshot() as connection:
        rows = {table.name: _rows(connection, table) for table in tables}
        revision = schema_revision(connection)
    when = (exported_at or datetime.now(UTC)).astimezone(UTC)
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": when.isoformat(timespec="seconds"),
        "schema_revision": revision,
        "tables": rows,
    }


@contextmanager
def snapshot() -> Iterator[Connection]:
    """A connection whose reads all see one moment of the database."""
    engine = db.engine
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ")
        connection.execution_options(**{READ_ONLY: True})
        with connection.begin():
            yield connection


def _rows(connection: Connection, table: Any) -> list[dict[str, Any]]:
    columns = exported_columns(table)
    query = select(*columns).order_by(*table.primary_key.columns)
    return [
        {column.name: encode(column, value) for column, value in zip(columns, row, strict=True)}
        for row in connection.execute(query)
    ]


def schema_revision(connection: Connection) -> str | None:
    """The database's migration revision (None for a schema made without migrations)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.scalar(text("SELECT version_num FROM alembic_version"))


def dumps(doc: dict[str, Any]) -> str:
    """The export as text: sorted keys, one table row per line, UTF-8, ending in a newline."""
    lines = ["{"]
    keys = sorted(doc)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        if key != "tables":
            lines.append(f"  {_compact(key)}: {_compact(doc[key])}{comma}")
            continue
        lines.append('  "tables": {')
        names = sorted(doc["tables"])
        for j, name in enumerate(names):
            after = "," if j < len(names) - 1 else ""
            rows = doc["tables"][name]
            if not rows:
                lines.append(f"    {_compact(name)}: []{after}")
                continue
            lines.append(f"    {_compact(name)}: [")
            last = len(rows) - 1
            lines.extend(
                f"      {_compact(r)}{',' if n < last else ''}" for n, r in enumerate(rows)
            )
            lines.append(f"    ]{after}")
        lines.append(f"  }}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def write(target: Path, *, force: bool = False) -> Exported:
    """Export the database to ``target``: refused if it exists, unless ``force``."""
    check_target(target, force)
    doc = document()
    data = dumps(doc).encode("utf-8")
    temporary = temporary_beside(target)
    try:
        temporary.write_bytes(data)
    except OSError as error:  # a full disk: leave no partial file filling it to the brim
        temporary.unlink(missing_ok=True)
        why = error.strerror or str(error)
        raise Refused(
            phrase("Could not write %(target)s: %(why)s.", target=str(target), why=why)
        ) from None
    place(temporary, target, force)
    return Exported(target, len(data), {name: len(rows) for name, rows in doc["tables"].items()})
