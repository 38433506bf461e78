"""``INSERT ... ON CONFLICT DO UPDATE``, plain inserts, and updates by key, for the kept
rows, on SQLite and PostgreSQL.

The rows kept current in a deal's transaction (standing lines, rival tallies) used to be
read, deleted and inserted again: three statements where one does, and on PostgreSQL
each is a round trip of a request that holds the club's lock. Both databases spell the
upsert the same way; SQLAlchemy has it per dialect, so the dialect's ``insert`` is taken
from the session's connection. On PostgreSQL the rows go as one JSON text, read back as
rows by ``json_to_recordset`` (``rows_json``, ``rows_from_json``, ``_from_rows``,
``_update_from_rows``); SQLite, in-process, runs a statement once a row at little cost.
(An ``UPDATE`` from such rows is a join, which PostgreSQL may plan again at every run:
for two or three rows, a prepared statement once a row can cost it less.)

The rows went as one array a column until psycopg was found to make each array in
Python: a finish's some seventy arrays cost the app half a millisecond, where
``json.dumps`` makes the same rows in C (``bench/compare.py``: the app's CPU a finishing
POST 0.92–0.93 of the arrays').

Inside ``together``, PostgreSQL's writes wait for its end and go as one statement, each
but the last a data-modifying ``WITH``: a finish's five writes under the club's lock
(lines, tallies, seats, rating points, players' ratings) are one round trip, not five.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from typing import Any

from sqlalchemy import (
    JSON,
    Table,
    Text,
    bindparam,
    cast,
    column,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ..database import UnstorableText, holds_nul

INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
#: What ``rows_from_json``'s rows are bound as (a suffix added where a statement has
#: several).
ROWS = "rows"
#: ``session.info`` key: the writes ``together`` holds back (None: none is).
HELD = "upserts_held"


@contextmanager
def together(session: Session) -> Iterator[None]:
    """On PostgreSQL, hold back the writes of ``upsert``, ``insert_rows``,
    ``update_rows`` and ``execute`` made inside, and send them as one statement at the
    end (``_send``), in the order they were made: each is a data-modifying ``WITH`` of
    the last, so one execution and one round trip for them all. PostgreSQL runs such
    parts on one snapshot, in no set order: the writes held must be to different
    tables, and nothing inside may read what one of them writes (the caller's part).
    Nothing is sent when the block raises (the transaction is to be rolled back). On
    SQLite each write is sent when made, as outside; inside another ``together``, the
    writes are held for the outer one's end."""
    if session.get_bind().dialect.name != "postgresql" or HELD in session.info:
        yield
        return
    held: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    session.info[HELD] = held
    try:
        yield
    finally:
        del session.info[HELD]
    _send(session, held)


def execute(session: Session, build: Callable[[str], Any], values: dict[str, Any]) -> None:
    """Run the statement ``build("")`` with ``values``; inside ``together`` (PostgreSQL),
    held and sent with the other writes, built by ``build`` with its parameters' names
    ending in the suffix it is given (``values`` are renamed so). Outside ``together``
    ``build`` is called at every run: give a cached one (``functools.lru_cache``), so
    the statement is built once and its compiled form kept."""
    if not _hold(session, ("statement", build), values):
        session.execute(build(""), values)


def _hold(session: Session, shape: tuple[Any, ...], values: dict[str, Any]) -> bool:
    """Keep a write for ``together``'s end if a ``together`` is open (True), else False."""
    held = session.info.get(HELD)
    if held is None:
        return False
    held.append((shape, values))
    return True


def _send(session: Session, held: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> None:
    """The writes ``together`` held, as one statement (``_combined``)."""
    if not held:
        return
    values: dict[str, Any] = {}
    for n, (_shape, rows) in enumerate(held):
        values.update({f"{name}_{n}": value for name, value in rows.items()})
    session.execute(_combined(tuple(shape for shape, _values in held)), values)


@functools.lru_cache(maxsize=16)
def _combined(shapes: tuple[tuple[Any, ...], ...]) -> Any:
    """One statement of the writes of ``shapes`` (each as ``_written`` takes it, its
    rows bound with ``_<n>`` added, n its place): the last one's, with the others as
    data-modifying ``WITH`` parts. Built once for each sequence of shapes."""
    parts = [_written(shape, f"_{n}") for n, shape in enumerate(shapes)]
    last = parts.pop()
    if not parts:
        return last
    return last.add_cte(*(part.cte(f"written{n}") for n, part in enumerate(parts)))


def _written(shape: tuple[Any, ...], suffix: str) -> Any:
    """The statement of one held write: ``("insert", table, columns, unique, changes)``,
    ``("update", table, key, columns)`` or ``("statement", build)`` (``execute``), its
    values bound with ``suffix`` added."""
    if shape[0] == "statement":
        return shape[1](suffix)
    if shape[0] == "update":
        _kind, table, key, columns = shape
        return _update_from_rows(table, key, columns, suffix)
    _kind, table, columns, unique, changes = shape
    return _from_rows(table, columns, unique, changes, suffix)


def upsert(
    session: Session,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    unique: Sequence[str],
    changes: Callable[[Any], Mapping[str, Any]],
) -> None:
    """Insert ``rows`` into ``table``; a row whose ``unique`` columns match a stored one
    updates that one with ``changes(excluded)`` instead (``excluded``: the columns of the
    row that was to be inserted). One statement, however many rows (each with the same
    columns; on PostgreSQL one execution: ``_from_rows``); no two rows may share their
    ``unique`` columns."""
    if rows:
        dialect = session.get_bind().dialect.name
        if dialect == "postgresql":
            columns = tuple(rows[0])
            values = {ROWS: rows_json(rows)}
            if not _hold(session, ("insert", table, columns, tuple(unique), changes), values):
                session.execute(_from_rows(table, columns, tuple(unique), changes), values)
        else:
            session.execute(statement(dialect, table, tuple(unique), changes), list(rows))


def insert_rows(session: Session, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (each with the same columns) into ``table``, nothing read back: one
    statement, and on PostgreSQL one execution, however many rows (``_from_rows``)."""
    if not rows:
        return
    if session.get_bind().dialect.name == "postgresql":
        columns = tuple(rows[0])
        values = {ROWS: rows_json(rows)}
        if not _hold(session, ("insert", table, columns, (), None), values):
            session.execute(_from_rows(table, columns), values)
    else:
        session.execute(insert(table), list(rows))


def update_rows(
    session: Session, table: Table, key: str, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Set the columns of ``rows`` (each with the same columns, ``key`` among them) on
    the rows of ``table`` whose ``key`` column holds the row's: one statement, and on
    PostgreSQL one execution however many rows (``_update_from_rows``), where psycopg's
    ``executemany`` runs the ``UPDATE`` once a row. No two rows may share their key."""
    if not rows:
        return
    columns = tuple(rows[0])
    if session.get_bind().dialect.name == "postgresql":
        values = {ROWS: rows_json(rows)}
        if not _hold(session, ("update", table, key, columns), values):
            session.execute(_update_from_rows(table, key, columns), values)
    else:
        named = [{f"{name}_value": row[name] for name in columns} for row in rows]
        session.execute(_update(table, key, columns), named)


@functools.lru_cache(maxsize=8)
def _update(table: Table, key: str, columns: tuple[str, ...]) -> Any:
    """``update_rows``' statement sent once a row (SQLite), built once: the values bound by
    their column's name with ``_value`` added (a column's own name is SQLAlchemy's for
    the SET clause), matched on ``key``."""
    names = {name: f"{name}_value" for name in columns}
    return (
        update(table)
        .where(table.c[key] == bindparam(names[key]))
        .values({name: bindparam(names[name]) for name in columns if name != key})
    )


@functools.lru_cache(maxsize=8)
def _update_from_rows(table: Table, key: str, columns: tuple[str, ...], suffix: str = "") -> Any:
    """PostgreSQL's ``UPDATE ... FROM json_to_recordset(...)`` of ``update_rows``: the
    rows as one JSON text (bound as ``rows`` with ``suffix`` added), matched on ``key``;
    one statement text whatever the number of rows."""
    rows = rows_from_json(table, columns, suffix, name="changed")
    return (
        update(table)
        .where(table.c[key] == rows.c[key])
        .values({name: rows.c[name] for name in columns if name != key})
    )


def rows_json(rows: Sequence[Mapping[str, Any]]) -> str:
    """``rows`` (each a mapping of column names to values) as the one JSON text that
    ``rows_from_json`` reads: dates and times in ISO 8601, which PostgreSQL reads back as
    such, and a float as its shortest exact decimal. Text with a NUL is refused, as every
    parameter's is (``database.refuse_nul``): escaped in JSON, it would pass that check.
    JSON writes a NUL as ``\\u0000``, so only a text holding that is looked into."""
    text = json.dumps(
        rows, default=_iso, allow_nan=False, ensure_ascii=False, separators=(",", ":")
    )
    if "\\u0000" in text and holds_nul(rows):
        raise UnstorableText("a NUL character in a text parameter")
    return text


def _iso(value: Any) -> str:
    """A date or time in a row, for ``json.dumps`` (which calls it for what it cannot
    write); anything else it cannot write is an error that names it."""
    if isinstance(value, date):  # a datetime too
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} cannot be sent as a row: {value!r}")


def rows_from_json(
    table: Table, columns: tuple[str, ...], suffix: str = "", name: str | None = None
) -> Any:
    """Rows with ``columns`` of ``table`` (their types) read from one JSON text bound as
    ``rows`` with ``suffix`` added (``rows_json``): ``json_to_recordset(...) AS
    name(column type, ...)``, what PostgreSQL's statements of many rows read."""
    text = cast(bindparam(ROWS + suffix, type_=Text), JSON)
    return (
        func.json_to_recordset(text)
        .table_valued(*(column(c, table.c[c].type) for c in columns))
        .render_derived(name=name, with_types=True)
    )


@functools.lru_cache(maxsize=32)
def _from_rows(
    table: Table,
    columns: tuple[str, ...],
    unique: tuple[str, ...] = (),
    changes: Callable[[Any], Any] | None = None,
    suffix: str = "",
) -> Any:
    """PostgreSQL's insert (an upsert with ``unique`` and ``changes``) of rows sent as
    one JSON text, ``INSERT ... SELECT * FROM json_to_recordset(...)``: one execution for
    the rows, where psycopg's ``executemany`` runs the statement once a row (a finish's
    26 rival tallies were 26 executions), and one statement text whatever their number,
    which psycopg prepares once (rows written into one ``VALUES`` list make a new text
    for each number of rows). The rows are bound as ``rows`` with ``suffix`` added."""
    rows = rows_from_json(table, columns, suffix)
    # ``*``: the rows' columns (``rows_from_json``) are the insert's, in its order;
    # naming each again made a finish's writes (``together``) longer than the 4 kB whose
    # parse psycopg keeps, so it parsed them again at every run
    statement = postgresql.insert(table).from_select(
        list(columns), select(literal_column("*")).select_from(rows)
    )
    if changes is None:
        return statement
    return statement.on_conflict_do_update(
        index_elements=list(unique), set_=dict(changes(statement.excluded))
    )


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
