"""The match service against a real database: what it saves, and what it refuses to."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from scorekeeper.engine import PRESETS, EntryError, MatchError, Side
from scorekeeper.extensions import db
from scorekeeper.models import AuditEvent, Deal, DealSide
from scorekeeper.services import live
from scorekeeper.services import matches as service

OUT = {"clean": 2, "dirty": 2, "wild": 1}
STANDARD = [
    {
        "went_out": True,
        "books": OUT,
        "red_threes": 1,
        "melded": {"joker": 4, "2": 6, "A": 6, "8-K": 20, "4-7": 10},
    },
    {"books": {"clean": 1}, "red_threes_left": 1, "melded_points": 185, "left_points": 75},
]
EVEN = [{"books": {"clean": 1}, "melded_points": 120}] * 2


@pytest.fixture
def ctx(app: Flask) -> Iterator[None]:
    with app.app_context():
        yield


def _start(names: tuple[str, ...] = ("Ana", "Boris", "Cecile", "Dusan")) -> Any:
    sides = [Side(names[:2]), Side(names[2:])]
    return service.start_match(PRESETS["classic"], "classic", sides, 0)


def _reload(loaded: Any) -> Any:
    db.session.expire_all()
    return service.load_match(loaded.public_id)


def _deals() -> int:
    return db.session.scalar(select(func.count(Deal.id)))


@pytest.mark.usefixtures("ctx")
def test_a_started_match_keeps_a_frozen_copy_of_its_rules_and_its_seats() -> None:
    loaded = _reload(_start())
    assert loaded.row.rules == PRESETS["classic"].to_dict()
    assert [[p.name for p in s.players] for s in loaded.row.sides] == [
        ["Ana", "Boris"],
        ["Cecile", "Dusan"],
    ]
    assert loaded.game.current_deal == 1


def test_stored_rules_are_read_once_for_each_text_of_them() -> None:
    """A match's stored rules are read into a RuleSet once, for every match with the same
    rules however the dict was ordered; rules that differ in one value are their own."""
    from scorekeeper.services.match_reads import stored_rules

    classic = PRESETS["classic"].to_dict()
    first = stored_rules(classic)
    assert first == PRESETS["classic"]
    assert stored_rules(dict(reversed(list(classic.items())))) is first
    changed = {**classic, "going_out_bonus": classic["going_out_bonus"] + 5}
    other = stored_rules(changed)
    assert other is not first and other.going_out_bonus == first.going_out_bonus + 5
    assert stored_rules(PRESETS["whitnack"].to_dict()) == PRESETS["whitnack"]


@pytest.mark.usefixtures("ctx")
def test_known_names_keep_one_spelling_per_name_the_latest_first() -> None:
    _start()
    _start(("ANA", "Emir", "Fatima", "Goran"))
    names = service.known_names()
    assert set(names[:4]) == {"ANA", "Emir", "Fatima", "Goran"}  # used last, so first
    assert set(names[4:]) == {"Boris", "Cecile", "Dusan"}


@pytest.mark.usefixtures("ctx")
def test_a_deal_is_written_in_one_statement_on_postgresql_as_sqlite_stores_it() -> None:
    """On PostgreSQL a new deal, its sides, its event, the sides' totals and the match's
    row are one statement (each but the deal a data-modifying ``WITH`` part); SQLite
    sends one a table. What is stored is the same: the sides with their entries as
    entered and their breakdowns, the event with both sides' entries and totals, the
    totals on the sides and the match's count."""
    from sqlalchemy import event

    from scorekeeper.models import MatchSide

    loaded = _start()
    sent: list[str] = []

    def executed(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.startswith(("INSERT", "UPDATE", "WITH", "DELETE")):
            sent.append(" ".join(statement.split()))

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        loaded, _ = service.record_deal(loaded, STANDARD, "key-1", 1)
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)
    if db.engine.dialect.name == "postgresql":
        assert len(sent) == 1 and sent[0].startswith("WITH new_deal AS (INSERT INTO deals")
    else:
        assert len(sent) == 5  # the deal, its sides, its event, their totals, the match
    db.session.expire_all()
    deal = db.session.scalars(select(Deal)).one()
    sides = sorted(deal.sides, key=lambda side: side.position)
    assert [side.entry["red_threes"] for side in sides] == [1, 0]
    assert sides[0].entry["melded"] == STANDARD[0]["melded"]
    assert sides[0].went_out and not sides[1].went_out
    assert [side.total for side in sides] == [3990, 510]
    stored = db.session.scalars(select(MatchSide).order_by(MatchSide.position)).all()
    assert [side.total for side in stored] == [side.total for side in sides]
    audit_event = db.session.scalars(select(AuditEvent)).one()
    assert audit_event.kind == "recorded" and audit_event.before is None
    assert [side["total"] for side in audit_event.after["sides"]] == [s.total for s in sides]
    assert _reload(loaded).row.deal_count == 1


@pytest.mark.usefixtures("ctx")
def test_recording_the_standard_deal_stores_both_breakdowns() -> None:
    loaded, saved = service.record_deal(_start(), STANDARD, "key-1", 1)
    assert saved
    rows = db.session.scalars(select(DealSide).order_by(DealSide.position)).all()
    assert [r.total for r in rows] == [3990, 510]
    assert [r.book_bonus for r in rows] == [3100, 500]
    assert [r.went_out for r in rows] == [True, False]
    assert [s.total for s in _reload(loaded).row.sides] == [3990, 510]


@pytest.mark.usefixtures("ctx")
def test_a_resent_submission_key_returns_the_saved_deal_without_saving_again() -> None:
    loaded, _ = service.record_deal(_start(), STANDARD, "key-1", 1)
    again, saved = service.record_deal(_reload(loaded), EVEN, "key-1", 1)
    assert not saved
    assert _deals() == 1
    assert again.game.totals == (3990, 510)


@pytest.mark.usefixtures("ctx")
def test_a_deal_expected_to_be_one_already_entered_is_refused() -> None:
    loaded, _ = service.record_deal(_start(), STANDARD, "key-1", 1)
    with pytest.raises(service.StaleError) as error:
        service.record_deal(_reload(loaded), EVEN, "key-2", 1)
    assert error.value.problems[0].message == (
        "Deal 1 was already entered on another phone: see the deals below."
        " If these numbers are for deal 2, save again."
    )
    assert _deals() == 1


@pytest.mark.usefixtures("ctx")
def test_an_impossible_entry_saves_nothing() -> None:
    loaded = _start()
    with pytest.raises(EntryError):
        service.record_deal(loaded, [{"melded": {"joker": 11}}, {}], "key-1", 1)
    assert _deals() == 0


@pytest.mark.usefixtures("ctx")
def test_a_correction_bumps_the_version_and_a_stale_one_is_refused() -> None:
    loaded, _ = service.record_deal(_start(), STANDARD, "key-1", 1)
    corrected = service.correct_deal(_reload(loaded), 1, EVEN, 1)
    assert corrected.game.totals == (620, 620)
    assert _reload(loaded).row.deals[0].version == 2
    with pytest.raises(service.StaleError) as error:
        service.correct_deal(_reload(loaded), 1, STANDARD, 1)
    assert "Someone else changed this deal" in error.value.problems[0].message
    assert _reload(loaded).game.totals == (620, 620)


@pytest.mark.usefixtures("ctx")
def test_finishing_removing_and_reopening_keep_the_match_status_right() -> None:
    loaded = _start()
    for n, deal in enumerate([STANDARD, EVEN, EVEN, EVEN], start=1):
        loaded, _ = service.record_deal(_reload(loaded), deal, f"key-{n}", n)
    row = _reload(loaded).row
    assert (row.finished, row.winner_position, row.deal_count) == (True, 0, 4)
    assert row.finished_at is not None
    with pytest.raises(MatchError):
        service.record_deal(_reload(loaded), EVEN, "key-5", None)
    with pytest.raises(MatchError, match="reopen it"):
        service.remove_last_deal(_reload(loaded), 4)
    service.reopen(_reload(loaded))
    with pytest.raises(service.StaleError):
        service.remove_last_deal(_reload(loaded), 3)
    assert _reload(loaded).row.reopened
    service.remove_last_deal(_reload(loaded), 4)
    row = _reload(loaded).row
    assert (row.finished, row.winner_position, row.finished_at, row.deal_count) == (
        False,
        None,
        None,
        3,
    )
    assert not row.reopened  # a playing match: nothing to reopen
    service.record_deal(_reload(loaded), EVEN, "key-4-again", 4)
    row = _reload(loaded).row
    assert (row.finished, row.reopened, row.deal_count) == (True, False, 4)
    with pytest.raises(MatchError, match="reopen it"):  # finished again: closed again
        service.remove_last_deal(_reload(loaded), 4)


def _as_held(loaded: Any) -> tuple[Any, ...]:
    """What a page shows of a match, from the objects as they are held."""
    row = loaded.row
    return (
        live.version_of(row.deal_count, row.finished, row.reopened, row.updated_at, None),
        (row.finished, row.winner_position, row.finished_at is not None),
        [side.total for side in row.sides],
        [(deal.id, deal.number, deal.version, deal.submission_key) for deal in row.deals],
        [[(side.entry, side.total) for side in deal.sides] for deal in row.deals],
    )


@pytest.mark.usefixtures("ctx")
def test_a_saved_deal_is_held_by_the_session_as_stored_with_nothing_left_to_flush() -> None:
    """A deal is written statement by statement, not by the session's flush; the objects
    the save returns (what the page answering it shows) hold what was stored: the match's
    columns, its sides' totals, its deals (the new one's sides read when asked), after
    every deal of a match, the finishing one and one after a reopening included."""
    loaded = _start()
    deals = [STANDARD, EVEN, EVEN, EVEN]
    for n, deal in enumerate(deals, start=1):
        loaded, saved = service.record_deal(_reload(loaded), deal, f"key-{n}", n)
        assert saved and not db.session.new and not db.session.dirty
        held = _as_held(loaded)
        assert held == _as_held(_reload(loaded))
    assert held[1] == (True, 0, True)
    trail = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id)).all()
    assert [(event.deal_number, event.kind) for event in trail] == [
        (n, "recorded") for n in range(1, 5)
    ]
    # each event keeps its deal's sides as stored
    assert [[(s["entry"], s["total"]) for s in event.after["sides"]] for event in trail] == held[4]
    service.reopen(_reload(loaded))
    service.remove_last_deal(_reload(loaded), 4)
    loaded, saved = service.record_deal(_reload(loaded), EVEN, "key-4-again", 4)
    assert saved and not db.session.new and not db.session.dirty
    assert _as_held(loaded) == _as_held(_reload(loaded))
    assert (loaded.row.finished, loaded.row.reopened) == (True, False)


@pytest.mark.usefixtures("ctx")
def test_a_tie_for_first_stores_no_winner() -> None:
    loaded = _start()
    for n in range(1, 5):
        loaded, _ = service.record_deal(_reload(loaded), EVEN, f"key-{n}", n)
    row = _reload(loaded).row
    assert row.finished and row.winner_position is None
    assert _reload(loaded).game.is_draw


@pytest.mark.usefixtures("ctx")
def test_the_home_lists_split_matches_in_progress_from_finished_ones() -> None:
    playing = _start()
    done = _start(("Emir", "Fatima", "Goran", "Hana"))
    for n in range(1, 5):
        done, _ = service.record_deal(_reload(done), EVEN, f"key-{n}", n)
    in_progress, finished = service.home_matches(recent=10)
    assert [m.public_id for m in in_progress] == [playing.public_id]
    assert [m.public_id for m in finished] == [done.public_id]
    assert service.load_match("no-such-match") is None
