"""Database connection tuning that every session needs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine


def tune_sqlite(engine: Engine) -> None:
    """For SQLite: foreign keys, WAL, a busy timeout, and ``BEGIN IMMEDIATE``.

    pysqlite's own transaction handling is turned off so that every transaction starts with
    ``BEGIN IMMEDIATE``: a read-then-write transaction otherwise fails with "database is
    locked" when two phones save at once.
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
        connection.exec_driver_sql("BEGIN IMMEDIATE")
