"""``scorekeeper serve`` keeps its server running: the server is a child process, started
again at once if it ever dies of a crash (issue 9: a segmentation fault in a C extension
must not end a club night).

The parent binds the listening socket, applies the migrations and prints the addresses,
then runs the server in a child process that inherits the socket (``--listening-fd``), so
connections that arrive while a child is being replaced wait in the socket's queue
instead of being refused. Every deal the server acknowledged was committed before the
answer left, so a restart loses nothing; a phone that sent a deal just as the server died
sends it again with the same submission key, which stores it once.

The child runs with Python's fault handler on, so a crash leaves its traceback in the
log, and it ends itself when its parent is gone (killed with ``kill -9``, say), so it never
holds the port on its own. The parent stops when the child stops normally (Ctrl+C, or a
``SIGTERM`` passed on to it), and gives up, saying why, when the child keeps dying
within seconds of starting (a broken installation rather than a rare crash).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Any, TextIO

from .cli_i18n import _

#: Ended by one of these, the server is started again.
CRASHES = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}
#: A signal nobody sent through this parent (an out-of-memory kill, a stray kill -9).
CRASHES |= {signal.SIGKILL}
#: This many deaths within ``WINDOW`` seconds of each other: give up.
TOO_MANY = 5
WINDOW = 60.0
#: How often the child checks that its parent is still there.
ORPHAN_CHECK = 0.5


class KeeperError(Exception):
    """The server cannot be kept running (it keeps crashing at once)."""


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (OSError when that cannot be)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
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


def keep_serving(sock: socket.socket, threads: int, err: TextIO | None = None) -> int:
    """Run the server in a child process on ``sock`` and start it again whenever it
    crashes; return the child's exit status once it stops on its own."""
    stream = err or sys.stderr
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    deaths: deque[float] = deque(maxlen=TOO_MANY)
    stopping = threading.Event()
    child: subprocess.Popen[bytes] | None = None

    def pass_on(signum: int, _frame: Any) -> None:
        stopping.set()
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    previous = signal.signal(signal.SIGTERM, pass_on)
    try:
        while True:
            started = time.monotonic()
            child = subprocess.Popen(
                worker_command(sock.fileno(), threads), env=env, pass_fds=(sock.fileno(),)
            )
            try:
                code = child.wait()
            except KeyboardInterrupt:  # Ctrl+C reached the child too: let it finish
                stopping.set()
                code = _wait_after_interrupt(child)
            if stopping.is_set() or code >= 0 or -code not in CRASHES:
                return code if code >= 0 else 128 - code
            now = time.monotonic()
            deaths.append(now)
            name = signal.Signals(-code).name
            if len(deaths) == TOO_MANY and now - deaths[0] < WINDOW:
                raise KeeperError(
                    _(
                        "the server stopped %(times)s times within %(seconds)s seconds"
                        " (last by %(signal)s); see the messages above",
                        times=TOO_MANY,
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
                    seconds=f"{now - started:.0f}",
                ),
                file=stream,
                flush=True,
            )
    finally:
        signal.signal(signal.SIGTERM, previous)


def _wait_after_interrupt(child: subprocess.Popen[bytes]) -> int:
    """Ctrl+C in a terminal reaches the child too; an interrupt sent to this process alone
    does not: the child gets a moment, then SIGTERM, then SIGKILL."""
    for then in (signal.SIGTERM, signal.SIGKILL):
        try:
            return child.wait(timeout=2 if then == signal.SIGTERM else 10)
        except subprocess.TimeoutExpired:
            child.send_signal(then)
    return child.wait()


def serve_on_inherited(app: Any, fd: int, threads: int) -> None:
    """The child: serve ``app`` with waitress on the socket ``fd`` its parent opened,
    until told to stop, or until the parent is gone."""
    from waitress import create_server

    sock = socket.socket(fileno=fd)
    server = create_server(app, sockets=[sock], threads=threads, ident="scorekeeper")
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
