"""``scorekeeper import``: load an export into an empty database and rebuild the rest.

``read`` checks the file before anything is written: that it is a scorekeeper export of
a version this code reads, that every table and column is known, and that every value
fits its column (a message names the table, row and column). ``load`` then, in one
transaction: refuses a database that holds any row, scores every match again with the
engine (``services.data_rebuild``), inserts the rows with their own primary keys, moves
PostgreSQL's id sequences past them, and rebuilds every derived row. Any failure rolls
the whole import back.

A file may lack tables or columns added after it was written: a missing table is empty,
a missing column takes its default (or NULL), when it has one.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, insert, inspect, select, text
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from ..engine.errors import phrase
from ..extensions import db
from .data_rebuild import Rows, check_rule_sets, rebuild_tables, score_matches
from .data_tables import (
    DERIVED,
    EXPORTED,
    FORMAT,
    NOT_EXPORTED,
    TRANSIENT,
    VERSION,
    BadValueError,
    Refused,
    decode,
    exported_columns,
    exported_tables,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Imported:
    """What an import wrote: rows per exported table, and the derived rows rebuilt."""

    counts: dict[str, int]
    rebuilt: dict[str, int]


def read(path: Path) -> Rows:
    """The rows of an export file, checked and converted; ``Refused`` says what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        why = str(error.strerror or error)
        raise Refused(phrase("Cannot read %(path)s: %(why)s.", path=str(path), why=why)) from None
    try:
        doc = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as error:
        raise Refused(
            phrase(
                "%(path)s is not a scorekeeper export: it is not JSON (%(why)s).",
                path=str(path),
                why=str(error),
            )
        ) from None
    return parse(doc, str(path))


def parse(doc: Any, source: str) -> Rows:
    """The rows of an export document (already parsed JSON), checked and converted."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise Refused(
            phrase(
                '%(source)s is not a scorekeeper export (it lacks "format": "%(format)s").',
                source=source,
                format=FORMAT,
            )
        )
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise Refused(
            phrase(
                '%(source)s has no valid "version": it is not a scorekeeper export.',
                source=source,
            )
        )
    if version > VERSION:
        raise Refused(
            phrase(
                "%(source)s is a version %(version)s export; this scorekeeper reads version"
                " %(supported)s only: upgrade scorekeeper to import it.",
                source=source,
                version=version,
                supported=VERSION,
            )
        )
    tables = doc.get("tables")
    if not isinstance(tables, dict):
        raise Refused(
            phrase('%(source)s has no "tables": it is not a complete export.', source=source)
        )
    known = {table.name: table for table in exported_tables(db.metadata)}
    for name in tables:
        if name in DERIVED:
            raise Refused(
                phrase(
                    "%(source)s: table %(table)s is rebuilt on import, it cannot be loaded.",
                    source=source,
                    table=name,
                )
            )
        if name in NOT_EXPORTED:
            raise Refused(
                phrase(
                    "%(source)s: table %(table)s is never imported (%(why)s).",
                    source=source,
                    table=name,
                    why=NOT_EXPORTED[name],
                )
            )
        if name not in known:
            raise Refused(
                phrase(
                    "%(source)s: unknown table %(table)s (written by a newer scorekeeper?).",
                    source=source,
                    table=repr(name),
                )
            )
    found: Rows = {}
    for name, table in known.items():
        rows = tables.get(name, [])
        if not isinstance(rows, list):
            raise Refused(
                phrase(
                    "%(source)s: table %(table)s is not a list of rows.",
                    source=source,
                    table=name,
                )
            )
        found[name] = [_row(source, table, n, row) for n, row in enumerate(rows, start=1)]
        _unique_keys(source, table, found[name])
    return found


def _row(source: str, table: Any, number: int, row: Any) -> dict[str, Any]:
    where: dict[str, int | str] = {"source": source, "table": table.name, "row": number}
    if not isinstance(row, dict):
        raise Refused(phrase("%(source)s: %(table)s row %(row)s is not an object.", **where))
    for key in row:
        if key in EXPORTED[table.name]:
            raise Refused(
                phrase(
                    "%(source)s: %(table)s row %(row)s: column %(column)s is rebuilt on import,"
                    " it cannot be loaded.",
                    column=key,
                    **where,
                )
            )
        if key not in table.columns:
            raise Refused(
                phrase(
                    "%(source)s: %(table)s row %(row)s: unknown column %(column)s.",
                    column=repr(key),
                    **where,
                )
            )
    values = {}
    for column in exported_columns(table):
        if column.name in row:
            try:
                values[column.name] = decode(column, row[column.name])
            except BadValueError as error:
                raise Refused(
                    phrase(
                        "%(source)s: %(table)s row %(row)s, column %(column)s: %(why)s.",
                        column=column.name,
                        why=error.message,
                        **where,
                    )
                ) from None
        elif column.nullable and not column.primary_key:
            values[column.name] = None
        elif column.default is not None and column.default.is_scalar:
            values[column.name] = column.default.arg
        else:
            raise Refused(
                phrase(
                    "%(source)s: %(table)s row %(row)s: column %(column)s is missing.",
                    column=column.name,
                    **where,
                )
            )
    return values


def _unique_keys(source: str, table: Any, rows: list[dict[str, Any]]) -> None:
    keys = [column.name for column in table.primary_key.columns]
    seen = set()
    for number, row in enumerate(rows, start=1):
        key = tuple(row[k] for k in keys)
        if key in seen:
            raise Refused(
                phrase(
                    "%(source)s: %(table)s row %(row)s repeats the id %(id)s.",
                    source=source,
                    table=table.name,
                    row=number,
                    id=str(key[0]),
                )
            )
        seen.add(key)


def contents(session: Session) -> dict[str, int]:
    """Rows per table of the app that holds any (tables not created yet count as empty,
    and the ``TRANSIENT`` ones are not counted)."""
    existing = set(inspect(session.connection()).get_table_names())
    counts = {}
    for table in db.metadata.sorted_tables:
        if table.name in existing and table.name not in TRANSIENT:
            count = session.scalar(select(func.count()).select_from(table)) or 0
            if count:
                counts[table.name] = count
    return counts


def refuse_unless_empty(session: Session) -> None:
    """Refuse (one line) when the database holds any row of the app."""
    found = contents(session)
    if found:
        held = ", ".join(f"{name} {count}" for name, count in sorted(found.items()))
        raise Refused(
            phrase(
                "The database is not empty (%(held)s): import loads into an empty database"
                " only; point DATABASE_URL at a new database and import again.",
                held=held,
            )
        )


def check_links(tables: Rows, source: str) -> None:
    """Refuse a row whose link names a row the file does not hold (a deal's side without
    its deal): the database would refuse it at the insert, or not even get that far
    ("A value is required for bind parameter 'went_out'"), naming neither."""
    for table in exported_tables(db.metadata):
        for key in table.foreign_keys:
            target = key.column.table.name
            if target not in tables:
                continue
            known = {row.get(key.column.name) for row in tables[target]}
            name = key.parent.name
            for number, row in enumerate(tables[table.name], start=1):
                value = row.get(name)
                if value is not None and value not in known:
                    raise Refused(
                        phrase(
                            "%(source)s: %(table)s row %(row)s, column %(column)s: it names"
                            " %(target)s %(value)s, which the file does not hold.",
                            source=source,
                            table=table.name,
                            row=number,
                            column=name,
                            target=target,
                            value=value,
                        )
                    )


#: What a refusal calls the file when ``load`` is not told its name.
THE_FILE = phrase("the file")


def load(tables: Rows, source: str = THE_FILE) -> Imported:
    """Insert the rows of ``read`` into the empty database and rebuild what derives from them."""
    session = db.session
    try:
        refuse_unless_empty(session)
        for name in sorted(TRANSIENT):
            session.execute(delete(db.metadata.tables[name]))
        check_rule_sets(tables, source)
        check_links(tables, source)
        games = score_matches(tables, source)
        for table in exported_tables(db.metadata):
            if tables[table.name]:
                session.execute(insert(table), tables[table.name])
        reset_sequences(session)
        rebuilt = rebuild_tables(session, games)
        session.commit()
    except IntegrityError as error:
        session.rollback()
        reason = str(error.orig).strip().splitlines()[0]
        raise Refused(
            phrase("%(source)s: its rows do not fit together (%(why)s).", source=source, why=reason)
        ) from None
    except BaseException:
        session.rollback()
        raise
    analyze(session)  # after the commit, and outside the try: the import stands either way
    return Imported({name: len(rows) for name, rows in tables.items()}, rebuilt)


def analyze(session: Any) -> None:
    """On PostgreSQL, gather the planner's statistics of the imported history now. A
    database filled at once has none until autovacuum comes by; meanwhile the planner
    guessed, and read every deal side of the history for one match's page (30 ms at
    10,000 matches, instead of a fraction of one). SQLite is left as it is: its queries
    are written for its plans without statistics (``tests/services/test_write_plans.py``).
    Statistics are a help, not part of the import: if ``ANALYZE`` fails, that is logged
    and the committed import stands (autovacuum gathers them later)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    try:
        session.execute(text("ANALYZE"))
        session.commit()
    except SQLAlchemyError:
        session.rollback()
        log.warning("The imported history was not analyzed; autovacuum will", exc_info=True)


def reset_sequences(session: Session) -> None:
    """On PostgreSQL, move every id sequence past the largest id inserted."""
    if session.get_bind().dialect.name != "postgresql":
        return  # SQLite's next id is always past the largest one
    for table in db.metadata.sorted_tables:
        for column in table.primary_key.columns:
            sequence = session.scalar(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": table.name, "column": column.name},
            )
            if sequence:
                largest = session.scalar(select(func.max(column))) or 0
                session.execute(
                    text("SELECT setval(CAST(:sequence AS regclass), :next, false)"),
                    {"sequence": sequence, "next": largest + 1},
                )
