"""The soak's phases: the database made ready, the scorers' writes, the readers' pages."""

from __future__ import annotations

import random
import secrets
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from unittest import mock

from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import event, inspect, select, text

from bench.history import ClubHistory, build_club, replicated
from bench.soak_client import Browser, Budget, Ledger, LoginFailed, Member, Traffic
from bench.soak_scorers import Pool, Scorer, Shared
from bench.soak_server import Server
from scorekeeper.app import create_app
from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, Deal, Match, Player, Season
from scorekeeper.services import (
    accounts,
    aggregates,
    clubs,
    data_export,
    data_import,
    matches,
    memberships,
    ratings,
)

MAX_REQUESTS = 500_000  # a hard bound on the run's traffic, whatever the durations
#: Seconds a reader waits for one page: the whole history's CSV of a club of thousands
#: of matches takes many seconds when 16 readers share 8 server threads (pages.py
#: measures speed; the read phase looks for crashes and errors).
READ_TIMEOUT = 120.0


@dataclass
class Prepared:
    """The club, its accounts and the matches stored before the server starts."""

    club_id: str
    pool: list[Shared]
    baseline: set[str]  # submission keys of the deals already stored
    history: int
    owner: tuple[str, str]  # the club owner's username and password
    scorers: list[tuple[str, str]]  # one account with the scorer role per scorer


def prepare(app: Flask, history: int, shared: int, scorers: int) -> Prepared:
    """Migrate the empty database, build the club's history, its accounts (an owner, and
    one scorer account per scorer) and the shared matches."""
    with app.app_context():
        present = set(inspect(db.engine).get_table_names())
        if present - {"alembic_version"}:
            db.engine.dispose()
            raise SystemExit(
                "soak: the database already has tables; give an empty database (the soak "
                "creates its tables and drops them when done, unless --keep)."
            )
        if present:  # a migration run left only its bookkeeping: start from nothing
            db.session.execute(text("DROP TABLE alembic_version"))
            db.session.commit()
        upgrade()
        made = quick_history(history)
        club = clubs.get_club(made.club_id)
        assert club is not None
        owner, scoring = club_accounts(club, scorers)
        pool = []
        for number in range(shared):
            four = random.Random(number).sample(("Ann", "Bob", "Cid", "Dee", "Eve", "Fay"), 4)
            sides = [Side(tuple(four[:2])), Side(tuple(four[2:]))]
            if number % 2:
                loaded = clubs.start_club_match(club, PRESETS["classic"], sides, 0, date.today())
            else:
                loaded = matches.start_match(PRESETS["classic"], "classic", sides, 0)
            pool.append(Shared(loaded.public_id, club=bool(number % 2)))
        baseline = set(db.session.scalars(select(Deal.submission_key)))
        db.session.remove()
        db.engine.dispose()
    return Prepared(made.club_id, pool, baseline, history, owner, scoring)


def club_accounts(club: Club, scorers: int) -> tuple[tuple[str, str], list[tuple[str, str]]]:
    """What a real club has: an account that owns it, and its scorers' accounts, signed up
    (``services.accounts``) and given their roles (``services.memberships``) as the app
    does. Returns the owner's and the scorers' usernames and passwords."""
    made = []
    for name, role in [("soak-owner", "owner")] + [
        (f"soak-scorer-{n}", "scorer") for n in range(scorers)
    ]:
        password = secrets.token_urlsafe(12)
        memberships.add_member(club, accounts.sign_up(name, password), role)
        made.append((name, password))
    return made[0], made[1:]


#: Past matches built through the services; a longer history copies them (``replicated``).
SEED = 200


def quick_history(size: int) -> ClubHistory:
    """A club with ``size`` finished past matches (and tonight's tables) in the database.

    Up to ``SEED`` matches: ``history.build_club``, with the club's standing lines and
    ratings written once at the end. More: ``SEED`` matches built so in a scratch SQLite
    file, exported, copied further into the past up to ``size`` and imported
    (``history.replicated``, ``services.data_import``), which rebuilds every total, side
    result, standing line and rating from the deals as the app does: thousands of matches
    in minutes instead of hours. The soak's checks compare those rows with a rebuild.
    """
    if size <= SEED:
        return _built_history(size)
    with tempfile.TemporaryDirectory(prefix="soak-seed-") as scratch:
        seed = create_app(
            {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{scratch}/seed.sqlite3", "SECRET_KEY": "-"}
        )
        with seed.app_context():
            upgrade()
            made = _built_history(SEED)
            doc = data_export.document()
            db.session.remove()
            db.engine.dispose()
    data_import.load(data_import.parse(replicated(doc, size), "the soak's history"))
    db.session.remove()
    return ClubHistory(made.club_id, made.player_id, made.match_id, size)


def _built_history(size: int) -> ClubHistory:
    """``history.build_club``, with the club's standing lines and ratings written once at
    the end (``aggregates.rebuild``, ``ratings.recompute``) instead of after every match:
    the same rows, in minutes fewer."""
    skip = mock.Mock(return_value=None)
    db.session.remove()
    db.engine.dispose()  # the builder's connections commit without waiting for the disk
    event.listen(db.engine, "connect", _no_fsync)
    try:
        with (
            mock.patch.object(aggregates, "refresh", skip),
            mock.patch.object(ratings, "match_finished", skip),
        ):
            made = build_club("Soak club", size, seed=11)
    finally:
        db.session.remove()
        event.remove(db.engine, "connect", _no_fsync)
        db.engine.dispose()
    club = clubs.get_club(made.club_id)
    assert club is not None
    aggregates.rebuild(db.session, club.id)
    ratings.recompute(club.id)
    db.session.commit()
    return made


def _no_fsync(dbapi_connection: Any, _record: Any) -> None:
    """A bench fixture needs no durability against power loss: skip the disk flushes."""
    cursor = dbapi_connection.cursor()
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor.execute("PRAGMA synchronous=OFF")
    else:
        cursor.execute("SET synchronous_commit TO off")
        dbapi_connection.commit()
    cursor.close()


#: Seconds the write phase may run past ``--seconds`` while the kill, or the first
#: acknowledged save of either kind, is still to come (a slow or very busy machine).
GRACE = 120.0


def write_phase(
    server: Server, prepared: Prepared, scorers: int, seconds: float, kill: bool
) -> tuple[Ledger, Traffic]:
    """The scorers for ``seconds``, with ``kill -9`` of the server half-way unless not
    ``kill``. The kill waits for a first acknowledged save (it is meant to hit a server
    that is saving), and the phase goes on past ``seconds``, up to ``GRACE``, until the
    kill is done and both a new deal and a correction are acknowledged: on a busy machine
    a short run still tests all three (CI once saw 2 new deals and no correction in 4 s).
    """
    ledger, traffic = Ledger(), Traffic(MAX_REQUESTS)
    pool = Pool(list(prepared.pool))
    phones = [
        Scorer(n, server.port, prepared.club_id, pool, ledger, traffic, prepared.scorers[n])
        for n in range(scorers)
    ]
    started = time.monotonic()
    planned, last = started + seconds, started + seconds + GRACE
    done = threading.Event()

    def over() -> bool:
        now = time.monotonic()
        if now < planned:
            return False
        killed = not kill or server.kills > 0
        both = ledger.count("acked", "record") > 0 and ledger.count("acked", "correct") > 0
        return now >= last or (killed and both)

    def killer() -> None:
        while not done.wait(0.05):
            if time.monotonic() >= started + seconds / 2 and ledger.count("acked"):
                server.kill_at = time.monotonic()
                return

    threads = [threading.Thread(target=p.run, args=(over,), daemon=True) for p in phones]
    if kill:
        threads.append(threading.Thread(target=killer, daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads[:scorers]:
        thread.join()
    done.set()
    for thread in threads[scorers:]:
        thread.join()
    server.kill_at = None
    for phone in phones:
        traffic.logins += phone.member.logins
        traffic.relogins += phone.member.relogins
        if phone.login_failure:
            traffic.login_failures.append(phone.login_failure)
    return ledger, traffic


@dataclass
class Pages:
    """The read phase's pages: those anyone may read (a public club's), and those only the
    club's owner (the settings) or its scorers (a new match) may open."""

    public: list[str]
    owner: list[str]


def read_urls(app: Flask, club_id: str, limit: int = 40) -> Pages:
    """Every kind of page: home, club, standings, CSVs, players, matches, rules, meld, API,
    the club's settings and new-match page."""
    with app.app_context():
        club = db.session.scalar(select(Club).where(Club.public_id == club_id))
        assert club is not None
        season = db.session.scalar(select(Season.public_id).where(Season.club_id == club.id))
        players = db.session.scalars(select(Player.public_id).where(Player.club_id == club.id))
        ids = list(db.session.scalars(select(Match.public_id).order_by(Match.id.desc())))
        db.session.remove()
    c = f"/c/{club_id}"
    urls = ["/", "/clubs", c, f"{c}?view=partnerships", f"{c}?season={season}", f"{c}?sort=wins"]
    urls += [f"{c}/standings.csv", f"{c}/standings.csv?view=partnerships", f"{c}/matches.csv"]
    urls += [f"{c}/matches.csv?season={season}", f"{c}/players", f"{c}/players?q=a"]
    urls += [f"{c}/tonight", "/matches/new"]
    urls += ["/rules", "/rules/presets/classic", "/meld", "/api/v1/rules", "/api/v1/openapi.json"]
    for player in players:
        urls += [f"{c}/p/{player}", f"{c}/p/{player}?season={season}"]
    for public_id in random.Random(5).sample(ids, min(limit, len(ids))):
        urls += [f"/m/{public_id}", f"/api/v1/matches/{public_id}", f"/meld?match={public_id}"]
    return Pages(urls, [*urls, f"{c}/settings", f"{c}/members", f"{c}/matches/new"])


@dataclass
class Reads:
    """What the read phase saw."""

    requests: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # "GET /x -> 404"
    seconds: float = 0.0
    slowest: tuple[float, str] = (0.0, "")  # the longest answer, and its page
    traffic: Traffic = field(default_factory=lambda: Traffic(MAX_REQUESTS))


def read_phase(
    port: int, pages: Pages, owner: tuple[str, str], connections: int, seconds: float
) -> Reads:
    """``connections`` phones requesting random pages for ``seconds``: every other phone is
    the club's owner, logged in once, reading every page (its settings too); the others
    are visitors without an account, reading what anyone may."""
    reads = Reads()
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def reader(number: int) -> None:
        rng = random.Random(number)
        browser: Browser = Browser(port, reads.traffic, READ_TIMEOUT)
        urls = pages.public
        if number % 2:
            browser = Member(port, reads.traffic, *owner, timeout=READ_TIMEOUT)
            urls = pages.owner
        try:
            if isinstance(browser, Member):
                browser.log_in()
            while time.monotonic() < deadline:
                url = rng.choice(urls)
                began = time.monotonic()
                answer = browser.get(url)
                with lock:
                    reads.requests += 1
                    reads.slowest = max(reads.slowest, (time.monotonic() - began, url))
                    if answer is None or answer.status != 200:
                        reads.failures[f"GET {url} -> {answer.status if answer else 'none'}"] += 1
        except Budget:
            pass
        except LoginFailed as failure:
            with lock:
                reads.traffic.login_failures.append(str(failure))
        finally:
            if isinstance(browser, Member):
                with lock:
                    reads.traffic.logins += browser.logins
                    reads.traffic.relogins += browser.relogins
            browser.close()

    started = time.monotonic()
    threads = [threading.Thread(target=reader, args=(n,), daemon=True) for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reads.seconds = time.monotonic() - started
    return reads


def drop_everything(app: Flask) -> None:
    with app.app_context():
        db.session.remove()
        db.drop_all()
        db.session.execute(text("DROP TABLE IF EXISTS alembic_version"))
        db.session.commit()
        db.engine.dispose()
