"""``scorekeeper serve`` keeps its server running: the server is a child process (or
several, ``--workers``), started again at once if it ever dies of a crash (issue 9: a
segmentation fault in a C extension must not end a club night).

The parent binds the listening socket, applies the migrations and prints the addresses,
then runs the server in child processes that inherit it (``--listening-fd``), so
connections that arrive while a child is being replaced wait in the socket's queue
instead of being refused. With several children, the one holding the fewest connections
accepts the next (``Balance``), as a proxy's "least connections" does: left to itself,
whichever child woke first took nearly every connection opened at once (a proxy's pool, a
burst of phones), and a socket per child (Linux's ``SO_REUSEPORT``) spread them by a hash
of their addresses, 10 to one and 6 to the other of 16 as often as 8 and 8.
Each child is a fresh Python that opens its own database connections (the parent closes
its own before starting them). Every deal the server acknowledged was committed before
the answer left, so a restart loses nothing; a phone that sent a deal just as the server
died sends it again with the same submission key, which stores it once.

A child runs with Python's fault handler on, so a crash leaves its traceback in the log,
and it ends itself when its parent is gone (killed with ``kill -9``, say), so it never
holds the port on its own. The parent stops, and stops the other children, when one child
stops normally (Ctrl+C, or a ``SIGTERM`` passed on to every child), and gives up, saying
why, when the children keep dying within seconds of starting (a broken installation
rather than a rare crash).
"""

from __future__ import annotations

import contextlib
import json
import logging
import mmap
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from .cli_i18n import _

#: Ended by one of these, the server is started again.
CRASHES = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}
#: A signal nobody sent through this parent (an out-of-memory kill, a stray kill -9).
CRASHES |= {signal.SIGKILL}
#: This many deaths per child process within ``WINDOW`` seconds of each other: give up.
TOO_MANY = 5
#: The most child processes ``serve --workers`` starts.
MOST_WORKERS = 64
#: Requests a lone server process serves at once (``serve --threads``): waitress's own
#: default, so that a slow request (a big club's whole-history CSV) does not hold up the
#: rest. The app's work holds the GIL, so more threads serve no more on a core; they queue
#: for it, a writer among them holding its match's and club's locks meanwhile. With 16
#: phones saving at once on PostgreSQL, 8 threads took a tenth to a sixth more CPU a save
#: and gave finishes a p95 1.7 times 4's; pages were served alike (bench/writers.py,
#: docs/performance.md, ninth round).
THREADS = 4
#: The same for each of several processes: one. Two processes on two cores, 16 phones
#: finishing matches of one club on PostgreSQL, ABBA rounds: one thread each finished
#: 56-59 a second (p95 350-418 ms) where two finished 41-42 (506 ms); in other rounds 80-85
#: where four finished 47-57 (474-612 ms). PostgreSQL's CPU a finish grew with the
#: transactions at once, 8-13 ms with one thread each, 13-17 with two and four: they all
#: wait on the club's lock and its version's row. Not the GIL's hand-over: a switch
#: interval of 0.5 ms instead of 5 changed nothing (bench/writers.py, docs/performance.md,
#: sixteenth round). Waitress reads and writes the sockets in its own loop, so a slow
#: phone holds no thread, and another process takes the new connections while one is
#: busy. A download being sent (the whole history's CSV: 1.1-1.2 s at 10,000 matches)
#: is given a thread of its own meanwhile (``Beside``), so that the connections the
#: process holds do not wait for it.
THREADS_OF_SEVERAL = 1
#: The key of a request's WSGI environment under which ``Beside`` gives a streamed body
#: its context manager (absent when the process is not served so).
BESIDE = "scorekeeper.beside"
#: Whether children can inherit the listening socket (not on Windows).
CAN_KEEP = os.name == "posix"
#: ``serve``'s processes unless told: one per core, at most this many. On SQLite more
#: serve no more saves (one writes at a time) and each keeps its own page cache.
DEFAULT_MOST_WORKERS = 4


def default_workers() -> int:
    """One server process per core this process may run on (a container's share, where
    the system tells it), at most ``DEFAULT_MOST_WORKERS``; one where children cannot
    inherit the socket. Served by one process, sixteen phones saving at once on two cores
    waited behind a single core: the app's work holds the GIL, so only processes use the
    others (bench/run.py, docs/performance.md)."""
    if not CAN_KEEP:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS: no affinity
        cores = os.cpu_count() or 1
    return max(1, min(cores, DEFAULT_MOST_WORKERS))


def default_threads(workers: int) -> int:
    """``serve``'s threads a process unless told: ``THREADS`` for one process,
    ``THREADS_OF_SEVERAL`` each for several."""
    return THREADS if workers == 1 else THREADS_OF_SEVERAL


WINDOW = 60.0
#: How often the child checks that its parent is still there.
ORPHAN_CHECK = 0.5


class KeeperError(Exception):
    """The server cannot be kept running (it keeps crashing at once)."""


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (OSError when that cannot be), for the server's
    processes to inherit."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        if os.name == "posix":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class Balance:
    """How many connections each server process holds, in memory they all share, so that
    a process that holds more than another does not accept the next one (``may_accept``).

    A slot per process, ``serve --workers`` of them: its count of open connections, when
    it last wrote it, since when it has been looking without a pause and when it last
    looked before that (milliseconds of the system's monotonic clock), four 64-bit
    integers, in a file the parent makes and every process maps into memory
    (``--balance-fd``). A process writes its slot each time its server's loop asks
    whether to listen, at least every ``LOOK`` seconds: a slot not written for ``STALE``
    seconds while the reader looked (its process gone or stopped) counts for nothing. The
    parent writes a slot when it starts the slot's process (``starting``): no connections,
    ahead of the clock by ``START``, so that the others leave the starting one its share
    while it imports and opens the app (a slot never written counts for nothing). A
    process that may not accept stops listening, and looks again when its own
    connections' traffic or ``LOOK`` wakes it; the one holding the fewest always listens.
    """

    #: The longest a process that stopped listening waits before it looks again.
    LOOK = 0.05
    #: A slot not written for this long, while another process looked, is of no process
    #: that is serving.
    STALE = 1.0
    #: The longest a starting process's slot counts as written before it looks itself
    #: (seconds; a start that takes longer counts for nothing meanwhile, as before).
    START = 5.0

    def __init__(
        self, fd: int, file: Any = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.fd = fd
        self._mapped = mmap.mmap(fd, os.fstat(fd).st_size)
        self._slots = memoryview(self._mapped).cast("q")
        self._file = file  # the parent's: closed with the balance
        self._clock = clock

    @classmethod
    def create(cls, processes: int, clock: Callable[[], float] = time.monotonic) -> Balance:
        """A new balance for ``processes``, in a file of its own that is gone once closed
        (pass ``fd`` to the processes)."""
        file = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the balance
        file.truncate(processes * 4 * 8)
        os.set_inheritable(file.fileno(), True)
        return cls(file.fileno(), file, clock)

    def starting(self, slot: int) -> None:
        """The process of ``slot`` is being started: it holds no connection, and its
        slot counts as written for ``START`` seconds from now, until it looks itself (the
        others then wait for it instead of taking every connection meanwhile; its own
        first look is still a first look)."""
        ahead = int((self._clock() + self.START) * 1000)
        slots, mine = self._slots, 4 * slot
        slots[mine], slots[mine + 2], slots[mine + 3] = 0, 0, 0
        slots[mine + 1] = ahead

    def may_accept(self, slot: int, connections: int) -> bool:
        """Note that the process of ``slot`` holds ``connections``; whether it may accept
        another: when no other process that is serving holds fewer.

        Another process is gone when its slot was not written for ``STALE`` seconds while
        this one was looking. After a pause of this process (or of the whole machine: a
        virtual machine's host busy elsewhere), every other slot is old by as much: for
        ``STALE`` seconds, the others count as they were when this one last looked before
        the pause, so that those paused too have that long to look again (judged by the
        clock alone, the first process to go on took every connection waiting meanwhile).
        A slot never written counts for nothing (its process has not started); one
        written ahead by the parent (``starting``) counts as no connections until then."""
        now = int(self._clock() * 1000)
        stale = int(self.STALE * 1000)
        slots, mine = self._slots, 4 * slot
        written = slots[mine + 1] if slots[mine + 1] <= now else 0  # ahead: not looked yet
        if now - written > stale // 2:  # the first look, or the first after a pause
            slots[mine + 2], slots[mine + 3] = now, written
        slots[mine], slots[mine + 1] = connections, now
        since = now if now - slots[mine + 2] >= stale else slots[mine + 3]
        fresh = max(since - stale, 1)
        for other in range(0, len(slots), 4):
            if other != mine and slots[other + 1] >= fresh and slots[other] < connections:
                return False
        return True

    def close(self) -> None:
        self._slots.release()
        self._mapped.close()
        if self._file is not None:
            self._file.close()


def worker_command(fd: int, threads: int, balance: tuple[int, int] | None = None) -> list[str]:
    """The child's command line: this Python, this package, the inherited socket, and
    (several children) the ``Balance``'s descriptor and the child's slot in it."""
    command = [
        sys.executable,
        "-m",
        "scorekeeper.cli",
        "serve",
        "--listening-fd",
        str(fd),
        "--threads",
        str(threads),
    ]
    if balance is not None:
        command += ["--balance-fd", str(balance[0]), "--slot", str(balance[1])]
    return command


def worker_env(workers: int, listening_on: str = "") -> dict[str, str]:
    """The children's environment: this one, with a traceback on a crash, how many server
    processes share the database (``SERVER_PROCESSES``, config.py) and the address the
    server listens on (``LISTENING_ON``: the links a browser on this computer hands out)."""
    return {
        **os.environ,
        "PYTHONFAULTHANDLER": "1",
        "SCOREKEEPER_SERVER_PROCESSES": str(workers),
        "SCOREKEEPER_LISTENING_ON": json.dumps(listening_on),
    }


def keep_serving(
    sock: socket.socket, threads: int, err: TextIO | None = None, workers: int = 1
) -> int:
    """Run the server in ``workers`` child processes that accept connections on ``sock``
    (the one holding the fewest accepting the next: ``Balance``), and start each again
    whenever it crashes; return the exit status of the first one that stops on its own
    (the others are stopped then)."""
    stream = err or sys.stderr
    env = worker_env(workers, str(sock.getsockname()[0]))
    # The same rate of deaths per process as with one: a broken installation kills every
    # process at once and is given up as soon, a rare crash is not.
    deaths: deque[float] = deque(maxlen=TOO_MANY * workers)
    stopping = threading.Event()
    children: dict[int, subprocess.Popen[bytes]] = {}  # slot -> its current process
    started: dict[int, float] = {}
    ended: queue.Queue[int] = queue.Queue()  # the slots whose process has ended
    balance = Balance.create(workers) if workers > 1 else None

    def start(slot: int) -> None:
        fd = sock.fileno()
        if balance is None:
            child = subprocess.Popen(worker_command(fd, threads), env=env, pass_fds=(fd,))
        else:
            balance.starting(slot)
            command = worker_command(fd, threads, (balance.fd, slot))
            child = subprocess.Popen(command, env=env, pass_fds=(fd, balance.fd))
        children[slot], started[slot] = child, time.monotonic()

        def reap() -> None:
            child.wait()
            ended.put(slot)

        threading.Thread(target=reap, name=f"server-{slot}", daemon=True).start()

    def pass_on(signum: int, _frame: Any) -> None:
        stopping.set()
        _signal_all(children.values(), signum)

    previous = signal.signal(signal.SIGTERM, pass_on)
    try:
        for slot in range(workers):
            start(slot)
        while True:
            try:
                slot = ended.get()
            except KeyboardInterrupt:  # Ctrl+C reached the children too: let them finish
                stopping.set()
                _end_all(children.values(), patience=2.0)
                return _status(next(iter(children.values())).wait())
            code = children[slot].wait()
            if stopping.is_set() or code >= 0 or -code not in CRASHES:
                return _status(code)  # the others are stopped below
            now = time.monotonic()
            deaths.append(now)
            name = signal.Signals(-code).name
            if len(deaths) == deaths.maxlen and now - deaths[0] < WINDOW:
                raise KeeperError(
                    _(
                        "the server stopped %(times)s times within %(seconds)s seconds"
                        " (last by %(signal)s); see the messages above",
                        times=len(deaths),
                        seconds=f"{WINDOW:.0f}",
                        signal=name,
                    )
                )
            print(
                "scorekeeper: "
                + _(
                    "the server stopped (%(signal)s, after %(seconds)s s); it is started"
                    " again. Deals already saved are kept.",
                    signal=name,
                    seconds=f"{now - started[slot]:.0f}",
                ),
                file=stream,
                flush=True,
            )
            start(slot)
    finally:
        signal.signal(signal.SIGTERM, previous)
        _end_all(children.values(), patience=0.0)  # none is left running on its own
        if balance is not None:
            balance.close()


def _status(code: int) -> int:
    """A child's exit status as a shell tells it (128 + the signal that ended it)."""
    return code if code >= 0 else 128 - code


def _signal_all(children: Iterable[subprocess.Popen[bytes]], signum: int) -> None:
    for child in list(children):
        if child.poll() is None:
            child.send_signal(signum)


def _end_all(children: Iterable[subprocess.Popen[bytes]], patience: float) -> None:
    """The children still running get ``patience`` seconds to end (Ctrl+C in a terminal
    reaches them too; an interrupt sent to this process alone does not), then SIGTERM and
    10 seconds, then SIGKILL."""
    running = [child for child in children if child.poll() is None]
    for wait, then in ((patience, signal.SIGTERM), (10.0, signal.SIGKILL)):
        deadline = time.monotonic() + wait
        for child in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
        _signal_all(running, then)
    for child in running:
        child.wait()


def serve_on_inherited(
    app: Any, fd: int, threads: int, balance: tuple[int, int] | None = None
) -> None:
    """The child: serve ``app`` with waitress on the socket ``fd`` its parent opened,
    until told to stop, or until the parent is gone; ``balance``: the ``Balance``'s
    descriptor and this child's slot, when it is one of several."""
    from waitress import create_server

    from .app import settle

    # waitress warns of every request that waits for a thread ("Task queue depth is 2"):
    # with the few threads a process is given by design (``default_threads``: the app's
    # work holds the GIL), that is how a busy evening is served, a line a request on the
    # terminal otherwise
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    sock = socket.socket(fileno=fd)
    # one of several with one thread (``serve``'s default): a download gets another
    beside = Beside(app) if balance is not None and threads == 1 else None
    server = create_server(beside or app, sockets=[sock], threads=threads, ident="scorekeeper")
    if beside is not None:
        beside.set_thread_count = server.task_dispatcher.set_thread_count
    if balance is not None:
        _accept_in_balance(server, Balance(balance[0]), balance[1])
    settle(app)  # after waitress has built its own: kept out of full collections too
    _end_with_parent(os.getppid())
    try:
        server.run()
    finally:
        server.close()


class Beside:
    """A WSGI app served by one thread, and by one more for each streamed body being
    made meanwhile (``exports.csv_stream``: a club's whole history as CSV).

    A server process of several has one thread: two requests' views at once cost more
    than one after the other (``THREADS_OF_SEVERAL``). But a streamed body is made as the
    server sends it, on the thread of its request, after the view: with one thread,
    every connection the process held waited for the download to end. The body says so
    (``environ[BESIDE]``, a context manager around the making of it), and the server
    gets another thread for as long as it lasts, which serves the other requests; the
    thread count goes back once it ends. Two threads for good would leave no request
    waiting either, but at every request the two handed the GIL back and forth: pages
    were served a tenth to a fifth fewer a second at sixteen connections on SQLite
    (docs/performance.md, eighteenth round)."""

    #: The most threads added at once. Each body being made reads through a database
    #: connection of its own (``exports.csv_stream``), from a pool of 15 a process
    #: (SQLAlchemy's 5 and 10 more): a download beyond these waits for its thread, as
    #: every one did before, rather than for a connection.
    MOST = 4

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        #: The server's ``set_thread_count`` (waitress's task dispatcher's), once served.
        self.set_thread_count: Callable[[int], None] | None = None
        self._guard = threading.Lock()
        self._bodies = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        environ[BESIDE] = self.beside
        return self.app(environ, start_response)

    @contextlib.contextmanager
    def beside(self) -> Iterator[None]:
        """While a streamed body is being made: one thread more."""
        self._count(+1)
        try:
            yield
        finally:
            self._count(-1)

    def _count(self, change: int) -> None:
        with self._guard:
            self._bodies += change
            if self.set_thread_count is not None:
                self.set_thread_count(1 + min(self._bodies, self.MOST))  # its own, and more


def _accept_in_balance(server: Any, balance: Balance, slot: int) -> None:
    """Make waitress's ``server`` listen only while ``balance`` lets it accept. Its loop
    asks ``readable`` before each wait, and accepts one connection a turn of it."""
    listening = server.readable

    def readable() -> bool:
        allowed = balance.may_accept(slot, len(server.active_channels))
        return bool(listening()) and allowed

    server.readable = readable
    # waitress's loop waits up to a second (an int setting): not listening, this process
    # would not notice meanwhile that another had come to hold more connections
    server.adj.asyncore_loop_timeout = Balance.LOOK


def _end_with_parent(parent: int) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(0)  # the parent is gone: free the port for the next server

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
