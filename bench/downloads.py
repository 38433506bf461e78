"""Pages served while a club's whole history is downloaded as CSV (issue 17, eighteenth round).

    python bench/downloads.py [--database-url URL] [--size 10000] [--workers 2] [--threads N]
                              [--connections 8] [--downloads 2] [--seconds 8] [--start 2]
                              [--cache-dir DIR | --no-cache]

A download of the whole history's CSV is made as it is sent, on its request's thread.
With ``serve``'s processes of one thread, every connection a process held waited for it
until the process was given a thread more meanwhile (``keeper.Beside``). This serves a
copy of ``run.py``'s cached club with ``scorekeeper serve`` on loopback (``serve``'s
processes and threads unless ``--workers`` and ``--threads`` say), has ``--connections``
keep-alive connections get the finished match page for ``--seconds``, and ``--start``
seconds in, starts ``--downloads`` downloads of the CSV, 50 ms apart (the processes
share the new connections out). Reported: the pages a second, their p50, p99 and the
slowest, and each download's time and size. The last line is one line of JSON. Exits 0
when every request was answered 200, 1 otherwise.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402
from bench.soak_client import HOST  # noqa: E402
from bench.soak_server import Server, free_port  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.keeper import default_threads, default_workers  # noqa: E402


def measure(port: int, paths: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """The pages' and the downloads' figures of one run against the server at ``port``."""
    pages: list[float] = []
    downloads: list[dict[str, Any]] = []
    failures: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def get_pages() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=run.TIMEOUT)
        try:
            while time.monotonic() < stop:
                began = time.perf_counter()
                conn.request("GET", paths["page"])
                answer = conn.getresponse()
                answer.read()
                with lock:
                    if answer.status == 200:
                        pages.append(time.perf_counter() - began)
                    else:
                        failures.append(f"page -> {answer.status}")
        finally:
            conn.close()

    def download() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=run.TIMEOUT)
        try:
            began = time.perf_counter()
            conn.request("GET", paths["csv"])
            answer = conn.getresponse()
            size = len(answer.read())
            took = time.perf_counter() - began
            with lock:
                if answer.status == 200:
                    downloads.append({"seconds": round(took, 3), "bytes": size})
                else:
                    failures.append(f"csv -> {answer.status}")
        finally:
            conn.close()

    readers = [threading.Thread(target=get_pages) for _ in range(args.connections)]
    for thread in readers:
        thread.start()
    time.sleep(args.start)
    downloaders = []
    for _ in range(args.downloads):
        thread = threading.Thread(target=download)
        thread.start()
        downloaders.append(thread)
        time.sleep(0.05)
    for thread in [*downloaders, *readers]:
        thread.join()
    ordered = sorted(pages)
    cuts = statistics.quantiles(ordered, n=100) if len(ordered) >= 2 else ordered * 99
    return {
        "pages": len(ordered),
        "pages_per_second": round(len(ordered) / args.seconds, 1),
        "p50_ms": round(cuts[49] * 1000, 2) if cuts else 0.0,
        "p99_ms": round(cuts[98] * 1000, 2) if cuts else 0.0,
        "slowest_ms": round(ordered[-1] * 1000, 2) if ordered else 0.0,
        "downloads": downloads,
        "failures": failures,
    }


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--size", type=int, default=10000, help="the club's finished matches")
    parser.add_argument("--workers", type=int, default=default_workers(), help="processes")
    parser.add_argument("--threads", type=int, help="threads a process (serve's default)")
    parser.add_argument("--connections", type=int, default=8, help="connections on the page")
    parser.add_argument("--downloads", type=int, default=2, help="CSV downloads")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long pages are got")
    parser.add_argument("--start", type=float, default=2.0, help="when the downloads start")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--no-cache", action="store_true", help="build the club afresh")
    args = parser.parse_args(argv)
    if min(args.size, args.workers, args.connections) < 1 or args.downloads < 0:
        parser.error("--size, --workers and --connections must be positive, --downloads 0 or more")
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be positive")
    if args.seconds <= 0 or not 0 <= args.start < args.seconds:
        parser.error("--seconds must be positive and --start within it")
    run.refuse_sqlite_url(parser, args.database_url)
    if args.threads is None:
        args.threads = default_threads(args.workers)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    url = normalise_db_url(args.database_url) if args.database_url else None
    cache = None if args.no_cache else (args.cache_dir or run.default_cache())
    with tempfile.TemporaryDirectory(prefix="bench-downloads-") as tmp:
        work = Path(tmp)
        built = run.club(args.size, url, work, cache)
        try:
            made = built.history
            paths = {"page": f"/m/{made.match_id}", "csv": f"/c/{made.club_id}/matches.csv"}
            env = {**os.environ, "DATABASE_URL": built.uri, "PYTHONFAULTHANDLER": "1"}
            env["SCOREKEEPER_SECRET_KEY"] = "bench-downloads"
            server = Server(free_port(), env, work / "server.log", args.threads, args.workers)
            with run.serving(server):
                run.warm(server.port, ("GET", paths["page"], None, {}), run.WARM_UP, args.workers)
                figures = measure(server.port, paths, args)
        finally:
            built.drop()
    database = "postgresql" if url else "sqlite"
    took = ", ".join(f"{d['seconds']} s" for d in figures["downloads"]) or "none"
    print(
        f"{args.size} matches ({database}), {args.workers} process(es) of {args.threads}"
        f" thread(s): {figures['pages_per_second']} pages a second, p50"
        f" {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms, slowest"
        f" {figures['slowest_ms']} ms; downloads {took}"
    )
    report = {"database": database, "size": args.size, "workers": args.workers}
    print(json.dumps({**report, "threads": args.threads, **figures}))
    return 1 if figures["failures"] or len(figures["downloads"]) < args.downloads else 0


if __name__ == "__main__":
    raise SystemExit(main())
