"""Which SQL statement of a deal POST grows with the club's history? (issue 17)

    python bench/statements.py [--kind finish_post] [--sizes 1000,10000] [--requests 20]
                               [--database-url URL] [--top 15] [--cache-dir DIR]

``bench/run.py`` says *that* a POST grows from one club size to the next; this says
*which statement* does. For each size it takes ``run.py``'s cached club (the same cache
and copies), prepares ``--requests`` matches ready for the POST of ``--kind`` (one of
``run.py``'s POSTs: ``deal_post``, ``finish_post``, ``finish_late_post``,
``finish_night_post``), and sends them in-process, logged in as a scorer, as htmx does.
Every statement is timed (SQLAlchemy's cursor events) and named by its text and its
place among the request's statements of that text; the median of each is compared
between the two sizes. Printed: each size's median request time and statement count,
then the statements whose median grew the most, then the slowest at the larger size.
The last line is one line of JSON.

A statement whose time grows tenfold with a tenfold history reads the history: look at
its plan (``EXPLAIN QUERY PLAN`` on SQLite, ``EXPLAIN ANALYZE`` on PostgreSQL). This is
how the OR-spelled "at or after this match" conditions were found (10 ms of a 57 ms
finish at 10,000 matches; see docs/performance.md). With ``--profile``, the requests of
the last size are profiled with cProfile as well (its 40 costliest functions by
cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402

from bench import run  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.web import background  # noqa: E402

#: A statement: its text (whitespace folded) and its place among the request's statements
#: of the same text (the first INSERT of a kind, the second...).
Key = tuple[str, int]


def measure(
    built: run.Built, kind: str, requests: int, profile: bool
) -> tuple[list[float], dict[Key, list[float]], str]:
    """Each request's seconds and each statement's seconds, for ``requests`` POSTs."""
    prepared = run.prepare(built.uri, built.history, 0, requests)
    app = create_app({"SQLALCHEMY_DATABASE_URI": built.uri, "SECRET_KEY": "bench"})
    client, _page, form = run.scorer_client(app, prepared)
    rng = random.Random(29)
    totals: list[float] = []
    per: dict[Key, list[float]] = defaultdict(list)
    profiler = cProfile.Profile() if profile else None
    ran: list[tuple[str, float]] = []
    started: list[float] = []

    def before(*_args: Any) -> None:
        started.append(time.perf_counter())

    def after(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        ran.append((statement, time.perf_counter() - started.pop()))

    # Each request pushes its own app context, as under a server (nothing kept on ``g``,
    # the logged-in account above all, carries over); only the engine is taken before.
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        for public_id in prepared.local[kind]:
            body = run.deal_post(public_id, form, run.PREPARED[kind][0] + 1, rng)
            ran.clear()
            if profiler:
                profiler.enable()
            began = time.perf_counter()
            response = run.send_deal(client, public_id, body)
            totals.append(time.perf_counter() - began)
            if profiler:
                profiler.disable()
            if response.status_code != 200:
                raise SystemExit(f"bench: the POST answered {response.status_code}")
            seen: dict[str, int] = defaultdict(int)
            for statement, took in ran:
                text = " ".join(statement.split())
                seen[text] += 1
                per[text, seen[text]].append(took)
            response.close()  # as a server does, once the answer is sent
            background.join()  # (ratings caught up after it: not the next request's)
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        engine.dispose()
    report = ""
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
        report = out.getvalue()
    return totals, per, report


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", default="finish_post", choices=sorted(run.PREPARED))
    parser.add_argument("--sizes", default="1000,10000", help="club sizes (two)")
    parser.add_argument("--requests", type=int, default=20, help="POSTs per size")
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--top", type=int, default=15, help="statements listed")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--profile", action="store_true", help="cProfile the last size")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if len(args.sizes) != 2:
        parser.error("--sizes takes two sizes")
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    run.refuse_sqlite_url(parser, args.database_url)
    args.cache_dir = args.cache_dir or run.default_cache()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    url = normalise_db_url(args.database_url) if args.database_url else None
    found: dict[int, dict[str, Any]] = {}
    report = ""
    with tempfile.TemporaryDirectory(prefix="bench-statements-") as folder:
        for size in args.sizes:
            print(f"club of {size}: building or reusing…", file=sys.stderr, flush=True)
            built = run.club(size, url, Path(folder), args.cache_dir)
            try:
                last = size == args.sizes[-1]
                totals, per, report = measure(
                    built, args.kind, args.requests, args.profile and last
                )
            finally:
                built.drop()
            found[size] = {
                "ms": statistics.median(totals) * 1000,
                "per": {key: statistics.median(v) * 1000 for key, v in per.items()},
            }
    small, large = args.sizes
    a, b = found[small], found[large]
    for size in args.sizes:
        per = found[size]["per"]
        print(
            f"{args.kind} @{size}: {found[size]['ms']:.1f} ms median, "
            f"{len(per)} statements, {sum(per.values()):.1f} ms of them in the database"
        )
    rows = [
        (ms - a["per"].get(key, 0.0), a["per"].get(key, 0.0), ms, key)
        for key, ms in b["per"].items()
    ]
    print(f"\ngrew the most (ms @{small} → @{large}):")
    for grew, before, after, (text, n) in sorted(rows, reverse=True)[: args.top]:
        print(f"{before:8.2f} → {after:8.2f} ({grew:+.2f})  #{n} {text[:140]}")
    print(f"\nslowest @{large}:")
    for _grew, before, after, (text, n) in sorted(rows, key=lambda r: -r[2])[: args.top]:
        print(f"{before:8.2f} → {after:8.2f}  #{n} {text[:140]}")
    if report:
        print(report)
    print(
        json.dumps(
            {
                "kind": args.kind,
                "ms": {str(s): round(found[s]["ms"], 2) for s in args.sizes},
                "statements": {str(s): len(found[s]["per"]) for s in args.sizes},
                "growth": round(b["ms"] / a["ms"], 2) if a["ms"] else 0.0,
                "grew_most": [
                    {"statement": t[:200], "n": n, "ms": [round(x, 3), round(y, 3)]}
                    for _g, x, y, (t, n) in sorted(rows, reverse=True)[: args.top]
                ],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
