"""A POST's CPU part by part, at club scale, on either database (issue 17).

    python bench/parts.py [--kind finish_post] [--size 1000] [--requests 200]
                          [--database-url URL] [--cache-dir DIR | --no-cache]

cProfile and pyinstrument make every Python call dearer, so the parts of a request that
make many small calls look larger than they are (pyinstrument put 1.3 ms of a finish in
``json.dumps`` of a match's rules, which takes 40 µs). This times the parts themselves:
``run.py``'s cached club of ``--size`` matches, ``--requests`` POSTs of ``--kind`` (one of
``run.py``'s) sent in-process as htmx sends them, logged in as a scorer, and
``time.process_time()`` around each part of ``PARTS`` (the app's functions, wrapped while
the script runs; a part called within itself counts once). Also timed: the cyclic
garbage collector (``gc.callbacks``), with the app frozen as ``serve`` freezes it, and
the statements' wall time from cursor to cursor (the database's work and the driver's).

Printed: each part's median CPU milliseconds a request and its share of the request's
median; the last line is one line of JSON. Parts nest (the save holds the lines'
hook), so the shares do not add up to one. A renamed function fails the script
(``AttributeError``); one no longer called shows 0 ms.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402

from bench import run  # noqa: E402
from scorekeeper.app import create_app, settle  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.web import background  # noqa: E402

#: The parts timed: a name, and the function (module, attribute) wrapped for it. Each is
#: looked up where its callers look it up, so the wrapper is what they call.
PARTS = (
    ("log-in (the session's account)", "scorekeeper.services.accounts", "account_of_session"),
    ("loading the match", "scorekeeper.web.matches.views", "_loaded"),
    ("building the deal form", "scorekeeper.web.matches.forms", "deal_form"),
    ("the save", "scorekeeper.services.matches", "record_deal"),
    ("the save's lines, tallies, ratings", "scorekeeper.services.standings", "write_results"),
    ("the answer's context", "scorekeeper.web.matches.views", "match_context"),
    ("rendering the answer", "scorekeeper.web.matches.views", "render"),
)
REQUEST, GC, SQL = "the whole request", "the garbage collector", "statements (wall time)"


class Clock:
    """CPU seconds a part took in the request under way, and each request's."""

    def __init__(self) -> None:
        self.now: dict[str, float] = defaultdict(float)
        self.requests: dict[str, list[float]] = defaultdict(list)

    def part(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        depth = [0]

        def timed(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            began = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                depth[0] -= 1
                if not depth[0]:
                    self.now[name] += time.process_time() - began

        return timed

    def end_request(self, seconds: float) -> None:
        self.now[REQUEST] += seconds
        for name in (REQUEST, GC, SQL, *(p[0] for p in PARTS)):
            self.requests[name].append(self.now.get(name, 0.0))
        self.now.clear()


@contextmanager
def wrapped(clock: Clock) -> Iterator[None]:
    """``PARTS`` wrapped with ``clock`` while the block runs, then put back."""
    kept = []
    for name, module_name, attribute in PARTS:
        module = importlib.import_module(module_name)
        function = getattr(module, attribute)
        kept.append((module, attribute, function))
        setattr(module, attribute, clock.part(name, function))
    started: list[float] = []

    def collecting(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.process_time())
        elif started:
            clock.now[GC] += time.process_time() - started.pop()

    gc.callbacks.append(collecting)
    try:
        yield
    finally:
        gc.callbacks.remove(collecting)
        for module, attribute, function in kept:
            setattr(module, attribute, function)


def measure(built: run.Built, kind: str, requests: int) -> Clock:
    """Send ``requests`` POSTs of ``kind`` in-process, each part timed."""
    prepared = run.prepare(built.uri, built.history, 0, requests, (kind,))
    app = create_app({"SQLALCHEMY_DATABASE_URI": built.uri, "SECRET_KEY": "bench"})
    client, _page, form = run.scorer_client(app, prepared)
    rng = random.Random(29)
    clock = Clock()
    with app.app_context():
        engine = db.engine
    began_sql: list[float] = []

    def before(*_args: Any) -> None:
        began_sql.append(time.perf_counter())

    def after(*_args: Any) -> None:
        clock.now[SQL] += time.perf_counter() - began_sql.pop()

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        settle(app)  # as ``serve``'s processes are: the app out of the collector's reach
        with wrapped(clock):
            for public_id in prepared.local[kind]:
                body = run.deal_post(public_id, form, run.PREPARED[kind][0] + 1, rng)
                clock.now.clear()
                began = time.process_time()
                response = run.send_deal(client, public_id, body)
                clock.end_request(time.process_time() - began)
                if response.status_code != 200:
                    raise SystemExit(f"bench: the POST answered {response.status_code}")
                response.close()  # as a server does, once the answer is sent
                background.join()  # (ratings caught up after it: not the next request's)
    finally:
        gc.unfreeze()  # the caller's objects back in reach (a test suite runs on)
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        engine.dispose()
    return clock


def report(clock: Clock) -> dict[str, dict[str, float]]:
    """Each part's median milliseconds a request and its share of the request's."""
    whole = statistics.median(clock.requests[REQUEST])
    found = {}
    for name, values in clock.requests.items():
        ms = statistics.median(values) * 1000
        found[name] = {"ms": round(ms, 3), "share": round(ms / 1000 / whole, 3) if whole else 0.0}
    return found


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", default="finish_post", choices=sorted(run.PREPARED))
    run.one_club_options(parser)
    args = parser.parse_args(argv)
    run.one_club_settled(parser, args)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    with run.one_club(args, "parts") as built:
        clock = measure(built, args.kind, args.requests)
    found = report(clock)
    database = "postgresql" if args.database_url else "sqlite"
    print(f"{args.kind}, {database}, a club of {args.size}, {args.requests} POSTs (median):")
    for name in (REQUEST, *(p[0] for p in PARTS), GC, SQL):
        print(f"{found[name]['ms']:9.2f} ms {found[name]['share']:6.1%}  {name}")
    summary = {"kind": args.kind, "database": database, "size": args.size, "parts": found}
    print(json.dumps({**summary, "requests": args.requests}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
