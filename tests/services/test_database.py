"""SQLite connections (the embedded default): what every transaction starts with.

These run on SQLite whatever ``--dburi`` says: the tuning is SQLite's own.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError
from support import make_app

from scorekeeper.database import writer_queue
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


def test_a_writer_waits_for_its_turn_in_the_process_and_goes_when_the_one_before_ends(
    sqlite_app: Flask, begins: list[str]
) -> None:
    """A second writer of the server waits on the process's queue, not in SQLite's busy
    handler (which sleeps up to 100 ms a try and is not woken when the lock is free); it
    goes as soon as the first commits."""
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None and not queue.taken
        db.session.execute(text("CREATE TABLE IF NOT EXISTS t (n INTEGER)"))
        db.session.commit()
        assert not queue.taken
        db.session.execute(text("INSERT INTO t VALUES (1)"))
        assert queue.taken  # the first writer's turn, until it commits
        started = len(begins)
        second_done = threading.Event()

        def second_writer() -> None:
            with sqlite_app.app_context():
                db.session.execute(text("INSERT INTO t VALUES (2)"))
                db.session.commit()
            second_done.set()

        thread = threading.Thread(target=second_writer)
        thread.start()
        assert not second_done.wait(0.3)
        assert len(begins) == started  # waiting here: its BEGIN IMMEDIATE not sent yet
        db.session.commit()
        assert second_done.wait(5)
        thread.join(5)
        assert db.session.execute(text("SELECT count(*) FROM t")).scalar() == 2
        db.session.rollback()
        assert not queue.taken


def test_a_writers_turn_ends_with_its_transaction_however_it_ends(sqlite_app: Flask) -> None:
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        for end in (db.session.commit, db.session.rollback, db.session.close, db.session.remove):
            db.session.execute(text("SELECT 1"))
            assert queue.taken
            end()
            assert not queue.taken, end
        connection = db.engine.connect()  # its transaction's connection thrown away
        connection.execute(text("SELECT 1"))
        assert queue.taken
        connection.invalidate()
        assert not queue.taken
        connection.rollback()
        connection.close()
        with pytest.raises(Exception, match="no such table"):
            db.session.execute(text("SELECT * FROM missing"))
        db.session.rollback()
        assert not queue.taken


def test_a_second_write_in_the_same_thread_is_not_made_to_wait_for_itself(
    sqlite_app: Flask,
) -> None:
    """Two write transactions at once in one thread cannot both write: SQLite says so
    after its busy timeout, as before the queue; the queue does not hang the thread."""
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        db.session.execute(text("SELECT 1"))
        other = db.engine.connect()
        raw = other.connection.dbapi_connection
        assert raw is not None
        raw.execute("PRAGMA busy_timeout=50")  # before its BEGIN: SQLite answers soon
        with pytest.raises(OperationalError, match="locked"):
            other.execute(text("SELECT 1"))
        other.invalidate()  # not back into the pool with that timeout
        other.close()
        assert queue.taken  # still the first transaction's turn
        db.session.rollback()
        assert not queue.taken
