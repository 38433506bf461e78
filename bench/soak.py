"""Soak the real server: scorers save deals, the server is killed and restarted, then check.

    python bench/soak.py [--scorers 8] [--seconds 60] [--read-seconds 0] [--connections 16]
                         [--database-url URL] [--port P] [--history 20] [--no-kill] [--keep]

Starts ``scorekeeper serve`` (waitress) on 127.0.0.1 as a child process with
``PYTHONFAULTHANDLER=1``, on a fresh temporary SQLite file or on ``--database-url`` (default
``$DATABASE_URL``; it must hold no scorekeeper tables). Before the server starts, a club with
``--history`` finished matches (``bench/history.py``) and shared matches are stored through
the services. Then ``--scorers`` phones enter and correct deals through the real forms for
``--seconds`` (``bench/soak_scorers.py``); half-way the server gets ``kill -9`` and is
started again, and every request left without an answer is sent again with the same form
data. A read phase follows: ``--connections`` phones request every page for
``--read-seconds``. The server is watched throughout: a death nobody asked for is counted
as a crash (its log is kept) and the server restarted, as a supervisor would. Last, with
the server stopped, the database is checked (``bench/soak_check.py``).

Prints a summary, then, last, one line of JSON. Exits 1 when anything was lost, stored
twice or wrong, a request answered 5xx, the server crashed, or integrity is not "ok".
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from sqlalchemy import inspect, select, text  # noqa: E402

from bench.history import build_club  # noqa: E402
from bench.soak_check import Findings, check  # noqa: E402
from bench.soak_client import HOST, Browser, Budget, Ledger, Traffic  # noqa: E402
from bench.soak_scorers import Pool, Scorer, Shared  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.engine import PRESETS, Side  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Club, Deal, Match, Player, Season  # noqa: E402
from scorekeeper.services import clubs, matches  # noqa: E402

SERVE = (sys.executable, "-m", "scorekeeper.cli", "serve")  # this checkout's code, not main's
MAX_REQUESTS = 500_000  # a hard bound on the run's traffic, whatever the durations


class Server:
    """``scorekeeper serve`` on loopback, watched: a planned kill, or a crash, restarts it."""

    def __init__(self, port: int, env: dict[str, str], log: Path, threads: int) -> None:
        self.port, self.env, self.log, self.threads = port, env, log, threads
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
                [*SERVE, "--host", HOST, "--port", str(self.port), "--threads", str(self.threads)],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
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
                os.kill(self.process.pid, signal.SIGKILL)
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
        """Stop watching and stop the server (Ctrl+C, then kill if it lingers)."""
        self._stop.set()
        if self._watcher.is_alive():
            self._watcher.join()
        if self.process is None or self.process.poll() is not None:
            if self.process is not None and self.process.returncode not in (0, None):
                self.crashes.append(_ended(self.process.returncode))
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _ended(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


@dataclass
class Prepared:
    """The club and matches stored before the server starts."""

    club_id: str
    pool: list[Shared]
    baseline: set[str]  # submission keys of the deals already stored
    history: int


def prepare(app: Flask, history: int, shared: int) -> Prepared:
    """Migrate the empty database, build the club's history and the shared matches."""
    from flask_migrate import upgrade

    with app.app_context():
        present = set(inspect(db.engine).get_table_names())
        if present - {"alembic_version"}:
            db.engine.dispose()
            raise SystemExit(
                "soak: the database already has tables; give an empty database (the soak "
                "creates its tables and drops them when done, unless --keep)."
            )
        if present:  # a migration run left only its bookkeeping: start from nothing
            db.session.execute(text("DROP TABLE alembic_version"))
            db.session.commit()
        upgrade()
        made = build_club("Soak club", history, seed=11)
        club = clubs.get_club(made.club_id)
        assert club is not None
        pool = []
        for number in range(shared):
            four = random.Random(number).sample(("Ann", "Bob", "Cid", "Dee", "Eve", "Fay"), 4)
            sides = [Side(tuple(four[:2])), Side(tuple(four[2:]))]
            if number % 2:
                loaded = clubs.start_club_match(club, PRESETS["classic"], sides, 0, date.today())
            else:
                loaded = matches.start_match(PRESETS["classic"], "classic", sides, 0)
            pool.append(Shared(loaded.public_id, club=bool(number % 2)))
        baseline = set(db.session.scalars(select(Deal.submission_key)))
        db.session.remove()
        db.engine.dispose()
    return Prepared(made.club_id, pool, baseline, history)


def write_phase(
    server: Server, prepared: Prepared, scorers: int, seconds: float, kill: bool
) -> tuple[Ledger, Traffic]:
    """The scorers for ``seconds``; ``kill -9`` of the server half-way unless not ``kill``."""
    ledger, traffic = Ledger(), Traffic(MAX_REQUESTS)
    pool = Pool(list(prepared.pool))
    phones = [
        Scorer(n, server.port, prepared.club_id, pool, ledger, traffic) for n in range(scorers)
    ]
    started = time.monotonic()
    if kill:
        server.kill_at = started + seconds / 2
    threads = [
        threading.Thread(target=p.run, args=(started + seconds,), daemon=True) for p in phones
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    server.kill_at = None
    return ledger, traffic


def read_urls(app: Flask, club_id: str, limit: int = 40) -> list[str]:
    """Every kind of page: home, club, standings, CSVs, players, matches, rules, meld, API."""
    with app.app_context():
        club = db.session.scalar(select(Club).where(Club.public_id == club_id))
        assert club is not None
        season = db.session.scalar(select(Season.public_id).where(Season.club_id == club.id))
        players = db.session.scalars(select(Player.public_id).where(Player.club_id == club.id))
        ids = list(db.session.scalars(select(Match.public_id).order_by(Match.id.desc())))
        db.session.remove()
    c = f"/c/{club_id}"
    urls = ["/", "/clubs", c, f"{c}?view=partnerships", f"{c}?season={season}", f"{c}?sort=wins"]
    urls += [f"{c}/standings.csv", f"{c}/standings.csv?view=partnerships", f"{c}/matches.csv"]
    urls += [f"{c}/matches.csv?season={season}", f"{c}/players", f"{c}/players?q=a"]
    urls += [f"{c}/tonight", f"{c}/settings", f"{c}/matches/new", "/matches/new"]
    urls += ["/rules", "/rules/presets/classic", "/meld", "/api/v1/rules", "/api/v1/openapi.json"]
    for player in players:
        urls += [f"{c}/p/{player}", f"{c}/p/{player}?season={season}"]
    for public_id in random.Random(5).sample(ids, min(limit, len(ids))):
        urls += [f"/m/{public_id}", f"/api/v1/matches/{public_id}", f"/meld?match={public_id}"]
    return urls


@dataclass
class Reads:
    """What the read phase saw."""

    requests: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # "GET /x -> 404"
    seconds: float = 0.0
    traffic: Traffic = field(default_factory=lambda: Traffic(MAX_REQUESTS))


def read_phase(port: int, urls: list[str], connections: int, seconds: float) -> Reads:
    """``connections`` phones requesting random pages of ``urls`` for ``seconds``."""
    reads = Reads()
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def reader(number: int) -> None:
        rng, browser = random.Random(number), Browser(port, reads.traffic)
        try:
            while time.monotonic() < deadline:
                url = rng.choice(urls)
                answer = browser.get(url)
                with lock:
                    reads.requests += 1
                    if answer is None or answer.status != 200:
                        reads.failures[f"GET {url} -> {answer.status if answer else 'none'}"] += 1
        except Budget:
            pass
        finally:
            browser.close()

    started = time.monotonic()
    threads = [threading.Thread(target=reader, args=(n,), daemon=True) for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reads.seconds = time.monotonic() - started
    return reads


def drop_everything(app: Flask) -> None:
    with app.app_context():
        db.session.remove()
        db.drop_all()
        db.session.execute(text("DROP TABLE IF EXISTS alembic_version"))
        db.session.commit()
        db.engine.dispose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scorers", type=int, default=8, help="phones saving deals (8)")
    parser.add_argument("--seconds", type=float, default=60, help="length of the write phase")
    parser.add_argument(
        "--read-seconds", type=float, default=0, help="length of the read phase (0: none)"
    )
    parser.add_argument("--connections", type=int, default=16, help="phones reading pages (16)")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="an empty database (default: $DATABASE_URL, else a temporary SQLite file)",
    )
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: free)")
    parser.add_argument("--history", type=int, default=20, help="finished club matches before")
    parser.add_argument("--server-threads", type=int, default=8, help="waitress threads (8)")
    parser.add_argument("--no-kill", action="store_true", help="do not kill -9 the server")
    parser.add_argument("--keep", action="store_true", help="keep the database and the log")
    args = parser.parse_args(argv)
    if args.scorers < 1 or args.connections < 1 or args.server_threads < 1:
        parser.error("--scorers, --connections and --server-threads must be at least 1")
    if not 1 <= args.seconds <= 3600 or not 0 <= args.read_seconds <= 3600:
        parser.error("--seconds must be from 1 to 3600 and --read-seconds from 0 to 3600")
    if args.history < 0:
        parser.error("--history must be 0 or more")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the soak, print the summary and the JSON line; 1 when anything is wrong."""
    args = _arguments(argv)
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    uri = normalise_db_url(args.database_url or f"sqlite:///{folder}/soak.sqlite3")
    key = secrets.token_hex(16)
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": key})
    began = time.monotonic()
    prepared = prepare(app, args.history, shared=max(2, args.scorers // 2))
    built = time.monotonic() - began
    env = {
        **os.environ,
        "DATABASE_URL": uri,
        "SCOREKEEPER_SECRET_KEY": key,  # the same key after a restart: forms stay valid
        "PYTHONFAULTHANDLER": "1",
    }
    server = Server(args.port or free_port(), env, folder / "server.log", args.server_threads)
    ok = False
    try:
        server.start()
        server.watch()
        ledger, traffic = write_phase(
            server, prepared, args.scorers, args.seconds, kill=not args.no_kill
        )
        reads = Reads()
        if args.read_seconds:
            urls = read_urls(app, prepared.club_id)
            reads = read_phase(server.port, urls, args.connections, args.read_seconds)
    finally:
        server.stop()
    with app.app_context():
        findings = check(ledger.writes, prepared.baseline)
        db.session.remove()
        db.engine.dispose()
    result = summary(args, app, prepared, ledger, traffic, reads, server, findings, built)
    ok = not failed(result)
    print_summary(result, findings, traffic, reads, server, folder if not ok else None)
    print(json.dumps(result, sort_keys=False))
    if args.keep or not ok:
        print(f"soak: kept {folder} (server log) and the database {_safe(uri)}", file=sys.stderr)
    else:
        if not uri.startswith("sqlite"):
            drop_everything(app)
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1


def _safe(uri: str) -> str:
    """The URL without a password."""
    head, at, tail = uri.rpartition("@")
    return f"{head.split(':')[0]}://…@{tail}" if at else uri


def summary(
    args: argparse.Namespace,
    app: Flask,
    prepared: Prepared,
    ledger: Ledger,
    traffic: Traffic,
    reads: Reads,
    server: Server,
    findings: Findings,
    built: float,
) -> dict[str, Any]:
    """The run's numbers, as printed in the JSON line."""
    counts = findings.counts
    return {
        "database": app.config["SQLALCHEMY_DATABASE_URI"].split(":")[0].split("+")[0],
        "scorers": args.scorers,
        "seconds": args.seconds,
        "acknowledged": ledger.count("acked"),
        "records_acknowledged": ledger.count("acked", "record"),
        "corrections_acknowledged": ledger.count("acked", "correct"),
        "lost": counts["lost"],
        "duplicated": counts["duplicated"],
        "phantom": counts["phantom"],
        "gaps": counts["gaps"],
        "wrong_totals": counts["wrong_totals"],
        "wrong_standings": counts["wrong_side_results"] + counts["wrong_lines"],
        "wrong_side_results": counts["wrong_side_results"],
        "wrong_lines": counts["wrong_lines"],
        "wrong_ratings": counts["wrong_ratings"],
        "errors_5xx": traffic.errors_5xx + reads.traffic.errors_5xx,
        "integrity": findings.integrity,
        "stale": ledger.count("stale"),
        "closed": ledger.count("closed"),
        "refused": ledger.count("refused"),
        "unanswered": ledger.count("unanswered") + traffic.unanswered + reads.traffic.unanswered,
        "resent": traffic.resends,
        "kills": server.kills,
        "crashes": len(server.crashes),
        "requests": traffic.sent,
        "matches": findings.matches,
        "deals": findings.deals,
        "history": prepared.history,
        "build_seconds": round(built, 1),
        "read_seconds": args.read_seconds,
        "reads": reads.requests,
        "reads_per_second": round(reads.requests / reads.seconds, 1) if reads.seconds else 0,
        "read_failures": sum(reads.failures.values()),
    }


FAILING = (
    "lost",
    "duplicated",
    "phantom",
    "gaps",
    "wrong_totals",
    "wrong_standings",
    "wrong_ratings",
    "errors_5xx",
    "refused",
    "unanswered",
    "crashes",
    "read_failures",
)


def failed(result: dict[str, Any]) -> list[str]:
    """The counts that are not zero (and integrity, when it is not "ok")."""
    found = [name for name in FAILING if result[name]]
    return found + (["integrity"] if result["integrity"] != "ok" else [])


def print_summary(
    result: dict[str, Any],
    findings: Findings,
    traffic: Traffic,
    reads: Reads,
    server: Server,
    kept: Path | None,
) -> None:
    r = result
    print(f"Soak on {r['database']}: {r['scorers']} scorers for {r['seconds']:g} s, ", end="")
    print(f"{r['kills']} kill -9 (restarts took {_seconds(server.restart_seconds)}), ", end="")
    print(f"history of {r['history']} matches built in {r['build_seconds']} s")
    print(f"  requests {r['requests']}, resent {r['resent']}, answers {dict(traffic.statuses)}")
    print(
        f"  saves acknowledged {r['acknowledged']} ({r['records_acknowledged']} new deals, "
        f"{r['corrections_acknowledged']} corrections); refused as stale {r['stale']}, "
        f"closed meanwhile {r['closed']}, otherwise refused {r['refused']}, "
        f"unanswered {r['unanswered']}"
    )
    print(f"  database: {r['matches']} matches, {r['deals']} deals, integrity {r['integrity']}")
    if r["read_seconds"]:
        print(
            f"  reads: {r['reads']} pages in {reads.seconds:.0f} s "
            f"({r['reads_per_second']}/s), not 200: {r['read_failures']}"
        )
        for what, n in reads.failures.most_common(5):
            print(f"    {n} x {what}")
    for what in FAILING:
        print(f"  {what}: {r[what]}")
    for what, shown in findings.examples.items():
        for example in shown:
            print(f"    {what}: {example}")
    for error in (traffic.server_errors + reads.traffic.server_errors)[:10]:
        print(f"    5xx: {error}")
    for crash in server.crashes:
        print(f"  CRASH: the server {crash}; its log: {kept}/server.log")
    problems = failed(r)
    print("FAILED: " + ", ".join(problems) if problems else "Every check passed.")


def _seconds(values: list[float]) -> str:
    return ", ".join(f"{v:.1f} s" for v in values) or "none"


if __name__ == "__main__":
    raise SystemExit(main())
