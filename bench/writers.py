"""Sixteen phones saving to one club at once, and what each save costs the server (issue 17).

    python bench/writers.py [--database-url URL] [--size 1000] [--kinds deal_post,finish_post]
                            [--threads 4,8] [--workers 1] [--posts 300] [--seconds 10]
                            [--rounds 2] [--connections 16] [--cache-dir DIR | --no-cache]

``run.py`` reports the served p95 of its POSTs with 16 connections; this says why it is
what it is, and compares server settings at the same hour. For each setting (every
``--threads`` with every ``--workers``), in turn, ``--rounds`` times (ABBA order when two
settings are compared, so a drift of the machine's speed falls on both alike), it serves a
copy of ``run.py``'s cached club with ``scorekeeper serve`` on loopback and sends each POST
kind of ``--kinds`` (``run.py``'s: ``deal_post``, ``finish_post``, ``finish_late_post``)
from ``--connections`` connections, each on a match of its own prepared for it, until
``--seconds`` pass or the matches run out. Reported per setting and kind: requests per
second, p50/p95/p99, and the CPU the server's processes used a request (from ``/proc``,
Linux), with PostgreSQL's server processes' beside it (on the same machine). By Little's
law, 16 waiting writers see about 16 times a write's server time when writes are one at
a time: the CPU a request is what a p95 target comes down to.

The kinds are sent in the order given, and the order matters for ``finish_late_post``:
sent after ``finish_post``, whose hundreds of finishes tonight all come after a night
three weeks back, every late finish has more than ``ratings.IN_REQUEST`` matches after
it, so it only marks the club's ratings as updating and leaves the replay to the
catch-up after the answer (whose work runs on beside the next requests). ``run.py``
serves its late finishes before tonight's, so they rate again in the request; give
``--kinds finish_late_post,finish_post`` to measure the same path.

A POST is answered 200 (htmx's fragment) or counted as a failure. The last line is one
line of JSON. Exits 0 when every request was answered as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402
from bench.soak_client import Member, Traffic, forms_of  # noqa: E402
from bench.soak_server import Server, free_port  # noqa: E402
from bench.workers import cpu_seconds  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.keeper import THREADS  # noqa: E402

KINDS = ("deal_post", "finish_post", "finish_late_post")


def postgres_cpu() -> float:
    """CPU seconds of every PostgreSQL server process on this machine (0.0 if none), each
    counted once: the trees of the servers' first processes, whose children the others
    are (``cpu_seconds`` of every process counted the connections' processes twice, once
    more under the server's)."""
    found = subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True)
    pids = {int(pid) for pid in found.stdout.split() if pid.isdigit()}
    return sum(cpu_seconds(pid) for pid in pids if parent_of(pid) not in pids)


def parent_of(pid: int) -> int | None:
    """The process's parent (None: gone, or not Linux)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def one_setting(
    built: run.Built, args: argparse.Namespace, threads: int, workers: int, log: Path
) -> dict[str, Any]:
    """Serve the club with these settings and send every kind of POST; each kind's figures."""
    prepared = run.prepare(built.uri, built.history, args.posts, 0, args.kinds)
    env = {
        **os.environ,
        "DATABASE_URL": built.uri,
        "SCOREKEEPER_SECRET_KEY": args.secret,
        "PYTHONFAULTHANDLER": "1",
    }
    server = Server(free_port(), env, log, threads, workers)
    figures: dict[str, Any] = {}
    with run.serving(server):
        member = Member(server.port, Traffic(1000), prepared.username, prepared.password)
        member.log_in()
        page = member.get(prepared.paths["match_form"])
        form = forms_of(page.text).get(f"{prepared.paths['match_form']}/deals") if page else None
        if form is None:
            raise SystemExit("bench: the scorer's match page has no deal form")
        cookie = "; ".join(f"{k}={v}" for k, v in member.cookies.items())
        member.close()
        rng, lock = random.Random(23), threading.Lock()
        for kind in args.kinds:
            ids = iter(prepared.served[kind])
            expected = run.PREPARED[kind][0] + 1

            def next_post(ids: Any = ids, expected: int = expected) -> run.Request | None:
                with lock:
                    public_id = next(ids, None)
                    if public_id is None:
                        return None
                    body = run.deal_post(public_id, form, expected, rng)
                headers = {
                    "Cookie": cookie,
                    "Content-Type": "application/x-www-form-urlencoded",
                    "HX-Request": "true",
                }
                return ("POST", f"/m/{public_id}/deals", body, headers)

            run.warm(server.port, next_post, run.WARM_UP, workers)
            assert server.process is not None
            cpu, pg = cpu_seconds(server.process.pid), postgres_cpu()
            load = run.hammer(server.port, next_post, args.connections, args.seconds)
            cpu, pg = cpu_seconds(server.process.pid) - cpu, postgres_cpu() - pg
            done = load.figures()
            n = done["requests"] or 1
            done["server_cpu_ms"] = round(1000 * cpu / n, 2)
            if built.uri.startswith("postgresql"):
                done["postgres_cpu_ms"] = round(1000 * pg / n, 2)
            done["failed"] = dict(load.failures)
            figures[kind] = done
    return figures


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--size", type=int, default=1000, help="the club's finished matches")
    parser.add_argument("--kinds", default="deal_post,finish_post", help="POST kinds (run.py's)")
    parser.add_argument("--threads", default=str(THREADS), help="waitress threads to compare")
    parser.add_argument("--workers", default="1", help="server processes to compare")
    parser.add_argument("--posts", type=int, default=300, help="prepared matches per kind")
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (ABBA when two settings)")
    parser.add_argument("--connections", type=int, default=16, help="load connections (16)")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--no-cache", action="store_true", help="build the club afresh")
    args = parser.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not args.kinds or any(k not in KINDS for k in args.kinds):
        parser.error(f"--kinds takes some of {', '.join(KINDS)}")
    try:
        threads = [int(t) for t in args.threads.split(",")]
        workers = [int(w) for w in args.workers.split(",")]
    except ValueError:
        parser.error("--threads and --workers take numbers separated by commas, e.g. 4,8")
    if min(threads + workers) < 1 or args.size < 1 or args.posts < 1 or args.rounds < 1:
        parser.error("--threads, --workers, --size, --posts and --rounds must be positive")
    if args.seconds <= 0 or args.connections < 1:
        parser.error("--seconds and --connections must be positive")
    args.settings = [(t, w) for t in threads for w in workers]
    run.refuse_sqlite_url(parser, args.database_url)
    if args.no_cache:
        args.cache_dir = None
    elif args.cache_dir is None:
        args.cache_dir = run.default_cache()
    args.secret = os.urandom(16).hex()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    url = normalise_db_url(args.database_url) if args.database_url else None
    order = list(args.settings)
    plan = [order if r % 2 == 0 else order[::-1] for r in range(args.rounds)]
    results: dict[str, list[dict[str, Any]]] = {f"{t}x{w}": [] for t, w in args.settings}
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-writers-") as folder:
        work = Path(folder)
        for n, (threads, workers) in enumerate(s for settings in plan for s in settings):
            # a fresh copy each time, in a folder of its own (a SQLite copy must not meet
            # the last one's write-ahead log): every setting starts from the same club
            place = work / str(n)
            place.mkdir()
            built = run.club(args.size, url, place, args.cache_dir)
            try:
                figures = one_setting(built, args, threads, workers, place / "server.log")
            finally:
                built.drop()
            results[f"{threads}x{workers}"].append(figures)
            for kind, f in figures.items():
                failed = failed or bool(f["failures"])
                pg = f" postgres {f['postgres_cpu_ms']} ms" if "postgres_cpu_ms" in f else ""
                print(
                    f"{threads} threads x {workers} process(es), {kind}: {f['rps']} req/s,"
                    f" p50 {f['p50_ms']} p95 {f['p95_ms']} p99 {f['p99_ms']} ms,"
                    f" server CPU {f['server_cpu_ms']} ms a request{pg},"
                    f" {f['failures']} failures",
                    flush=True,
                )
    report = {
        "database": (url or "sqlite").split(":")[0].split("+")[0],
        "size": args.size,
        "connections": args.connections,
        "settings": {f"{t}x{w}": {"threads": t, "workers": w} for t, w in args.settings},
        "rounds": results,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(report))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
