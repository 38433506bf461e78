"""CPU per request of the match page, against the framework's floor, in one run (issue 17).

    python bench/cpu.py [--rounds 200] [--profile playing|finished|post] [--top 30]

Makes a fresh temporary SQLite database with two classic 2 vs 2 matches (one two deals
in, one finished) and requests, in-process with Flask's test client, in interleaved
rounds: the match page being played, the finished match page, a deal POST answered with
the page fragment (each round enters deal 3 of a new match like the one being played; only
the POST is timed), and two baselines that do not depend on the match: a versioned
stylesheet (the static route, compression skipped) and ``/api/v1/rules`` (a small JSON
view). CPU time is ``time.process_time`` around each request; the report gives the
median per request and the ratio to the stylesheet, which is what to compare between runs
and machines. ``--profile`` runs cProfile over ``--rounds`` requests of one of them and
prints the ``--top`` functions by cumulative time. See bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench.wire import make_match  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402

PROFILED = {
    "playing": "match page, playing",
    "finished": "match page, finished",
    "post": "deal POST (htmx)",
}
#: A deal both sides can enter in any deal of the classic rules: nobody went out.
DEAL = {"sides-0-melded_points": "120", "sides-1-melded_points": "95", "went_out": ""}


#: Set by ``profile``: it runs only around the timed part of a request (a deal POST's
#: setup, a new match and its page, is left out, as it is of the timings).
_profiler: cProfile.Profile | None = None


def _timed(call: Callable[[], Any]) -> float:
    if _profiler is not None:
        _profiler.enable()
    start = time.process_time()
    call()
    elapsed = (time.process_time() - start) * 1000
    if _profiler is not None:
        _profiler.disable()
    return elapsed


def _requests(client: Any, playing: str, finished: str) -> dict[str, Callable[[], float]]:
    """Each request to measure: a callable that makes it and returns its CPU milliseconds."""
    css = next(u for u in _links(client, playing) if u.startswith("/static/css/app.css"))

    def post() -> float:
        fresh = "/m/" + make_match(client.application, 2)  # history and size as "playing"
        fields = _hidden(client.get(fresh).get_data(as_text=True))
        data = {**fields, **DEAL}
        hx = {"HX-Request": "true"}
        return _timed(lambda: _ok(client.post(f"{fresh}/deals", data=data, headers=hx), 200))

    return {
        "match page, playing": lambda: _timed(lambda: client.get(playing)),
        "match page, finished": lambda: _timed(lambda: client.get(finished)),
        "deal POST (htmx)": post,
        "baseline: app.css": lambda: _timed(
            lambda: client.get(css, headers={"Accept-Encoding": "identity"})
        ),
        "baseline: /api/v1/rules": lambda: _timed(lambda: client.get("/api/v1/rules")),
    }


def _ok(response: Any, status: int) -> Any:
    if response.status_code != status:
        raise SystemExit(f"bench: answered {response.status_code}, not {status}")
    return response


def _links(client: Any, url: str) -> list[str]:
    html = client.get(url).get_data(as_text=True)
    return [m.replace("&amp;", "&") for m in re.findall(r'href="(/static/[^"]+)"', html)]


def _hidden(html: str) -> dict[str, str]:
    """The hidden fields of the page's forms (the deal form's key, deal number, version)."""
    fields = {}
    for tag in re.findall(r"<input\b[^>]*>", html):
        attrs = dict(re.findall(r'([a-z_-]+)="([^"]*)"', tag))
        if attrs.get("type") == "hidden" and "name" in attrs:
            fields.setdefault(attrs["name"], attrs.get("value", ""))
    return fields


def _app(folder: str) -> tuple[Any, str, str]:
    uri = f"sqlite:///{folder}/cpu.sqlite3"
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": uri})
    with app.app_context():
        db.create_all()
    return app, "/m/" + make_match(app, 2), "/m/" + make_match(app, 4, seed=5)


def _close(app: Any) -> None:
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def measure(rounds: int) -> dict[str, float]:
    """Median CPU milliseconds per request of each, interleaved over ``rounds`` rounds."""
    with tempfile.TemporaryDirectory() as folder:
        app, playing, finished = _app(folder)
        client = app.test_client()
        requests = _requests(client, playing, finished)
        times: dict[str, list[float]] = {name: [] for name in requests}
        for _ in range(5):  # warm-up: templates compiled, caches filled
            for call in requests.values():
                call()
        for _ in range(rounds):
            for name, call in requests.items():
                times[name].append(call())
        _close(app)
    return {name: statistics.median(values) for name, values in times.items()}


def profile(which: str, rounds: int, top: int) -> None:
    global _profiler
    with tempfile.TemporaryDirectory() as folder:
        app, playing, finished = _app(folder)
        call = _requests(app.test_client(), playing, finished)[PROFILED[which]]
        for _ in range(5):
            call()
        _profiler = profiler = cProfile.Profile()
        try:
            for _ in range(rounds):
                call()
        finally:
            _profiler = None
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)
        _close(app)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="interleaved rounds (≥ 10)")
    parser.add_argument("--profile", choices=("playing", "finished", "post"), help="cProfile one")
    parser.add_argument("--top", type=int, default=30, help="functions shown by --profile")
    args = parser.parse_args(argv)
    if args.rounds < 10:
        parser.error("--rounds must be at least 10")
    if args.profile:
        profile(args.profile, args.rounds, args.top)
        return 0
    medians = measure(args.rounds)
    floor = medians["baseline: app.css"]
    print(f"Median CPU per request over {args.rounds} interleaved rounds, in-process:\n")
    print("| request | ms CPU | × app.css |")
    print("|---|---|---|")
    for name, value in medians.items():
        print(f"| {name} | {value:.2f} | {value / floor:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
