"""The CSV exports at two club sizes: total time, time to first byte, memory (issue 17).

    python bench/exports.py [--sizes 1000,10000] [--repeat 5] [--memory] [--database-url URL]
                            [--profile SIZE] [--top 25] [--cache-dir DIR | --no-cache]

Clubs come from ``bench/run.py``'s builder and cache (a SQLite file per size, built once;
on PostgreSQL, ``--database-url``, a cached database per size, each run on a copy that is
dropped after it: drop the cached ``<name>_c<size>_<key>`` databases by hand when done).
For each size, in-process with Flask's test client, after one warm-up request, ``--repeat``
interleaved rounds of:

- the matches CSV (the club's whole history, a row per side per deal): the time to the
  first chunk of the body (the response is read unbuffered, as a server sends it) and to
  the last, and the CPU time of the request (steadier than wall time on a shared
  machine); its SQL statements; its size, rows and a digest of its bytes (the same digest
  before and after a change means the same file);
- the standings CSV, the same way;
- a baseline that does not depend on the history (``/api/v1/rules``), so a noisy machine
  shows in its growth.

``--memory`` adds one more request of each CSV under ``tracemalloc`` and reports the peak of
Python's allocations during it (slower: not part of the timings), reading the body as a
server does: each chunk dropped once read, so only what the app holds is counted.
``--profile SIZE`` prints cProfile's top functions of one matches CSV at that size.

Every figure is also given as a growth from the first size to the second: 1.0x is an
answer that does not depend on the history; the whole history's file cannot be flat, but
its time to first byte and its memory can.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import os
import pstats
import statistics
import sys
import tempfile
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import event

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.run import Built, club, fetch  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402

REQUESTS = {
    "matches CSV": "/c/{club}/matches.csv",
    "standings CSV": "/c/{club}/standings.csv",
    "baseline: rules JSON": "/api/v1/rules",
}


def measure(uri: str, club: str, repeat: int, memory: bool) -> dict[str, Any]:
    """Every request of ``REQUESTS`` on the club at ``uri``, interleaved rounds."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "bench"})
    client = app.test_client()
    urls = {name: url.format(club=club) for name, url in REQUESTS.items()}
    found: dict[str, dict[str, Any]] = {
        name: {"first": [], "total": [], "cpu": [], "statements": 0} for name in urls
    }
    counter = {"n": 0}

    def count(*_args: object) -> None:
        counter["n"] += 1

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        for round_ in range(repeat + 1):
            for name, url in urls.items():
                counter["n"] = 0
                first, total, cpu, body, status = fetch(client, url)
                if status != 200:
                    raise SystemExit(f"bench: {url} answered {status}")
                figures = found[name]
                figures["statements"] = max(figures["statements"], counter["n"])
                figures["bytes"] = len(body)
                figures["rows"] = body.count(b"\r\n")
                figures["sha256"] = hashlib.sha256(body).hexdigest()[:16]
                if round_:  # the first request compiles, loads catalogs and fills caches
                    figures["first"].append(first)
                    figures["total"].append(total)
                    figures["cpu"].append(cpu)
        if memory:
            for name, url in urls.items():
                tracemalloc.start()
                fetch(client, url, keep=False)
                found[name]["peak_kb"] = round(tracemalloc.get_traced_memory()[1] / 1024)
                tracemalloc.stop()
    finally:
        event.remove(engine, "before_cursor_execute", count)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    for figures in found.values():
        for key in ("first", "total", "cpu"):
            figures[f"{key}_ms"] = round(statistics.median(figures.pop(key)) * 1000, 2)
    return found


def profile(uri: str, club: str, top: int) -> None:
    """cProfile's top functions (by cumulative time) of one matches CSV, after a warm-up."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "bench"})
    client = app.test_client()
    url = REQUESTS["matches CSV"].format(club=club)
    fetch(client, url)
    profiler = cProfile.Profile()
    profiler.enable()
    fetch(client, url)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def growth(small: float, large: float) -> str:
    return f"{large / small:.2f}x" if small else "-"


def print_table(sizes: list[int], by_size: dict[int, dict[str, Any]]) -> None:
    a, b = sizes
    print(
        f"| request | first byte ms @{a} | @{b} | growth | total ms @{a} | @{b} | growth | "
        f"CPU ms @{a} | @{b} | growth | rows @{a} | @{b} | CPU µs/row @{b} | "
        f"SQL @{a} → @{b} | peak KB @{a} | @{b} | sha256 @{b} |"
    )
    print("|" + "---|" * 17)
    for name in REQUESTS:
        s, g = by_size[a][name], by_size[b][name]
        per_row = g["cpu_ms"] * 1000 / g["rows"] if g["rows"] > 1 else 0.0
        print(
            f"| {name} | {s['first_ms']} | {g['first_ms']} | "
            f"{growth(s['first_ms'], g['first_ms'])} | {s['total_ms']} | {g['total_ms']} | "
            f"{growth(s['total_ms'], g['total_ms'])} | {s['cpu_ms']} | {g['cpu_ms']} | "
            f"{growth(s['cpu_ms'], g['cpu_ms'])} | {s['rows']} | {g['rows']} | "
            f"{per_row:.1f} | {s['statements']} → {g['statements']} | "
            f"{s.get('peak_kb', '-')} | {g.get('peak_kb', '-')} | {g['sha256']} |"
        )


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="two club sizes, small,large")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds at each size")
    parser.add_argument("--memory", action="store_true", help="peak allocations (tracemalloc)")
    parser.add_argument("--database-url", help="a PostgreSQL server's URL (default: SQLite)")
    parser.add_argument("--profile", type=int, help="profile one matches CSV at this size")
    parser.add_argument("--top", type=int, default=25, help="functions the profile shows")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept")
    parser.add_argument("--no-cache", action="store_true", help="build every club afresh")
    args = parser.parse_args(argv)
    args.sizes = [int(size) for size in args.sizes.split(",")]
    if len(args.sizes) != 2 or not 0 < args.sizes[0] < args.sizes[1]:
        parser.error("--sizes takes two sizes, the smaller first")
    if args.no_cache:
        args.cache_dir = None
    elif args.cache_dir is None:
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        args.cache_dir = home / "scorekeeper-bench"
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    by_size: dict[int, dict[str, Any]] = {}
    url = normalise_db_url(args.database_url) if args.database_url else None
    with tempfile.TemporaryDirectory() as work:
        for size in args.sizes if args.profile is None else [args.profile]:
            built: Built = club(size, url, Path(work), args.cache_dir)
            try:
                if args.profile is not None:
                    profile(built.uri, built.history.club_id, args.top)
                    return 0
                by_size[size] = measure(built.uri, built.history.club_id, args.repeat, args.memory)
            finally:
                built.drop()
    print(f"{args.sizes[0]} vs {args.sizes[1]} finished matches, median of {args.repeat}\n")
    print_table(args.sizes, by_size)
    print(json.dumps({str(size): figures for size, figures in by_size.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
