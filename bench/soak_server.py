"""The soak's server: ``scorekeeper serve`` as a child process, on loopback, watched.

The watcher does what a supervisor does: when the server dies it is counted as a crash
(unless the soak killed it on purpose) and started again at once.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.soak_client import HOST

ROOT = Path(__file__).resolve().parent.parent
SERVE = (sys.executable, "-m", "scorekeeper.cli", "serve")
#: What serve says when its server process crashed and it started it again.
KEPT = re.compile(r"the server stopped \((SIG[A-Z]+), after")  # this checkout's code, not main's


class Server:
    """``scorekeeper serve`` on loopback, watched: a planned kill, or a crash, restarts it."""

    command: tuple[str, ...] = SERVE  # bench/run.py serves its floor app the same way

    def __init__(
        self, port: int, env: dict[str, str], log: Path, threads: int, workers: int = 1
    ) -> None:
        self.port, self.env, self.log, self.threads = port, env, log, threads
        self.workers = workers  # serve's processes (``--workers``)
        self.process: subprocess.Popen[bytes] | None = None
        self.kills = 0
        self.crashes: list[str] = []  # how each unplanned death ended
        self.restart_seconds: list[float] = []
        self.kill_at: float | None = None
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> None:
        with self.log.open("ab") as out:
            out.write(f"\n== start at {time.strftime('%H:%M:%S')}\n".encode())
            out.flush()
            self.process = subprocess.Popen(
                [
                    *self.command,
                    "--host",
                    HOST,
                    "--port",
                    str(self.port),
                    "--threads",
                    str(self.threads),
                    "--workers",  # always: serve's own default is one per core
                    str(self.workers),
                ],
                cwd=ROOT,
                env={**self.env, "LANGUAGE": "en"},  # its log is read in English (KEPT)
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: a kill takes serve and its server
            )
        self._wait_ready()

    def _wait_ready(self, limit: float = 120.0) -> None:
        started = time.monotonic()
        while time.monotonic() - started < limit:
            if self.process is None or self.process.poll() is not None:
                raise SystemExit(f"soak: the server did not start; see {self.log}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"soak: the server did not listen within {limit:.0f} s; see {self.log}")

    def watch(self) -> None:
        """Watch the server from now on (kill at ``kill_at``; restart after any death)."""
        self._watcher.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.1):
            assert self.process is not None
            if self.kill_at is not None and time.monotonic() >= self.kill_at:
                self.kill_at = None
                os.killpg(self.process.pid, signal.SIGKILL)  # as a power cut would
                self.process.wait()
                self.kills += 1
                self._restart()
            elif self.process.poll() is not None:
                self.crashes.append(_ended(self.process.returncode))
                self._restart()

    def _restart(self) -> None:
        began = time.monotonic()
        self.start()
        self.restart_seconds.append(time.monotonic() - began)

    def stop(self) -> None:
        """Stop watching and stop the server (Ctrl+C, then kill if it lingers). A server
        process that crashed and that serve started again (scorekeeper/keeper.py) counts
        as a crash too: its line in the log says how it ended."""
        self._stop.set()
        if self._watcher.is_alive():
            self._watcher.join()
        self.crashes += [
            f"server process ended by {m.group(1)}, started again by serve"
            for m in KEPT.finditer(self.log.read_text(errors="replace"))
        ]
        if self.process is None or self.process.poll() is not None:
            if self.process is not None and self.process.returncode not in (0, None):
                self.crashes.append(_ended(self.process.returncode))
            return
        os.killpg(self.process.pid, signal.SIGINT)  # Ctrl+C reaches serve and its server
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _ended(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])
