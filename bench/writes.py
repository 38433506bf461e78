"""Do saves stay flat as a club's history grows? (issue 17)

Two clubs are built through the services (``bench/history.py``: realistic deals, two
tables a night, twelve regulars), one of ``--small`` and one of ``--large`` finished
matches. In each, in-process, the same writes are timed ``--repeat`` times on fresh
matches of the same four regulars:

- ``deal``: an ordinary deal (deal 2 of a match being played);
- ``finish``: the deal that finishes a match played after every other (tonight's table);
- ``finish late``: the deal that finishes a match dated three weeks back (a night entered
  late: it is added to the standing lines, the games after it read to place it in the
  streak; its ratings are marked as updating when many matches follow it);
- ``correct``: a correction of deal 1 of tonight's finished match (reopened first, as the
  app does);
- ``correct old``: the same in the match half-way through the club's history: the request
  marks the club's ratings as updating from it (``services.ratings``);
- ``catch-up``: what the server does after answering that one: the ratings of every
  match after it rated again, in chunks. Outside the request, and the one figure here that
  grows with the history by design (it is not counted as a failure).

Each figure is the median time and the SQL statements of the timed call, for both clubs,
and the growth large/small, which is the measure (a baseline measured in the same run):
1.0x is a write that does not depend on the history. The last line is one line of JSON.
Exits 1 when a write's statements grow, or its time grows past ``--max-ratio``.

    python bench/writes.py [--db URL] [--small 100] [--large 1000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.history import PEOPLE, build_club  # noqa: E402
from bench.pages import bench_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.engine import PRESETS, Side  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.models import Club  # noqa: E402
from scorekeeper.models import Match as MatchRow  # noqa: E402
from scorekeeper.services import clubs, demo, matches, ratings  # noqa: E402

WRITES = ("deal", "finish", "finish late", "correct", "correct old", "catch-up")


def _entries(rng: random.Random) -> list[dict[str, Any]]:
    out = rng.randint(0, 1)
    return [demo.realistic_deal(rng, out == i) for i in range(2)]


def _start(club: Club, day: date, rng: random.Random) -> matches.LoadedMatch:
    four = rng.sample(PEOPLE, 4)
    sides = [Side(tuple(four[:2])), Side(tuple(four[2:]))]
    return clubs.start_club_match(club, PRESETS["classic"], sides, 0, day)


def _record(loaded: matches.LoadedMatch, rng: random.Random) -> matches.LoadedMatch:
    number = loaded.game.current_deal
    key = f"writes-{loaded.row.id}-{number}-{rng.random()}"
    loaded, _ = matches.record_deal(loaded, _entries(rng), key, number)
    return loaded


def _timed(work: Callable[[], object], engine: Any = None) -> tuple[float, int]:
    """Seconds and SQL statements of ``work`` (on ``engine``; the app's, by default)."""
    count = 0
    engine = engine if engine is not None else db.engine

    def counted(*_args: object) -> None:
        nonlocal count
        count += 1

    event.listen(engine, "before_cursor_execute", counted)
    try:
        started = time.perf_counter()
        work()
        took = time.perf_counter() - started
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    return took, count


def measure(club: Club, today: date, repeat: int, seed: int) -> dict[str, dict[str, float]]:
    """Median ms and statements of each write in ``club``."""
    rng = random.Random(seed)
    found: dict[str, list[tuple[float, int]]] = {name: [] for name in WRITES}
    history = db.session.scalars(
        select(MatchRow.public_id)
        .where(MatchRow.club_id == club.id, MatchRow.finished.is_(True))
        .order_by(MatchRow.played_on, MatchRow.id)
    ).all()
    old = history[len(history) // 2]
    deals = PRESETS["classic"].deals
    for round_ in range(repeat):
        tonight = today + timedelta(days=1 + round_)  # after every match of the history
        loaded = _record(_start(club, tonight, rng), rng)
        found["deal"].append(_timed(lambda loaded=loaded: _record(loaded, rng)))
        loaded = matches.load_match(loaded.row.public_id)
        while loaded.game.current_deal < deals:
            loaded = _record(loaded, rng)
        found["finish"].append(_timed(lambda loaded=loaded: _record(loaded, rng)))

        late = _start(club, today - timedelta(weeks=3), rng)
        while late.game.current_deal < deals:
            late = _record(late, rng)
        found["finish late"].append(_timed(lambda late=late: _record(late, rng)))

        def correct(public_id: str = loaded.row.public_id) -> None:
            reopened = matches.reopen(matches.load_match(public_id))
            matches.correct_deal(reopened, 1, _entries(rng), None)

        found["correct"].append(_timed(correct))
        found["correct old"].append(_timed(lambda: correct(old)))
        # what the server does once it has answered: bring the ratings up to date
        found["catch-up"].append(_timed(lambda: ratings.catch_up(club.id)))
    return {
        name: {
            "ms": round(statistics.median(t for t, _ in runs) * 1000, 2),
            "statements": statistics.median(n for _, n in runs),
        }
        for name, runs in found.items()
    }


def run(uri: str, small: int, large: int, repeat: int) -> dict[str, Any]:
    app = bench_app(uri)
    today = date.today()
    try:
        with app.app_context():
            figures = {}
            for size in (small, large):
                started = time.perf_counter()
                built = build_club(f"Club of {size}", size, today=today)
                club = db.session.scalar(select(Club).where(Club.public_id == built.club_id))
                assert club is not None
                build_s = time.perf_counter() - started
                figures[size] = {"build_s": round(build_s, 1), **measure(club, today, repeat, 3)}
                db.session.remove()
    finally:
        with app.app_context():
            db.session.remove()
            db.drop_all()
            db.engine.dispose()
    return {
        "small": small,
        "large": large,
        "repeat": repeat,
        "database": uri.split(":", 1)[0],
        "writes": {
            name: {
                "ms_small": figures[small][name]["ms"],
                "ms_large": figures[large][name]["ms"],
                "statements_small": figures[small][name]["statements"],
                "statements_large": figures[large][name]["statements"],
                "growth": round(figures[large][name]["ms"] / figures[small][name]["ms"], 2),
            }
            for name in WRITES
        },
        "build_s": {"small": figures[small]["build_s"], "large": figures[large]["build_s"]},
    }


def problems(report: dict[str, Any], max_ratio: float) -> list[str]:
    found = []
    for name, w in report["writes"].items():
        if name == "catch-up":  # outside the request: grows with what follows the change
            continue
        if w["statements_large"] > w["statements_small"]:
            found.append(f"{name}: {w['statements_small']} -> {w['statements_large']} statements")
        if w["growth"] > max_ratio:
            found.append(f"{name}: time grows {w['growth']}x (more than {max_ratio}x)")
    return found


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="an empty database URL (default: a temporary SQLite file)")
    parser.add_argument("--small", type=int, default=100, help="finished matches, small club")
    parser.add_argument("--large", type=int, default=1000, help="finished matches, large club")
    parser.add_argument("--repeat", type=int, default=15, help="timed writes of each kind")
    parser.add_argument("--max-ratio", type=float, default=1.3, help="largest growth allowed")
    args = parser.parse_args(argv)
    if not 1 <= args.small < args.large or args.repeat < 1:
        parser.error("--small must be at least 1 and below --large; --repeat at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    with tempfile.TemporaryDirectory() as folder:
        uri = normalise_db_url(args.db) if args.db else f"sqlite:///{folder}/writes.sqlite3"
        report = run(uri, args.small, args.large, args.repeat)
    print(f"{args.small} vs {args.large} finished club matches, median of {args.repeat}\n")
    print("| write | ms small | ms large | growth | statements small | statements large |")
    print("|---|---|---|---|---|---|")
    for name, w in report["writes"].items():
        print(
            f"| {name} | {w['ms_small']} | {w['ms_large']} | {w['growth']}x"
            f" | {w['statements_small']:g} | {w['statements_large']:g} |"
        )
    found = problems(report, args.max_ratio)
    for problem in found:
        print(f"NOT FLAT: {problem}", file=sys.stderr)
    print(json.dumps(report))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
