"""Two phones writing to one match, or one club, at the same moment, on real connections.

Each test runs rounds of two threads, each with its own test client (so its own app
context, session and database connection), released together by a barrier. After every
round the stored aggregates must equal what the deals say: each side's total is the sum of
its deals, and the side results, standing lines and ratings equal a rebuild from the deals.
On PostgreSQL (READ COMMITTED) this holds only if every writer locks the match, then the
club, before it reads what it rewrites; SQLite's ``BEGIN IMMEDIATE`` serializes them anyway.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select, update
from support import give_role, log_in, signed_in_client

from scorekeeper import database
from scorekeeper.engine import Match
from scorekeeper.extensions import db
from scorekeeper.models import (
    Account,
    Club,
    DealSide,
    Membership,
    Player,
    RatingPoint,
    Season,
    SideResult,
    StandingLine,
)
from scorekeeper.models import Deal as DealRow
from scorekeeper.models import Match as MatchRow
from scorekeeper.services import (
    accounts,
    aggregates,
    clubs,
    matches,
    memberships,
    ratings,
    standings,
)
from scorekeeper.services.demo import play

ROUNDS = 20
TEAMS = [("Ann", "Bob"), ("Cid", "Dee")]


@pytest.fixture
def club_id(app: Flask) -> int:
    with app.app_context():
        club = clubs.create_club("Tuesday")
        # Some history, so standing lines and ratings span more than the raced match.
        play(club, TEAMS, [[300, 200], [150, 400], [250, 250], [500, 100]], date(2024, 3, 1))
        play(club, [("Ann", "Cid"), ("Bob", "Dee")], [[90, 80]] * 4, date(2024, 3, 8))
        club_id, public_id = int(club.id), str(club.public_id)
    give_role(app, public_id, "keeper", "owner")  # the phones: an owner may do it all
    return club_id


def _client(app: Flask, index: int = 0) -> FlaskClient:
    """Phone ``index``, logged in as the club's owner (its own session and cookies), made
    once per app and reused round after round (log-ins are rate limited)."""
    phones: list[FlaskClient] = app.extensions.setdefault("test_phones", [])
    while len(phones) <= index:
        client = app.test_client()
        log_in(client, "keeper")
        phones.append(client)
    return phones[index]


def _new_match(app: Flask, club_id: int, deals: int, teams: Any = TEAMS) -> str:
    """A club match of 2+2 with ``deals`` deals already recorded; its public id."""
    with app.app_context():
        club = db.session.get(Club, club_id)
        points = [[400, 300], [200, 250], [350, 100], [120, 330]][:deals]
        return str(play(club, teams, points, date(2024, 3, 15)).public_id)


def _hidden(html: str) -> dict[str, str]:
    """The hidden guards of a deal form (expected deal, submission key, version)."""
    found = {}
    for tag in re.findall(r"<input [^>]*>", html):
        name, value = re.search(r'name="(\w+)"', tag), re.search(r'value="([^"]*)"', tag)
        if 'type="hidden"' in tag and name:
            found[name.group(1)] = value.group(1) if value else ""
    return found


def _deal_form(page: str, a: int, b: int) -> dict[str, str]:
    return {
        **_hidden(page),
        "went_out": "",
        "sides-0-melded_points": str(a),
        "sides-1-melded_points": str(b),
    }


Step = Callable[[FlaskClient, threading.Barrier], None]


def _race(app: Flask, *steps: Step) -> None:
    """Run each step in its own thread with its own client, all let go at one moment."""
    barrier = threading.Barrier(len(steps))
    failures: list[BaseException] = []

    def run(step: Step, client: FlaskClient) -> None:
        try:
            step(client, barrier)
        except BaseException as error:  # reported by the main thread
            barrier.abort()
            failures.append(error)

    phones = [_client(app, index) for index in range(len(steps))]  # before the race
    threads = [threading.Thread(target=run, args=pair) for pair in zip(steps, phones, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a writer is still waiting"
    assert not failures, failures


def _snapshot(club_id: int) -> dict[str, Any]:
    """What the pages read for a club: side results, standing lines, ratings."""
    db.session.expire_all()
    results = db.session.execute(
        select(*(c for c in SideResult.__table__.columns if c.key != "id"))
        .where(SideResult.club_id == club_id)
        .order_by(SideResult.side_id)
    ).all()
    lines = db.session.execute(
        select(*(c for c in StandingLine.__table__.columns if c.key != "id"))
        .where(StandingLine.club_id == club_id)
        .order_by(StandingLine.scope, StandingLine.kind, StandingLine.members)
    ).all()
    rated = db.session.execute(
        select(Player.id, Player.rating_mu, Player.rating_sigma)
        .where(Player.club_id == club_id)
        .order_by(Player.id)
    ).all()
    points = db.session.execute(
        select(RatingPoint.player_id, RatingPoint.match_id, RatingPoint.played_on)
        .add_columns(RatingPoint.mu, RatingPoint.sigma)
        .where(RatingPoint.club_id == club_id)
        .order_by(RatingPoint.player_id, RatingPoint.match_id)
    ).all()
    return {
        "side_results": [tuple(r) for r in results],
        "lines": [tuple(r) for r in lines],
        "ratings": [(p, _round(mu), _round(sigma)) for p, mu, sigma in rated],
        "rating_points": [(*p[:3], _round(p[3]), _round(p[4])) for p in points],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 9)


def _rebuilt(club_id: int) -> dict[str, Any]:
    """The same, computed from the deals from scratch (rolled back afterwards)."""
    for row in db.session.scalars(select(MatchRow).where(MatchRow.club_id == club_id)):
        standings.write_results(db.session, row, matches.game_of(row))
    aggregates.rebuild(db.session, club_id)
    ratings.recompute(club_id)
    db.session.flush()
    fresh = _snapshot(club_id)
    db.session.rollback()
    return fresh


def _wrong_totals(club_id: int) -> list[str]:
    """Matches whose stored totals, count, status or winner differ from their deals."""
    wrong = []
    db.session.expire_all()
    for row in db.session.scalars(select(MatchRow).where(MatchRow.club_id == club_id)):
        sums = [
            db.session.scalar(
                select(db.func.coalesce(db.func.sum(DealSide.total), 0))
                .join(DealRow)
                .where(DealRow.match_id == row.id, DealSide.position == side.position)
            )
            for side in row.sides
        ]
        game = matches.game_of(row)
        stored = [side.total for side in row.sides]
        if (stored, row.deal_count, row.finished, row.winner_position) != (
            sums,
            len(game.deals),
            game.finished,
            game.winner,
        ) or sums != list(game.totals):
            wrong.append(f"{row.public_id}: stored {stored}, deals say {sums}")
    seasons = db.session.scalars(select(Season).where(Season.club_id == club_id)).all()
    for row in db.session.scalars(select(MatchRow).where(MatchRow.club_id == club_id)):
        season = standings.season_of(row.played_on, seasons)
        if row.season_id != (season.id if season else None):
            wrong.append(f"{row.public_id} played on {row.played_on} is in the wrong season")
    return wrong


def _check(app: Flask, club_id: int) -> list[str]:
    """Everything that differs from what the deals say, as readable lines."""
    with app.app_context():
        problems = _wrong_totals(club_id)
        stored, fresh = _snapshot(club_id), _rebuilt(club_id)
        problems += [f"{key} differ from a rebuild" for key in stored if stored[key] != fresh[key]]
        db.session.remove()
    return problems


def _stored_points(app: Flask, public_id: str) -> list[list[int]]:
    with app.app_context():
        loaded = matches.load_match(public_id)
        assert loaded is not None
        return [[d.total for d in deal.sides] for deal in loaded.row.deals]


def _report(bad: dict[int, list[str]], rounds: int = ROUNDS) -> str:
    first = next(iter(bad.values()), [])
    return f"{len(bad)} of {rounds} rounds left wrong aggregates, e.g. {first[:3]}"


def _correcting(public_id: str, number: int, typed: tuple[int, int], answers: dict) -> Step:
    """Open deal ``number``'s correction page, then (all at once) send ``typed``."""

    def step(client: FlaskClient, barrier: threading.Barrier) -> None:
        page = client.get(f"/m/{public_id}/deals/{number}/edit").get_data(as_text=True)
        data = _deal_form(page, *typed)
        barrier.wait(timeout=30)
        answers[number] = client.post(f"/m/{public_id}/deals/{number}", data=data).status_code

    return step


def _recording(public_id: str, typed: tuple[int, int]) -> Step:
    """Open the match page, then (all at once) save the next deal."""

    def step(client: FlaskClient, barrier: threading.Barrier) -> None:
        data = _deal_form(client.get(f"/m/{public_id}").get_data(as_text=True), *typed)
        barrier.wait(timeout=30)
        assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303

    return step


def _posting(url: str, data: dict[str, str], answers: list[int]) -> Step:
    def step(client: FlaskClient, barrier: threading.Barrier) -> None:
        barrier.wait(timeout=30)
        answers.append(client.post(url, data=data).status_code)

    return step


def _points(rng: random.Random) -> tuple[int, int]:
    return rng.randrange(0, 900, 5), rng.randrange(0, 900, 5)


def _unfinish(app: Flask, *public_ids: str) -> None:
    """Reopen each match and remove its last deal (for the next round)."""
    with app.app_context():
        for public_id in public_ids:
            loaded = matches.load_match(public_id)
            assert loaded is not None
            loaded = matches.reopen(loaded)
            matches.remove_last_deal(loaded, loaded.row.deal_count)
        db.session.remove()


def test_correcting_two_deals_of_one_open_club_match_at_once_keeps_every_total(
    app: Flask, club_id: int
) -> None:
    public_id = _new_match(app, club_id, 3)
    rng = random.Random(1)
    bad: dict[int, list[str]] = {}
    for round_ in range(ROUNDS):
        typed = {1: _points(rng), 2: _points(rng)}
        answers: dict[int, int] = {}
        _race(app, *(_correcting(public_id, n, typed[n], answers) for n in (1, 2)))
        assert answers == {1: 303, 2: 303}
        # Both corrections were acknowledged, so both are stored...
        assert _stored_points(app, public_id)[:2] == [list(typed[1]), list(typed[2])]
        # ...and the totals and everything built on them say so.
        if problems := _check(app, club_id):
            bad[round_] = problems
    assert not bad, _report(bad)


def test_correcting_two_deals_of_one_finished_club_match_at_once_keeps_the_standings(
    app: Flask, club_id: int
) -> None:
    public_id = _new_match(app, club_id, 4)
    rng = random.Random(2)
    bad: dict[int, list[str]] = {}
    for round_ in range(ROUNDS):
        _client(app).post(f"/m/{public_id}/reopen")
        typed = {1: _points(rng), 2: _points(rng)}
        answers: dict[int, int] = {}
        _race(app, *(_correcting(public_id, n, typed[n], answers) for n in (1, 2)))
        # The first correction closes the match again, so the second may be sent back to
        # the match page; at least one is stored, and the standings say what is stored.
        stored = _stored_points(app, public_id)
        assert list(typed[1]) == stored[0] or list(typed[2]) == stored[1]
        if problems := _check(app, club_id):
            bad[round_] = problems
    assert not bad, _report(bad)


def test_recording_the_last_deal_while_another_phone_corrects_one_keeps_every_total(
    app: Flask, club_id: int
) -> None:
    public_id = _new_match(app, club_id, 3)
    rng = random.Random(3)
    bad: dict[int, list[str]] = {}
    for round_ in range(ROUNDS):
        last, fix = (rng.randrange(0, 900, 5), 0), (rng.randrange(0, 900, 5), 0)
        _race(app, _recording(public_id, last), _correcting(public_id, 1, fix, {}))
        if problems := _check(app, club_id):
            bad[round_] = problems
        _unfinish(app, public_id)  # back to three deals for the next round
    assert not bad, _report(bad)


def test_two_matches_of_one_club_finishing_at_once_rate_in_date_order(
    app: Flask, club_id: int
) -> None:
    rng = random.Random(4)
    first = _new_match(app, club_id, 3)
    second = _new_match(app, club_id, 3, [("Ann", "Dee"), ("Bob", "Cid")])
    bad: dict[int, list[str]] = {}
    for round_ in range(ROUNDS):
        _race(app, _recording(first, _points(rng)), _recording(second, _points(rng)))
        if problems := _check(app, club_id):
            bad[round_] = problems
        _unfinish(app, first, second)
    assert not bad, _report(bad)


@pytest.fixture
def two_sessions(app: Flask) -> Iterator[tuple[Any, Any]]:
    """Two app contexts of one thread: two sessions, as two requests would have."""
    first, second = app.app_context(), app.app_context()
    yield first, second


def test_a_service_given_a_match_read_before_another_write_reads_it_again_under_lock(
    app: Flask, club_id: int, two_sessions: tuple[Any, Any]
) -> None:
    public_id = _new_match(app, club_id, 3)
    first, second = two_sessions
    with first:
        stale = matches.load_match(public_id)
        assert stale is not None
        db.session.rollback()  # the read's transaction ends; its values stay in memory
        with second:
            other = matches.load_match(public_id)
            assert other is not None
            matches.correct_deal(other, 2, [{"melded_points": 5}, {"melded_points": 0}], None)
            db.session.remove()
        matches.correct_deal(stale, 1, [{"melded_points": 0}, {"melded_points": 5}], None)
        db.session.remove()
    assert _stored_points(app, public_id)[:2] == [[0, 5], [5, 0]]
    assert not _check(app, club_id)


def _club_public_id(app: Flask, club_id: int) -> str:
    with app.app_context():
        return str(db.session.get(Club, club_id).public_id)


def test_two_phones_adding_the_same_new_player_at_once_add_one_player(
    app: Flask, club_id: int
) -> None:
    club = _club_public_id(app, club_id)
    for round_ in range(ROUNDS // 2):
        name, answers = f"Newcomer {round_}", []
        adding = _posting(f"/c/{club}/players", {"name": name}, answers)
        _race(app, adding, adding)
        assert sorted(answers) == [303, 422]  # the second is told the name is taken
        with app.app_context():
            found = db.session.scalars(select(Player).where(Player.name == name)).all()
            assert len(found) == 1


def test_a_season_added_while_a_deal_is_saved_puts_every_result_in_its_season(
    app: Flask, club_id: int
) -> None:
    club = _club_public_id(app, club_id)
    bad: dict[int, list[str]] = {}
    for round_ in range(ROUNDS // 2):
        day = date(2025, 1, 6) + timedelta(weeks=round_)
        with app.app_context():
            public_id = str(
                play(db.session.get(Club, club_id), TEAMS, [[40, 30]] * 3, day).public_id
            )
        season = {"name": f"Week {round_}", "starts_on": str(day), "ends_on": str(day)}
        answers: list[int] = []
        _race(
            app,
            _posting(f"/c/{club}/seasons", season, answers),
            _recording(public_id, (90, 80)),
        )
        assert answers == [303]
        if problems := _check(app, club_id):
            bad[round_] = problems
    assert not bad, _report(bad, ROUNDS // 2)


# -- a deal POST reads before its turn to write (SQLite: ``database.reads_before_writing``)


def _meanwhile(
    app: Flask, monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]
) -> list[int]:
    """Make ``change`` (another phone's save, in an app context of its own) happen between
    a deal POST's reading and its writing; a list that holds a 1 once it has."""
    real = matches.begin_writing
    done: list[int] = []

    def first_the_other_phone(session: Any) -> bool:
        if not done:
            done.append(1)  # (before: the other phone's save calls it too)
            with app.app_context():
                change()
                db.session.remove()
        return real(session)

    monkeypatch.setattr(matches, "begin_writing", first_the_other_phone)
    return done


def _deal_three_typed(app: Flask, club_id: int) -> tuple[str, FlaskClient, dict[str, str]]:
    """A club match two deals in, a phone on it, and deal 3 typed in its form (50, 70)."""
    public_id = _new_match(app, club_id, 2)
    phone = _client(app)
    return public_id, phone, _deal_form(phone.get(f"/m/{public_id}").get_data(as_text=True), 50, 70)


@pytest.fixture
def sqlite_only(dburi: str | None) -> None:
    if dburi and not dburi.startswith("sqlite"):
        pytest.skip("PostgreSQL locks the match row as the POST reads it: none can change it")


#: One of two server processes (on SQLite a deal POST reads before its turn then).
TWO_PROCESSES = pytest.mark.parametrize(
    "app_config", [{"SERVER_PROCESSES": 2}], ids=["two processes"]
)


def _scorings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each time a deal is scored (the engine's ``Match.record``), whether the session's
    transaction was still reading before its turn to write (``reads_before_writing``)."""
    found: list[bool] = []
    real = Match.record

    def record(game: Match, entries: Any) -> Match:
        found.append(database.reading_first(db.session()))
        return real(game, entries)

    monkeypatch.setattr(Match, "record", record)
    return found


@TWO_PROCESSES
def test_a_deal_saved_after_another_phone_corrected_one_meanwhile_keeps_every_total(
    app: Flask, club_id: int, monkeypatch: pytest.MonkeyPatch, sqlite_only: None
) -> None:
    public_id, phone, data = _deal_three_typed(app, club_id)

    def correct_deal_one() -> None:
        other = matches.load_match(public_id)
        assert other is not None
        matches.correct_deal(other, 1, [{"melded_points": 5}, {"melded_points": 905}], None)

    done = _meanwhile(app, monkeypatch, correct_deal_one)
    scorings = _scorings(monkeypatch)
    assert phone.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert done == [1]
    # scored on the match as read, then again under the turn on the match as corrected
    assert scorings == [True, False]
    assert _stored_points(app, public_id)[0] == [5, 905]
    assert _stored_points(app, public_id)[2] == [50, 70]
    assert not _check(app, club_id)  # the totals count the corrected deal 1


@TWO_PROCESSES
@pytest.mark.parametrize(
    "typed",
    # an impossible entry (more red threes than the decks hold) is refused by its scoring
    # before the turn, but what the phone is told is the check that comes first
    [{}, {"sides-0-red_threes": "99"}],
    ids=["possible", "impossible"],
)
def test_a_deal_entered_on_another_phone_meanwhile_is_not_entered_twice(
    app: Flask,
    club_id: int,
    monkeypatch: pytest.MonkeyPatch,
    sqlite_only: None,
    typed: dict[str, str],
) -> None:
    public_id, phone, data = _deal_three_typed(app, club_id)
    data.update(typed)

    def enter_deal_three() -> None:
        other = matches.load_match(public_id)
        assert other is not None
        matches.record_deal(other, [{"melded_points": 5}, {"melded_points": 15}], "other", 3)

    _meanwhile(app, monkeypatch, enter_deal_three)
    answer = phone.post(f"/m/{public_id}/deals", data=data)
    assert answer.status_code == 422
    assert "Deal 3 was already entered on another phone" in answer.get_data(as_text=True)
    assert _stored_points(app, public_id)[2:] == [[5, 15]]
    assert not _check(app, club_id)


@pytest.mark.parametrize("processes", [1, 2])
def test_a_deal_post_whose_match_did_not_change_meanwhile_does_not_read_it_again(
    app: Flask, club_id: int, monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    app.config["SERVER_PROCESSES"] = processes
    public_id, phone, data = _deal_three_typed(app, club_id)
    reads: list[bool] = []
    real = matches.load_match

    def load_match(public_id: str, *, for_update: bool = False) -> Any:
        reads.append(for_update)
        return real(public_id, for_update=for_update)

    monkeypatch.setattr(matches, "load_match", load_match)
    scorings = _scorings(monkeypatch)
    assert phone.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert reads == [True]  # the view's read only: checked, not read again, for the save
    assert _stored_points(app, public_id)[2] == [50, 70]
    with app.app_context():
        reads_first = processes > 1 and db.engine.dialect.name == "sqlite"
    # scored once: on SQLite with two processes while reading, before the turn to write
    # (held for none of it); else under the turn (one process) or the match's row lock
    assert scorings == [reads_first]


def test_two_owners_stepping_down_at_once_leave_the_club_an_owner(app: Flask, club_id: int) -> None:
    # One owner demotes the co-owner and themselves from two tabs at the same moment: each
    # counted two owners before the other's change, and on PostgreSQL 15 rounds of 20 left
    # the club with none (the owner check read, then wrote, without the club's lock).
    with app.app_context():
        public_id = str(db.session.get(Club, club_id).public_id)  # type: ignore[union-attr]
    give_role(app, public_id, "coowner", "owner")
    with app.app_context():
        ids = {n: str(accounts.find(n).public_id) for n in ("keeper", "coowner")}  # type: ignore[union-attr]

    def demote(name: str) -> Step:
        def step(client: FlaskClient, barrier: threading.Barrier) -> None:
            barrier.wait(timeout=30)
            answer = client.post(f"/c/{public_id}/members/{ids[name]}", data={"role": "member"})
            assert answer.status_code in (303, 403, 422), answer.status_code

        return step

    for _ in range(ROUNDS):
        _race(app, demote("coowner"), demote("keeper"))
        with app.app_context():
            roles = dict(
                db.session.execute(
                    select(Account.username, Membership.role)
                    .join(Account, Account.id == Membership.account_id)
                    .where(Membership.club_id == club_id)
                ).all()
            )
            assert "owner" in (roles["keeper"], roles["coowner"]), roles
            db.session.execute(
                update(Membership).where(Membership.club_id == club_id).values(role="owner")
            )
            db.session.commit()


def test_the_two_owners_leaving_at_once_leave_the_club_an_owner(app: Flask, club_id: int) -> None:
    # The club's two owners tap "Leave the club" at the same moment: each must count the
    # other as an owner still there only if the other has not left (the count read under
    # the club's lock, as role changes do), so one leaves and the other is refused.
    with app.app_context():
        public_id = str(db.session.get(Club, club_id).public_id)  # type: ignore[union-attr]
    give_role(app, public_id, "coowner", "owner")
    phones = {"keeper": _client(app), "coowner": app.test_client()}
    log_in(phones["coowner"], "coowner")

    def leave(name: str, answers: list[int]) -> Step:
        def step(_client: FlaskClient, barrier: threading.Barrier) -> None:
            barrier.wait(timeout=30)
            answers.append(phones[name].post(f"/c/{public_id}/leave").status_code)

        return step

    for _ in range(ROUNDS):
        answers: list[int] = []
        _race(app, leave("keeper", answers), leave("coowner", answers))
        with app.app_context():
            owners = db.session.scalars(
                select(Account.username)
                .join(Membership, Membership.account_id == Account.id)
                .where(Membership.club_id == club_id, Membership.role == "owner")
            ).all()
        assert len(owners) == 1 and sorted(answers) == [303, 422], (owners, answers)
        give_role(app, public_id, "keeper", "owner")  # both owners again
        give_role(app, public_id, "coowner", "owner")


def _join(client: FlaskClient, token: str, barrier: threading.Barrier, answers: list[int]) -> None:
    barrier.wait(timeout=30)
    answers.append(client.post(f"/join/{token}").status_code)


def test_two_people_joining_by_a_link_for_one_spend_it_once(app: Flask, club_id: int) -> None:
    # Two people open a link for one person and join at the same moment: each read one use
    # left before the other spent it, and on PostgreSQL both joined (the use was read, then
    # written, without the club's lock). One joins; the other is told the link is used up.
    with app.app_context():
        club = db.session.get(Club, club_id)
        assert club is not None
        public_id = str(club.public_id)
        keeper = accounts.find("keeper")
        assert keeper is not None
    joiners = {name: signed_in_client(app, name) for name in ("joiner_a", "joiner_b")}
    with app.app_context():
        ids = [accounts.find(name).id for name in joiners]  # type: ignore[union-attr]

    for _ in range(ROUNDS):
        with app.app_context():
            club = db.session.get(Club, club_id)
            keeper = accounts.find("keeper")
            _, token = memberships.invite(club, keeper, "member", 1)  # type: ignore[arg-type]
        barrier = threading.Barrier(len(joiners))
        answers: list[int] = []
        threads = [
            threading.Thread(target=_join, args=(client, token, barrier, answers))
            for client in joiners.values()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(answers) == [303, 404], answers
        with app.app_context():
            joined = db.session.scalars(
                select(Membership.account_id).where(
                    Membership.club_id == club_id, Membership.account_id.in_(ids)
                )
            ).all()
            assert len(joined) == 1, f"{len(joined)} joined by a link for one ({public_id})"
            db.session.execute(
                delete(Membership).where(
                    Membership.club_id == club_id, Membership.account_id.in_(ids)
                )
            )
            db.session.commit()


def test_two_tabs_changing_one_member_or_link_are_logged_each_from_what_the_other_left(
    app: Flask, club_id: int
) -> None:
    # Two owner tabs stop one invitation link, or say which player one member is, at the
    # same moment: without the club's lock each read the link (the member) before the
    # other's change, and the club's log said the link was stopped twice, or named the
    # same player as "before" in both lines.
    from scorekeeper.models import ClubEvent, Player
    from scorekeeper.services import club_trail

    with app.app_context():
        club = db.session.get(Club, club_id)
        assert club is not None
        public_id = str(club.public_id)
        players = [p.public_id for p in club.players[:2]]
    give_role(app, public_id, "member_m", "member")
    with app.app_context():
        member = str(accounts.find("member_m").public_id)  # type: ignore[union-attr]

    def logged(kind: str) -> list[dict[str, Any]]:
        rows = db.session.scalars(
            select(ClubEvent).where(ClubEvent.club_id == club_id, ClubEvent.kind == kind)
        )
        return [dict(row.details) for row in rows]

    for _ in range(ROUNDS):
        with app.app_context():
            club = db.session.get(Club, club_id)
            keeper = accounts.find("keeper")
            link, _token = memberships.invite(club, keeper, "member", 3)  # type: ignore[arg-type]
            link_id, stopped = str(link.public_id), len(logged(club_trail.INVITATION_REVOKED))

        def stop(link: str) -> Step:
            def step(client: FlaskClient, barrier: threading.Barrier) -> None:
                barrier.wait(timeout=30)
                answer = client.post(f"/c/{public_id}/invitations/{link}/revoke")
                assert answer.status_code == 303, answer.status_code

            return step

        def link_to(player: str) -> Step:
            def step(client: FlaskClient, barrier: threading.Barrier) -> None:
                barrier.wait(timeout=30)
                answer = client.post(f"/c/{public_id}/members/{member}", data={"player": player})
                assert answer.status_code == 303, answer.status_code

            return step

        _race(app, stop(link_id), stop(link_id))
        _race(app, link_to(players[0]), link_to(players[1]))
        with app.app_context():
            assert len(logged(club_trail.INVITATION_REVOKED)) == stopped + 1
            *_, first, second = logged(club_trail.PLAYER_LINKED)
            assert second["before"] == first["player"], (first, second)
            names = {p.name for p in db.session.scalars(select(Player))}
            assert {first["player"], second["player"]} <= names
            db.session.execute(
                update(Membership)
                .where(Membership.club_id == club_id, Membership.role == "member")
                .values(player_id=None)
            )
            db.session.commit()
