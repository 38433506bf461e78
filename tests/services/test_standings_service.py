"""Club standings read from the aggregates kept current by the match service."""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import event, func, select

from scorekeeper.extensions import db
from scorekeeper.models import SideResult
from scorekeeper.services import clubs, matches, standings
from scorekeeper.services.demo import four_deals, play


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def names(rows):
    return [(row.place, row.name) for row in rows]


def test_a_finished_club_match_writes_one_result_per_side_with_its_counts(ctx):
    club = clubs.create_club("Tuesday")
    extra = {0: {"books": {"clean": 1}, "red_threes": 1}, 1: {"red_threes_left": 1}}
    loaded = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), extra=extra)
    results = db.session.scalars(select(SideResult).order_by(SideResult.position)).all()
    assert [(r.outcome, r.points_for, r.points_against, r.deals) for r in results] == [
        ("win", loaded.game.totals[0], loaded.game.totals[1], 4),
        ("loss", loaded.game.totals[1], loaded.game.totals[0], 4),
    ]
    assert (results[0].books_clean, results[0].red_threes) == (4, 4)
    assert results[1].red_threes_left == 4


def test_red_threes_left_in_a_foot_count_among_the_red_threes_left(ctx):
    club = clubs.create_club("Tuesday")
    extra = {1: {"red_threes_left": 1, "red_threes_left_in_foot": 1}}
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), extra=extra)
    results = db.session.scalars(select(SideResult).order_by(SideResult.position)).all()
    assert results[1].red_threes_left == 8  # 1 in a hand and 1 in a foot, four deals


def test_an_unfinished_match_has_no_result_and_a_casual_match_none_at_all(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], [[100, 50]])
    assert db.session.scalar(select(func.count(SideResult.id))) == 0


def test_standings_rank_by_win_rate_and_list_the_few_games_unranked(ctx):
    club = clubs.create_club("Tuesday", min_games=2)
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(600, 300))
    play(club, [("Ann", "Eve"), ("Bob", "Dee")], four_deals(100, 900))
    table = standings.standings(club.id, club.min_games)
    # Ann W W L (2/3, 1200/3 a game); Bob W L W (2/3, 1700/3); Cid L W (1/2); Dee L L W.
    assert names(table.ranked) == [(1, "Bob"), (2, "Ann"), (3, "Cid"), (4, "Dee")]
    assert names(table.unranked) == [(None, "Eve")]
    bob = table.ranked[0].line
    assert bob.win_rate == Fraction(2, 3) and bob.points_per_game == Fraction(1700, 3)


def test_a_correction_moves_the_standings(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    loaded = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    assert names(standings.standings(club.id, 1).ranked)[0] == (1, "Ann")
    loaded = matches.reopen(matches.load_match(loaded.public_id))
    matches.correct_deal(loaded, 1, [{"melded_points": 100}, {"melded_points": 300}], None)
    assert names(standings.standings(club.id, 1).ranked)[0] == (1, "Bob")


def test_removing_the_last_deal_takes_the_match_out_of_the_standings(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    loaded = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    matches.remove_last_deal(matches.reopen(matches.load_match(loaded.public_id)), 4)
    assert standings.standings(club.id, 1).ranked == []


def test_side_results_are_deleted_only_when_the_match_has_some(ctx):
    """A deal of a match being played, and the deal that finishes it, have no result
    rows to delete or to read (none is sent); when its last deal is taken back, its rows
    are read and go, and with them its lines."""
    club = clubs.create_club("Tuesday", min_games=1)
    ran: list[str] = []

    def executed(*args):
        ran.append(args[2])

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        loaded = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
        assert not [s for s in ran if s.startswith("DELETE FROM side_results")]
        assert not [s for s in ran if "WHERE side_results.match_id = " in s]
        assert db.session.scalar(select(func.count()).select_from(SideResult)) == 2
        ran.clear()
        matches.remove_last_deal(matches.reopen(matches.load_match(loaded.public_id)), 4)
        assert [s for s in ran if s.startswith("DELETE FROM side_results")]
        assert [s for s in ran if s.startswith("SELECT") and "side_results.match_id = " in s]
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)
    assert db.session.scalar(select(func.count()).select_from(SideResult)) == 0
    assert standings.standings(club.id, 1).ranked == []


def parts(statement: str, kinds: dict[str, Any]) -> list[tuple[int, str]]:
    """Where each kind of write starts in a statement: the statement itself, or, on
    PostgreSQL, a write sent with others as a ``WITH`` part (``upserts.together``)."""
    found = []
    for kind, starts in kinds.items():
        for start in (starts,) if isinstance(starts, str) else starts:
            if statement.startswith(start):
                found.append((0, kind))
            elif statement.startswith("WITH "):
                found += [
                    (statement.index(f"{x}{start}"), kind)
                    for x in ("AS (", ") ")
                    if f"{x}{start}" in statement
                ]
    return found


def test_a_match_s_own_results_are_written_before_the_club_s_lock_and_the_rest_after(ctx):
    """The club's lock (the ``UPDATE`` of its version) makes the club's writers take turns
    on PostgreSQL. A match's own side results, which only its own writers (holding the
    match) touch, are read, deleted and written before it or with it (on PostgreSQL in
    the lock's own statement), so that the others do not wait for them; the standing
    lines, the player page's rows and the ratings, read over the club's players, after
    it."""
    club = clubs.create_club("Tuesday", min_games=1)
    ran: list[str] = []

    def executed(*args):
        ran.append(" ".join(args[2].split()))

    def order() -> list[str]:
        kinds = {
            "lock": "UPDATE clubs SET data_version",
            "results": ("INSERT INTO side_results", "DELETE FROM side_results"),
            "lines": "INSERT INTO standing_lines",
            "seats": "INSERT INTO seat_results",
            "ratings": "INSERT INTO rating_points",
        }
        found = [kind for s in ran for _at, kind in sorted(parts(s, kinds))]
        ran.clear()
        return [k for n, k in enumerate(found) if n == 0 or found[n - 1] != k]

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        loaded = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))  # played, finished
        assert order()[-5:] == ["results", "lock", "lines", "seats", "ratings"]
        reopened = matches.reopen(matches.load_match(loaded.public_id))
        order()
        entries = [{"melded_points": 100}, {"melded_points": 600}]
        matches.correct_deal(reopened, 1, entries, None)  # a finished match corrected
        assert order() == ["results", "lock", "lines", "seats", "ratings"]
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)


def test_on_postgresql_a_finish_s_results_go_with_the_club_s_lock(ctx):
    """On PostgreSQL a finished match's side results are inserted by the statement that
    takes the club's lock (a data-modifying ``WITH`` of its ``UPDATE``): one round trip,
    not two. The lock is still taken before the lines are read (the probe comes after
    it), and the rows are stored as they would be one by one."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite sends each write as it is made")
    club = clubs.create_club("Tuesday", min_games=1)
    ran: list[str] = []

    def executed(_conn, _cursor, statement, _parameters, _context, _many):
        ran.append(" ".join(statement.split()))

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)
    results = [n for n, s in enumerate(ran) if "INSERT INTO side_results" in s]
    locks = [n for n, s in enumerate(ran) if "UPDATE clubs SET data_version" in s]
    probes = [n for n, s in enumerate(ran) if "probe.later" in s]
    assert len(results) == 1 and results == locks[-1:]  # the finish's lock is its statement
    assert probes and probes[0] > results[0]
    stored = db.session.execute(
        select(SideResult.position, SideResult.outcome, SideResult.points_for)
        .where(SideResult.club_id == club.id)
        .order_by(SideResult.position)
    ).all()
    assert [tuple(row) for row in stored] == [(0, "win", 500), (1, "loss", 300)]


def test_on_postgresql_a_finish_s_writes_go_as_one_statement_psycopg_keeps_parsed(ctx):
    """A match finished in a season, by pairs (every kind of line and tally): its writes
    under the club's lock are one statement (``upserts.together``), whose text and
    parameters stay within what psycopg keeps parsed. Past its limits (4 kB, 50
    parameters) psycopg parsed the statement again at every finish."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite sends each write as it is made")
    from psycopg import _queries

    club = clubs.create_club("Tuesday", min_games=1)
    clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 5, 31))
    sent: list[tuple[str, Any]] = []

    def executed(_conn, _cursor, statement, parameters, _context, _many):
        if statement.startswith("WITH") and "INSERT INTO standing_lines" in statement:
            sent.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 5))
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)
    assert len(sent) == 1
    statement, parameters = sent[0]
    for table in ("standing_lines", "seat_results", "rival_tallies", "rating_points"):
        assert f"INSERT INTO {table}" in statement
    assert "UPDATE players" in statement
    assert len(statement.encode()) <= _queries.MAX_CACHED_STATEMENT_LENGTH
    assert len(parameters) <= _queries.MAX_CACHED_STATEMENT_PARAMS


def test_a_season_counts_only_the_matches_dated_inside_it(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    spring = clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 5, 31))
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 2, 29))
    play(club, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 3, 1))
    play(club, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 5, 31))
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 6, 1))
    season = standings.standings(club.id, 1, spring.id)
    assert [(r.name, r.line.games, r.line.tally.wins) for r in season.ranked] == [
        ("Bob", 2, 2),
        ("Ann", 2, 0),
    ]
    all_time = standings.standings(club.id, 1)
    assert [(r.name, r.line.games) for r in all_time.ranked] == [("Ann", 4), ("Bob", 4)]


def test_a_season_added_later_collects_the_matches_already_played_in_it(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 3, 5))
    autumn = clubs.add_season(club, "Autumn", date(2024, 3, 1), date(2024, 3, 31))
    assert len(standings.standings(club.id, 1, autumn.id).ranked) == 2


def test_overlapping_or_backwards_seasons_are_refused(ctx):
    club = clubs.create_club("Tuesday")
    clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 5, 31))
    with pytest.raises(clubs.ClubError, match="overlap"):
        clubs.add_season(club, "Late spring", date(2024, 5, 31), date(2024, 6, 30))
    with pytest.raises(clubs.ClubError, match="end before"):
        clubs.add_season(club, "Odd", date(2024, 8, 2), date(2024, 8, 1))


def test_players_are_people_whose_record_follows_them_between_partners(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    play(club, [("ann", "Cid"), ("Bob", "Dee")], four_deals(500, 300))
    assert len(club.players) == 4
    ann = next(r for r in standings.standings(club.id, 1).ranked if r.name == "Ann")
    assert ann.line.games == 2


def test_partnership_standings_keep_each_pair_together(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    play(club, [("Bob", "Ann"), ("Cid", "Eve")], four_deals(500, 300))
    table = standings.standings(club.id, 1, partnerships=True)
    assert [(r.name, r.line.games) for r in table.ranked] == [
        ("Ann & Bob", 2),
        ("Cid & Dee", 1),
        ("Cid & Eve", 1),
    ]


def test_a_sort_column_reorders_the_rows_and_an_unknown_one_is_ignored(ctx):
    club = clubs.create_club("Tuesday", min_games=1)
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    play(club, [("Cid",), ("Bob",)], four_deals(100, 900))
    by_points = standings.standings(club.id, 1, sort="points_for")
    assert [r.name for r in by_points.ranked] == ["Bob", "Ann", "Cid"]
    assert by_points.sort == "points_for"
    assert standings.standings(club.id, 1, sort="drop table").sort == ""


def count_queries():
    counter = {"n": 0}

    def _count(*_args):
        counter["n"] += 1

    event.listen(db.engine, "before_cursor_execute", _count)
    return counter, lambda: event.remove(db.engine, "before_cursor_execute", _count)


@pytest.mark.parametrize("pages", [("standings",), ("player",)])
def test_the_number_of_queries_does_not_grow_with_the_history(app, pages):
    client = app.test_client()
    counts = []
    with app.app_context():
        club = clubs.create_club("Tuesday", min_games=1)
        club_id = club.public_id
        for size in (3, 12):
            while len(clubs.recent_matches(club, 100)) < size:
                n = len(clubs.recent_matches(club, 100))
                play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(100 + 5 * n, 200 - 5 * n))
            ann = clubs.get_player(club, club.players[0].public_id).public_id
            url = f"/c/{club_id}" if pages[0] == "standings" else f"/c/{club_id}/p/{ann}"
            counter, stop = count_queries()
            assert client.get(url).status_code == 200
            stop()
            counts.append(counter["n"])
    assert counts[0] == counts[1]
    assert counts[0] <= 12


@pytest.mark.parametrize(
    ("rate", "shown"),
    [(Fraction(5, 8), "63%"), (Fraction(3, 8), "38%"), (Fraction(5, 6), "83%"),
     (Fraction(1, 200), "1%"), (Fraction(0), "0%"), (Fraction(1), "100%")],
)  # fmt: skip
def test_a_win_rate_rounds_a_half_up_as_a_calculator_does(rate: Fraction, shown: str) -> None:
    # Python's round() takes a half to the even number: 5 wins of 8 showed as 62%, 3 of 8
    # as 38%, so two players a game apart looked 24 points apart.
    assert standings.percent(rate) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [(Fraction(401, 4), "100.3"), (Fraction(1175, 4), "293.8"), (Fraction(-401, 4), "-100.3"),
     (Fraction(11000, 3), "3666.7"), (0.15, "0.2"), (100.25, "100.3"), (-0.04, "0.0"),
     (Fraction(-1, 40), "0.0"), (23.0, "23.0")],
)  # fmt: skip
def test_an_average_rounds_a_half_away_from_zero_and_never_shows_minus_zero(
    value: Fraction | float, shown: str
) -> None:
    assert standings.one_decimal(value) == shown
