"""Database connection tuning that every session needs."""

from __future__ import annotations

from typing import Any

from flask import has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine

#: An execution option for a connection that only reads (an export): on SQLite it begins
#: a deferred transaction, one snapshot that never waits for (nor holds) the write lock.
READ_ONLY = "scorekeeper_read_only"


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


def _reading() -> bool:
    """Whether this is a request that only reads (GET or HEAD)."""
    return has_request_context() and request.method in ("GET", "HEAD")
