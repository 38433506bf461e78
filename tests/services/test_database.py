"""SQLite connections (the embedded default): what every transaction starts with.

These run on SQLite whatever ``--dburi`` says: the tuning is SQLite's own.
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from markupsafe import Markup
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from support import make_app

from scorekeeper import database
from scorekeeper.database import tune_sqlite, writer_queue
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


@pytest.mark.parametrize("end", ["commit", "rollback"])
def test_a_writers_turn_lasts_until_its_commit_or_rollback_is_done(
    sqlite_app: Flask, end: str
) -> None:
    """Ended before its COMMIT was sent, the turn let the next writer's BEGIN IMMEDIATE
    find the write lock still held by that COMMIT, and sleep in SQLite's busy handler."""
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        db.session.execute(text("CREATE TABLE IF NOT EXISTS t (n INTEGER)"))
        db.session.commit()
        db.session.execute(text("INSERT INTO t VALUES (1)"))
        raw = db.session.connection().connection.dbapi_connection
        assert isinstance(raw, database.TurnEndingConnection)
        held: dict[str, bool] = {}  # each statement SQLite runs: whether the turn was held
        raw.set_trace_callback(lambda sql: held.setdefault(sql, queue.taken))
        try:
            getattr(db.session, end)()
        finally:
            raw.set_trace_callback(None)
        assert held == {end.upper(): True}
        assert not queue.taken


def test_a_commit_that_fails_keeps_the_turn_until_its_transaction_ends(
    sqlite_app: Flask,
) -> None:
    """A deferred foreign key fails the COMMIT and leaves the transaction open, holding
    SQLite's write lock: the turn goes with the rollback that follows, not before."""
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        db.session.execute(text("CREATE TABLE p (id INTEGER PRIMARY KEY)"))
        db.session.execute(
            text("CREATE TABLE c (p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)")
        )
        db.session.commit()
        db.session.execute(text("INSERT INTO c VALUES (7)"))
        with pytest.raises(IntegrityError, match="FOREIGN KEY"):
            db.session.commit()
        assert queue.taken
        db.session.rollback()
        assert not queue.taken
        assert db.session.execute(text("SELECT count(*) FROM c")).scalar() == 0
        db.session.rollback()


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


def _write_elsewhere(target: str | Engine, go: Any, trying: Any, begun: Any, when: Any) -> None:
    """Another process's writer: once told to ``go``, it writes a row to ``t``; ``begun``
    is set (and ``when`` is the time) when its ``BEGIN IMMEDIATE`` goes to SQLite."""
    if isinstance(target, str):  # a process of its own
        engine = create_engine(target)
        tune_sqlite(engine)
    else:  # forked: the parent's engine, without the parent's connections
        engine = target
        engine.dispose(close=False)

    @event.listens_for(engine, "before_cursor_execute")
    def _record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement == "BEGIN IMMEDIATE":
            when.value = time.time()
            begun.set()

    assert go.wait(60)
    trying.set()
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (2)"))
    engine.dispose()


def _another_writer(
    target: str | Engine, method: str = "spawn"
) -> Callable[[Callable[[], Any]], None]:
    """Start a writer in another process; the function returned lets it go while this
    process holds its turn, checks that it waits, then ends the turn with ``end``."""
    context: Any = multiprocessing.get_context(method)  # (typeshed: a BaseContext)
    go, trying, begun = context.Event(), context.Event(), context.Event()
    when = context.Value("d", 0.0)
    process = context.Process(target=_write_elsewhere, args=(target, go, trying, begun, when))
    process.start()

    def waits_for(end: Callable[[], Any]) -> None:
        try:
            go.set()
            assert trying.wait(60)
            time.sleep(0.3)
            assert not begun.is_set()  # waiting for its turn, not in SQLite's busy handler
            released = time.time()
            end()
            assert begun.wait(30)
            # in at once, not after 100 ms sleeps of SQLite's (the bound is a loaded
            # machine's: on an idle one it is a millisecond or two)
            assert released <= when.value < released + 2.0
            process.join(30)
            assert process.exitcode == 0
        finally:
            if process.is_alive():
                process.kill()
                process.join()

    return waits_for


@pytest.fixture
def table_t(sqlite_app: Flask) -> str:
    """The app's database URL, with a table ``t`` in it."""
    with sqlite_app.app_context():
        db.session.execute(text("CREATE TABLE t (n INTEGER)"))
        db.session.commit()
        return db.engine.url.render_as_string(hide_password=False)


@pytest.mark.parametrize("end", ["commit", "rollback", "invalidate", "close"])
def test_a_writer_of_another_process_waits_for_the_turn_and_goes_when_it_ends(
    sqlite_app: Flask, table_t: str, end: str
) -> None:
    """``serve --workers``: the other process's writer waits on the lock file beside the
    database, not in SQLite's busy handler, and is in as soon as this one's transaction
    ends, however it ends."""
    waits_for = _another_writer(table_t)
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        connection = db.engine.connect()
        connection.execute(text("INSERT INTO t VALUES (1)"))
        assert queue.taken
        waits_for(getattr(connection, end))
        assert not queue.taken
        if end == "invalidate":
            connection.rollback()
        connection.close()
        rows = db.session.execute(text("SELECT n FROM t ORDER BY n")).scalars().all()
        assert rows == ([1, 2] if end == "commit" else [2])
        db.session.rollback()


def test_a_process_forked_after_writing_has_a_turn_of_its_own(
    sqlite_app: Flask, table_t: str, tmp_path: Path
) -> None:
    """A ``flock`` belongs to the open file: a child forked after the parent opened the
    lock file opens its own, or parent and child would not wait for each other."""
    with sqlite_app.app_context():
        engine = db.engine
        db.session.execute(text("INSERT INTO t VALUES (1)"))
        db.session.commit()
        assert (tmp_path / "tuned.sqlite3-writer").exists()  # opened before the fork
        db.session.remove()
        engine.dispose()  # (the child is not given the parent's SQLite connections)
        waits_for = _another_writer(engine, "fork")
        connection = engine.connect()
        connection.execute(text("INSERT INTO t VALUES (3)"))
        waits_for(connection.commit)
        connection.close()
        db.session.execute(text("INSERT INTO t VALUES (4)"))  # the parent's turn still works
        db.session.commit()
        assert db.session.execute(text("SELECT n FROM t ORDER BY n")).scalars().all() == [
            1,
            2,
            3,
            4,
        ]
        db.session.rollback()


def test_a_writer_that_waited_long_for_the_turn_goes_to_sqlite(
    sqlite_app: Flask, tmp_path: Path
) -> None:
    """The lock file held elsewhere (a hung process, say) for longer than the wait: the
    writer goes to SQLite, whose busy timeout decides, and leaves the file alone."""
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None
        queue.timeout = 0.2
        with (tmp_path / "tuned.sqlite3-writer").open("a") as elsewhere:
            fcntl.flock(elsewhere, fcntl.LOCK_EX)  # another open file: as another process
            started = time.monotonic()
            db.session.execute(text("SELECT 1"))
            assert time.monotonic() - started >= 0.2
            assert queue.taken  # its process's turn all the same
            db.session.commit()
            assert not queue.taken
            with (
                (tmp_path / "tuned.sqlite3-writer").open("a") as probe,
                pytest.raises(BlockingIOError),  # still held by "elsewhere"
            ):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_writer_that_fails_to_lock_the_file_does_not_keep_the_turn(
    sqlite_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None

        def fails(*_args: object) -> None:
            raise OSError("no locks")

        monkeypatch.setattr(database.fcntl, "flock", fails)
        with pytest.raises(OSError, match="no locks"):
            db.session.execute(text("SELECT 1"))
        assert not queue.taken
        db.session.rollback()
        monkeypatch.undo()
        db.session.execute(text("SELECT 1"))  # the next writer gets its turn
        assert queue.taken
        db.session.rollback()
        assert not queue.taken


@pytest.mark.parametrize("name", [":memory:", "file:{folder}/uri.sqlite3?uri=true"])
def test_a_database_without_a_file_name_has_no_lock_file(name: str, tmp_path: Path) -> None:
    """As ``migration_lock``: nothing in memory, nor for a ``file:`` URI (not a path)."""
    engine = create_engine(f"sqlite:///{name.format(folder=tmp_path)}")
    tune_sqlite(engine)
    queue = writer_queue(engine)
    assert queue is not None and queue._file is None
    with engine.begin() as connection:
        connection.execute(text("SELECT 1"))
        assert queue.taken
    assert not queue.taken
    engine.dispose()
    assert not list(tmp_path.glob("*-writer*"))


def test_a_writer_of_another_process_goes_before_this_ones_next(
    sqlite_app: Flask, table_t: str
) -> None:
    """The writer that waited in another process goes first, though this process's next
    writer (woken at once by its thread lock) tries as soon as the turn ends: without its
    place next in line, the other one, polling, would wait while this process wrote on."""
    waits_for = _another_writer(table_t)
    with sqlite_app.app_context():
        connection = db.engine.connect()
        connection.execute(text("INSERT INTO t VALUES (1)"))

        def next_writer() -> None:
            with sqlite_app.app_context():
                db.session.execute(text("INSERT INTO t VALUES (3)"))
                db.session.commit()

        thread = threading.Thread(target=next_writer)

        def end() -> None:
            thread.start()
            time.sleep(0.1)  # waiting for its process's turn
            connection.commit()

        waits_for(end)
        thread.join(30)
        connection.close()
        rows = db.session.execute(text("SELECT n FROM t ORDER BY rowid")).scalars().all()
        assert rows == [1, 2, 3]
        db.session.rollback()


def test_lock_files_are_opened_to_be_locked_only(
    sqlite_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writers' and the migration's lock files are opened read-only (a ``flock`` needs
    no more): one another account made first (a command run as root before the server
    started as its own user) is still opened by every account, where opening it to write
    would fail every save (root ignores file modes, so the flags are what is checked)."""
    opened: list[tuple[str, int]] = []
    real_open = database.os.open

    def watched(path: Any, flags: int, *args: Any) -> int:
        opened.append((Path(path).name, flags))
        return real_open(path, flags, *args)

    monkeypatch.setattr(database.os, "open", watched)
    with sqlite_app.app_context():
        queue = writer_queue(db.engine)
        assert queue is not None and queue._file is not None
        queue._file._pid = -1  # opened when the app was made: open them again, as a new process
        db.session.execute(text("SELECT 1"))  # a write transaction: the writers' turn
        db.session.rollback()
        with database.migration_lock(db.engine):
            pass
    names = {name for name, _flags in opened}
    locks = {"tuned.sqlite3-writer", "tuned.sqlite3-writer-next", "tuned.sqlite3-migrate"}
    assert names == {*locks, "tuned.sqlite3-writer-wake"}
    for name, flags in opened:
        if name in locks:
            assert flags & (os.O_WRONLY | os.O_RDWR) == 0, name
            assert flags & os.O_CREAT, name
        else:  # the writers' bell: rung and heard without blocking; made by mkfifo
            assert flags & os.O_RDWR and flags & os.O_NONBLOCK, name


def test_a_writer_waiting_for_the_turn_is_woken_when_it_is_given_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's writer pausing between tries is rung awake (``-writer-wake``) as
    the turn is given back, not at its next try: with pauses of a minute it still has the
    turn at once. Where the bell cannot be made (something else has its name), writers
    pause between tries as before."""
    monkeypatch.setattr(database._TurnFile, "FIRST_PAUSE", 60.0)
    monkeypatch.setattr(database._TurnFile, "LONGEST_PAUSE", 60.0)
    path = tmp_path / "db.sqlite3-writer"
    holder, waiter = database._TurnFile(path), database._TurnFile(path)  # files of their own
    assert holder.take(time.monotonic() + 5)
    took: list[bool] = []
    thread = threading.Thread(target=lambda: took.append(waiter.take(time.monotonic() + 120)))
    thread.start()
    time.sleep(0.3)  # tried, and pausing
    assert not took
    holder.give_back()
    thread.join(30)
    assert took == [True]
    waiter.give_back()

    other = tmp_path / "other.sqlite3-writer"
    other.with_name(other.name + "-wake").write_text("not a pipe")
    monkeypatch.setattr(database._TurnFile, "FIRST_PAUSE", 0.0005)
    monkeypatch.setattr(database._TurnFile, "LONGEST_PAUSE", 0.002)
    first, second = database._TurnFile(other), database._TurnFile(other)
    assert first.take(time.monotonic() + 5)
    assert not second.take(time.monotonic() + 0.05)  # paused, tried, not yet
    first.give_back()
    assert second.take(time.monotonic() + 5) and second._wake == -1
    second.give_back()


# -- a transaction that reads first (``reads_before_writing``: the deal POST) -------------


@contextmanager
def _reading_first(sqlite_app: Flask) -> Iterator[None]:
    """In a request of the deal POST, whose view is marked to read first, served by one
    of two processes (its session removed at the end)."""
    sqlite_app.config["SERVER_PROCESSES"] = 2
    with sqlite_app.test_request_context("/m/abc/deals", method="POST") as context:
        assert getattr(sqlite_app.view_functions[context.request.endpoint], database.READS_FIRST)
        try:
            yield
        finally:
            db.session.remove()


def _other_writer(
    sqlite_app: Flask, value: int, seconds: float = 2.0
) -> tuple[float, threading.Thread]:
    """Insert ``value`` from another thread (its own connection, outside any request);
    the seconds it took, or ``seconds`` if it did not get through by then, and the thread."""
    took: list[float] = []

    def write() -> None:
        started = time.monotonic()
        with sqlite_app.app_context():
            db.session.execute(text("INSERT INTO t VALUES (:n)"), {"n": value})
            db.session.commit()
            db.session.remove()
        took.append(time.monotonic() - started)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join(timeout=seconds)
    return (took[0] if took else seconds), thread


def test_a_transaction_that_reads_first_holds_no_turn_until_it_begins_writing(
    sqlite_app: Flask, table_t: str, begins: list[str]
) -> None:
    with _reading_first(sqlite_app):
        assert db.session.scalar(text("SELECT count(*) FROM t")) == 0
        assert begins[-1] == "BEGIN"
        assert database.reading_first(db.session())
        # Another phone's save goes through at once while this one reads...
        assert _other_writer(sqlite_app, 1)[0] < 1.0
        # ...and this one sees it once its turn comes (a snapshot begun afresh).
        assert database.begin_writing(db.session())
        assert begins[-1] == "BEGIN IMMEDIATE"
        assert not database.reading_first(db.session())
        assert not database.begin_writing(db.session())  # once is enough
        assert db.session.scalar(text("SELECT count(*) FROM t")) == 1
        db.session.execute(text("INSERT INTO t VALUES (2)"))
        # Now it holds the turn: the other writer waits until it commits.
        waited, waiting = _other_writer(sqlite_app, 3, seconds=0.3)
        assert waited == 0.3
        db.session.commit()
    waiting.join(timeout=5)  # its insert (3) goes through now
    with sqlite_app.app_context():
        assert sorted(db.session.scalars(text("SELECT n FROM t"))) == [1, 2, 3]


def test_a_transaction_that_reads_first_refuses_a_write_before_begin_writing(
    sqlite_app: Flask, table_t: str
) -> None:
    with _reading_first(sqlite_app):
        db.session.execute(text("SELECT count(*) FROM t"))
        with pytest.raises(database.WriteBeforeTurn):
            db.session.execute(text("INSERT INTO t VALUES (1)"))
        db.session.rollback()
    with sqlite_app.app_context():
        assert db.session.scalar(text("SELECT count(*) FROM t")) == 0


def test_only_the_first_transaction_of_the_request_reads_first_and_its_connection_forgets(
    sqlite_app: Flask, table_t: str, begins: list[str]
) -> None:
    with _reading_first(sqlite_app):
        db.session.execute(text("SELECT 1"))
        db.session.rollback()
        db.session.execute(text("SELECT 1"))  # a second transaction: a writer's, as before
        assert begins[-2:] == ["BEGIN", "BEGIN IMMEDIATE"]
        assert not database.begin_writing(db.session())
        db.session.execute(text("INSERT INTO t VALUES (1)"))
        db.session.commit()
    # the connection, back in the pool, begins the next request's transaction as usual
    with sqlite_app.test_request_context("/", method="POST"):
        db.session.execute(text("INSERT INTO t VALUES (2)"))
        assert begins[-1] == "BEGIN IMMEDIATE"
        db.session.commit()
        db.session.remove()


def test_a_transaction_that_reads_first_and_cannot_get_the_turn_is_left_reading(
    sqlite_app: Flask, table_t: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _reading_first(sqlite_app):
        db.session.execute(text("SELECT 1"))
        real = db.session.connection().exec_driver_sql

        def busy(statement: str, *args: Any) -> Any:
            if statement == "BEGIN IMMEDIATE":
                raise OperationalError(statement, {}, Exception("database is locked"))
            return real(statement, *args)

        monkeypatch.setattr(db.session.connection(), "exec_driver_sql", busy)
        with pytest.raises(OperationalError):
            database.begin_writing(db.session())
        monkeypatch.undo()
        assert database.reading_first(db.session())  # still reading, writes refused
        assert not writer_queue(db.engine).taken  # and the turn is not kept
        with pytest.raises(database.WriteBeforeTurn):
            db.session.execute(text("INSERT INTO t VALUES (1)"))
        db.session.rollback()


def test_in_one_server_process_a_deal_post_holds_the_turn_from_its_start(
    sqlite_app: Flask, begins: list[str]
) -> None:
    """Its threads share one core: reading first would only make them fight for the GIL."""
    assert sqlite_app.config["SERVER_PROCESSES"] == 1
    with sqlite_app.test_request_context("/m/abc/deals", method="POST"):
        db.session.execute(text("SELECT 1"))
        assert begins[-1] == "BEGIN IMMEDIATE"
        assert not database.reading_first(db.session())
        assert not database.begin_writing(db.session())
        db.session.rollback()
        db.session.remove()


@pytest.mark.parametrize(
    ("parameters", "holds"),
    [
        ((1, 2.5, None, True, "text", date(2024, 3, 5), b"\x00 bytes"), False),
        ((1, "a\x00b"), True),
        ([(1, "x"), (2, "y"), (3, "\x00")], True),  # executemany: the last row
        ({"name": "Ann", "day": date(2024, 3, 5), "n": 3}, False),
        ([{"name": "Ann"}, {"name": "Bob\x00"}], True),
        ({"ids": [1, 2, "3\x00"]}, True),  # an array parameter (PostgreSQL)
        ((Markup("<b>\x00</b>"),), True),  # a subclass of str is text too
        ("\x00", True),
        ((), False),
        (None, False),
    ],
)
def test_text_with_a_nul_is_found_in_any_shape_of_parameters(parameters, holds):
    assert database.holds_nul(parameters) is holds
