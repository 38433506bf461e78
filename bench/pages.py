"""Do the pages stay flat as a club's history grows? Times and SQL queries, small vs large.

    python bench/pages.py [--db URL] [--small 20] [--large 400] [--repeat 25] [--max-ratio 3]

Builds a small club's history in a fresh database and times its pages, then builds a large
club's history beside it and times the same pages of the large club (the home page, which
shows every club's matches, is timed with the small history alone, then with both). Each
page is requested in-process with Flask's test client; the report gives the median time
at both sizes, the ratio large/small and the SQL queries of one request at both sizes.
Two trivial pages (a stylesheet and the rules JSON) are timed the same way as a baseline,
so a noisy machine shows in their ratio. Exits 1 when a page's query count grows with
the history or its time ratio passes ``--max-ratio``. See bench/README.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flask import Flask
from sqlalchemy import event, inspect

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.history import TONIGHT, ClubHistory, build_club  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402

PAGES: dict[str, Callable[[ClubHistory], str]] = {
    "club standings": lambda h: f"/c/{h.club_id}",
    "standings CSV": lambda h: f"/c/{h.club_id}/standings.csv",
    "player page": lambda h: f"/c/{h.club_id}/p/{h.player_id}",
    "match page": lambda h: f"/m/{h.match_id}",
    "club night": lambda h: f"/c/{h.club_id}/tonight",
    "home page": lambda h: "/",
}
BASELINES: dict[str, Callable[[ClubHistory], str]] = {
    "baseline: app.css": lambda h: "/static/css/app.css",
    "baseline: rules JSON": lambda h: "/api/v1/rules",
}


@dataclass
class Measure:
    """One page at one history size: its URL, answers and the time of each request."""

    url: str
    status: int = 0
    queries: int = 0  # SQL statements of one request (the most seen in any request)
    size: int = 0  # bytes of the body
    seconds: list[float] = field(default_factory=list)

    @property
    def median_ms(self) -> float:
        """The median time of the timed requests, in milliseconds."""
        return statistics.median(self.seconds) * 1000 if self.seconds else 0.0


@dataclass
class Row:
    """A page measured with the small history and with the large one."""

    name: str
    small: Measure
    large: Measure
    baseline: bool = False

    @property
    def ratio(self) -> float:
        """Median time with the large history over median time with the small one."""
        return self.large.median_ms / self.small.median_ms if self.small.median_ms else 0.0


@dataclass
class Report:
    """Every row of one run, and the history sizes it compared."""

    small: int
    large: int
    repeat: int
    rows: list[Row]


def run(app: Flask, small: int = 20, large: int = 400, repeat: int = 25) -> Report:
    """Build both histories in ``app``'s (empty) database and measure every page.

    The small club is built and measured first, alone in the database; then the large
    club is built and measured, so the home page sees the small and then both histories.
    """
    counter = {"n": 0}

    def _count(*_args: object) -> None:
        counter["n"] += 1

    everything = {**PAGES, **BASELINES}
    measured: list[dict[str, Measure]] = []
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", _count)
    try:
        for number, size in enumerate((small, large)):
            with app.app_context():  # closed before the requests: each gets its own session
                history = build_club(f"Bench club {size} ({number + 1})", size, seed=7 + number)
            urls = {name: url_of(history) for name, url_of in everything.items()}
            measured.append(_measure(app, urls, repeat, counter))
    finally:
        event.remove(engine, "before_cursor_execute", _count)
    rows = [
        Row(name, measured[0][name], measured[1][name], baseline=name in BASELINES)
        for name in everything
    ]
    return Report(small, large, repeat, rows)


def _measure(
    app: Flask, urls: dict[str, str], repeat: int, counter: dict[str, int]
) -> dict[str, Measure]:
    """Request every page once to warm up, then ``repeat`` rounds of every page in turn."""
    client = app.test_client()
    found = {name: Measure(url) for name, url in urls.items()}
    for round_ in range(repeat + 1):
        for measure in found.values():
            counter["n"] = 0
            start = time.perf_counter()
            response = client.get(measure.url)
            body = response.get_data()
            elapsed = time.perf_counter() - start
            measure.status, measure.size = response.status_code, len(body)
            measure.queries = max(measure.queries, counter["n"])
            if round_:  # the first round compiles templates and fills caches
                measure.seconds.append(elapsed)
    return found


def problems(report: Report, max_ratio: float) -> list[str]:
    """What keeps the run from passing: failed requests, growing queries, slow ratios."""
    found = []
    noise = max((r.ratio for r in report.rows if r.baseline), default=1.0)
    for row in report.rows:
        for measure in (row.small, row.large):
            if measure.status != 200:
                found.append(f"{row.name}: {measure.url} answered {measure.status}, not 200")
        if row.baseline:
            continue
        if row.large.queries > row.small.queries:
            found.append(
                f"{row.name}: {row.small.queries} SQL queries with {report.small} matches but "
                f"{row.large.queries} with {report.large}: the query count grows with history"
            )
        if row.ratio > max_ratio:
            found.append(
                f"{row.name}: {row.ratio:.2f}x slower with {report.large} matches than with "
                f"{report.small} (limit {max_ratio:g}x; the baseline moved {noise:.2f}x)"
            )
    return found


def format_table(report: Report) -> str:
    """The report as a Markdown table."""
    head = (
        f"| page | ms @{report.small} | ms @{report.large} | ratio | "
        f"queries @{report.small} | queries @{report.large} | KB @{report.small} | "
        f"KB @{report.large} |"
    )
    lines = [head, "|" + "---|" * 8]
    for row in report.rows:
        s, g = row.small, row.large
        lines.append(
            f"| {row.name} | {s.median_ms:.1f} | {g.median_ms:.1f} | {row.ratio:.2f} | "
            f"{s.queries} | {g.queries} | {s.size / 1024:.1f} | {g.size / 1024:.1f} |"
        )
    return "\n".join(lines)


def bench_app(uri: str) -> Flask:
    """The app on ``uri``, with the tables created; refuses a database that has them."""
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": uri})
    with app.app_context():
        if inspect(db.engine).has_table("clubs"):
            db.engine.dispose()
            raise SystemExit(
                "bench: the database already has the scorekeeper's tables; give an empty "
                "database (the benchmark creates its tables and drops them when done)."
            )
        db.create_all()
    return app


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="an empty database URL (default: a temporary SQLite file)")
    parser.add_argument("--small", type=int, default=20, help="finished matches, small club")
    parser.add_argument("--large", type=int, default=400, help="finished matches, large club")
    parser.add_argument("--repeat", type=int, default=25, help="timed requests per page")
    parser.add_argument(
        "--max-ratio", type=float, default=3.0, help="largest time ratio large/small allowed"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.small < args.large:
        parser.error("--small must be at least 1 and below --large")
    if args.repeat < 1 or args.max_ratio <= 0:
        parser.error("--repeat must be at least 1 and --max-ratio above 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table, and return 1 when a page is not flat."""
    args = _arguments(argv)
    with tempfile.TemporaryDirectory() as folder:
        uri = normalise_db_url(args.db) if args.db else f"sqlite:///{folder}/bench.sqlite3"
        app = bench_app(uri)
        try:
            started = time.perf_counter()
            report = run(app, args.small, args.large, args.repeat)
        finally:
            with app.app_context():
                db.session.remove()
                db.drop_all()
                db.engine.dispose()
    print(f"{report.small} vs {report.large} finished club matches (plus {TONIGHT} tables ", end="")
    print(f"tonight), median of {report.repeat} requests, {time.perf_counter() - started:.0f} s\n")
    print(format_table(report))
    found = problems(report, args.max_ratio)
    if found:
        print("", file=sys.stderr)
    for problem in found:
        print(f"NOT FLAT: {problem}", file=sys.stderr)
    if not found:
        print(f"\nEvery page is flat: same queries, time ratio at most {args.max_ratio:g}x.")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
