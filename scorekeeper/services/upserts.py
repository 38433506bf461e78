"""``INSERT ... ON CONFLICT DO UPDATE`` for the kept rows, on SQLite and PostgreSQL.

The rows kept current in a deal's transaction (standing lines, rival tallies) used to be
read, deleted and inserted again: three statements where one does, and on PostgreSQL
each is a round trip of a request that holds the club's lock. Both databases spell the
upsert the same way; SQLAlchemy has it per dialect, so the dialect's ``insert`` is taken
from the session's connection.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def upsert(
    session: Session,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    unique: Sequence[str],
    changes: Callable[[Any], Mapping[str, Any]],
) -> None:
    """Insert ``rows`` into ``table``; a row whose ``unique`` columns match a stored one
    updates that one with ``changes(excluded)`` instead (``excluded``: the columns of the
    row that was to be inserted). One statement, however many rows; no two rows may share
    their ``unique`` columns."""
    if rows:
        dialect = session.get_bind().dialect.name
        session.execute(statement(dialect, table, tuple(unique), changes), list(rows))


@functools.lru_cache(maxsize=16)
def statement(
    dialect: str, table: Table, unique: tuple[str, ...], changes: Callable[[Any], Any]
) -> Any:
    """The statement, built once per table and dialect (building it costs more than a
    small one takes to run)."""
    if dialect not in INSERTS:
        raise NotImplementedError(f"no upsert for {dialect}: SQLite and PostgreSQL only")
    statement = INSERTS[dialect](table)
    return statement.on_conflict_do_update(
        index_elements=list(unique), set_=dict(changes(statement.excluded))
    )
