"""``scorekeeper serve`` keeps its server running: the server is a child process (or
several, ``--workers``), started again at once if it ever dies of a crash (issue 9: a
segmentation fault in a C extension must not end a club night).

The parent binds the listening socket, applies the migrations and prints the addresses,
then runs the server in child processes that inherit a listening socket
(``--listening-fd``), so connections that arrive while a child is being replaced wait in
the socket's queue instead of being refused. With several children on Linux, each has a
socket of its own on the one port (``SO_REUSEPORT``), and the kernel spreads new
connections over them evenly: on one shared socket, whichever child woke first accepted
nearly every connection opened at once (a proxy's pool, a burst of phones), 15 of 16 in a
measurement, and kept them, so a second process added little. The parent holds every
child's socket open, so the connections of a child being replaced wait for the new one.
Elsewhere (macOS spreads nothing that way) the children share one socket.
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
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable
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
#: Requests a server process serves at once (``serve --threads``): waitress's own default.
#: The app's work holds the GIL, so more threads serve no more on a core; they queue for
#: it, a writer among them holding its match's and club's locks meanwhile. With 16 phones
#: saving at once on PostgreSQL, 8 threads took a tenth to a sixth more CPU a save and
#: gave finishes a p95 1.7 times 4's; pages were served alike (bench/writers.py,
#: docs/performance.md, ninth round).
THREADS = 4
#: Whether children can inherit the listening socket (not on Windows).
CAN_KEEP = os.name == "posix"
#: Whether several listening sockets can share one port with the kernel spreading new
#: connections over them (Linux; macOS and the BSDs accept the option but do not spread).
CAN_SPREAD = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
WINDOW = 60.0
#: How often the child checks that its parent is still there.
ORPHAN_CHECK = 0.5


class KeeperError(Exception):
    """The server cannot be kept running (it keeps crashing at once)."""


def listen(host: str, port: int, spread: bool = False) -> socket.socket:
    """A listening socket on ``host:port`` (OSError when that cannot be); ``spread``: one
    that more sockets can join on the same port (``spread_over``), where that spreads."""
    if spread and CAN_SPREAD:
        # The port must be free of any other listener first: one that set SO_REUSEPORT
        # too (another serve --workers by the same user) would be joined, not refused.
        with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))  # bound only: it never takes a connection
            port = probe.getsockname()[1]  # the port chosen, when asked for any (0)
        return _bound(host, port, share=True)
    return _bound(host, port, share=False)


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _bound(host: str, port: int, share: bool) -> socket.socket:
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        if os.name == "posix":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if share:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def spread_over(sock: socket.socket, count: int) -> list[socket.socket]:
    """``count`` listening sockets for ``count`` server processes: ``sock`` and, when it
    was made to be joined (``listen(..., spread=True)``), new ones on its port that the
    kernel spreads new connections over; otherwise ``sock`` for every process."""
    joinable = CAN_SPREAD and sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT)
    if count < 2 or not joinable:
        return [sock] * count
    host, port = sock.getsockname()[:2]
    found = [sock]
    try:
        found += [_bound(host, port, share=True) for _ in range(count - 1)]
    except OSError:  # cannot happen short of running out of descriptors: share the one
        for extra in found[1:]:
            extra.close()
        return [sock] * count
    return found


def worker_command(fd: int, threads: int) -> list[str]:
    """The child's command line: this Python, this package, the inherited socket."""
    return [
        sys.executable,
        "-m",
        "scorekeeper.cli",
        "serve",
        "--listening-fd",
        str(fd),
        "--threads",
        str(threads),
    ]


def worker_env(workers: int) -> dict[str, str]:
    """The children's environment: this one, with a traceback on a crash, and how many
    server processes share the database (``SERVER_PROCESSES``, config.py)."""
    return {**os.environ, "PYTHONFAULTHANDLER": "1", "SCOREKEEPER_SERVER_PROCESSES": str(workers)}


def keep_serving(
    sock: socket.socket, threads: int, err: TextIO | None = None, workers: int = 1
) -> int:
    """Run the server in ``workers`` child processes that accept connections on ``sock``
    (each on a socket of its own on the same port, where ``spread_over`` can), and start
    each again whenever it crashes, on the same socket; return the exit status of the
    first one that stops on its own (the others are stopped then)."""
    stream = err or sys.stderr
    env = worker_env(workers)
    # The same rate of deaths per process as with one: a broken installation kills every
    # process at once and is given up as soon, a rare crash is not.
    deaths: deque[float] = deque(maxlen=TOO_MANY * workers)
    stopping = threading.Event()
    children: dict[int, subprocess.Popen[bytes]] = {}  # slot -> its current process
    started: dict[int, float] = {}
    ended: queue.Queue[int] = queue.Queue()  # the slots whose process has ended
    sockets = spread_over(sock, workers)  # held open here while their processes change

    def start(slot: int) -> None:
        fd = sockets[slot].fileno()
        child = subprocess.Popen(worker_command(fd, threads), env=env, pass_fds=(fd,))
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
        for extra in sockets[1:]:
            if extra is not sock:
                extra.close()


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


def serve_on_inherited(app: Any, fd: int, threads: int) -> None:
    """The child: serve ``app`` with waitress on the socket ``fd`` its parent opened,
    until told to stop, or until the parent is gone."""
    from waitress import create_server

    from .app import settle

    sock = socket.socket(fileno=fd)
    server = create_server(app, sockets=[sock], threads=threads, ident="scorekeeper")
    settle(app)  # after waitress has built its own: kept out of full collections too
    _end_with_parent(os.getppid())
    try:
        server.run()
    finally:
        server.close()


def _end_with_parent(parent: int) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(0)  # the parent is gone: free the port for the next server

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
