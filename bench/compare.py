"""Two checkouts' CPU a POST, side by side in one run, their requests interleaved (issue 17).

    git worktree add /tmp/base <commit>
    python bench/compare.py /tmp/base [--head DIR] [--kinds deal_post,finish_post]
                            [--requests 100] [--block 5] [--size 1000]
                            [--database-url URL] [--cache-dir DIR | --no-cache]

Whole served runs in ABBA order (``writers.py``) compare server settings well, but a
change of the code by a tenth is lost when the machine's speed drifts by a third from one
minute to the next, as it did on a shared machine. This compares the code of two checkouts
in-process instead: ``--head`` (this checkout by default) against the base, each in a
process of its own with its own copy of ``run.py``'s club of ``--size`` matches (built and
cached by that checkout's own code, so each has its own schema; on PostgreSQL, databases
named after ``--database-url``'s with ``_base`` and ``_head`` added), its scorer logged in
and matches prepared as ``run.py`` prepares them. The POSTs of each kind of ``--kinds``
(``run.py``'s) are then sent ``--block`` at a time to one process and to the other in ABBA
order until each has sent ``--requests``, so a drift falls on both alike. Reported per
kind: each side's median CPU milliseconds a POST (``time.process_time`` around the test
client's request, the app's own process) and the ratio head / base; on PostgreSQL on
this machine also the CPU its server processes for each side's connections used, a mean
a POST (their clock ticks by 10 ms: a block's few POSTs are timed together), and its
ratio (left out for a server elsewhere, whose processes cannot be read here). The last
line is one line of JSON. Exits 0 when every POST was answered 200.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("deal_post", "finish_post", "finish_late_post", "finish_night_post")
SIDES = ("base", "head")


def worker(args: argparse.Namespace) -> int:
    """One side: the club and matches ready, then blocks of POSTs as the driver asks
    (a line with a count in, a line of CPU milliseconds out)."""
    sys.path.insert(0, str(Path.cwd()))  # the checkout compared, not this script's
    import random

    from bench import run
    from bench.soak_client import forms_of
    from scorekeeper.app import create_app, settle
    from scorekeeper.web import background

    # a checkout before the catch-up had a thread of its own ran it as the answer closed
    join = getattr(background, "join", lambda: True)

    work = Path(tempfile.mkdtemp(prefix="compare-"))
    cache = None if args.no_cache else args.cache_dir
    built = run.club(args.size, args.database_url, work, cache)
    try:
        prepared = run.prepare(
            built.uri, built.history, 0, args.requests + run.WARM_UP, kinds=(args.kind,)
        )
        app = settle(create_app({"SQLALCHEMY_DATABASE_URI": built.uri, "SECRET_KEY": "bench"}))
        backends = _backends(app)
        client = app.test_client()
        run._log_in(client, prepared)
        page = client.get(prepared.paths["match_form"]).get_data(as_text=True)
        form = forms_of(page)[f"{prepared.paths['match_form']}/deals"]
        rng = random.Random(29)
        expected = run.PREPARED[args.kind][0] + 1
        bodies = iter(
            [(p, run.deal_post(p, form, expected, rng)) for p in prepared.local[args.kind]]
        )

        def post() -> float:
            public_id, body = next(bodies)
            started = time.process_time()
            answer = client.post(
                f"/m/{public_id}/deals",
                data=body,
                content_type="application/x-www-form-urlencoded",
                headers={"HX-Request": "true"},
            )
            answer.get_data()
            answer.close()  # work left for after the answer (ratings) runs, as served,
            join()  # on a thread of its own (web.background): counted here all the same
            took = (time.process_time() - started) * 1000
            if answer.status_code != 200:
                raise SystemExit(f"compare: a POST was answered {answer.status_code}")
            return took

        for _ in range(run.WARM_UP):
            post()
        print("ready", flush=True)
        for line in sys.stdin:
            began = _cpu_of(backends)
            took = [f"{post():.3f}" for _ in range(int(line))]
            ended = _cpu_of(backends)
            server = "-" if began is None or ended is None else f"{ended - began:.3f}"
            print(" ".join([*took, f"postgres={server}"]), flush=True)
    finally:
        built.drop()
    return 0


def _backends(app: Any) -> set[int]:
    """The process ids of the PostgreSQL server processes of ``app``'s connections, as
    they are made (none on SQLite)."""
    from sqlalchemy import event

    from scorekeeper.extensions import db

    found: set[int] = set()
    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "postgresql":

        def made(connection: Any, _record: Any) -> None:
            found.add(connection.info.backend_pid)

        event.listen(engine, "connect", made)
        engine.dispose()  # a connection made before is made again, and seen
    return found


def _cpu_of(pids: set[int]) -> float | None:
    """The CPU milliseconds the processes ``pids`` used so far, those gone since left
    out; None when there are some and none is a process of this machine (a server
    elsewhere: its CPU cannot be read here)."""
    total, seen = 0, False
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total, seen = total + int(fields[11]) + int(fields[12]), True  # utime, stime
    if pids and not seen:
        return None
    return 1000 * total / os.sysconf("SC_CLK_TCK")


def _start(checkout: Path, kind: str, side: str, args: argparse.Namespace) -> Any:
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", "--kind", kind]
    argv += ["--size", str(args.size), "--requests", str(args.requests)]
    if args.database_url:
        from sqlalchemy.engine import make_url

        url = make_url(args.database_url)
        named = url.set(database=f"{url.database or 'bench'}_{side}")
        argv += ["--database-url", named.render_as_string(hide_password=False)]
    if args.no_cache:
        argv.append("--no-cache")
    else:
        argv += ["--cache-dir", str(args.cache_dir)]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return subprocess.Popen(
        argv, cwd=checkout, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def compare(kind: str, checkouts: dict[str, Path], args: argparse.Namespace) -> dict[str, Any]:
    """One kind: both sides started, then their blocks in ABBA order."""
    workers: dict[str, Any] = {}
    times: dict[str, list[float]] = {side: [] for side in SIDES}
    postgres: dict[str, float | None] = dict.fromkeys(SIDES, 0.0)
    try:
        # one after the other: two checkouts of one schema share a cached club, which
        # the first builds if it must
        for side in SIDES:
            process = workers[side] = _start(checkouts[side], kind, side, args)
            if process.stdout.readline().strip() != "ready":
                raise SystemExit(f"compare: the {side} side could not start ({kind})")
        order = ("base", "head", "head", "base")
        sent, turn = 0, 0
        while sent < args.requests:
            count = min(args.block, args.requests - sent)
            for side in (order[turn % 4], order[(turn + 1) % 4]):
                process = workers[side]
                process.stdin.write(f"{count}\n")
                process.stdin.flush()
                *answer, server = process.stdout.readline().split() or [""]
                if len(answer) != count or not server.startswith("postgres="):
                    raise SystemExit(f"compare: the {side} side stopped ({kind})")
                times[side] += [float(ms) for ms in answer]
                server_ms = server.removeprefix("postgres=")
                known = postgres[side]
                postgres[side] = (
                    None if known is None or server_ms == "-" else known + float(server_ms)
                )
            sent, turn = sent + count, turn + 2
    finally:
        for process in workers.values():
            process.stdin.close()
        codes = [process.wait() for process in workers.values()]
    if any(codes):
        raise SystemExit(f"compare: a side exited {codes} ({kind})")
    medians = {side: round(statistics.median(times[side]), 2) for side in SIDES}
    figures = {
        "requests": args.requests,
        "base_ms": medians["base"],
        "head_ms": medians["head"],
        "ratio": round(medians["head"] / medians["base"], 3) if medians["base"] else 0.0,
    }
    if args.database_url and None not in postgres.values():
        # the server's CPU a POST (on this machine): a mean, as its clock ticks by 10 ms
        server = {side: (postgres[side] or 0.0) / args.requests for side in SIDES}
        figures["postgres_base_ms"] = round(server["base"], 2)
        figures["postgres_head_ms"] = round(server["head"], 2)
        ratio = server["head"] / server["base"] if server["base"] else 0.0
        figures["postgres_ratio"] = round(ratio, 3)
    return figures


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", type=Path, help="the checkout to compare against")
    parser.add_argument("--head", type=Path, default=ROOT, help="the other (this one)")
    parser.add_argument("--kinds", default="deal_post,finish_post", help="POST kinds (run.py's)")
    parser.add_argument("--requests", type=int, default=100, help="POSTs a side and kind")
    parser.add_argument("--block", type=int, default=5, help="POSTs a side sends in a row")
    parser.add_argument("--size", type=int, default=1000, help="the club's finished matches")
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--no-cache", action="store_true", help="build the clubs afresh")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kind", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if not args.worker and args.base is None:
        parser.error("name the base checkout (git worktree add DIR COMMIT)")
    if any(k not in KINDS for k in kinds) or not kinds:
        parser.error(f"--kinds: one or more of {', '.join(KINDS)}")
    if args.requests < 1 or args.block < 1 or args.size < 2:
        parser.error("--requests and --block must be at least 1, --size at least 2")
    if args.database_url and args.database_url.startswith("sqlite"):
        parser.error("--database-url names a PostgreSQL server; SQLite clubs are temporary")
    for checkout in (args.base, args.head) if not args.worker else ():
        if not (checkout / "scorekeeper" / "app.py").exists():
            parser.error(f"{checkout}: not a checkout of scorekeeper")
    args.kinds = kinds
    if args.cache_dir is None and not args.no_cache:
        sys.path.insert(0, str(ROOT))
        from bench.run import default_cache

        args.cache_dir = default_cache()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if args.worker:
        return worker(args)
    checkouts = {"base": args.base.resolve(), "head": args.head.resolve()}
    report: dict[str, Any] = {
        "database": "postgresql" if args.database_url else "sqlite",
        "size": args.size,
        "block": args.block,
        "checkouts": {side: str(path) for side, path in checkouts.items()},
        "kinds": {},
    }
    for kind in args.kinds:
        figures = report["kinds"][kind] = compare(kind, checkouts, args)
        server = ""
        if "postgres_ratio" in figures:
            server = (
                f"; PostgreSQL's CPU base {figures['postgres_base_ms']} ms, head"
                f" {figures['postgres_head_ms']} ms a POST (mean), head / base"
                f" {figures['postgres_ratio']}"
            )
        print(
            f"{kind}: base {figures['base_ms']} ms, head {figures['head_ms']} ms a POST"
            f" (median of {figures['requests']}), head / base {figures['ratio']}{server}",
            flush=True,
        )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
