"""SQLite connections (the embedded default): what every transaction starts with.

These run on SQLite whatever ``--dburi`` says: the tuning is SQLite's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import event, text
from support import make_app

from scorekeeper.extensions import db


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'tuned.sqlite3'}")


@pytest.fixture
def begins(sqlite_app: Flask) -> list[str]:
    seen: list[str] = []
    with sqlite_app.app_context():

        @event.listens_for(db.engine, "before_cursor_execute")
        def _record(conn: object, cursor: object, statement: str, *args: object) -> None:
            if statement.startswith("BEGIN"):
                seen.append(statement)

    return seen


@pytest.mark.parametrize(
    ("method", "expected"), [("GET", "BEGIN"), ("HEAD", "BEGIN"), ("POST", "BEGIN IMMEDIATE")]
)
def test_only_requests_that_may_write_take_the_write_lock_at_begin(
    sqlite_app: Flask, begins: list[str], method: str, expected: str
) -> None:
    with sqlite_app.test_request_context("/", method=method):
        db.session.execute(text("SELECT 1"))
        db.session.rollback()
    assert begins[-1] == expected


def test_work_outside_a_request_begins_immediate(sqlite_app: Flask, begins: list[str]) -> None:
    with sqlite_app.app_context():
        db.session.execute(text("SELECT 1"))
        db.session.rollback()
    assert begins[-1] == "BEGIN IMMEDIATE"


def test_foreign_keys_wal_and_a_busy_timeout_are_on(sqlite_app: Flask) -> None:
    with sqlite_app.app_context():
        assert db.session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert db.session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert db.session.execute(text("PRAGMA busy_timeout")).scalar() == 10000
