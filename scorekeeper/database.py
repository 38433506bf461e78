"""Database connection tuning that every session needs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import g, has_request_context, request
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

#: An execution option for a connection that only reads (an export): on SQLite it begins
#: a deferred transaction, one snapshot that never waits for (nor holds) the write lock.
READ_ONLY = "scorekeeper_read_only"

NUL = "\x00"

#: The PostgreSQL advisory lock held while migrating (any fixed 64-bit number will do).
MIGRATION_LOCK = 0x5C0_12E_4EE7


class UnstorableText(ValueError):
    """Text holding a NUL character was about to be sent to the database."""


def refuse_nul(engine: Engine) -> None:
    """Refuse any statement whose parameters hold text with a NUL, on every database.

    PostgreSQL refuses NUL in text (an error, not "nothing found"); SQLite stores it. So
    neither sees it: ``UnstorableText`` is raised before the statement is sent, and the
    web layer answers it (``web.inputs``).
    """

    @event.listens_for(engine, "before_cursor_execute")
    def _check(
        _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        if _holds_nul(parameters):
            raise UnstorableText("a NUL character in a text parameter")


def _holds_nul(parameters: Any) -> bool:
    """Whether any text in the parameters (a row, or rows: tuples, lists or dicts) has NUL."""
    stack = [parameters]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if NUL in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def tune_sqlite(engine: Engine) -> None:
    """For SQLite: foreign keys, WAL, a busy timeout, and ``BEGIN IMMEDIATE`` for writes.

    pysqlite's own transaction handling is turned off so that a request that may write
    (any method but GET and HEAD, and work outside a request: commands, tests) starts its
    transaction with ``BEGIN IMMEDIATE``: a read-then-write transaction otherwise fails with
    "database is locked" when two phones save at once. Page reads begin a plain deferred
    transaction, so they never wait for the write lock (WAL lets them read meanwhile).
    """
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        reads = _reading() or connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if reads else "BEGIN IMMEDIATE")


def reading_only() -> None:
    """Let the rest of this request only read: a POST that saves nothing (a preview), or
    one whose save failed and that now draws the page again (``web.storage``)."""
    g.reading_only = True


def _reading() -> bool:
    """Whether this is a request that only reads (GET or HEAD, or said so)."""
    return has_request_context() and (
        request.method in ("GET", "HEAD") or bool(g.get("reading_only"))
    )


@contextmanager
def migration_lock(engine: Engine) -> Iterator[None]:
    """Hold the lock for migrating this database: servers starting at once take turns.

    The first one migrates; the others wait, then find nothing left to do (without it,
    two servers on a fresh PostgreSQL database both created the tables and one died).
    PostgreSQL: a session advisory lock on a connection of its own (released if the
    process dies). SQLite: an exclusive lock on a file beside the database (``-migrate``),
    so a migration longer than the busy timeout does not fail the waiting one.
    """
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
                connection.commit()
        return
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        yield
        return
    with _file_lock(Path(database).with_name(Path(database).name + "-migrate")):
        yield


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking is all there is
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
