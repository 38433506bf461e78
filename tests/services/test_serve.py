"""The README's ``scorekeeper serve`` as a real server on a free port, and the WSGI module.

The server runs as a separate process, as a newcomer starts it: the test reads the address
it prints, requests the page there, and stops it. (gunicorn's workers run in
``test_deploy_doc.py``, with the command the deployment guide gives.)
"""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support import free_port

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60.0  # seconds: two cores shared with other work can be slow to import Flask


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a fresh install: an empty SQLite database in its own folder."""
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'scorekeeper.sqlite3'}",
        "SCOREKEEPER_SECRET_KEY": "test",
        "PYTHONUNBUFFERED": "",  # the announcement must reach a pipe without it
    }


class Server:
    """A server process whose output lines are read as they come."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first output line matching ``pattern``, within ``STARTUP`` seconds."""
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
                continue
            self.seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found
        raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(self.seen)}")

    def printed(self) -> str:
        """Every line the server printed, once it has ended."""
        self._reader.join(timeout=10)
        while not self.lines.empty():
            self.seen.append(self.lines.get_nowait())
        return "".join(self.seen)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # Ctrl+C
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def get(url: str, timeout: float = 60) -> tuple[int, str]:
    """A page, waited for as long as a loaded machine may take (the first request of a new
    server process builds the app's templates; 10 s failed under a load of 11 on 2 cores):
    a bound against hanging, not a measure of speed."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode()


def tables(env: dict[str, str]) -> list[str]:
    path = env["DATABASE_URL"].removeprefix("sqlite:///")
    if not Path(path).exists():
        return []
    with sqlite3.connect(path) as connection:
        return sorted(r[0] for r in connection.execute("SELECT name FROM sqlite_master"))


def test_the_readme_server_migrates_prints_its_address_and_answers_there(
    env: dict[str, str], servers: list[Server]
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "scorekeeper.cli", "serve", "--host", "127.0.0.1"]
    server = Server([*argv, "--port", str(port)], env)
    servers.append(server)
    found = server.wait_for(r"running on this computer only: (http://\S+)")
    assert found.group(1) == f"http://127.0.0.1:{port}/"
    status, page = get(found.group(1))
    assert status == 200
    assert "<h1" in page and "New match" in page
    assert "alembic_version" in tables(env)
    if Path("/proc/self/task").exists():  # one server process per core (keeper.default_workers)
        from scorekeeper import keeper

        _serving_children(server.process.pid, keeper.default_workers())


@pytest.mark.parametrize(
    ("cores", "posix", "expected"),
    [(1, True, 1), (2, True, 2), (4, True, 4), (16, True, 4), (16, False, 1)],
)
def test_serve_runs_one_process_per_core_by_default_and_at_most_four(
    monkeypatch: pytest.MonkeyPatch, cores: int, posix: bool, expected: int
) -> None:
    from scorekeeper import cli, keeper

    monkeypatch.setattr(
        keeper.os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False
    )
    monkeypatch.setattr(keeper, "CAN_KEEP", posix)
    assert keeper.default_workers() == expected
    assert cli.build_parser().parse_args(["serve"]).workers == expected


@pytest.mark.parametrize(
    ("argv", "threads", "workers"),
    [
        (["--workers", "1"], 4, 1),
        (["--workers", "2"], 1, 2),
        (["--workers", "3", "--threads", "3"], 3, 3),
        (["--workers", "1", "--threads", "2"], 2, 1),
    ],
)
def test_a_lone_process_serves_four_requests_at_once_and_each_of_several_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str], threads: int, workers: int
) -> None:
    from scorekeeper import cli, cli_commands, keeper

    seen: dict[str, int] = {}

    def keep_serving(_sock: object, threads: int, workers: int = 1) -> int:
        seen.update(threads=threads, workers=workers)
        return 0

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    # a key of its own: else the app makes the checkout's instance/secret_key
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    monkeypatch.setattr(cli_commands, "migrate_database", lambda _app: "head")
    monkeypatch.setattr(cli_commands, "announce", lambda _host, _port: [])
    monkeypatch.setattr(keeper, "CAN_KEEP", True)
    monkeypatch.setattr(keeper, "keep_serving", keep_serving)
    assert cli.main(["serve", "--host", "127.0.0.1", "--port", "0", *argv]) == 0
    assert seen == {"threads": threads, "workers": workers}


def test_without_affinity_the_default_counts_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorekeeper import keeper

    monkeypatch.delattr(keeper.os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(keeper.os, "cpu_count", lambda: 3)
    monkeypatch.setattr(keeper, "CAN_KEEP", True)
    assert keeper.default_workers() == 3


WSGI_APP = "import gc; from scorekeeper.wsgi import app; print(app.name, gc.get_freeze_count())"


def test_requests_waiting_for_a_thread_print_nothing(
    env: dict[str, str], servers: list[Server]
) -> None:
    """A busy evening: more requests at once than the server has threads. waitress
    warned of each one that waited ("Task queue depth is 2"), a line a request on serve's
    terminal, though that is how a process of few threads serves by design."""
    port = free_port()
    argv = [sys.executable, "-m", "scorekeeper.cli", "serve", "--host", "127.0.0.1"]
    server = Server([*argv, "--port", str(port), "--threads", "1", "--workers", "1"], env)
    servers.append(server)
    url = server.wait_for(r"running on this computer only: (http://\S+)").group(1)
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda _: get(url, 30)[0], range(32))) == [200] * 32
    server.stop()
    printed = server.printed()
    assert "running on this computer only" in printed  # all of it, from the start
    assert "queue depth" not in printed, printed


def test_the_wsgi_module_builds_the_app_without_touching_the_schema(
    env: dict[str, str],
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WSGI_APP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    name, frozen = done.stdout.split()
    assert name == "scorekeeper"
    assert int(frozen) > 10_000  # what it is built of is out of the full collections' way
    assert tables(env) == []


def test_a_server_process_keeps_what_its_app_is_built_of_out_of_full_collections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``serve``'s server process settles its app (``app.settle``) before it serves."""
    import gc

    import waitress

    from scorekeeper import keeper

    frozen: list[int] = []

    class Serving:
        def run(self) -> None:
            frozen.append(gc.get_freeze_count())

        def close(self) -> None:
            pass

    monkeypatch.setattr(waitress, "create_server", lambda app, **options: Serving())
    monkeypatch.setattr(keeper, "_end_with_parent", lambda parent: None)
    gc.unfreeze()
    with keeper.listen("127.0.0.1", 0) as sock:
        try:
            keeper.serve_on_inherited(object(), os.dup(sock.fileno()), 1)
        finally:
            gc.unfreeze()  # the rest of this test run collects as before
    assert frozen and frozen[0] > 10_000


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(n) for n in path.read_text().split()] if path.exists() else []


def _server_process(parent: int) -> int:
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        found = _children(parent)
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError("serve started no server process")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_a_crashed_server_process_is_started_again_and_nothing_is_refused_meanwhile(
    env: dict[str, str], servers: list[Server]
) -> None:
    """Issue 9: a segmentation fault must not end the evening. The server process dies of
    SIGSEGV; the connection made at that moment waits in the socket's queue and is
    answered by the new process; a kill -9 of serve itself leaves no process on the port."""
    port = free_port()
    argv = [sys.executable, "-m", "scorekeeper.cli", "serve", "--host", "127.0.0.1"]
    server = Server([*argv, "--port", str(port), "--workers", "1"], env)
    servers.append(server)
    url = server.wait_for(r"running on this computer only: (http://\S+)").group(1)
    assert get(url)[0] == 200
    first = _server_process(server.process.pid)
    os.kill(first, signal.SIGSEGV)
    assert get(url)[0] == 200  # queued meanwhile, answered by the new process
    server.wait_for(r"the server stopped \(SIGSEGV, after \d+ s\); it is started again")
    assert "Fatal Python error: Segmentation fault" in "".join(server.seen)  # the trace
    second = _server_process(server.process.pid)
    assert second != first
    server.process.kill()  # kill -9 of serve: its server process goes too, freeing the port
    server.process.wait()
    deadline = time.monotonic() + 10
    while not _gone(second) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(second)


def _gone(pid: int) -> bool:
    """Ended: no such process, or one that ended and waits to be reaped (a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_server_process_that_keeps_crashing_at_once_is_given_up_with_a_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorekeeper import keeper

    crash = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    monkeypatch.setattr(keeper, "worker_command", lambda fd, threads, balance=None: crash)
    said = io.StringIO()
    too_many = pytest.raises(keeper.KeeperError, match="stopped 5 times within 60 seconds")
    with keeper.listen("127.0.0.1", 0) as sock, too_many:
        keeper.keep_serving(sock, 1, err=said)
    assert said.getvalue().count("it is started again") == 4


def test_a_server_process_that_ends_normally_ends_serve_with_its_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorekeeper import keeper

    ends = [sys.executable, "-c", "raise SystemExit(3)"]
    monkeypatch.setattr(keeper, "worker_command", lambda fd, threads, balance=None: ends)
    with keeper.listen("127.0.0.1", 0) as sock:
        assert keeper.keep_serving(sock, 1) == 3


def _serving_children(parent: int, count: int, without: set[int] | None = None) -> list[int]:
    """The parent's ``count`` server processes, none of them in ``without``, as soon as it
    has them (within ``STARTUP`` seconds)."""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        found = [pid for pid in _children(parent) if not _gone(pid)]
        if len(found) == count and not set(found) & (without or set()):
            return found
        time.sleep(0.1)
    raise AssertionError(f"serve did not have {count} server processes: {_children(parent)}")


def _sockets(port: int, *states: str) -> set[str]:
    """The sockets on local ``port`` in one of ``states`` (01: established, 0A:
    listening; none given: every connection, whatever its state), as their descriptors
    link to them, from /proc/net/tcp."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) != port:
            continue
        if fields[3] in states or (not states and fields[3] != "0A"):
            found.add(f"socket:[{fields[9]}]")
    return found


def _held(pid: int, sockets: set[str]) -> set[str]:
    """Which of ``sockets`` the process ``pid`` has a descriptor of."""
    held = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(fd) in sockets:
                held.add(os.readlink(fd))
    return held


def _holders(port: int, pids: list[int]) -> Counter[int]:
    """How many established connections to ``port`` each of ``pids`` holds."""
    established = _sockets(port, "01")
    return Counter({pid: len(_held(pid, established)) for pid in pids})


def _spread_over(url: str, pids: list[int], count: int = 32) -> Counter[int]:
    """``count`` keep-alive connections opened at once, each answered: which process
    holds each (a proxy's pool, or a burst of phones, opens them so)."""
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    connections = [http.client.HTTPConnection(host, int(port), timeout=30) for _ in range(count)]
    try:
        for connection in connections:
            connection.connect()
        for connection in connections:
            connection.request("GET", "/")
        statuses = []
        for connection in connections:
            answer = connection.getresponse()
            answer.read()  # each connection stays open, kept alive, while they are counted
            statuses.append(answer.status)
        assert statuses == [200] * count
        return _holders(int(port), pids)
    finally:
        for connection in connections:
            connection.close()
        _closed_by(int(port), pids)


def _closed_by(port: int, pids: list[int]) -> None:
    """Wait until ``pids`` hold no connection to ``port`` any more (each process closes
    its side once it reads the end of one): a count still holding them would be counted
    against the next connections."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        connections = _sockets(port)
        if not any(_held(pid, connections) for pid in pids if not _gone(pid)):
            return
        time.sleep(0.02)


def _spread_once_both_serve(url: str, pids: list[int]) -> Counter[int]:
    """``_spread_over`` once both processes serve (within ``STARTUP`` seconds): while the
    second starts the first leaves it its share (``Balance.starting``), but a start slower
    than ``Balance.START`` (a loaded machine) gives the first every connection meanwhile."""
    deadline = time.monotonic() + STARTUP
    while True:
        held = _spread_over(url, pids)
        if min(held.values()) >= 15 or time.monotonic() > deadline:
            return held
        time.sleep(0.5)


def _continue(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_serve_workers_spreads_connections_and_replaces_a_killed_process(
    env: dict[str, str], servers: list[Server]
) -> None:
    """Issue 17: ``serve --workers 2`` is two server processes on one listening socket, and
    connections opened at once are held half by each (``keeper.Balance``: alone, whichever
    process woke first took nearly all of them; the kernel's ``SO_REUSEPORT`` split them
    by a hash, 10 / 6 of 16 as often as 8 / 8), after a pause of both too (a slot not
    written for a second counted for nothing, so the first to go on took most of those
    waiting). A kill -9 of one refuses nothing: the other answers every connection
    meanwhile. SIGTERM to serve ends all."""
    from scorekeeper import keeper

    port = free_port()
    argv = [sys.executable, "-m", "scorekeeper.cli", "serve", "--host", "127.0.0.1"]
    server = Server([*argv, "--port", str(port), "--workers", "2", "--threads", "2"], env)
    servers.append(server)
    url = server.wait_for(r"running on this computer only: (http://\S+)").group(1)
    serve = server.process.pid
    first, second = _serving_children(serve, 2)
    listening = _sockets(port, "0A")
    mine, theirs = _held(first, listening), _held(second, listening)
    assert len(listening) == 1 and mine == theirs == listening  # one socket, shared
    held = _spread_once_both_serve(url, [first, second])
    assert sum(held.values()) == 32 and min(held.values()) >= 15, held
    for _round in range(3):  # 32 at once, again: half each, give or take one
        held = _spread_over(url, [first, second])
        assert sum(held.values()) == 32 and min(held.values()) >= 15, held
    for pid in (first, second):  # the machine pauses, with connections waiting meanwhile
        os.kill(pid, signal.SIGSTOP)
    threading.Timer(2 * keeper.Balance.STALE, _continue, [[first, second]]).start()
    held = _spread_over(url, [first, second])  # neither takes them all once it goes on
    assert sum(held.values()) == 32 and min(held.values()) >= 15, held

    answers: queue.Queue[int] = queue.Queue()
    os.kill(serve, signal.SIGSTOP)  # serve cannot start a new process meanwhile
    try:
        os.kill(first, signal.SIGKILL)
        while not _gone(first):
            time.sleep(0.05)
        for _ in range(16):  # all answered by the process that went on, alone
            threading.Thread(target=lambda: answers.put(get(url, 60)[0]), daemon=True).start()
        assert [answers.get(timeout=30) for _ in range(16)] == [200] * 16
    finally:
        os.kill(serve, signal.SIGCONT)
    server.wait_for(r"the server stopped \(SIGKILL, after \d+ s\); it is started again")
    now = _serving_children(serve, 2, without={first})
    assert second in now  # the other one went on
    (new,) = set(now) - {second}
    assert _held(new, listening) == mine  # on the one socket
    held = _spread_once_both_serve(url, [second, new])
    assert sum(held.values()) == 32 and min(held.values()) >= 15, held

    server.process.send_signal(signal.SIGTERM)  # passed on to both
    assert server.process.wait(timeout=60) == 128 + signal.SIGTERM
    deadline = time.monotonic() + 10
    while not (_gone(second) and _gone(new)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(second) and _gone(new)


def test_the_process_holding_the_fewest_connections_accepts_the_next() -> None:
    """``keeper.Balance``: a process may accept while no other that is serving holds fewer
    connections; every process sees what the others wrote; a slot never written counts
    for nothing, and one not written for ``STALE`` seconds while the others looked (its
    process gone) neither. After a pause of the whole machine, the others have ``STALE``
    to look again."""
    from scorekeeper import keeper

    now = [1000.0]  # seconds of a clock that moves only when told
    balance = keeper.Balance.create(3, clock=lambda: now[0])
    other = keeper.Balance(balance.fd, clock=lambda: now[0])  # another process's mapping

    def look(seconds: float, held: dict[int, int]) -> None:
        """``seconds`` pass, each process of ``held`` (slot: connections) looking every
        ``LOOK``."""
        for _ in range(round(seconds / keeper.Balance.LOOK)):
            now[0] += keeper.Balance.LOOK
            for slot, connections in held.items():
                balance.may_accept(slot, connections)

    try:
        assert balance.may_accept(0, 5)  # alone: the others have not started
        assert other.may_accept(1, 2)
        assert not balance.may_accept(0, 5)  # 1 holds fewer
        assert other.may_accept(1, 5)  # as many: both may
        assert balance.may_accept(0, 5)
        assert not other.may_accept(2, 6)
        assert other.may_accept(0, 4)  # written through the other mapping: 0 holds 4
        assert not balance.may_accept(1, 5)
        assert other.may_accept(2, 1)
        look(0.9, {0: 4, 1: 5})  # 2 stopped looking, holding 1
        assert not balance.may_accept(0, 4)  # not gone yet
        look(0.2, {0: 4, 1: 5})
        assert balance.may_accept(0, 4)  # gone: a second without a look

        now[0] += 5  # the whole machine paused (or both processes) for 5 seconds
        assert not balance.may_accept(1, 5)  # 0, holding 4, is not gone: paused too
        look(0.9, {1: 5})
        assert not balance.may_accept(1, 5)  # 0 has had less than a second to look again
        look(0.2, {1: 5})
        assert balance.may_accept(1, 5)  # it has not looked for a second: gone
        look(0.3, {0: 4, 1: 5})  # it is back, looking
        assert not balance.may_accept(1, 5)
        look(0.6, {1: 5})  # 0 stops again
        now[0] += 0.45  # 1 does not look for less than half of STALE: no pause
        assert balance.may_accept(1, 5)  # 0 has not looked for 1.05 s: gone
    finally:
        other.close()
        balance.close()


def test_a_process_being_started_is_left_its_share() -> None:
    """``Balance.starting``: while a process starts (imports, opens the app), the others
    count it as holding no connection, so one that holds some leaves the next to it
    instead of taking every connection meanwhile and keeping them (kept alive). A start
    that takes longer than ``START`` counts for nothing again; the starting process's own
    first look is a first look (it counts the others as they last wrote, whenever that
    was)."""
    from scorekeeper import keeper

    now = [1000.0]
    balance = keeper.Balance.create(3, clock=lambda: now[0])
    look, stale = keeper.Balance.LOOK, keeper.Balance.STALE
    try:
        assert balance.may_accept(0, 3)
        balance.starting(1)  # the parent starts 1 (2 is never started)
        assert not balance.may_accept(0, 1)  # 1 holds none: it takes the next
        assert balance.may_accept(0, 0)
        for _ in range(round((keeper.Balance.START + stale - 0.1) / look)):
            now[0] += look
            assert not balance.may_accept(0, 3)  # the whole of START, and STALE after it
        now[0] += 0.2
        assert balance.may_accept(0, 3)  # 1 never looked: it counts for nothing again

        balance.starting(1)  # started again; 0 stops looking (paused, say) for 2 s
        now[0] += 2 * stale
        assert not balance.may_accept(1, 4)  # 1's first look: 0 still holds 3
        assert balance.may_accept(1, 3)
        assert not balance.may_accept(0, 4)  # and 0 sees 1 as 1 wrote it
    finally:
        balance.close()


def test_serve_announces_each_process_it_starts_in_the_balance(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Before it starts a process, ``keep_serving`` writes the process's slot (no
    connections, ahead of the clock by ``START``), so that the others leave it its share."""
    from scorekeeper import keeper

    script = (
        "import mmap, os, pathlib, sys, time\n"
        "fd, slot = int(sys.argv[1]), int(sys.argv[2])\n"
        "slots = memoryview(mmap.mmap(fd, os.fstat(fd).st_size)).cast('q')\n"
        "ahead = slots[4 * slot + 1] - int(time.monotonic() * 1000)\n"
        f"pathlib.Path({str(tmp_path)!r}, str(slot)).write_text(f'{{slots[4 * slot]}} {{ahead}}')\n"
        "deadline = time.monotonic() + 30\n"
        f"while len(os.listdir({str(tmp_path)!r})) < 2 and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
    )

    def command(fd: int, threads: int, balance: tuple[int, int] | None = None) -> list[str]:
        assert balance is not None
        return [sys.executable, "-c", script, str(balance[0]), str(balance[1])]

    monkeypatch.setattr(keeper, "worker_command", command)
    with keeper.listen("127.0.0.1", 0) as sock:
        assert keeper.keep_serving(sock, 1, workers=2) == 0
    start = keeper.Balance.START * 1000
    for slot in ("0", "1"):
        connections, ahead = map(int, (tmp_path / slot).read_text().split())
        assert connections == 0
        assert start - 10_000 < ahead <= start, ahead  # the child read it within 10 s


def test_a_port_another_listener_holds_is_refused() -> None:
    from scorekeeper import keeper

    with keeper.listen("127.0.0.1", 0) as sock, pytest.raises(OSError):
        keeper.listen("127.0.0.1", sock.getsockname()[1])


def test_several_processes_that_keep_crashing_at_once_are_given_up_at_the_same_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Five deaths per process within a minute: with two, the tenth gives up (and leaves
    no process running)."""
    from scorekeeper import keeper

    crash = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    monkeypatch.setattr(keeper, "worker_command", lambda fd, threads, balance=None: crash)
    said = io.StringIO()
    too_many = pytest.raises(keeper.KeeperError, match="stopped 10 times within 60 seconds")
    with keeper.listen("127.0.0.1", 0) as sock, too_many:
        keeper.keep_serving(sock, 1, err=said, workers=2)
    assert said.getvalue().count("it is started again") == 9


def test_one_of_several_processes_ending_normally_ends_serve_and_the_others(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One process ends with status 3; the other, which would run for a minute, is stopped,
    and serve ends with the first one's status."""
    from scorekeeper import keeper

    first, other = tmp_path / "first", tmp_path / "other"
    script = (
        "import os, sys, time\n"
        "try:\n"
        f"    os.close(os.open({str(first)!r}, os.O_CREAT | os.O_EXCL))\n"
        "except FileExistsError:\n"
        f"    open({str(other)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "raise SystemExit(3)\n"
    )
    command = [sys.executable, "-c", script]
    monkeypatch.setattr(keeper, "worker_command", lambda fd, threads, balance=None: command)
    with keeper.listen("127.0.0.1", 0) as sock:
        assert keeper.keep_serving(sock, 1, workers=2) == 3
    if other.exists() and other.read_text():  # it had started when the first one ended
        assert _gone(int(other.read_text()))


@pytest.mark.parametrize("workers", [1, 2])
def test_each_server_process_is_told_how_many_serve_the_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workers: int
) -> None:
    """``SCOREKEEPER_SERVER_PROCESSES`` (config.py): on SQLite a save reads before its turn
    to write only when another process can write meanwhile."""
    from scorekeeper import keeper
    from scorekeeper.app import create_app

    script = (
        "import os, pathlib\n"
        f"pathlib.Path({str(tmp_path)!r}, str(os.getpid()))"
        ".write_text(os.environ['SCOREKEEPER_SERVER_PROCESSES'] + ' '"
        " + os.environ['SCOREKEEPER_LISTENING_ON'])\n"
    )
    monkeypatch.setattr(
        keeper, "worker_command", lambda fd, threads, balance=None: [sys.executable, "-c", script]
    )
    with keeper.listen("127.0.0.1", 0) as sock:
        assert keeper.keep_serving(sock, 1, workers=workers) == 0
    told = {path.read_text() for path in tmp_path.iterdir()}
    assert told == {f'{workers} "127.0.0.1"'}  # and where it listens (web/links.py)
    monkeypatch.setenv("SCOREKEEPER_SERVER_PROCESSES", str(workers))
    monkeypatch.setenv("SCOREKEEPER_LISTENING_ON", '"0.0.0.0"')
    database = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    settings = {"SQLALCHEMY_DATABASE_URI": database, "SECRET_KEY": "test"}
    config = create_app(settings).config
    assert (config["SERVER_PROCESSES"], config["LISTENING_ON"]) == (workers, "0.0.0.0")
