"""The audit trail against a real database: one event per write, and restoring a deal."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import delete, event, func, select
from sqlalchemy.orm import Session

from scorekeeper.engine import PRESETS, EntryError, MatchError, Side
from scorekeeper.extensions import db
from scorekeeper.models import AuditEvent, SideResult, utcnow
from scorekeeper.services import audit, clubs, matches, standings
from scorekeeper.services.restore import NoSuchRemoval, restore_deal

ANN = audit.Actor("Ann's phone")
BOB = audit.Actor("phone 3f2a", account_id=7)
OUT = {"clean": 2, "dirty": 2, "wild": 1}
STANDARD = [
    {"went_out": True, "books": OUT, "red_threes": 1, "melded_points": 690},
    {"books": {"clean": 1}, "red_threes_left": 1, "melded_points": 185, "left_points": 75},
]
EVEN = [{"books": {"clean": 1}, "melded_points": 120}] * 2
LOW = [{"melded_points": 50}, {"melded_points": 30}]


@pytest.fixture
def ctx(app: Flask) -> Iterator[None]:
    with app.app_context():
        yield


def _start(club: Any = None) -> matches.LoadedMatch:
    sides = [Side(("Ann", "Bob")), Side(("Cy", "Di"))]
    if club is not None:
        return clubs.start_club_match(club, PRESETS["classic"], sides, 0, utcnow().date())
    return matches.start_match(PRESETS["classic"], "classic", sides, 0)


def _reload(loaded: matches.LoadedMatch) -> matches.LoadedMatch:
    db.session.expire_all()
    fresh = matches.load_match(loaded.public_id)
    assert fresh is not None
    return fresh


def _play(loaded: matches.LoadedMatch, *deals: list[dict[str, Any]]) -> matches.LoadedMatch:
    for entries in deals:
        loaded = _reload(loaded)
        n = len(loaded.game.deals) + 1
        loaded, _ = matches.record_deal(loaded, entries, matches.new_submission_key(), n)
    return _reload(loaded)


def _events(loaded: matches.LoadedMatch) -> list[AuditEvent]:
    db.session.expire_all()
    return audit.events_of(loaded.row)


def _stored(loaded: matches.LoadedMatch, number: int) -> dict[str, Any]:
    deal = _reload(loaded).row.deals[number - 1]
    return {"sides": [{"entry": s.entry, "total": s.total} for s in deal.sides]}


def _event_count() -> int:
    return db.session.scalar(select(func.count(AuditEvent.id)))


@pytest.mark.usefixtures("ctx")
def test_recording_a_deal_keeps_one_event_with_the_entry_as_stored_and_who() -> None:
    loaded = _start()
    before = utcnow()
    loaded, _ = matches.record_deal(loaded, STANDARD, "key-1", 1, actor=BOB)
    [event] = _events(loaded)
    assert (event.kind, event.deal_number, event.before) == ("recorded", 1, None)
    assert event.after == _stored(loaded, 1)
    assert [s["total"] for s in event.after["sides"]] == [3990, 510]
    assert (event.actor, event.account_id) == ("phone 3f2a", 7)
    at = event.at if event.at.tzinfo else event.at.replace(tzinfo=UTC)
    assert before - timedelta(seconds=1) <= at <= utcnow()


@pytest.mark.usefixtures("ctx")
def test_a_resent_form_and_a_refused_entry_keep_no_event() -> None:
    loaded, _ = matches.record_deal(_start(), STANDARD, "key-1", 1, actor=ANN)
    matches.record_deal(_reload(loaded), STANDARD, "key-1", 1, actor=ANN)
    with pytest.raises(EntryError):
        matches.record_deal(_reload(loaded), [{"melded": {"joker": 11}}, {}], "key-2", 2)
    with pytest.raises(matches.StaleError):
        matches.record_deal(_reload(loaded), EVEN, "key-3", 1)
    assert [e.kind for e in _events(loaded)] == ["recorded"]


@pytest.mark.usefixtures("ctx")
def test_a_correction_keeps_the_deal_before_and_after_as_stored() -> None:
    loaded = _play(_start(), STANDARD)
    old = _stored(loaded, 1)
    matches.correct_deal(loaded, 1, EVEN, 1, actor=ANN)
    events = _events(loaded)
    assert [e.kind for e in events] == ["recorded", "corrected"]
    corrected = events[1]
    assert (corrected.deal_number, corrected.actor) == (1, "Ann's phone")
    assert corrected.before == old
    assert corrected.after == _stored(loaded, 1)
    assert [s["total"] for s in corrected.after["sides"]] == [620, 620]


@pytest.mark.usefixtures("ctx")
def test_a_stale_correction_is_refused_and_leaves_no_event() -> None:
    loaded = _play(_start(), STANDARD)
    matches.correct_deal(loaded, 1, EVEN, 1)
    with pytest.raises(matches.StaleError):
        matches.correct_deal(_reload(loaded), 1, LOW, 1)
    assert [e.kind for e in _events(loaded)] == ["recorded", "corrected"]


@pytest.mark.usefixtures("ctx")
def test_removing_keeps_the_removed_deal_and_reopening_keeps_one_match_event() -> None:
    loaded = _play(_start(), STANDARD, EVEN, EVEN, EVEN)
    last = _stored(loaded, 4)
    matches.reopen(loaded, actor=ANN)
    matches.reopen(_reload(loaded), actor=ANN)  # a second tap reopens nothing
    matches.remove_last_deal(_reload(loaded), 4, actor=BOB)
    events = _events(loaded)
    assert [(e.kind, e.deal_number) for e in events[-2:]] == [("reopened", None), ("removed", 4)]
    assert len(events) == 6
    assert (events[-2].before, events[-2].after, events[-2].actor) == (None, None, "Ann's phone")
    assert (events[-1].before, events[-1].after) == (last, None)


@pytest.mark.usefixtures("ctx")
def test_a_removed_deal_is_restored_with_its_entry_and_a_restored_event() -> None:
    loaded = _play(_start(), STANDARD, EVEN)
    entry = _stored(loaded, 2)
    matches.remove_last_deal(loaded, 2)
    removal = _events(loaded)[-1]
    _, saved = restore_deal(_reload(loaded), 2, removal.id, ANN)
    assert saved
    assert _reload(loaded).game.totals == (3990 + 620, 510 + 620)
    assert _stored(loaded, 2) == entry
    events = _events(loaded)
    assert [e.kind for e in events] == ["recorded", "recorded", "removed", "restored"]
    assert (events[-1].after, events[-1].before, events[-1].actor) == (entry, None, "Ann's phone")


@pytest.mark.usefixtures("ctx")
def test_a_second_tap_on_restore_restores_once() -> None:
    loaded = _play(_start(), STANDARD, EVEN)
    matches.remove_last_deal(loaded, 2)
    removal = _events(loaded)[-1].id
    restore_deal(_reload(loaded), 2, removal, ANN)
    again, saved = restore_deal(_reload(loaded), 2, removal, ANN)
    assert not saved
    assert len(again.row.deals) == 2
    assert [e.kind for e in _events(loaded)].count("restored") == 1


@pytest.mark.usefixtures("ctx")
def test_a_removal_cannot_be_restored_once_the_deal_was_entered_again() -> None:
    loaded = _play(_start(), STANDARD, EVEN)
    matches.remove_last_deal(loaded, 2)
    removal = _events(loaded)[-1].id
    loaded = _play(loaded, LOW)
    with pytest.raises(MatchError, match="Deal 2 was entered again meanwhile"):
        restore_deal(_reload(loaded), 2, removal, ANN)
    # entered again and removed again: only the latest removal can be undone
    matches.remove_last_deal(_reload(loaded), 2)
    with pytest.raises(MatchError, match="Deal 2 was entered again meanwhile"):
        restore_deal(_reload(loaded), 2, removal, ANN)
    latest = _events(loaded)[-1].id
    restore_deal(_reload(loaded), 2, latest, ANN)
    assert _reload(loaded).game.totals == (3990 + 50, 510 + 30)


@pytest.mark.usefixtures("ctx")
def test_two_removals_are_restored_in_order_the_next_deal_first() -> None:
    loaded = _play(_start(), STANDARD, EVEN, LOW)
    matches.remove_last_deal(loaded, 3)
    matches.remove_last_deal(_reload(loaded), 2)
    third, second = (e.id for e in _events(loaded)[-2:])
    with pytest.raises(MatchError, match=r"only when it is the next deal to play \(now deal 2\)"):
        restore_deal(_reload(loaded), 3, third, ANN)
    restore_deal(_reload(loaded), 2, second, ANN)
    restore_deal(_reload(loaded), 3, third, ANN)
    assert _reload(loaded).game.totals == (3990 + 620 + 50, 510 + 620 + 30)


@pytest.mark.usefixtures("ctx")
@pytest.mark.parametrize("which", ["unknown", "other match", "not a removal", "wrong deal", "huge"])
def test_restore_refuses_an_event_that_is_not_that_removal(which: str) -> None:
    loaded = _play(_start(), STANDARD, EVEN)
    other = _play(_start(), EVEN)
    matches.remove_last_deal(loaded, 2)
    matches.remove_last_deal(other, 1)
    events = _events(loaded)
    number, event_id = {
        "unknown": (2, 10_000),
        "other match": (1, _events(other)[-1].id),
        "not a removal": (2, events[1].id),
        "wrong deal": (1, events[-1].id),
        "huge": (2, 10**30),
    }[which]
    with pytest.raises(NoSuchRemoval):
        restore_deal(_reload(loaded), number, event_id, ANN)
    assert len(_reload(loaded).row.deals) == 1


@pytest.mark.usefixtures("ctx")
def test_restore_validates_the_entry_again_under_the_match_rules() -> None:
    loaded = _play(_start(), STANDARD, EVEN)
    matches.remove_last_deal(loaded, 2)
    removal = _events(loaded)[-1]
    sides = removal.before["sides"]
    removal.before = {"sides": [{**sides[0], "entry": {"melded": {"joker": 11}}}, sides[1]]}
    db.session.commit()  # what a hand-edited database (or an older rule) would hold
    with pytest.raises(MatchError, match="Deal 2 cannot be restored as it was"):
        restore_deal(_reload(loaded), 2, removal.id, ANN)
    assert len(_reload(loaded).row.deals) == 1
    assert _events(loaded)[-1].kind == "removed"


@pytest.mark.usefixtures("ctx")
def test_an_event_is_written_in_the_transaction_of_its_change() -> None:
    loaded = _play(_start(), STANDARD)

    def fail(session: Any) -> None:
        raise RuntimeError("the disk is full")

    event.listen(Session, "before_commit", fail)
    try:
        with pytest.raises(RuntimeError):
            matches.correct_deal(loaded, 1, EVEN, 1, actor=ANN)
    finally:
        event.remove(Session, "before_commit", fail)
    db.session.rollback()
    assert _reload(loaded).game.totals == (3990, 510)
    assert [e.kind for e in _events(loaded)] == ["recorded"]


@pytest.mark.usefixtures("ctx")
def test_club_standings_follow_restores_and_never_read_the_trail() -> None:
    club = clubs.create_club("Tuesday", min_games=1)
    loaded = _play(_start(club), STANDARD, EVEN, EVEN, EVEN)
    matches.reopen(loaded)
    matches.remove_last_deal(_reload(loaded), 4)
    assert db.session.scalar(select(func.count(SideResult.id))) == 0
    restore_deal(_reload(loaded), 4, _events(loaded)[-1].id, ANN)
    results = db.session.scalars(select(SideResult).order_by(SideResult.position)).all()
    assert [r.points_for for r in results] == [3990 + 3 * 620, 510 + 3 * 620]
    table = standings.standings(club.id, club.min_games)
    db.session.execute(delete(AuditEvent))
    db.session.commit()
    assert standings.standings(club.id, club.min_games) == table


@pytest.mark.usefixtures("ctx")
def test_a_restored_deal_keeps_its_red_three_in_an_unpicked_foot() -> None:
    """The standard deal with side B's red three in its unpicked foot (RULES.md 7): the
    removal keeps the count apart, and the restored deal scores 3990 and 510 again."""
    foot = [STANDARD[0], {**STANDARD[1], "red_threes_left": 0, "red_threes_left_in_foot": 1}]
    loaded = _play(_start(), EVEN, foot)
    matches.remove_last_deal(loaded, 2)
    removal = _events(loaded)[-1]
    assert removal.before["sides"][1]["entry"]["red_threes_left_in_foot"] == 1
    restore_deal(_reload(loaded), 2, removal.id, ANN)
    assert _reload(loaded).game.totals == (620 + 3990, 620 + 510)
    side_b = _stored(loaded, 2)["sides"][1]
    assert (side_b["entry"]["red_threes_left_in_foot"], side_b["total"]) == (1, 510)
