"""Soak the real server: scorers save deals, the server is killed and restarted, then check.

    python bench/soak.py [--scorers 8] [--seconds 60] [--read-seconds 60] [--connections 16]
                         [--database-url URL] [--port P] [--history 200] [--server-threads 8]
                         [--server-workers 1] [--no-kill] [--keep]

Starts ``scorekeeper serve`` (waitress; ``--server-workers`` processes, which on SQLite
save deals reading before their turn to write) on 127.0.0.1 as a child process with
``PYTHONFAULTHANDLER=1``, on a fresh temporary SQLite file or on ``--database-url`` (default
``$DATABASE_URL``; it must hold no scorekeeper tables). Before the server starts, a club with
``--history`` finished matches (``bench/history.py``) and shared matches are stored through
the services, with what a real club has: an account that owns it and one account with the
scorer role per scorer (``services.accounts``, ``services.memberships``). Then ``--scorers``
phones enter and correct deals through the real forms for ``--seconds``
(``bench/soak_scorers.py``): the club's matches logged in (each scorer logs in once through
the real log-in form), casual ones without an account. Half-way (once a save is
acknowledged) the server gets ``kill -9`` and is started again, and every request left
without an answer is sent again with the same form data; log-ins are stored in the
database, so the scorers stay logged in. A read phase follows: ``--connections`` phones
request every page for ``--read-seconds`` (every other one logged in as the club's owner).
The server is watched throughout: a death nobody asked for is counted as a crash (its log
is kept) and the server restarted, as a supervisor would. Last, with the server stopped,
the database is checked (``bench/soak_check.py``).

Prints a summary, then, last, one line of JSON. Exits 1 when anything was lost, stored
twice or wrong, a request answered 5xx, a phone could not log in, the server crashed, or
integrity is not "ok".
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402

from bench.soak_check import Findings, check  # noqa: E402
from bench.soak_client import Ledger, Traffic  # noqa: E402
from bench.soak_phases import (  # noqa: E402
    Prepared,
    Reads,
    drop_everything,
    prepare,
    read_phase,
    read_urls,
    write_phase,
)
from bench.soak_server import Server, free_port  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scorers", type=int, default=8, help="phones saving deals (8)")
    parser.add_argument("--seconds", type=float, default=60, help="length of the write phase")
    parser.add_argument(
        "--read-seconds", type=float, default=60, help="length of the read phase (0: none)"
    )
    parser.add_argument("--connections", type=int, default=16, help="phones reading pages (16)")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="an empty database (default: $DATABASE_URL, else a temporary SQLite file)",
    )
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: free)")
    parser.add_argument("--history", type=int, default=200, help="finished club matches before")
    parser.add_argument("--server-threads", type=int, default=8, help="waitress threads (8)")
    parser.add_argument(
        "--server-workers", type=int, default=1, help="server processes (serve --workers, 1)"
    )
    parser.add_argument("--no-kill", action="store_true", help="do not kill -9 the server")
    parser.add_argument("--keep", action="store_true", help="keep the database and the log")
    args = parser.parse_args(argv)
    if min(args.scorers, args.connections, args.server_threads, args.server_workers) < 1:
        parser.error(
            "--scorers, --connections, --server-threads and --server-workers must be at least 1"
        )
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
    prepared = prepare(app, args.history, shared=max(2, args.scorers // 2), scorers=args.scorers)
    built = time.monotonic() - began
    env = {
        **os.environ,
        "DATABASE_URL": uri,
        "SCOREKEEPER_SECRET_KEY": key,  # the same key after a restart: forms stay valid
        "SCOREKEEPER_RATELIMIT_LOGIN": login_limit(args.scorers, args.connections),
        # phones of one member log in as one account: the same room for it
        "SCOREKEEPER_RATELIMIT_LOGIN_ACCOUNT": login_limit(args.scorers, args.connections),
        "PYTHONFAULTHANDLER": "1",
    }
    server = Server(
        args.port or free_port(),
        env,
        folder / "server.log",
        args.server_threads,
        args.server_workers,
    )
    try:
        server.start()
        server.watch()
        ledger, traffic = write_phase(
            server, prepared, args.scorers, args.seconds, kill=not args.no_kill
        )
        reads = Reads()
        if args.read_seconds:
            pages = read_urls(app, prepared.club_id)
            reads = read_phase(
                server.port, pages, prepared.owner, args.connections, args.read_seconds
            )
    finally:
        server.stop()
    with app.app_context():
        findings = check(ledger.writes, prepared.baseline)
        db.session.remove()
        db.engine.dispose()
    result = summary(args, app, prepared, ledger, traffic, reads, server, findings, built)
    ok = not failed(result)
    print_summary(result, findings, ledger, traffic, reads, server, folder if not ok else None)
    print(json.dumps(result, sort_keys=False))
    if args.keep or not ok:
        print(f"soak: kept {folder} (server log) and the database {_safe(uri)}", file=sys.stderr)
        if not uri.startswith("sqlite"):
            print(
                "soak: the next run needs it empty: drop its tables (bench/README.md)",
                file=sys.stderr,
            )
    else:
        if not uri.startswith("sqlite"):
            drop_everything(app)
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if ok else 1


def login_limit(scorers: int, connections: int) -> str:
    """The soak server's log-in rate limit: every phone comes from 127.0.0.1, where a real
    server sees each phone's own address; so the limit (``RATELIMIT_LOGIN``, 10 a minute
    and 60 an hour per address) is raised to let each phone log in twice (once, and once
    more should it be logged out) within a minute, and never lowered."""
    per_minute = max(10, 2 * (scorers + connections))
    return f"{per_minute} per minute;{max(60, 6 * per_minute)} per hour"


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
        "ratings_caught_up": findings.ratings_caught_up,
        "stale": ledger.count("stale"),
        "closed": ledger.count("closed"),
        "refused": ledger.count("refused"),
        "unanswered": ledger.count("unanswered") + traffic.unanswered + reads.traffic.unanswered,
        "logged_out": ledger.count("logged_out"),
        "logins": traffic.logins + reads.traffic.logins,
        "relogins": traffic.relogins + reads.traffic.relogins,
        "login_failures": len(traffic.login_failures) + len(reads.traffic.login_failures),
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
        "slowest_read_seconds": round(reads.slowest[0], 1),
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
    "login_failures",
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
    ledger: Ledger,
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
    print(
        f"  log-ins {r['logins']} (of which again, after being logged out: {r['relogins']}); "
        f"saves sent while logged out {r['logged_out']}"
    )
    print(f"  database: {r['matches']} matches, {r['deals']} deals, integrity {r['integrity']}")
    if r["read_seconds"]:
        print(
            f"  reads: {r['reads']} pages in {reads.seconds:.0f} s "
            f"({r['reads_per_second']}/s), not 200: {r['read_failures']}, slowest "
            f"{reads.slowest[0]:.1f} s ({reads.slowest[1]})"
        )
        for what, n in reads.failures.most_common(5):
            print(f"    {n} x {what}")
    for what in FAILING:
        print(f"  {what}: {r[what]}")
        if what == "refused":
            reasons = Counter(f"{w.kind} {w.reason}" for w in ledger.writes if w.reason)
            for reason, n in reasons.most_common(5):
                print(f"    {n} x {reason}")
    for what, shown in findings.examples.items():
        for example in shown:
            print(f"    {what}: {example}")
    for failure in (traffic.login_failures + reads.traffic.login_failures)[:10]:
        print(f"    could not log in: {failure}")
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
