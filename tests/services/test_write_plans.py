"""A deal's write reads the club's history around its match, never all of it (issue 17).

Constant statement counts (test_ratings, test_match_cost) do not catch a statement whose
own work grows with the history: a condition the planner cannot read as an index range
makes it read every row of the club, or every game a player ever had. Here every
statement of the writes of a deal is run again under SQLite's ``EXPLAIN QUERY PLAN``
with the parameters it ran with, and no step may read a history table whole, or by the
club or a player alone. The plans are SQLite's, so this uses its own SQLite file whatever
database the suite runs on (PostgreSQL chooses plans by its statistics: there the bench,
``bench/run.py``, is the check).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from support import make_app

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.services import clubs, matches
from scorekeeper.services.demo import play

#: Tables that grow with the club's history (players, lines and tallies grow with its
#: people, not its games).
HISTORY = (
    "matches",
    "match_sides",
    "match_players",
    "deals",
    "deal_sides",
    "side_results",
    "rating_points",
    "seat_results",
    "audit_events",
)
WHOLE = re.compile(
    rf"\bSCAN ({'|'.join(HISTORY)})\b"
    rf"|\bSEARCH ({'|'.join(HISTORY)}) USING (COVERING )?INDEX \w+ \((club_id|player_id)=\?\)"
)
PEOPLE = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
TONIGHT = date(2024, 6, 4)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[None]:
    app = make_app(f"sqlite:///{tmp_path / 'plans.sqlite3'}")
    with app.app_context():
        yield
        db.session.remove()
        db.engine.dispose()


def statements_of(work: Callable[[], Any]) -> list[tuple[str, Any]]:
    """Every statement ``work`` runs (but the many-row inserts), with its parameters."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _ctx: Any, many: bool):
        if not many and not statement.startswith(("BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK")):
            seen.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        work()
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    return seen


def wholesale(seen: list[tuple[str, Any]]) -> list[str]:
    """The plan steps that read a history table whole (with their statement)."""
    found = []
    connection = db.session.connection()
    for statement, parameters in seen:
        plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
        for row in plan:
            if WHOLE.search(row[-1]):
                found.append(f"{row[-1]}\n    in: {' '.join(statement.split())[:300]}")
    db.session.rollback()
    return found


def club_with_history(weeks: int = 6) -> Any:
    club = clubs.create_club("Tuesday", min_games=1)
    for week in range(weeks):
        for table in range(2):
            a, b, c, d = (PEOPLE[(week + table + i) % 6] for i in (0, 2, 3, 5))
            day = TONIGHT - timedelta(days=7 * (weeks - week))
            play(club, [(a, b), (c, d)], [[300 + 40 * week, 200]] * 4, day=day)
    return club


def started(club: Any, day: date, deals: int) -> matches.LoadedMatch:
    sides = [Side(("Ann", "Cid")), Side(("Bob", "Dee"))]
    loaded = clubs.start_club_match(club, PRESETS["classic"], sides, 0, day)
    for number in range(1, deals + 1):
        entries = [{"melded_points": 350}, {"melded_points": 150}]
        loaded, _ = matches.record_deal(loaded, entries, f"p{loaded.row.id}-{number}", number)
    return loaded


def finish(loaded: matches.LoadedMatch) -> Callable[[], Any]:
    entries = [{"melded_points": 250}, {"melded_points": 400}]
    return lambda: matches.record_deal(loaded, entries, f"p{loaded.row.id}-4", 4)


def test_finishing_tonights_match_reads_no_history_whole(ctx):
    club = club_with_history()
    loaded = started(club, TONIGHT, 3)
    assert wholesale(statements_of(finish(loaded))) == []


def test_finishing_a_match_of_weeks_ago_reads_no_history_whole(ctx):
    club = club_with_history()
    loaded = started(club, TONIGHT - timedelta(days=15), 3)
    assert wholesale(statements_of(finish(loaded))) == []


def test_an_ordinary_deal_reads_no_history_whole(ctx):
    club = club_with_history()
    loaded = started(club, TONIGHT, 1)
    entries = [{"melded_points": 300}, {"melded_points": 100}]
    seen = statements_of(lambda: matches.record_deal(loaded, entries, "p-2", 2))
    assert wholesale(seen) == []


def test_correcting_and_trimming_a_finished_match_read_no_history_whole(ctx):
    club = club_with_history()
    finished = play(club, [("Ann", "Cid"), ("Bob", "Dee")], [[300, 200]] * 4, TONIGHT)
    reopened = matches.reopen(matches.load_match(finished.row.public_id))
    entries = [{"melded_points": 100}, {"melded_points": 600}]
    corrected = statements_of(lambda: matches.correct_deal(reopened, 1, entries, None))
    assert wholesale(corrected) == []
    reopened = matches.reopen(matches.load_match(finished.row.public_id))
    trimmed = statements_of(lambda: matches.remove_last_deal(reopened, 4))
    assert wholesale(trimmed) == []


def test_the_check_sees_a_condition_that_reads_the_club_whole(ctx):
    """A condition that no index orders (a point's rating) beside the club's: SQLite reads
    every rating point of the club for it, and the check says so. (The comparison spelled
    with OR that this test once used, "played_on > ? OR (played_on = ? AND match_id >= ?)",
    SQLite read the club whole by ``ix_rating_points_club_id``; with that index gone it
    reads it as two ranges of ``ix_rating_points_club_order``.)"""
    club = club_with_history(weeks=2)
    whole_club = "SELECT EXISTS (SELECT * FROM rating_points WHERE club_id = ? AND mu > ?)"
    found = wholesale([(whole_club, (club.id, 30.0))])
    assert len(found) == 1 and "rating_points" in found[0]


def steps_on(seen: list[tuple[str, Any]], table: str) -> list[str]:
    """The plan steps of ``seen`` that read ``table``."""
    connection = db.session.connection()
    steps = [
        row[-1]
        for statement, parameters in seen
        for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
        if re.search(rf"\b{table}\b", row[-1])
    ]
    db.session.rollback()
    return steps


def test_finishing_and_correcting_seek_lines_and_tallies_by_their_whole_key(ctx):
    """A club's lines and its players' tallies grow with its people (a line a player and
    a partnership, a tally a pair of players): the reads of a match's lines, and the
    removal of tallies a correction leaves empty, seek each row by its whole unique key.
    Without the kind (the relation) they read every line of the club's scope (every
    tally of the player's scope): SQLite keeps no statistics to see otherwise."""
    club = club_with_history()
    tonight = statements_of(finish(started(club, TONIGHT, 3)))
    finished = play(club, [("Ann", "Cid"), ("Bob", "Dee")], [[300, 200]] * 4, TONIGHT)
    reopened = matches.reopen(matches.load_match(finished.row.public_id))
    entries = [{"melded_points": 100}, {"melded_points": 600}]  # the other side wins now
    corrected = statements_of(lambda: matches.correct_deal(reopened, 1, entries, None))
    wanted = [
        (tonight, "standing_lines", "kind=? AND members=?"),
        (corrected, "standing_lines", "kind=? AND members=?"),
        (corrected, "rival_tallies", "relation=? AND other_id=?"),
    ]
    for seen, table, whole_key in wanted:
        reads = [s for s in steps_on(seen, table) if s.startswith("SEARCH")]
        assert reads, f"{table} was read"
        assert all(whole_key in step for step in reads), reads
