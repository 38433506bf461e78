"""The whole performance picture in one run, against the floor, at two club sizes (issue 17).

    python bench/run.py [--sizes 1000,10000] [--large] [--database-url URL] [--quick]
                        [--seconds 10] [--connections 16] [--threads N] [--workers N]
                        [--posts 200] [--repeat 20] [--cache-dir DIR | --no-cache] [--strict]

For each size, a club of that many finished matches (``bench/soak_phases.quick_history``:
200 played through the services, copied into the past and imported) is built once and
cached, keyed by its size, the schema's migration head and a hash of the builder's code;
each run works on a copy. Then, through ``scorekeeper serve`` (waitress) on loopback, a
bounded load generator (``--connections`` keep-alive connections, each a thread with
``http.client``, for ``--seconds``, until its prepared matches run out, or, for the whole
history's CSV, one request per connection) measures
requests per second and the 50th/95th/99th percentile latency of:

- the floor: a minimal Flask route served by waitress with the same threads in its own
  process (``bench/floor.py``), measured in the same run, before each size; both the
  floor and the app are served by ``--workers`` processes (``serve --workers``; by
  default serve's own: one per core, at most four);
- a static file, the match page (finished, and being played: with the deal form), the
  standings, the player page, the standings CSV and the club's matches CSV (the whole
  history);
- a deal POST (deal 2), a finishing deal POST in order (tonight) and out of order (a match
  three weeks back: its ratings are replayed from it), each on its own prepared match,
  answered with the page fragment as htmx asks; and a club night's finishes: three tables
  of disjoint regulars, one connection each (``TABLES``).

Then the same requests in-process (Flask's test client, median of ``--repeat`` interleaved
rounds, on a new copy of the club with matches of its own: after the served POSTs, every
out-of-order finish would have too many matches after it to be replayed in the request)
with their SQL statements (``bench/writes.py``'s counting), against the same
minimal route in-process. Every figure is also a ratio to its floor, and each has its
growth from the first size to the others (in-process: the growth of the figure over its
floor, so that the machine's own speed, which moves by half from one phase of a run to
the next here, cancels out; the growth in ms is printed beside it). The issue's targets
are reported as met or not.

The last line of output is one line of JSON with every figure. Exits 0 when every request
was answered as expected (whatever the targets), 1 when any was not, and, with
``--strict``, 3 when a target is not met. See bench/README.md and docs/performance.md.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import inspect
import json
import os
import random
import re
import secrets
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from flask_migrate import upgrade  # noqa: E402
from sqlalchemy import create_engine, event, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench import history as history_module  # noqa: E402
from bench import soak_phases  # noqa: E402
from bench.floor import READY as FLOOR_READY  # noqa: E402
from bench.floor import floor_app  # noqa: E402
from bench.history import PEOPLE, ClubHistory  # noqa: E402
from bench.soak_client import HOST, Member, Traffic, deal_fields, forms_of  # noqa: E402
from bench.soak_server import Server, free_port  # noqa: E402
from bench.writes import _entries, _record, _timed  # noqa: E402
from bench.writes import _start as start_at_random  # noqa: E402
from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.config import normalise_db_url  # noqa: E402
from scorekeeper.engine import PRESETS, Side  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.keeper import default_threads, default_workers  # noqa: E402
from scorekeeper.models import Match  # noqa: E402
from scorekeeper.services import accounts, clubs, demo, matches, memberships  # noqa: E402
from scorekeeper.web import background  # noqa: E402

#: Bump when what a cached club holds changes in a way the hashed code does not show.
BUILDER = "1"
TIMEOUT = 300.0  # seconds one request may take (the whole history's CSV is slow)
WARM_UP = 3  # requests before each served measurement, not counted
FLOOR = "floor"
#: What is measured, by key: its name in the tables.
GETS = {
    "static": "static file (app.css)",
    "match_finished": "match page, finished",
    "match_form": "match page, deal form",
    "standings": "standings",
    "player": "player page",
    "standings_csv": "standings CSV",
    "matches_csv": "matches CSV (whole history)",
}
POSTS = {
    "deal_post": "deal POST (deal 2)",
    "finish_late_post": "finishing deal POST, out of order",
    "finish_post": "finishing deal POST, in order",
    "finish_night_post": "finishing deal POST, club night (3 tables)",
}
NAMES = {FLOOR: "floor: minimal route", **GETS, **POSTS}
#: Deals entered before the measured POST, and how many days back the match is dated.
PREPARED = {
    "deal_post": (1, 0),
    "finish_late_post": (3, 21),
    "finish_post": (3, 0),
    "finish_night_post": (3, 0),
}
#: A club night: tables of disjoint regulars, one phone each, finishing in turn. Sixteen
#: connections finishing matches of the same twelve regulars at once cannot keep each
#: match its players' newest (whichever commits after a later match of a shared player is
#: out of order for that player); three tables of four can, as a real night does.
TABLES = 3
#: The issue's targets.
MAX_GROWTH = 1.3
MAX_POST_MS = 30.0
MAX_POST_P95_MS = 150.0
MIN_SHARE = 0.08
SHARE_PAGES = ("match_finished", "match_form", "standings", "player")
PAGES = tuple(k for k in GETS if k != "static")
#: Requests whose cost is the whole history (seconds at 10,000 matches): served once per
#: connection, and timed in this many in-process rounds only. Their answer is a row per
#: side per deal of every match, ten times the bytes at ten times the matches: no work
#: can make the whole of it flat. What can be is when it starts (the first chunk, since
#: it is streamed) and what each row costs; those two are its growth targets, and the
#: whole answer's growth is printed beside them.
HEAVY = {"matches_csv": 3}


# -- the club, built once and cached ----------------------------------------------------------


def schema_head() -> str:
    """The migration head and a hash of every migration: two branches can reach the same
    head id by different chains (one merged before the other), and a club cached under
    the one must not be reused by the other."""
    from alembic.script import ScriptDirectory

    head = str(ScriptDirectory(str(ROOT / "migrations")).get_current_head())
    digest = hashlib.sha256()
    for path in sorted((ROOT / "migrations" / "versions").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return f"{head}.{digest.hexdigest()[:8]}"


def builder_version() -> str:
    """A hash of the code that builds a club: history.py, the soak's quick builder, demo deals."""
    digest = hashlib.sha256(BUILDER.encode())
    digest.update(inspect.getsource(history_module).encode())
    digest.update(inspect.getsource(demo).encode())
    for function in (
        soak_phases.quick_history,
        soak_phases._built_history,
        soak_phases._no_fsync,
    ):
        digest.update(inspect.getsource(function).encode())
    return digest.hexdigest()[:10]


def cache_key(kind: str, size: int) -> str:
    return f"{kind}-{size}-{schema_head()}-{builder_version()}"


@dataclass
class Built:
    """A club of ``size`` finished matches in a working database of this run."""

    uri: str
    history: ClubHistory
    build_s: float
    cached: bool
    drop: Callable[[], None] = lambda: None  # removes the working database


def build_into(uri: str, size: int) -> ClubHistory:
    """Migrate the empty database at ``uri`` and build the club in it."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "bench"})
    with app.app_context():
        upgrade()
        made = soak_phases.quick_history(size)
        db.session.remove()
        db.engine.dispose()
    return made


def sqlite_club(size: int, work: Path, cache: Path | None) -> Built:
    target = work / f"club-{size}.sqlite3"
    uri = f"sqlite:///{target}"

    def drop() -> None:
        """The working file and SQLite's files beside it: a copy made in its place later
        must not meet the write-ahead log of this one."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            target.with_name(target.name + suffix).unlink(missing_ok=True)

    drop()
    cached_db = meta = None
    if cache is not None:
        cached_db = cache / f"{cache_key('sqlite', size)}.sqlite3"
        meta = cached_db.with_suffix(".json")
        if cached_db.exists() and meta.exists():
            shutil.copyfile(cached_db, target)
            return Built(uri, ClubHistory(**json.loads(meta.read_text())), 0.0, True, drop)
    started = time.monotonic()
    made = build_into(uri, size)
    took = time.monotonic() - started
    if cached_db is not None and meta is not None:
        cached_db.parent.mkdir(parents=True, exist_ok=True)
        partial = cached_db.with_suffix(".partial")
        with sqlite3.connect(target) as source, sqlite3.connect(partial) as copy:
            source.backup(copy)  # the WAL's pages too
        partial.replace(cached_db)
        meta.write_text(json.dumps(asdict(made)))
    return Built(uri, made, took, False, drop)


def postgres_club(size: int, url: str, cache: Path | None) -> Built:
    """On PostgreSQL the cache is a database (``<name>_c<size>_<key>``) kept on the server;
    each run works on a copy made with ``CREATE DATABASE ... TEMPLATE`` and dropped after."""
    base = make_url(url)
    name = base.database or "bench"
    key = hashlib.sha256(cache_key("pg", size).encode()).hexdigest()[:10]
    cached_name, work_name = f"{name}_c{size}_{key}", f"{name}_run{size}"
    # the server's own database, not ``name``: that one need not exist (it names the rest)
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")

    def exists(db_name: str) -> bool:
        with admin.connect() as c:
            found = c.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": db_name})
            return found is not None

    def execute(sql: str) -> None:
        with admin.connect() as c:
            c.execute(text(sql))

    meta = cache / f"{cached_name}.json" if cache is not None else None
    built, took = False, 0.0
    source = cached_name if cache is not None else work_name
    if meta is None or not (exists(cached_name) and meta.exists()):
        execute(f'DROP DATABASE IF EXISTS "{source}"')
        execute(f'CREATE DATABASE "{source}"')
        started = time.monotonic()
        made = build_into(base.set(database=source).render_as_string(False), size)
        took, built = time.monotonic() - started, True
        if meta is not None:
            meta.parent.mkdir(parents=True, exist_ok=True)
            meta.write_text(json.dumps(asdict(made)))
    else:
        made = ClubHistory(**json.loads(meta.read_text()))
    if cache is not None:
        execute(f'DROP DATABASE IF EXISTS "{work_name}"')
        execute(f'CREATE DATABASE "{work_name}" TEMPLATE "{cached_name}"')
    work_url = base.set(database=work_name).render_as_string(False)

    def drop() -> None:
        execute(f'DROP DATABASE IF EXISTS "{work_name}" WITH (FORCE)')
        admin.dispose()

    return Built(work_url, made, took, not built, drop)


def club(size: int, url: str | None, work: Path, cache: Path | None) -> Built:
    """The club of ``size`` matches: on the PostgreSQL server of ``url``, or in a SQLite
    file under ``work`` when there is none (every bench script takes its clubs so)."""
    return postgres_club(size, url, cache) if url else sqlite_club(size, work, cache)


def refuse_sqlite_url(parser: argparse.ArgumentParser, url: str | None) -> None:
    """``--database-url`` names a PostgreSQL server; SQLite clubs are temporary files."""
    if url and not url.startswith("postgres"):
        parser.error("--database-url is for PostgreSQL; SQLite runs on temporary files")


def one_club_options(parser: argparse.ArgumentParser) -> None:
    """The options of a script that measures POSTs on one cached club (``parts.py``,
    ``lock.py``): ``--size``, ``--requests``, ``--database-url``, ``--cache-dir`` and
    ``--no-cache``; ``one_club_settled`` checks them once parsed."""
    parser.add_argument("--size", type=int, default=1000, help="the club's finished matches")
    parser.add_argument("--requests", type=int, default=200, help="POSTs timed")
    parser.add_argument("--database-url", help="PostgreSQL (as run.py); default SQLite")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept (run.py's)")
    parser.add_argument("--no-cache", action="store_true", help="build the club afresh")


def one_club_settled(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what ``one_club_options`` cannot use, and settle where clubs are kept."""
    if args.requests < 1 or args.size < 1:
        parser.error("--requests and --size must be at least 1")
    refuse_sqlite_url(parser, args.database_url)
    args.cache_dir = None if args.no_cache else (args.cache_dir or default_cache())


@contextmanager
def one_club(args: argparse.Namespace, script: str) -> Iterator[Built]:
    """The club of ``one_club_options``' arguments, built or taken from the cache for
    the block and dropped after it (its working copy)."""
    url = normalise_db_url(args.database_url) if args.database_url else None
    with tempfile.TemporaryDirectory(prefix=f"bench-{script}-") as folder:
        print(f"club of {args.size}: building or reusing…", file=sys.stderr, flush=True)
        built = club(args.size, url, Path(folder), args.cache_dir)
        try:
            yield built
        finally:
            built.drop()


# -- what the measured requests need ----------------------------------------------------------


@dataclass
class Prepared:
    """What the requests of one size need: its pages, a scorer's account, and matches ready
    for the POSTs (served ones and in-process ones)."""

    paths: dict[str, str]
    username: str
    password: str
    served: dict[str, list[str]]  # POST kind -> matches ready for their next deal
    local: dict[str, list[str]]
    playing: str


def prepare(
    uri: str, made: ClubHistory, posts: int, repeat: int, kinds: Sequence[str] = tuple(PREPARED)
) -> Prepared:
    """A scorer account for the club, and matches of four regulars ready for each POST
    (of ``kinds``: ``bench/writers.py`` sends only some)."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "bench"})
    with app.app_context():
        db.engine.dispose()
        event.listen(db.engine, "connect", soak_phases._no_fsync)  # fixtures need no flush
        try:
            club = clubs.get_club(made.club_id)
            assert club is not None
            playing = db.session.scalar(
                select(Match.public_id)
                .where(Match.club_id == club.id, Match.finished.is_(False))
                .order_by(Match.id.desc())
                .limit(1)
            )
            assert playing is not None, "the club has no match being played"
            username, password = f"bench-{secrets.token_hex(4)}", secrets.token_urlsafe(12)
            memberships.add_member(club, accounts.sign_up(username, password), "scorer")
            rng = random.Random(17)
            served: dict[str, list[str]] = {kind: [] for kind in kinds}
            local: dict[str, list[str]] = {kind: [] for kind in kinds}
            # Served pools kind by kind (in the order they are measured), then the
            # in-process ones round by round: a match's id follows the order it is
            # finished in, so an in-order finish is its players' newest game.
            plan = [(kind, served, n) for kind in kinds for n in range(posts)]
            plan += [(kind, local, n) for n in range(repeat) for kind in kinds]
            for kind, pools, n in plan:
                deals_in, days_back = PREPARED[kind]
                day = date.today() - timedelta(days=days_back)
                table = _table(n) if kind == "finish_night_post" else None
                loaded = _start(club, day, rng, table)
                for _ in range(deals_in):
                    loaded = _record(loaded, rng)
                pools[kind].append(loaded.row.public_id)
            db.session.commit()
        finally:
            db.session.remove()
            event.remove(db.engine, "connect", soak_phases._no_fsync)
            db.engine.dispose()
    c = f"/c/{made.club_id}"
    paths = {
        "match_finished": f"/m/{made.match_id}",
        "match_form": f"/m/{playing}",
        "standings": c,
        "player": f"{c}/p/{made.player_id}",
        "standings_csv": f"{c}/standings.csv",
        "matches_csv": f"{c}/matches.csv",
    }
    return Prepared(paths, username, password, served, local, playing)


def _table(n: int) -> list[str]:
    """The regulars at table ``n % TABLES`` of a club night: four, no one at two tables."""
    table = n % TABLES
    return list(PEOPLE[4 * table : 4 * table + 4])


def _start(
    club: Any, day: date, rng: random.Random, four: list[str] | None = None
) -> matches.LoadedMatch:
    """A new 2 vs 2 classic match of the club: these four, or four regulars at random."""
    if four is None:
        return start_at_random(club, day, rng)
    sides = [Side(tuple(four[:2])), Side(tuple(four[2:]))]
    return clubs.start_club_match(club, PRESETS["classic"], sides, 0, day)


def deal_post(public_id: str, form: dict[str, str], expected: int, rng: random.Random) -> str:
    """The body of a deal POST: the deal form's hidden fields, a fresh key, the numbers."""
    fields = {**form, "submission_key": uuid.uuid4().hex, "expected_deal": str(expected)}
    return urlencode({**fields, **deal_fields(_entries(rng))})


def send_deal(client: Any, public_id: str, body: str) -> Any:
    """A deal POST (``deal_post``'s body) sent in-process as htmx sends it; the answer
    read whole. (``compare.py``'s worker keeps its own: it runs the bench of the checkout
    compared, which may be older than this.)"""
    answer = client.post(
        f"/m/{public_id}/deals",
        data=body,
        content_type="application/x-www-form-urlencoded",
        headers={"HX-Request": "true"},
    )
    answer.get_data()
    return answer


# -- the load generator ------------------------------------------------------------------------

Request = tuple[str, str, "str | None", dict[str, str]]  # method, path, body, headers


@dataclass
class Load:
    """What one served measurement saw."""

    latencies: list[float] = field(default_factory=list)  # seconds, answered as expected
    failures: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def figures(self) -> dict[str, Any]:
        ok = len(self.latencies)
        cuts = statistics.quantiles(self.latencies, n=100) if ok >= 2 else [0.0] * 99
        one = self.latencies[0] if ok == 1 else None
        return {
            "requests": ok,
            "failures": sum(self.failures.values()),
            "rps": round(ok / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round((one or cuts[49]) * 1000, 2),
            "p95_ms": round((one or cuts[94]) * 1000, 2),
            "p99_ms": round((one or cuts[98]) * 1000, 2),
        }


def hammer(
    port: int,
    next_request: Callable[[], Request | None],
    connections: int,
    seconds: float,
    limit: int | None = None,
    expect: int = 200,
) -> Load:
    """``connections`` threads, each with its own keep-alive connection, sending what
    ``next_request`` gives until ``seconds`` have passed (each sends one at least),
    ``limit`` requests were sent, or it gives None."""
    load = Load()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    sent = [0]

    def worker() -> None:
        conn: http.client.HTTPConnection | None = None
        first = True  # every connection sends one request, however late its thread starts
        while first or time.monotonic() < deadline:
            first = False
            with lock:
                if limit is not None and sent[0] >= limit:
                    break
                sent[0] += 1
            request = next_request()
            if request is None:
                break
            method, path, body, headers = request
            if conn is None:
                conn = http.client.HTTPConnection(HOST, port, timeout=TIMEOUT)
            began = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                conn.close()
                conn = None
                with lock:
                    load.failures[f"{method} {path}: {type(error).__name__}"] += 1
                continue
            took = time.perf_counter() - began
            if response.will_close:
                conn.close()
                conn = None
            with lock:
                if response.status == expect:
                    load.latencies.append(took)
                else:
                    load.failures[f"{method} {path} -> {response.status}"] += 1
        if conn is not None:
            conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    load.seconds = time.monotonic() - started
    return load


def warm(
    port: int,
    request: Request | Callable[[], Request | None],
    times: int = WARM_UP,
    processes: int = 1,
) -> None:
    """``times`` requests (``request``, or each that it gives) before a measurement, not
    counted, on each of ``processes`` server processes: as many connections, open at once,
    which ``serve --workers`` shares out one to each (``keeper.Balance``). On one
    connection, a warm-up reached one process, and the other paid for its first requests
    of a kind (statements built and compiled, caches filled) inside the measurement, when
    the first requests of all its connections wait behind them."""
    next_request = request if callable(request) else (lambda: request)
    conns = [http.client.HTTPConnection(HOST, port, timeout=TIMEOUT) for _ in range(processes)]
    try:
        for conn in conns:
            conn.connect()
        for _ in range(times):
            for conn in conns:
                sent = next_request()
                if sent is None:
                    return
                conn.request(sent[0], sent[1], body=sent[2], headers=sent[3])
                conn.getresponse().read()
    finally:
        for conn in conns:
            conn.close()


class FloorServer(Server):
    """The floor's tiny app, started and stopped like the real server."""

    command = (sys.executable, str(ROOT / "bench" / "floor.py"))

    def _wait_ready(self, limit: float = 120.0) -> None:
        """Ready once every process has started: the socket accepts as soon as it is
        bound, and the first request is answered by whichever process is up first."""
        super()._wait_ready(limit)
        deadline = time.monotonic() + limit
        while self.workers > 1 and time.monotonic() < deadline:
            if self.log.read_text(errors="replace").count(FLOOR_READY) >= self.workers:
                return
            time.sleep(0.05)
        if self.workers > 1:
            raise SystemExit(f"bench: the floor's processes did not start; see {self.log}")


@contextmanager
def serving(server: Server) -> Iterator[Server]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


def served(
    built: Built, prepared: Prepared, args: argparse.Namespace, log: Path
) -> tuple[dict[str, Any], dict[str, Load]]:
    """The floor, then every request through the real server; the floor's figures and
    each measurement's load."""
    loads: dict[str, Load] = {}
    floor = FloorServer(
        free_port(), dict(os.environ), log / "floor.log", args.threads, args.workers
    )
    with serving(floor):
        warm(floor.port, ("GET", "/", None, {}), WARM_UP, args.workers)
        minimal: Request = ("GET", "/", None, {})
        loads[FLOOR] = hammer(floor.port, lambda: minimal, args.connections, args.seconds)
    env = {
        **os.environ,
        "DATABASE_URL": built.uri,
        "SCOREKEEPER_SECRET_KEY": args.secret,
        "PYTHONFAULTHANDLER": "1",
    }
    server = Server(free_port(), env, log / "server.log", args.threads, args.workers)
    with serving(server):
        member = Member(server.port, Traffic(1000), prepared.username, prepared.password)
        member.log_in()
        page = member.get(prepared.paths["match_form"])
        assert page is not None and page.status == 200
        form = forms_of(page.text).get(f"{prepared.paths['match_form']}/deals")
        if form is None:
            raise SystemExit("bench: the scorer's match page has no deal form")
        css = next(
            (u for u in _stylesheets(page.text) if u.startswith("/static/css/app.css")),
            "/static/css/app.css",
        )
        cookie = "; ".join(f"{k}={v}" for k, v in member.cookies.items())
        member.close()
        paths = {"static": css, **prepared.paths}
        for key in GETS:
            headers = {"Cookie": cookie} if key == "match_form" else {}
            request: Request = ("GET", paths[key], None, headers)
            warm(server.port, request, 1 if key in HEAVY else WARM_UP, args.workers)
            limit = args.connections if key in HEAVY else None  # one request each
            loads[key] = hammer(
                server.port, lambda r=request: r, args.connections, args.seconds, limit
            )
        rng = random.Random(23)
        lock = threading.Lock()  # one POST body made at a time (the shared random numbers)
        for key in POSTS:
            expected = PREPARED[key][0] + 1
            night = key == "finish_night_post"
            ids = prepared.served[key]
            tables = TABLES if night else 1
            lanes = [iter(ids[t::tables]) for t in range(tables)]
            lane_of: dict[int, int] = {}  # a connection's table, at a club night

            def next_post(
                lanes: list[Iterator[str]] = lanes,
                seats: dict[int, int] = lane_of,
                expected: int = expected,
            ) -> Request | None:
                with lock:
                    lane = seats.setdefault(threading.get_ident(), len(seats) % len(lanes))
                    public_id = next(lanes[lane], None)
                    if public_id is None:
                        return None
                    body = deal_post(public_id, form, expected, rng)
                headers = {
                    "Cookie": cookie,
                    "Content-Type": "application/x-www-form-urlencoded",
                    "HX-Request": "true",
                }
                return ("POST", f"/m/{public_id}/deals", body, headers)

            if not night:  # a night's warm-up would take a table's turn out of order
                each = min(WARM_UP, len(ids) // (4 * args.workers))
                warm(server.port, next_post, each, args.workers)
                lane_of.clear()
            connections = min(TABLES, args.connections) if night else args.connections
            loads[key] = hammer(server.port, next_post, connections, args.seconds)
    return loads[FLOOR].figures(), loads


def _stylesheets(page: str) -> list[str]:
    return [m.replace("&amp;", "&") for m in re.findall(r'href="(/static/[^"]+)"', page)]


# -- in-process ----------------------------------------------------------------------------------


def in_process(built: Built, prepared: Prepared, args: argparse.Namespace) -> dict[str, Any]:
    """Median ms and most SQL statements of each request in-process, interleaved rounds."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": built.uri, "SECRET_KEY": args.secret})
    client, page, form = scorer_client(app, prepared)
    floor = floor_app().test_client()
    css = next((u for u in _stylesheets(page) if u.startswith("/static/css/app.css")), "")
    paths = {"static": css or "/static/css/app.css", **prepared.paths}
    times: dict[str, list[float]] = {key: [] for key in NAMES}
    statements: dict[str, int] = dict.fromkeys(NAMES, 0)
    failures: Counter[str] = Counter()
    rng = random.Random(29)
    pools = {key: iter(ids) for key, ids in prepared.local.items()}
    answered: list[Any] = []

    streamed: dict[str, list[tuple[float, int]]] = {key: [] for key in HEAVY}

    def get(key: str) -> Callable[[], Any]:
        if key in HEAVY:
            return lambda: streamed[key].append(_streamed(client, paths[key], key, failures))
        return lambda: _expect(client.get(paths[key]), key, failures)

    def post(key: str) -> Callable[[], Any] | None:
        public_id = next(pools[key], None)
        if public_id is None:
            return None
        body = deal_post(public_id, form, PREPARED[key][0] + 1, rng)
        return lambda: answered.append(_expect(send_deal(client, public_id, body), key, failures))

    # Each request pushes its own app context, as under a server: nothing a request keeps
    # on ``g`` (the logged-in account, above all) is there for the next one, and its
    # teardown ends its session. Only the engine is taken from the app beforehand.
    with app.app_context():
        engine = db.engine
    for key in GETS:  # warm-up: templates compiled, caches filled
        get(key)()
    floor.get("/")
    for round_ in range(args.repeat):
        started = time.perf_counter()
        floor.get("/")
        times[FLOOR].append(time.perf_counter() - started)
        for key in GETS:
            if round_ >= HEAVY.get(key, args.repeat):
                continue
            took, count = _timed(get(key), engine)
            times[key].append(took)
            statements[key] = max(statements[key], count)
        for key in POSTS:
            work = post(key)
            if work is None:
                continue
            took, count = _timed(work, engine)
            times[key].append(took)
            statements[key] = max(statements[key], count)
            # As a server does: the answer is closed once sent, and work left for after
            # it (ratings, on a thread of its own) runs, untimed, before the next request.
            for response in answered:
                response.close()
            answered.clear()
            background.join()
    engine.dispose()
    figures: dict[str, dict[str, Any]] = {
        key: {
            "ms": round(statistics.median(values) * 1000, 2) if values else 0.0,
            "statements": statements[key],
        }
        for key, values in times.items()
    }
    for key, taken in streamed.items():
        timed = taken[1:]  # the warm-up's is not counted, as for every other request
        if timed:
            rows = timed[-1][1]
            figures[key]["first_byte_ms"] = round(
                statistics.median(first for first, _rows in timed) * 1000, 2
            )
            figures[key]["rows"] = rows
            figures[key]["row_us"] = round(figures[key]["ms"] * 1000 / rows, 2) if rows else 0.0
    return {"figures": figures, "failures": dict(failures)}


def fetch(client: Any, url: str, keep: bool = True) -> tuple[float, float, float, bytes, int]:
    """Seconds to the first chunk and to the last, CPU seconds, the body (or, with ``keep``
    false, nothing: each chunk is dropped once read, as a server sends it on), the status."""
    cpu = time.process_time()
    started = time.perf_counter()
    response = client.get(url, buffered=False)
    chunks = iter(response.iter_encoded())
    first = next(chunks, b"")
    first_s = time.perf_counter() - started
    if keep:
        body = first + b"".join(chunks)
    else:
        for _chunk in chunks:
            pass
        body = b""
    total_s = time.perf_counter() - started
    response.close()
    return first_s, total_s, time.process_time() - cpu, body, response.status_code


def _streamed(client: Any, path: str, key: str, failures: Counter[str]) -> tuple[float, int]:
    """A streamed answer read as a server sends it: seconds to its first chunk, and its
    rows (lines after the header)."""
    first_s, _total, _cpu, body, status = fetch(client, path)
    if status != 200:
        failures[f"{key} -> {status}"] += 1
    return first_s, max(body.count(b"\n") - 1, 0)


def scorer_client(app: Any, prepared: Prepared) -> tuple[Any, str, dict[str, str]]:
    """A test client of ``app`` logged in as the prepared scorer, the page of tonight's
    match with the deal form as it read it, and that form's fields (what ``deal_post``
    fills). (``compare.py``'s worker keeps its own, as it does ``send_deal``.)"""
    client = app.test_client()
    _log_in(client, prepared)
    page = client.get(prepared.paths["match_form"]).get_data(as_text=True)
    return client, page, forms_of(page)[f"{prepared.paths['match_form']}/deals"]


def _log_in(client: Any, prepared: Prepared) -> None:
    page = client.get("/login").get_data(as_text=True)
    fields = {**forms_of(page).get("/login", {}), "username": prepared.username}
    answer = client.post("/login", data={**fields, "password": prepared.password})
    if answer.status_code != 303:
        raise SystemExit(f"bench: the in-process log-in answered {answer.status_code}")


def _expect(response: Any, key: str, failures: Counter[str]) -> Any:
    response.get_data()
    if response.status_code != 200:
        failures[f"{key} -> {response.status_code}"] += 1
    return response


# -- the report ------------------------------------------------------------------------------------


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else 0.0


def size_report(floor: dict[str, Any], loads: dict[str, Load], local: dict[str, Any]) -> dict:
    """Every figure of one size, each with its ratio to the floor measured with it."""
    out: dict[str, Any] = {"floor": {**floor, "in_process_ms": local["figures"][FLOOR]["ms"]}}
    floor_ms = local["figures"][FLOOR]["ms"]
    for key in NAMES:
        if key == FLOOR:
            continue
        s = loads[key].figures()
        ip = local["figures"][key]
        out[key] = {
            **s,
            "rps_share": ratio(s["rps"], floor["rps"]),
            "p50_x": ratio(s["p50_ms"], floor["p50_ms"]),
            "p95_x": ratio(s["p95_ms"], floor["p95_ms"]),
            "p99_x": ratio(s["p99_ms"], floor["p99_ms"]),
            "in_process_ms": ip["ms"],
            "in_process_x": ratio(ip["ms"], floor_ms),
            "statements": ip["statements"],
        }
        if "first_byte_ms" in ip:
            out[key].update(
                first_byte_ms=ip["first_byte_ms"],
                first_byte_x=ratio(ip["first_byte_ms"], floor_ms),
                rows=ip["rows"],
                row_us=ip["row_us"],
            )
    return out


def growths(by_size: dict[int, dict[str, Any]], sizes: list[int]) -> dict[str, Any]:
    """Each figure at each larger size over the first size (>1: slower, or less per second)."""
    first = by_size[sizes[0]]
    found: dict[str, Any] = {}
    for size in sizes[1:]:
        large = by_size[size]
        found[str(size)] = {
            key: {
                # in-process, as a multiple of the in-process floor of its own rounds: what
                # the machine itself did meanwhile (a run's second half 1.5x slower, the
                # floor and the static file alike, was seen) cancels out
                "in_process": ratio(large[key]["in_process_x"], first[key]["in_process_x"]),
                "in_process_ms": ratio(large[key]["in_process_ms"], first[key]["in_process_ms"]),
                "p50": ratio(large[key]["p50_ms"], first[key]["p50_ms"]),
                "p95": ratio(large[key]["p95_ms"], first[key]["p95_ms"]),
                "rps": ratio(first[key]["rps"], large[key]["rps"]),
                "statements": [first[key]["statements"], large[key]["statements"]],
            }
            for key in NAMES
            if key != FLOOR
        }
        for key in HEAVY:
            if "first_byte_x" in first[key] and "first_byte_x" in large[key]:
                found[str(size)][key].update(
                    first_byte=ratio(large[key]["first_byte_x"], first[key]["first_byte_x"]),
                    # what a row costs, over the floor of its own rounds, as the rest
                    row=ratio(
                        large[key]["row_us"] / large["floor"]["in_process_ms"],
                        first[key]["row_us"] / first["floor"]["in_process_ms"],
                    ),
                )
        found[str(size)]["floor_rps"] = ratio(first["floor"]["rps"], large["floor"]["rps"])
        found[str(size)]["floor_in_process"] = ratio(
            large["floor"]["in_process_ms"], first["floor"]["in_process_ms"]
        )
    return found


def targets(by_size: dict[int, dict[str, Any]], grown: dict[str, Any], sizes: list[int]):
    """The issue's targets, each met or not, with the value measured. Growth is taken
    in-process (the quieter measure), as a multiple of the floor measured in the same
    rounds, from the first size to the second."""
    checks: dict[str, dict[str, Any]] = {}
    if len(sizes) > 1:
        g = grown[str(sizes[1])]
        for key in POSTS:
            checks[f"{key}: growth"] = _check(g[key]["in_process"], MAX_GROWTH, "<=")
            first, second = g[key]["statements"]
            checks[f"{key}: constant statements"] = _check(second, first, "<=")
    top = by_size[sizes[-1]] if len(sizes) < 3 else by_size[sizes[1]]
    for key in POSTS:
        checks[f"{key}: in-process ms"] = _check(top[key]["in_process_ms"], MAX_POST_MS, "<=")
        checks[f"{key}: served p95 ms"] = _check(top[key]["p95_ms"], MAX_POST_P95_MS, "<=")
    if len(sizes) > 1:
        g = grown[str(sizes[1])]
        for key in PAGES:
            if key in HEAVY:  # the whole history: its start and its cost a row (HEAVY)
                for part, name in (("first_byte", "first byte growth"), ("row", "growth a row")):
                    measured = g[key].get(part)
                    checks[f"{key}: {name}"] = (
                        _check(measured, MAX_GROWTH, "<=")
                        if measured is not None
                        else {"value": None, "limit": MAX_GROWTH, "how": "<=", "met": False}
                    )
                continue
            checks[f"{key}: growth"] = _check(g[key]["in_process"], MAX_GROWTH, "<=")
    for key in SHARE_PAGES:
        share = min(by_size[size][key]["rps_share"] for size in sizes[:2])
        checks[f"{key}: throughput share"] = _check(share, MIN_SHARE, ">=")
    return checks


def _check(value: float, limit: float, how: str) -> dict[str, Any]:
    met = value <= limit if how == "<=" else value >= limit
    return {"value": value, "limit": limit, "how": how, "met": bool(met)}


def print_tables(report: dict[str, Any]) -> None:
    sizes = report["sizes"]
    for size in sizes:
        r = report["by_size"][str(size)]
        f = r["floor"]
        print(
            f"\n{size} finished matches ({report['database']}, {report['connections']} "
            f"connections, {report['seconds']:g} s each): floor {f['rps']} req/s, "
            f"p50 {f['p50_ms']} ms, p95 {f['p95_ms']} ms; in-process {f['in_process_ms']} ms\n"
        )
        print(
            "| request | req/s | share of floor | p50 ms | p95 ms | p99 ms | p95 × floor "
            "| in-process ms | × floor | SQL |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for key in NAMES:
            if key == FLOOR:
                continue
            x = r[key]
            print(
                f"| {NAMES[key]} | {x['rps']} | {x['rps_share']} | {x['p50_ms']} | "
                f"{x['p95_ms']} | {x['p99_ms']} | {x['p95_x']} | {x['in_process_ms']} | "
                f"{x['in_process_x']} | {x['statements']} |"
            )
        for key in HEAVY:
            if "first_byte_ms" in r[key]:
                x = r[key]
                print(
                    f"\n{NAMES[key]}: {x['rows']} rows, first byte {x['first_byte_ms']} ms "
                    f"in-process, {x['row_us']} µs a row"
                )
    for size, grown in report["growth"].items():
        print(
            f"\nGrowth {sizes[0]} → {size} (the floor's own: served {grown['floor_rps']}x, "
            f"in-process {grown['floor_in_process']}x; in-process growth is of the × floor "
            "figure, the ms beside it)\n"
        )
        print("| request | in-process | in-process ms | p50 | p95 | req/s | SQL |")
        print("|---|---|---|---|---|---|---|")
        for key in NAMES:
            if key == FLOOR:
                continue
            g = grown[key]
            sql = "{} → {}".format(*g["statements"])
            print(
                f"| {NAMES[key]} | {g['in_process']}x | {g['in_process_ms']}x | {g['p50']}x | "
                f"{g['p95']}x | {g['rps']}x | {sql} |"
            )
        for key in HEAVY:
            g = grown[key]
            if "first_byte" in g:
                print(
                    f"\n{NAMES[key]}: the whole answer {g['in_process']}x (its rows "
                    f"{report['by_size'][str(sizes[0])][key]['rows']} → "
                    f"{report['by_size'][size][key]['rows']}; not a target), its first "
                    f"byte {g['first_byte']}x, a row {g['row']}x"
                )
    print("\nTargets\n")
    for name, check in report["targets"].items():
        word = "met" if check["met"] else "NOT MET"
        print(f"- {name}: {check['value']} (target {check['how']} {check['limit']}): {word}")


# -- the run -------------------------------------------------------------------------------------


def default_cache() -> Path:
    """Where built clubs are kept unless told (``--cache-dir``)."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "scorekeeper-bench"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="finished matches of each club (default 1000,10000)")
    parser.add_argument("--large", action="store_true", help="also 100,000 (PostgreSQL)")
    parser.add_argument(
        "--database-url", help="PostgreSQL: the server and the name its databases start with"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20 and 60, 2 s each")
    parser.add_argument("--seconds", type=float, help="per served measurement (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="load connections (16)")
    parser.add_argument(
        "--threads",
        type=int,
        help="waitress threads a process (serve's: 4 with one process, 1 each with several)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help=f"server processes, the floor's too ({default_workers()}: serve's, one per core)",
    )
    parser.add_argument("--posts", type=int, help="prepared matches per POST kind (200)")
    parser.add_argument("--repeat", type=int, help="in-process rounds (default 20)")
    parser.add_argument("--cache-dir", type=Path, help="where built clubs are kept")
    parser.add_argument("--no-cache", action="store_true", help="build every club afresh")
    parser.add_argument("--strict", action="store_true", help="exit 3 when a target is unmet")
    args = parser.parse_args(argv)
    default_sizes = "20,60" if args.quick else "1000,10000"
    try:
        sizes = [int(s) for s in (args.sizes or default_sizes).split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes numbers separated by commas, e.g. 1000,10000")
    if args.large:
        sizes.append(100_000)
    if not sizes or min(sizes) < 1 or sizes != sorted(set(sizes)):
        parser.error("--sizes must be increasing numbers of at least 1")
    args.sizes = sizes
    args.seconds = args.seconds or (2.0 if args.quick else 10.0)
    args.posts = args.posts or (30 if args.quick else 200)
    args.repeat = args.repeat or (5 if args.quick else 20)
    if args.threads is None:
        args.threads = default_threads(args.workers)
    if min(args.connections, args.threads, args.workers, args.posts) < 1 or args.seconds <= 0:
        parser.error("--seconds, --connections, --threads, --workers and --posts must be positive")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    refuse_sqlite_url(parser, args.database_url)
    if args.no_cache:
        args.cache_dir = None
    elif args.cache_dir is None:
        args.cache_dir = default_cache()
    args.secret = secrets.token_hex(16)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    url = normalise_db_url(args.database_url) if args.database_url else None
    began = time.monotonic()
    by_size: dict[int, dict[str, Any]] = {}
    builds: dict[str, Any] = {}
    failures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-run-") as folder:
        work = Path(folder)
        for size in args.sizes:
            print(f"club of {size}: building or reusing…", file=sys.stderr, flush=True)
            built = club(size, url, work, args.cache_dir)
            builds[str(size)] = {"seconds": round(built.build_s, 1), "cached": built.cached}
            try:
                prepared = prepare(built.uri, built.history, args.posts, 0)
                print(f"club of {size}: serving…", file=sys.stderr, flush=True)
                floor, loads = served(built, prepared, args, work)
            finally:
                built.drop()
            # In-process on a copy of the club as built, not after the served POSTs: the
            # hundreds of matches they finish tonight would put more than
            # ``ratings.IN_REQUEST`` matches after every out-of-order finish, whose
            # ratings would then be marked as updating instead of replayed in the request
            # as the served ones are (with ``--no-cache``, the club is built again).
            built = club(size, url, work, args.cache_dir)
            try:
                prepared = prepare(built.uri, built.history, 0, args.repeat)
                print(f"club of {size}: in-process…", file=sys.stderr, flush=True)
                local = in_process(built, prepared, args)
            finally:
                built.drop()
            by_size[size] = size_report(floor, loads, local)
            failed = {k: dict(v.failures) for k, v in loads.items() if v.failures}
            failed.update({f"in-process {k}": n for k, n in local["failures"].items()})
            if failed:
                failures[str(size)] = failed
    grown = growths(by_size, args.sizes)
    checks = targets(by_size, grown, args.sizes)
    report = {
        "database": (url or "sqlite").split(":")[0].split("+")[0],
        "sizes": args.sizes,
        "connections": args.connections,
        "threads": args.threads,
        "workers": args.workers,
        "seconds": args.seconds,
        "repeat": args.repeat,
        "date": date.today().isoformat(),
        "cpus": os.cpu_count(),
        "by_size": {str(size): figures for size, figures in by_size.items()},
        "growth": grown,
        "targets": checks,
        "targets_met": all(c["met"] for c in checks.values()),
        "failures": failures,
        "builds": builds,
        "run_seconds": round(time.monotonic() - began, 1),
    }
    print_tables(report)
    for size, failed in failures.items():
        print(f"FAILED at {size}: {failed}", file=sys.stderr)
    print(json.dumps(report))
    if failures:
        return 1
    return 3 if args.strict and not report["targets_met"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
