"""Read throughput with one and with several server processes (issue 17, ``serve --workers``).

    python bench/workers.py [--sizes 1000] [--database-url URL] [--workers 1,2]
                            [--seconds 10] [--warm 2] [--rounds 2] [--connections 16]
                            [--threads 4] [--load wrk|python]
                            [--cache-dir DIR | --no-cache] [--quick]

The club of each size comes from ``bench/run.py``'s cache (built once, each run on a
copy). For each number of processes, ``scorekeeper serve --workers N --threads 4`` on
loopback, and a load generator (``--connections`` keep-alive connections) sends the same
GET for ``--seconds`` (after ``--warm`` unmeasured seconds, every process warmed up by
then) to: the match page of a finished match, the match page being played as its scorer
(with the deal form), the standings and the player page. The floor (``bench/floor.py``: a
route that does nothing) is served the same way with as many processes, so its own ratio
shows how far the machine lets a second process go.

The load generator shares the machine's cores with the server. ``--load wrk`` (the
default when Debian's ``wrk`` is installed) is written in C and costs a few percent of a
core at these rates (0.03 cores for 630 pages a second); ``--load python`` is ``run.py``'s
own (a thread a connection, ``http.client``), which takes a large share of a core itself
once the pages are cheap, and holds two processes back (docs/performance.md, "Several
processes"). wrk reports percentiles, not
every latency: over several rounds, the worst round's percentile is given.

Every server runs for the whole size; each request is measured with 1 and 2 processes in
turn, ``--rounds`` times in ABBA order (1, 2, 2, 1, ...), so the figures a ratio compares
are taken seconds apart (a drift of the machine's speed falls on both alike), and the
requests of the rounds are added up. Each measurement records the load average before it
and the CPU the server's processes used.

The last line is one line of JSON: requests per second of every page and the floor with
each number of processes, the ratio of the most processes to one, and the target (issue
17: with 2 processes on PostgreSQL at least 1.6x one's). Exits 0 when every request was
answered 200, 1 otherwise; with ``--strict``, 3 when the target is not met.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402
from bench.soak_client import Member, Traffic  # noqa: E402
from bench.soak_server import Server, free_port  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.keeper import THREADS  # noqa: E402

#: The pages measured (``run.GETS``'s keys) and the floor.
READS = ("match_finished", "match_form", "standings", "player")
MEASURED = (run.FLOOR, *READS)
#: Issue 17: with 2 processes on PostgreSQL, read throughput at least this times one's.
MIN_RATIO = 1.6
#: The load generators ``--load`` takes.
LOADS = ("wrk", "python")
#: wrk's script: every answer but a 200 counted as a failure (wrk itself counts only
#: those outside 2xx and 3xx), and one line of JSON at the end.
WRK_SCRIPT = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) failed = 0 end
function response(status, headers, body)
  if status ~= 200 then failed = failed + 1 end
end
function done(summary, latency, requests)
  local failed, e = 0, summary.errors
  for _, t in ipairs(threads) do failed = failed + t:get("failed") end
  io.write(string.format(
    'WRK {"requests": %d, "not_200": %d, "errors": %d, "seconds": %.6f,' ..
    ' "p50_ms": %.3f, "p95_ms": %.3f, "p99_ms": %.3f}\\n',
    summary.requests, failed, e.connect + e.read + e.write + e.timeout,
    summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000))
end
"""


@dataclass
class Tally:
    """One measurement by wrk: how many answered 200, in how long, its percentiles."""

    requests: int
    seconds: float
    percentiles: dict[str, float]  # p50_ms, p95_ms, p99_ms
    failures: Counter[str] = field(default_factory=Counter)

    def figures(self) -> dict[str, Any]:
        """The figures ``run.Load.figures`` gives, from wrk's."""
        rps = round(self.requests / self.seconds, 1) if self.seconds else 0.0
        failed = sum(self.failures.values())
        return {"requests": self.requests, "failures": failed, "rps": rps, **self.percentiles}


def wrk(port: int, request: run.Request, args: argparse.Namespace) -> Tally:
    """``request`` (a GET) sent by wrk over ``--connections`` keep-alive connections for
    ``--seconds`` (whole seconds: wrk takes no fraction), from one thread."""
    method, path, _body, headers = request
    script = Path(args.wrk_script)
    if not script.exists():
        script.write_text(WRK_SCRIPT)
    command = [
        "wrk",
        "--threads",
        "1",
        "--connections",
        str(args.connections),
        "--duration",
        f"{max(1, round(args.seconds))}s",
        "--timeout",
        f"{int(run.TIMEOUT)}s",
        "--script",
        str(script),
    ]
    for name, value in headers.items():
        command += ["--header", f"{name}: {value}"]
    done = subprocess.run(
        [*command, f"http://{run.HOST}:{port}{path}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=run.TIMEOUT + 60,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("WRK ")), None)
    if done.returncode != 0 or line is None:
        raise SystemExit(f"bench: wrk failed ({done.returncode}): {done.stderr.strip()}")
    found = json.loads(line[4:])
    failures: Counter[str] = Counter()
    if found["not_200"]:
        failures[f"{method} {path} -> not 200"] = found["not_200"]
    if found["errors"]:
        failures[f"{method} {path}: socket errors"] = found["errors"]
    return Tally(
        found["requests"] - found["not_200"],
        found["seconds"],
        {key: round(found[key], 2) for key in ("p50_ms", "p95_ms", "p99_ms")},
        failures,
    )


@contextmanager
def serving(server: Server) -> Iterator[Server]:
    with run.serving(server):
        yield server


def floor_server(workers: int, threads: int, log: Path) -> Server:
    return run.FloorServer(free_port(), dict(os.environ), log, threads, workers)


def app_server(workers: int, built: run.Built, args: argparse.Namespace, log: Path) -> Server:
    env = {
        **os.environ,
        "DATABASE_URL": built.uri,
        "SCOREKEEPER_SECRET_KEY": args.secret,
        "PYTHONFAULTHANDLER": "1",
    }
    return Server(free_port(), env, log, args.threads, workers)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and every process under it (Linux: 0.0
    elsewhere); serve's own share is nearly nothing, its server processes' is the work."""
    tree, total = [pid], 0.0
    while tree:
        one = tree.pop()
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
            children = Path(f"/proc/{one}/task/{one}/children").read_text().split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        tree += [int(child) for child in children]
    return total


def measure(server: Server, request: run.Request, args: argparse.Namespace) -> dict[str, Any]:
    """Warm every process up, then one measurement: its load, the load average before it
    and the CPU seconds the server's processes used meanwhile."""
    run.hammer(server.port, lambda: request, args.connections, args.warm)
    load_average = round(os.getloadavg()[0], 2)
    assert server.process is not None
    cpu = cpu_seconds(server.process.pid)
    load: run.Load | Tally
    if args.load == "wrk":
        load = wrk(server.port, request, args)
    else:
        load = run.hammer(server.port, lambda: request, args.connections, args.seconds)
    cpu = cpu_seconds(server.process.pid) - cpu
    return {"load": load, "load_average": load_average, "cpu": cpu}


def log_in(server: Server, prepared: run.Prepared) -> str:
    """The scorer's cookie, logged in through ``server`` (sessions are kept in the
    database, so every server of the run takes it)."""
    member = Member(server.port, Traffic(100), prepared.username, prepared.password)
    member.log_in()
    member.close()
    return "; ".join(f"{k}={v}" for k, v in member.cookies.items())


def combined(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One measurement's figures over its rounds: requests over seconds, percentiles of
    every latency (wrk's: the worst round's), the highest load average seen."""
    total = run.Load()
    tallies = [one["load"] for one in rounds if isinstance(one["load"], Tally)]
    for one in rounds:
        if not tallies:
            total.latencies += one["load"].latencies
        total.failures.update(one["load"].failures)
        total.seconds += one["load"].seconds
    figures = total.figures()
    if tallies:
        requests = sum(t.requests for t in tallies)
        figures["requests"] = requests
        figures["rps"] = round(requests / total.seconds, 1) if total.seconds else 0.0
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            figures[key] = max(t.percentiles[key] for t in tallies)
    cpu = sum(one["cpu"] for one in rounds)
    return {
        **figures,
        "load_average": max(one["load_average"] for one in rounds),
        "rps_rounds": [one["load"].figures()["rps"] for one in rounds],
        # the server's processes: CPU seconds a second (1.0: one core), requests a CPU second
        "cores": round(cpu / total.seconds, 2) if total.seconds else 0.0,
        "per_cpu_s": round(figures["requests"] / cpu, 1) if cpu else 0.0,
    }


def size_report(
    built: run.Built, prepared: run.Prepared, args: argparse.Namespace, log: Path
) -> dict[str, Any]:
    """Every server (the floor and the app, with each number of processes) runs for the
    whole size; each request is measured with each number of processes in turn, in ABBA
    order over the rounds (1, 2, 2, 1, ...), so that the two figures of a ratio are taken
    seconds apart: on this machine its speed moved by 2.5 times within a run that
    restarted the servers between rounds."""
    seen: dict[int, dict[str, list[dict[str, Any]]]] = {
        n: {key: [] for key in MEASURED} for n in args.workers
    }
    with contextlib.ExitStack() as stack:
        floors = {
            n: stack.enter_context(serving(floor_server(n, args.threads, log / f"floor-{n}.log")))
            for n in args.workers
        }
        apps = {
            n: stack.enter_context(serving(app_server(n, built, args, log / f"server-{n}.log")))
            for n in args.workers
        }
        cookie = log_in(apps[args.workers[0]], prepared)
        for key in MEASURED:
            print(f"  {run.NAMES[key]}…", file=sys.stderr, flush=True)
            path = "/" if key == run.FLOOR else prepared.paths[key]
            headers = {"Cookie": cookie} if key == "match_form" else {}
            for r in range(args.rounds):
                for n in args.workers[:: 1 if r % 2 == 0 else -1]:
                    server = floors[n] if key == run.FLOOR else apps[n]
                    figures = measure(server, ("GET", path, None, headers), args)
                    seen[n][key].append(figures)
    by_workers = {str(n): {key: combined(seen[n][key]) for key in MEASURED} for n in args.workers}
    one, most = by_workers[str(args.workers[0])], by_workers[str(args.workers[-1])]
    ratios = {key: run.ratio(most[key]["rps"], one[key]["rps"]) for key in MEASURED}
    return {"by_workers": by_workers, "ratio": ratios}


def print_tables(report: dict[str, Any]) -> None:
    first, last = report["workers"][0], report["workers"][-1]
    for size, r in report["by_size"].items():
        print(
            f"\n{size} finished matches ({report['database']}, {report['connections']}"
            f" connections, {report['threads']} threads a process, {report['seconds']:g} s"
            f" × {report['rounds']} rounds, load generator: {report['load']})\n"
        )
        heads = " | ".join(
            f"req/s, {n} proc. | p95 ms | cores used | req per CPU s | load avg"
            for n in report["workers"]
        )
        print(f"| request | {heads} | {last}/{first} |")
        print("|---" * (2 + 5 * len(report["workers"])) + "|")
        for key in MEASURED:
            cells = " | ".join(
                " | ".join(
                    str(r["by_workers"][str(n)][key][name])
                    for name in ("rps", "p95_ms", "cores", "per_cpu_s", "load_average")
                )
                for n in report["workers"]
            )
            print(f"| {run.NAMES[key]} | {cells} | {r['ratio'][key]}x |")
    print("\nTarget\n")
    if not report["targets"]:
        print(f"- with 2 processes on PostgreSQL, at least {MIN_RATIO}x one's: not measured here")
    for name, check in report["targets"].items():
        word = "met" if check["met"] else "NOT MET"
        print(f"- {name}: {check['value']} (target {check['how']} {check['limit']}): {word}")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="finished matches of each club (default 1000)")
    parser.add_argument(
        "--database-url", help="PostgreSQL: the server and the name its databases start with"
    )
    parser.add_argument("--workers", help="numbers of processes to compare (default 1,2)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20 matches, 1 s")
    parser.add_argument("--seconds", type=float, help="per measurement (default 10)")
    parser.add_argument("--warm", type=float, help="unmeasured seconds before each (2)")
    parser.add_argument("--rounds", type=int, help="rounds, in ABBA order (default 2)")
    parser.add_argument("--connections", type=int, default=16, help="load connections (16)")
    parser.add_argument(
        "--threads", type=int, default=THREADS, help=f"waitress threads ({THREADS})"
    )
    parser.add_argument(
        "--load", choices=LOADS, help="load generator (default: wrk if installed, else python)"
    )
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept")
    parser.add_argument("--no-cache", action="store_true", help="build every club afresh")
    parser.add_argument("--strict", action="store_true", help="exit 3 when the target is unmet")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in (args.sizes or ("20" if args.quick else "1000")).split(",")]
        workers = [int(n) for n in (args.workers or "1,2").split(",")]
    except ValueError:
        parser.error("--sizes and --workers take numbers separated by commas, e.g. 1,2")
    if min(sizes) < 1 or sizes != sorted(set(sizes)):
        parser.error("--sizes must be increasing numbers of at least 1")
    if len(workers) < 2 or min(workers) < 1 or workers != sorted(set(workers)):
        parser.error("--workers must be at least two increasing numbers, e.g. 1,2")
    args.sizes, args.workers = sizes, workers
    args.seconds = args.seconds or (1.0 if args.quick else 10.0)
    args.warm = args.warm if args.warm is not None else (0.5 if args.quick else 2.0)
    args.rounds = args.rounds or (1 if args.quick else 2)
    if args.seconds <= 0 or args.warm < 0 or args.rounds < 1:
        parser.error("--seconds and --rounds must be positive, --warm not negative")
    if args.connections < 1 or args.threads < 1:
        parser.error("--connections and --threads must be positive")
    run.refuse_sqlite_url(parser, args.database_url)
    if args.no_cache:
        args.cache_dir = None
    elif args.cache_dir is None:
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        args.cache_dir = home / "scorekeeper-bench"
    if args.load is None:
        args.load = "wrk" if shutil.which("wrk") else "python"
    elif args.load == "wrk" and not shutil.which("wrk"):
        parser.error("--load wrk needs wrk on the PATH (Debian: apt-get install wrk)")
    args.secret = os.urandom(16).hex()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    url = normalise_db_url(args.database_url) if args.database_url else None
    database = (url or "sqlite").split(":")[0].split("+")[0]
    began = time.monotonic()
    by_size: dict[str, Any] = {}
    builds: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as folder:
        work = Path(folder)
        args.wrk_script = str(work / "answers.lua")
        for size in args.sizes:
            print(f"club of {size}: building or reusing…", file=sys.stderr, flush=True)
            built = run.club(size, url, work, args.cache_dir)
            builds[str(size)] = {"seconds": round(built.build_s, 1), "cached": built.cached}
            try:
                prepared = run.prepare(built.uri, built.history, 1, 1)
                print(f"club of {size}: serving…", file=sys.stderr, flush=True)
                by_size[str(size)] = size_report(built, prepared, args, work)
            finally:
                built.drop()
    failures = {
        f"{size} {n} {key}": figures["failures"]
        for size, r in by_size.items()
        for n, keys in r["by_workers"].items()
        for key, figures in keys.items()
        if figures["failures"]
    }
    checks: dict[str, Any] = {}
    if database == "postgresql" and 1 in args.workers and 2 in args.workers:
        for size, r in by_size.items():
            two, one = r["by_workers"]["2"], r["by_workers"]["1"]
            for key in READS:
                value = run.ratio(two[key]["rps"], one[key]["rps"])
                checks[f"{key} @{size}: 2 processes / 1"] = run._check(value, MIN_RATIO, ">=")
    report = {
        "database": database,
        "sizes": args.sizes,
        "workers": args.workers,
        "connections": args.connections,
        "threads": args.threads,
        "load": args.load,
        "seconds": args.seconds,
        "warm": args.warm,
        "rounds": args.rounds,
        "date": date.today().isoformat(),
        "cpus": os.cpu_count(),
        "by_size": by_size,
        "ratio": {size: r["ratio"] for size, r in by_size.items()},
        "targets": checks,
        "targets_met": all(c["met"] for c in checks.values()),
        "failures": failures,
        "builds": builds,
        "run_seconds": round(time.monotonic() - began, 1),
    }
    print_tables(report)
    if failures:
        print(f"FAILED: {failures}", file=sys.stderr)
    print(json.dumps(report))
    if failures:
        return 1
    return 3 if args.strict and not report["targets_met"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
