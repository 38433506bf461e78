"""How long the garbage collector stops a server process, with and without ``app.settle``.

    python bench/gc_pauses.py [--size 1000] [--rounds 60] [--database-url URL]
                              [--cache-dir DIR]

A server process's threads all stop while Python's cyclic garbage collector runs. Its
full collections (generation 2) look at every object the process holds that can be in a
cycle, and most of those are what the app is built of: modules, mappers, the template
environment, form classes. ``scorekeeper.app.settle`` (called by ``serve``'s server
processes and by ``scorekeeper.wsgi``) moves them out of the collector's reach once the
app is built (``gc.freeze``).

This script builds (or reuses) ``run.py``'s club of ``--size`` matches and, in fresh
processes, in the order plain, settled, settled, plain (a drift of the machine falls on
both alike), builds the app as a server does and sends ``--rounds`` rounds in-process:
a deal POST and a finishing POST, each followed by the four club pages of ``run.py``
(finished match, the scorer's match page, standings, player page). Every collection is
timed (``gc.callbacks``). Reported per mode: collections and milliseconds of each
generation, the longest pause, milliseconds of collection per request; and the ratios of
settled to plain. The last line is one line of JSON. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402

MODES = ("plain", "settled")
PAGES = ("match_finished", "match_form", "standings", "player")
POSTS = ("deal_post", "finish_post")


def child(uri: str, history: dict[str, Any], mode: str, rounds: int) -> dict[str, Any]:
    """One process's figures: the app built as a server builds it, then the rounds."""
    from scorekeeper.app import create_app, settle

    prepared = run.prepare(uri, run.ClubHistory(**history), 0, rounds)
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "bench"})
    if mode == "settled":
        settle(app)
    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    began = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses[info["generation"]].append(time.perf_counter() - began[0])

    client, _page, form = run.scorer_client(app, prepared)
    rng = random.Random(3)
    requests = 0
    gc.callbacks.append(timed)
    started = time.perf_counter()
    for n in range(rounds):
        for kind in POSTS:
            public_id = prepared.local[kind][n]
            body = run.deal_post(public_id, form, run.PREPARED[kind][0] + 1, rng)
            run.send_deal(client, public_id, body).close()
            for key in PAGES:
                if client.get(prepared.paths[key]).status_code != 200:
                    raise SystemExit(f"bench: {key} did not answer 200")
            requests += 1 + len(PAGES)
    seconds = time.perf_counter() - started
    gc.callbacks.remove(timed)
    every = [p for found in pauses.values() for p in found]
    return {
        "mode": mode,
        "requests": requests,
        "seconds": round(seconds, 2),
        "frozen": gc.get_freeze_count(),
        "tracked": len(gc.get_objects()),
        "generations": {
            str(g): {
                "collections": len(found),
                "ms": round(sum(found) * 1000, 1),
                "max_ms": round(max(found) * 1000, 2) if found else 0.0,
            }
            for g, found in pauses.items()
        },
        "max_pause_ms": round(max(every) * 1000, 2) if every else 0.0,
        "gc_ms_per_request": round(sum(every) * 1000 / requests, 3) if requests else 0.0,
    }


def combined(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A mode's figures over its processes."""
    requests = sum(r["requests"] for r in runs)
    gens = {
        g: {
            "collections": sum(r["generations"][g]["collections"] for r in runs),
            "ms": round(sum(r["generations"][g]["ms"] for r in runs), 1),
            "max_ms": max(r["generations"][g]["max_ms"] for r in runs),
        }
        for g in ("0", "1", "2")
    }
    total = sum(g["ms"] for g in gens.values())
    return {
        "requests": requests,
        "tracked": max(r["tracked"] for r in runs),
        "frozen": max(r["frozen"] for r in runs),
        "generations": gens,
        "full_ms_each": round(gens["2"]["ms"] / gens["2"]["collections"], 2)
        if gens["2"]["collections"]
        else 0.0,
        "max_pause_ms": max(r["max_pause_ms"] for r in runs),
        "gc_ms_per_request": round(total / requests, 3) if requests else 0.0,
    }


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="finished matches (1000)")
    parser.add_argument("--rounds", type=int, default=60, help="rounds a process (60)")
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # uri, history, mode (JSON)
    args = parser.parse_args(argv)
    if args.size < 1 or args.rounds < 1:
        parser.error("--size and --rounds must be at least 1")
    run.refuse_sqlite_url(parser, args.database_url)
    args.cache_dir = args.cache_dir or run.default_cache()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if args.child:
        uri, history, mode = json.loads(args.child)
        print(json.dumps(child(uri, history, mode, args.rounds)))
        return 0
    from dataclasses import asdict

    from scorekeeper.config import normalise_db_url

    url = normalise_db_url(args.database_url) if args.database_url else None
    found: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="bench-gc-") as folder:
        print(f"club of {args.size}: building or reusing…", file=sys.stderr, flush=True)
        built = run.club(args.size, url, Path(folder), args.cache_dir)
        try:
            for mode in (*MODES, *reversed(MODES)):  # plain, settled, settled, plain
                print(f"  {mode}…", file=sys.stderr, flush=True)
                spec = json.dumps([built.uri, asdict(built.history), mode])
                done = subprocess.run(
                    [sys.executable, __file__, "--child", spec, "--rounds", str(args.rounds)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    raise SystemExit(f"bench: the {mode} process failed:\n{done.stderr}")
                found[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
        finally:
            built.drop()
    modes = {mode: combined(runs) for mode, runs in found.items()}
    plain, settled = modes["plain"], modes["settled"]
    report = {
        "size": args.size,
        "database": (url or "sqlite").split(":")[0].split("+")[0],
        "rounds": args.rounds,
        "modes": modes,
        "ratio": {
            key: run.ratio(settled[key], plain[key])
            for key in ("full_ms_each", "max_pause_ms", "gc_ms_per_request")
        },
    }
    for mode, figures in modes.items():
        gens = figures["generations"]
        print(
            f"{mode:8s} {figures['requests']} requests, {figures['tracked']:,} objects tracked"
            f" ({figures['frozen']:,} frozen): full collections {gens['2']['collections']}"
            f" × {figures['full_ms_each']} ms, longest pause {figures['max_pause_ms']} ms,"
            f" {figures['gc_ms_per_request']} ms of collection a request"
        )
    print(f"settled / plain: {report['ratio']}")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
