"""How long each POST holds its club's lock, and so how many a second one club can take
(issue 17).

    python bench/lock.py [--kinds deal_post,finish_late_post,finish_post] [--size 1000]
                         [--requests 20] [--timeline] [--database-url URL]
                         [--cache-dir DIR | --no-cache]

Every write of a club's deals takes the club's lock (``services.locks``) and holds it to
its ``COMMIT``: one writer of a club at a time, whatever the processes and cores. A POST
that holds it for L milliseconds can be answered at most 1000 / L times a second for one
club, however fast the rest of the request is; with sixteen phones of one club writing at
once, that ceiling, not the CPU, is what their p95 waits for when it is the lower of the
two. This measures L in-process, on ``run.py``'s cached club of ``--size`` matches:
``--requests`` POSTs of each kind of ``--kinds`` (``run.py``'s), the kinds one after the
other in the order given (the default's is ``run.py``'s: a late night's finishes before
tonight's, so that each rates again in the request the few matches after it, not more
than ``ratings.IN_REQUEST``), sent as htmx sends them, logged in as a scorer.

The lock is held from the statement that takes it to the end of the ``COMMIT``: on
PostgreSQL the ``UPDATE`` of the club's row (``club_versions``; inside a save's first
``upserts.together`` block, the statement that also writes the side results), on SQLite
the ``BEGIN IMMEDIATE`` that takes the database's write lock. Reported per kind, medians:
the time held (``held_ms``), the statements run while it is held and their wall time
(cursor to cursor: the database's work, the driver's and the round trips), the rest
(``python_ms``: the app's work between them, and the ``COMMIT``'s own), and the ceiling
(``ceiling_rps``, 1000 / ``held_ms``). Compare the ceiling with ``run.py``'s served
throughput of the same POST: where they are close, the lock is what the POST waits for.

With ``--timeline``, also each kind's steps while the lock is held, in order: each
statement (named by the start of its text) and the app's work before it, and the app's
work with the ``COMMIT`` at the end; the medians of the requests that ran the kind's most
common sequence of statements. This is what to cut, and where (the deal scored under
SQLite's turn was found so: docs/performance.md, twenty-ninth round).

The last line is one line of JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from bench import run  # noqa: E402
from scorekeeper.app import create_app, settle  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.web import background  # noqa: E402

#: The statement that takes a club's lock, by a part of its text, per database.
TAKES_THE_LOCK = {"postgresql": "UPDATE clubs SET data_version", "sqlite": "BEGIN IMMEDIATE"}
KINDS = ("deal_post", "finish_late_post", "finish_post")


@dataclass
class Held:
    """The club's lock in the request under way (when it was taken and let go, and the
    statements run meanwhile), and what each request's was."""

    dialect: str
    taken: float | None = None
    released: float | None = None
    statements: int = 0
    statement_s: float = 0.0
    started: float = 0.0
    found: list[tuple[float, int, float]] = field(default_factory=list)  # per request
    #: while held: each statement's text as it starts, "" as it ends, and when
    marks: list[tuple[str, float]] = field(default_factory=list)
    timelines: list[list[tuple[str, float]]] = field(default_factory=list)  # per request

    def before(self, statement: str) -> None:
        if self.released is not None:
            return
        if self.taken is None and TAKES_THE_LOCK[self.dialect] in statement:
            self.taken = time.perf_counter()
        self.started = time.perf_counter()
        if self.taken is not None:
            self.marks.append((statement, self.started))

    def after(self) -> None:
        if self.taken is not None and self.released is None:
            now = time.perf_counter()
            self.statements += 1
            self.statement_s += now - self.started
            self.marks.append(("", now))

    def committed(self) -> None:
        """A ``COMMIT`` has ended: the lock, if taken, is let go (the first one)."""
        if self.taken is not None and self.released is None:
            self.released = time.perf_counter()

    def end_request(self) -> None:
        """Keep what the request held (nothing, if it took no lock), and start again."""
        if self.taken is not None and self.released is not None:
            held = self.released - self.taken
            self.found.append((held, self.statements, self.statement_s))
            self.timelines.append(_steps(self.taken, self.marks, self.released))
        self.taken = self.released = None
        self.statements, self.statement_s = 0, 0.0
        self.marks = []


#: A timeline's step of the app's own work (``_steps``), and the last one's.
APP, APP_AND_COMMIT = "(the app)", "(the app, and the COMMIT)"


def _steps(
    taken: float, marks: list[tuple[str, float]], released: float
) -> list[tuple[str, float]]:
    """A request's time held as steps, in order: each statement (the start of its text)
    with the app's work before it, if any, and the rest to the ``COMMIT``'s end."""
    steps: list[tuple[str, float]] = []
    last, name = taken, ""
    for text, at in marks:
        if text:  # a statement starts: the app's work since the last mark
            if at > last and steps:
                steps.append((APP, at - last))
            name = " ".join(text.split())[:60]
        else:
            steps.append((name, at - last))
        last = at
    steps.append((APP_AND_COMMIT, released - last))
    return steps


def timeline(held: Held) -> tuple[list[tuple[str, float]], int]:
    """The steps of the requests that ran the most common sequence of statements, each
    the median of its milliseconds, and how many requests that was."""
    shapes = Counter(tuple(name for name, _s in steps) for steps in held.timelines)
    shape, count = shapes.most_common(1)[0]
    alike = [steps for steps in held.timelines if tuple(n for n, _s in steps) == shape]
    medians = [statistics.median(steps[i][1] for steps in alike) * 1000 for i in range(len(shape))]
    return list(zip(shape, medians, strict=True)), count


def measure(built: run.Built, kinds: Sequence[str], requests: int) -> dict[str, Held]:
    """Send ``requests`` POSTs of each kind in-process, kind after kind; each one's lock
    timed."""
    prepared = run.prepare(built.uri, built.history, 0, requests, tuple(kinds))
    # as one of ``serve``'s processes (two by default): on SQLite, a POST reads before its
    # turn at the write lock (``database.reads_before_writing``), as served
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": built.uri, "SECRET_KEY": "bench", "SERVER_PROCESSES": 2}
    )
    client, _page, form = run.scorer_client(app, prepared)
    rng = random.Random(31)
    with app.app_context():
        engine = db.engine
    dialect = engine.dialect.name
    now: list[Held] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if now:
            now[0].before(statement)

    def after(*_args: Any) -> None:
        if now:
            now[0].after()

    def committed(_session: Any) -> None:
        if now:
            now[0].committed()

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    event.listen(Session, "after_commit", committed)
    found: dict[str, Held] = {}
    try:
        settle(app)  # as ``serve``'s processes are: the app out of the collector's reach
        for kind in kinds:
            held = found[kind] = Held(dialect)
            now[:] = [held]
            for public_id in prepared.local[kind]:
                body = run.deal_post(public_id, form, run.PREPARED[kind][0] + 1, rng)
                response = run.send_deal(client, public_id, body)
                if response.status_code != 200:
                    raise SystemExit(f"bench: the POST answered {response.status_code}")
                response.close()  # as a server does, once the answer is sent
                held.end_request()
                now.clear()  # a catch-up of ratings after the answer is not the POST's
                background.join()
                now[:] = [held]
    finally:
        gc.unfreeze()  # the caller's objects back in reach (a test suite runs on)
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        event.remove(Session, "after_commit", committed)
        engine.dispose()
    return found


def report(found: dict[str, Held]) -> dict[str, dict[str, float]]:
    """Each kind's medians in milliseconds, and the ceiling they give."""
    figures = {}
    for kind, held in found.items():
        taken = held.found
        if not taken:
            raise SystemExit(f"bench: no {kind} took the club's lock")
        ms = statistics.median(seconds for seconds, _n, _s in taken) * 1000
        sql = statistics.median(seconds for _held, _n, seconds in taken) * 1000
        figures[kind] = {
            "held_ms": round(ms, 3),
            "statements": statistics.median(n for _held, n, _s in taken),
            "statements_ms": round(sql, 3),
            "python_ms": round(ms - sql, 3),
            "ceiling_rps": round(1000 / ms, 1) if ms else 0.0,
            "requests": len(taken),
        }
    return figures


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="run.py's POST kinds, in order")
    parser.add_argument("--timeline", action="store_true", help="each kind's steps while held")
    run.one_club_options(parser)
    parser.set_defaults(requests=20)
    args = parser.parse_args(argv)
    args.kinds = [kind for kind in args.kinds.split(",") if kind]
    if not args.kinds or any(kind not in run.PREPARED for kind in args.kinds):
        parser.error(f"--kinds takes some of {', '.join(run.PREPARED)}")
    run.one_club_settled(parser, args)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    with run.one_club(args, "lock") as built:
        found = measure(built, args.kinds, args.requests)
    figures = report(found)
    database = "postgresql" if args.database_url else "sqlite"
    print(f"The club's lock, {database}, a club of {args.size}, {args.requests} POSTs a kind:")
    print("| POST | held ms | statements | their ms | the rest ms | at most a second |")
    print("|---|---|---|---|---|---|")
    for kind, x in figures.items():
        print(
            f"| {run.NAMES[kind]} | {x['held_ms']} | {x['statements']:g} | "
            f"{x['statements_ms']} | {x['python_ms']} | {x['ceiling_rps']} |"
        )
    summary: dict[str, Any] = {"database": database, "size": args.size}
    summary.update(requests=args.requests, kinds=figures)
    if args.timeline:
        summary["timelines"] = timelines = {}
        for kind, held in found.items():
            steps, alike = timeline(held)
            print(f"\n{run.NAMES[kind]}: the lock held, step by step ({alike} requests alike)\n")
            print("| step | ms |\n|---|---|")
            for name, ms in steps:
                print(f"| {name} | {ms:.3f} |")
            rows = [{"step": name, "ms": round(ms, 3)} for name, ms in steps]
            timelines[kind] = {"requests": alike, "steps": rows}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
