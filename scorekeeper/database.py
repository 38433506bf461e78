"""Database connection tuning that every session needs."""

from __future__ import annotations

import functools
import os
import select
import sqlite3
import stat
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from flask import current_app, g, has_request_context, request
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

try:
    import fcntl
except ImportError:  # Windows: SQLite's own locking is all there is
    fcntl = None  # type: ignore[assignment]

#: An execution option for a connection that only reads (an export): on SQLite it begins
#: a deferred transaction, one snapshot that never waits for (nor holds) the write lock.
READ_ONLY = "scorekeeper_read_only"

#: The mark of a request, then of its connection, whose first transaction reads before it
#: writes (``reads_before_writing``).
READS_FIRST = "scorekeeper_reads_first"

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
        if holds_nul(parameters):
            raise UnstorableText("a NUL character in a text parameter")


def holds_nul(parameters: Any) -> bool:
    """Whether any text in the parameters (a row, or rows: tuples, lists or dicts) has NUL.

    It runs before every statement, over every value sent (an upsert of a finish's lines
    sends some 200): numbers and None, most of them, are passed over by their exact type
    first, which made it about three times faster than checking every value's kind."""
    if isinstance(parameters, dict):
        parameters = parameters.values()
    elif isinstance(parameters, str):
        return NUL in parameters
    elif not isinstance(parameters, (list, tuple)):
        return False
    for item in parameters:
        kind = type(item)
        if kind is int or kind is float or item is None:
            continue
        if kind is str:
            if NUL in item:
                return True
        elif holds_nul(item):  # rows, a text of a subclass of str, anything else
            return True
    return False


def tune_sqlite(engine: Engine) -> None:
    """For SQLite: foreign keys, WAL, a busy timeout, and ``BEGIN IMMEDIATE`` for writes.

    pysqlite's own transaction handling is turned off so that a request that may write
    (any method but GET and HEAD, and work outside a request: commands, tests) starts its
    transaction with ``BEGIN IMMEDIATE``: a read-then-write transaction otherwise fails with
    "database is locked" when two phones save at once. Page reads begin a plain deferred
    transaction, so they never wait for the write lock (WAL lets them read meanwhile).
    Writers take turns first (``WriterQueue``), across processes too (``-writer``).
    """
    if engine.dialect.name != "sqlite":
        return
    writers = _WRITERS[engine] = WriterQueue(BUSY_SECONDS, _beside(engine, "-writer"))

    @event.listens_for(engine, "do_connect")
    def _turn_ending(_dialect: Any, _record: Any, _cargs: Any, cparams: dict[str, Any]) -> None:
        cparams.setdefault("factory", TurnEndingConnection)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        if isinstance(dbapi_connection, TurnEndingConnection):
            dbapi_connection.turn_ended = functools.partial(writers.leave, record.info)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        reads = _reading() or connection.get_execution_options().get(READ_ONLY, False)
        if reads:
            connection.exec_driver_sql("BEGIN")
            return
        if _reads_first():
            connection.exec_driver_sql("BEGIN")  # its turn comes at ``begin_writing``
            connection.info[READS_FIRST] = True
            return
        writers.enter(connection.info)
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            writers.leave(connection.info)
            raise

    @event.listens_for(engine, "before_cursor_execute")
    def _still_reading(connection: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if connection.info.get(READS_FIRST) and not _reads(statement):
            raise WriteBeforeTurn(
                "a transaction that reads first writes only after begin_writing: " + statement[:60]
            )

    # The transaction ends. The turn ends once its COMMIT or ROLLBACK is done
    # (``TurnEndingConnection``); these events fire just before it is sent. Or its
    # connection goes back to the pool or is thrown away without either.
    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _ended(connection: Any) -> None:
        if not connection.invalidated:  # (its turn ended with it: ``_dropped``)
            connection.info.pop(READS_FIRST, None)
            if not isinstance(connection.connection.dbapi_connection, TurnEndingConnection):
                writers.leave(connection.info)  # (a connection factory of the settings')

    @event.listens_for(engine.pool, "checkin")
    @event.listens_for(engine.pool, "close")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info.pop(READS_FIRST, None)
        writers.leave(record.info)

    @event.listens_for(engine.pool, "reset")
    @event.listens_for(engine.pool, "invalidate")
    def _dropped(_dbapi_connection: Any, record: Any, _state: Any) -> None:
        record.info.pop(READS_FIRST, None)
        writers.leave(record.info)


class TurnEndingConnection(sqlite3.Connection):
    """A SQLite connection that ends its writers' turn (``WriterQueue``) once its COMMIT
    or ROLLBACK is done, not before it is sent.

    Ended before, the next writer's ``BEGIN IMMEDIATE`` often found the write lock still
    held by that COMMIT (it writes and syncs the WAL) and slept in SQLite's busy handler,
    1 ms, then 2, then 5, holding the turn meanwhile. In ``bench/writers.py`` with one
    process of four threads (800 deal POSTs, then 800 finishes), 1,405-1,445 ``BEGIN
    IMMEDIATE`` took over a millisecond, 3.3 s in all; with the turn ended after the
    COMMIT, 211-254 did, 0.3 s in all.
    """

    #: Set when the connection is made (``tune_sqlite``): ends the turn of its pool record.
    turn_ended: Callable[[], None] | None = None

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._ended()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._ended()

    def _ended(self) -> None:
        # a COMMIT that failed (a deferred foreign key) leaves its transaction open, and
        # the write lock held: the turn ends with the ROLLBACK that follows
        if self.turn_ended is not None and not self.in_transaction:
            self.turn_ended()


class WriteBeforeTurn(RuntimeError):
    """A transaction that began reading (``reads_before_writing``) was about to write
    before ``begin_writing``: a bug, refused before the statement runs."""


def _reads(statement: str) -> bool:
    return statement.lstrip()[:6].upper() in ("SELECT", "PRAGMA")


View = TypeVar("View", bound=Callable[..., Any])


def reads_before_writing(view: View) -> View:
    """Mark a view that reads a while before it writes, and checks what it read when it
    writes (the deal POST): on SQLite, when several server processes share the database
    (``SERVER_PROCESSES``), its request's first transaction begins as a plain ``BEGIN``,
    so the reading (the log-in, the match, the form's checks, the scoring) is done
    without the writers' turn, which it takes only at ``begin_writing``. Another
    process's saves write meanwhile, on the other core: a save held the turn for all of
    it before, some three quarters of its time, and two processes wrote no faster than
    one. In one process the turn is kept from the start, as for every other write: its
    threads share one core anyway, and those waiting for the turn leave the GIL to the
    one writing (reading first, they took a fifth more CPU a save, fighting over it). No
    effect on PostgreSQL, whose writers lock only the rows they change. Put it right under
    the route's decorator (it marks the function the route calls).
    """
    setattr(view, READS_FIRST, True)
    return view


def _reads_first() -> bool:
    """Whether the transaction beginning now is a marked view's request's first one."""
    if not has_request_context() or READS_FIRST in request.environ:
        return False
    request.environ[READS_FIRST] = True  # (this one, or one before it, was the first)
    view = current_app.view_functions.get(request.endpoint or "")
    return bool(getattr(view, READS_FIRST, False)) and current_app.config["SERVER_PROCESSES"] > 1


def reading_first(session: Session) -> bool:
    """Whether the session's transaction began reading and has not begun writing yet
    (``reads_before_writing``): a row it reads "for update" is not locked by that."""
    return session.in_transaction() and bool(session.connection().info.get(READS_FIRST))


def begin_writing(session: Session) -> bool:
    """Before the first write of a transaction that began reading (``reads_before_writing``):
    end its reads, wait for the writers' turn and begin again with ``BEGIN IMMEDIATE``.

    Returns True when it did so: everything the transaction read until now was read in
    a snapshot that other writers may have changed since, so the caller checks what its
    writes depend on and reads it again if it changed (``services.matches``). False for
    any other transaction: it has held its turn since it began (SQLite), or its writes
    lock the rows they depend on (PostgreSQL). Nothing was written yet: a write in such a
    transaction before this call is refused (``WriteBeforeTurn``).
    """
    if not session.in_transaction():
        return False
    connection = session.connection()
    if not connection.info.get(READS_FIRST):
        return False
    writers = _WRITERS[connection.engine]
    del connection.info[READS_FIRST]
    connection.exec_driver_sql("COMMIT")  # it only read: this ends its snapshot, no more
    writers.enter(connection.info)
    try:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    except BaseException:  # (busy past its timeout) reading again, as before the call
        writers.leave(connection.info)
        connection.exec_driver_sql("BEGIN")
        connection.info[READS_FIRST] = True
        raise
    return True


def writer_queue(engine: Engine) -> WriterQueue | None:
    """The engine's queue of writers (SQLite), or None."""
    return _WRITERS.get(engine)


#: How long a writer waits for SQLite's write lock (its busy timeout), and for its turn
#: among the writers of every process on the database (``WriterQueue``).
BUSY_SECONDS = 10.0


class WriterQueue:
    """SQLite's writers, one at a time, each woken as the one before ends.

    SQLite lets one transaction write at a time; a writer that finds the lock taken
    sleeps in its busy handler, longer and longer (up to 100 ms a try), and is not woken
    when the lock is released: with a few phones saving at once on a club night, one
    could wait seconds while the lock sat free, and another write twice meanwhile. The
    server's threads wait here instead, before ``BEGIN IMMEDIATE``: on a lock of the
    process that wakes the next one as soon as a write ends, then, given a file beside
    the database (``path``), on an exclusive lock on it, held as long as the thread's
    turn, which orders the writers of every process on the database (``serve
    --workers``, commands): a writer of another process is in within a couple of
    milliseconds of the turn's end, the processes taking turns (``_TurnFile``), where
    SQLite's busy handler left it asleep up to 100 ms a try. A thread that begins a
    second write transaction while its first is open (on another connection) is not made
    to wait for itself: it goes to SQLite, as before. A writer that waited ``timeout``
    for its turn goes to SQLite too, whose busy timeout then decides.
    """

    HOLDS = "scorekeeper_writer_turn"

    def __init__(self, timeout: float, path: Path | None = None) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._file = _TurnFile(path) if path is not None and fcntl is not None else None

    def enter(self, info: dict[Any, Any]) -> None:
        """Wait for this connection's turn to write (``info``: its pool record's)."""
        me = threading.get_ident()
        if info.get(self.HOLDS) or self._owner == me:
            return
        deadline = time.monotonic() + self.timeout
        if not self._lock.acquire(timeout=self.timeout):
            return
        try:
            if self._file is not None:
                self._file.take(deadline)  # (not taken in time: SQLite decides)
        except BaseException:
            self._lock.release()
            raise
        self._owner = me
        info[self.HOLDS] = True

    def leave(self, info: dict[Any, Any]) -> None:
        """The connection's write transaction is over: the next writer's turn."""
        if info.pop(self.HOLDS, False):
            if self._file is not None:
                self._file.give_back()
            self._owner = None
            self._lock.release()

    @property
    def taken(self) -> bool:
        """Whether a writer of this process has its turn now."""
        return self._lock.locked()


class _TurnFile:
    """The writers' turn among processes: an exclusive ``flock`` on a file (``path``).

    Only the thread with its process's turn uses it. ``flock`` waits without a timeout,
    so a writer tries without waiting, pausing from half a millisecond to two between
    tries. Tried so, the turn would stay with a busy process: its next writer, woken by
    its thread lock, tries at once while the other process's writer sleeps between tries.
    So a writer first takes its place as the next one, a lock on a second file
    (``path-next``) that it holds while it waits for the turn: the process whose writer
    has the turn waits for that place behind it, and the processes alternate.

    A writer that gives back the turn (or the place) rings: it writes a byte to a named
    pipe (``path-wake``), and a writer pausing between tries waits on that pipe, so it is
    woken as soon as the turn is free instead of at its next try (paused, it found the
    turn free 1.35 ms late on average: with finishing deals on two processes, each
    holding the turn 7 ms, the turn sat idle a sixth of the time). A ring that nobody
    hears is read by the next one to pause, which tries once more and pauses again; a
    missed one costs a pause, as before; where the pipe cannot be made or opened (another
    account made it), writers pause as before.

    The files are opened once by each process that writes: a child forked after its
    parent opened them would share the parent's open files, and so their locks (a
    ``flock`` belongs to the open file, not to the process), so a process that finds the
    files opened by another opens its own.
    """

    FIRST_PAUSE = 0.0005
    LONGEST_PAUSE = 0.002

    def __init__(self, path: Path) -> None:
        self.paths = (path, path.with_name(path.name + "-next"))
        self.bell = path.with_name(path.name + "-wake")
        self._pid = 0
        self._fds: tuple[int, ...] = ()
        self._wake = -1  # the pipe's descriptor (-1: none, writers pause)
        self._listener: Any = None  # a poll of it (not select: a descriptor past 1023 fails)
        self._close: weakref.finalize[Any, Any] | None = None
        self.held = False

    def take(self, deadline: float) -> bool:
        """Lock the file, waiting until ``deadline`` (``time.monotonic``) at the most."""
        turn, place = self._opened()
        if not self._wait(place, deadline):
            return False
        try:
            self.held = self._wait(turn, deadline)
        finally:
            fcntl.flock(place, fcntl.LOCK_UN)
            self._ring()
        return self.held

    def give_back(self) -> None:
        if self.held:
            self.held = False
            fcntl.flock(self._fds[0], fcntl.LOCK_UN)
            self._ring()

    def _wait(self, fd: int, deadline: float) -> bool:
        pause = self.FIRST_PAUSE
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._pause(min(pause, left))
                pause = min(pause * 2, self.LONGEST_PAUSE)

    def _pause(self, seconds: float) -> None:
        """Until the next ring, or ``seconds``."""
        if self._listener is None:
            time.sleep(seconds)
            return
        if self._listener.poll(seconds * 1000):
            with suppress(BlockingIOError):
                os.read(self._wake, 4096)  # every ring so far: they all said "try now"

    def _ring(self) -> None:
        if self._wake >= 0:
            with suppress(BlockingIOError):  # full of unheard rings: enough
                os.write(self._wake, b"\0")

    def _opened(self) -> tuple[int, ...]:
        if self._pid != os.getpid():  # first use, or a forked child: files of its own
            if self._close is not None:
                self._close()  # the parent's descriptors (the parent's locks stay held)
            self.held = False
            self.paths[0].parent.mkdir(parents=True, exist_ok=True)
            self._fds = tuple(_lock_file(path) for path in self.paths)
            self._wake = _open_bell(self.bell) if hasattr(select, "poll") else -1
            self._listener = None
            if self._wake >= 0:
                self._listener = select.poll()
                self._listener.register(self._wake, select.POLLIN)
            opened = self._fds if self._wake < 0 else (*self._fds, self._wake)
            self._close = weakref.finalize(self, _close_all, opened)
            self._pid = os.getpid()
        return self._fds


def _lock_file(path: Path) -> int:
    """A lock file opened to be locked (``flock``), created if missing. Read-only: a
    ``flock`` needs no more, and a file another account made first (a command run as
    root, the server as its own user) can still be opened by every account."""
    return os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)


def _open_bell(path: Path) -> int:
    """The writers' named pipe (``_TurnFile``), made if missing, opened to read and write
    without blocking; -1 where it cannot be (no named pipes there, or one another account
    made that this one may not write to)."""
    if not hasattr(os, "mkfifo"):
        return -1
    try:
        with suppress(FileExistsError):
            os.mkfifo(path)
            os.chmod(path, 0o666)  # every account's writers ring it (a ring only wakes)
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return -1
        return os.open(path, os.O_RDWR | os.O_NONBLOCK)
    except OSError:
        return -1


def _close_all(fds: tuple[int, ...]) -> None:
    for fd in fds:
        os.close(fd)


_WRITERS: weakref.WeakKeyDictionary[Engine, WriterQueue] = weakref.WeakKeyDictionary()


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
    lock = _beside(engine, "-migrate")
    if lock is None:
        yield
        return
    with _file_lock(lock):
        yield


def _beside(engine: Engine, suffix: str) -> Path | None:
    """A lock file beside a SQLite database file (its name and ``suffix``), or None: not
    SQLite, or no file (``:memory:``, a ``file:`` URI), or no ``fcntl`` (Windows)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:") or not fcntl:
        return None
    return Path(database).with_name(Path(database).name + suffix)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _lock_file(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
