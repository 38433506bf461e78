"""OpenSkill ratings: updated when a match finishes, replayed exactly after a correction."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy import select

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Player, RatingPoint
from scorekeeper.services import clubs, matches, ratings
from scorekeeper.services.demo import four_deals, play


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def snapshot(club):
    db.session.expire_all()
    players = db.session.scalars(select(Player).where(Player.club_id == club.id)).all()
    points = db.session.execute(
        select(RatingPoint.player_id, RatingPoint.match_id, RatingPoint.played_on, RatingPoint.mu)
        .where(RatingPoint.club_id == club.id)
        .order_by(RatingPoint.played_on, RatingPoint.match_id, RatingPoint.player_id)
    ).all()
    return {p.name: (p.rating_mu, p.rating_sigma) for p in players}, [tuple(p) for p in points]


def history(club):
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    second = play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(300, 600), date(2024, 3, 8))
    play(club, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    return second


def test_a_winner_gains_and_a_loser_drops_from_the_start_rating(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    found, _points = snapshot(club)
    assert found["Ann"][0] > ratings.START_MU > found["Bob"][0]
    assert found["Ann"][1] < ratings.START_SIGMA
    assert ratings.ordinal(*found["Ann"]) > 0 > ratings.ordinal(*found["Bob"])


def test_a_new_player_has_no_rating_and_a_team_needs_every_member_rated(ctx):
    assert ratings.ordinal(None, None) is None
    assert ratings.team_ordinal([1.0, None]) is None
    assert ratings.team_ordinal([]) is None
    assert ratings.team_ordinal([1.0, 2.0]) == 1.5


def test_incremental_ratings_equal_a_replay_from_scratch(ctx):
    club = clubs.create_club("Tuesday")
    history(club)
    incremental = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == incremental
    assert len(incremental[1]) == 12


def test_a_corrected_finished_match_gives_the_ratings_of_the_corrected_history(ctx):
    club = clubs.create_club("Tuesday")
    second = history(club)
    loaded = matches.reopen(matches.load_match(second.public_id))
    matches.correct_deal(loaded, 1, [{"melded_points": 900}, {"melded_points": 100}], None)
    corrected = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(900, 100), day=date(2024, 3, 8))
    play(fresh, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == corrected[0]
    assert corrected[0]["Ann"][0] > corrected[0]["Bob"][0]


def test_removing_a_deal_of_a_finished_match_replays_the_history_without_it(ctx):
    club = clubs.create_club("Tuesday")
    second = history(club)
    matches.remove_last_deal(matches.reopen(matches.load_match(second.public_id)), 4)
    without = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == without[0]
    assert len(without[1]) == 8


def test_a_match_finished_out_of_date_order_is_rated_in_date_order(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 3, 15))
    play(club, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 3, 1))
    late = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == late[0]
    days = [day for _p, _m, day, _mu in late[1]]
    assert days == [date(2024, 3, 1)] * 2 + [date(2024, 3, 15)] * 2


def test_finishing_and_correcting_in_any_order_equals_a_replay_from_scratch(ctx):
    """Two tables a night, started together and finished in either order; a night entered
    a week late; a correction and a removal in old matches: every stored rating and rating
    point is what a replay of the whole history from scratch gives."""
    club = clubs.create_club("Tuesday")
    people = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]

    def start(week, table):
        a, b, c, d = (people[(week + table + i) % 6] for i in (0, 2, 3, 5))
        sides = [Side((a, b)), Side((c, d))]
        return clubs.start_club_match(club, PRESETS["classic"], sides, 0, history_day(week))

    def finish(loaded, week, table):
        points = four_deals(300 + 100 * ((week * 7 + table) % 5), 450)
        for number, (x, y) in enumerate(points, start=1):
            entries = [{"melded_points": x}, {"melded_points": y}]
            loaded, _ = matches.record_deal(loaded, entries, f"k{loaded.row.id}-{number}", number)
        return loaded

    finished = []
    for week in [0, 1, 3, 2, 4, 5]:  # week 2's night is entered after week 3's
        tables = [start(week, 0), start(week, 1)]
        for table in [1, 0] if week % 2 else [0, 1]:
            finished.append(finish(tables[table], week, table))
    old = matches.reopen(matches.load_match(finished[3].row.public_id))
    matches.correct_deal(old, 1, [{"melded_points": 40}, {"melded_points": 900}], None)
    matches.remove_last_deal(matches.reopen(matches.load_match(finished[6].row.public_id)), 4)

    kept = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept
    assert len(kept[1]) == 4 * 11


@pytest.mark.parametrize(
    ("second_table", "replays"),
    [(("Eve", "Fay", "Gus", "Hal"), 0), (("Eve", "Fay", "Gus", "Ann"), 1)],
)
def test_a_table_finished_after_a_later_one_of_other_players_is_appended(
    ctx, monkeypatch, second_table, replays
):
    """Two tables of a night, the second started finishing first: the first is out of the
    club's order, but none of its players has a later game, so it is appended, not
    replayed from; with a player at both (not a real night) it is replayed. Either way
    the ratings equal a replay of the whole history."""
    club = clubs.create_club("Tuesday")
    weekly_history(club, 2)
    day = history_day(2)
    a, b, c, d = second_table
    first = clubs.start_club_match(
        club, PRESETS["classic"], [Side(("Ann", "Bob")), Side(("Cid", "Dee"))], 0, day
    )
    second = clubs.start_club_match(club, PRESETS["classic"], [Side((a, b)), Side((c, d))], 0, day)
    replayed = []
    replay = ratings._replay
    monkeypatch.setattr(
        ratings, "_replay", lambda *args, **kw: replayed.append(args) or replay(*args, **kw)
    )
    for loaded, points in ((second, four_deals(200, 600)), (first, four_deals(700, 100))):
        for number, (x, y) in enumerate(points, start=1):
            entries = [{"melded_points": x}, {"melded_points": y}]
            loaded, _ = matches.record_deal(loaded, entries, f"k{loaded.row.id}-{number}", number)
    assert len(replayed) == replays
    monkeypatch.setattr(ratings, "_replay", replay)
    kept = snapshot(club)
    assert len(kept[1]) == 4 * 6
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept


def statements_while(work):
    """How many SQL statements ``work`` sends."""
    count = 0

    def counted(*_args):
        nonlocal count
        count += 1

    engine = db.engine
    sqlalchemy_event.listen(engine, "before_cursor_execute", counted)
    try:
        work()
    finally:
        sqlalchemy_event.remove(engine, "before_cursor_execute", counted)
    return count


@pytest.mark.parametrize("late", [False, True])
def test_finishing_a_match_costs_the_same_statements_whatever_the_history_before_it(ctx, late):
    """A match finished tonight, or one of last night finished after tonight's: the work
    depends on what follows it, never on the history before (issue 17)."""
    costs = []
    for size in (3, 12):
        club = clubs.create_club(f"Club of {size}")
        for week in range(size):
            play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), history_day(week))
        play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), history_day(size))
        day = history_day(size - 1 if late else size)
        costs.append(
            statements_while(
                lambda club=club, day=day: play(
                    club, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(700, 100), day
                )
            )
        )
    assert costs[0] == costs[1]


def test_a_match_appended_reads_its_own_players_only(ctx, monkeypatch):
    """Rating tonight's match loads the four who played it, not every player the club has
    had (a club of hundreds of occasional players paid for all of them at each finish);
    their ratings come with the standing lines' probe (``aggregates.Probe``), not from a
    read of their own; the ratings still equal a replay."""
    club = clubs.create_club("Tuesday")
    for week, guests in enumerate([("Gus", "Hal"), ("Ivy", "Jo"), ("Kai", "Lu")]):
        play(
            club, [("Ann", guests[0]), (guests[1], "Dee")], four_deals(500, 300), history_day(week)
        )
    loaded = []
    rate, players = ratings._rate, ratings._players

    def watched(club_id, seats, found):
        loaded.append(sorted(db.session.get(Player, player_id).name for player_id in found))
        return rate(club_id, seats, found)

    def read(club_id, only=None):
        raise AssertionError("the players' ratings read again, not taken from the probe")

    monkeypatch.setattr(ratings, "_rate", watched)
    monkeypatch.setattr(ratings, "_players", read)
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(700, 100), history_day(3))
    assert loaded == [["Ann", "Bob", "Cid", "Dee"]]  # not Gus, Hal, Ivy, Jo, Kai or Lu
    monkeypatch.setattr(ratings, "_rate", rate)
    monkeypatch.setattr(ratings, "_players", players)
    incremental = snapshot(club)
    assert len(incremental[0]) == 10
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == incremental


def test_a_player_the_session_holds_reads_the_rating_written(ctx):
    """Ratings are written to the players' rows as plain columns; a player's object the
    session already holds (a save keeps its objects past its commit) reads the new rating,
    not the one it had when the finishing deal was saved."""
    club = clubs.create_club("Tuesday")
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), history_day(0))
    sides = [Side(("Ann", "Bob")), Side(("Cid", "Dee"))]
    loaded = clubs.start_club_match(club, PRESETS["classic"], sides, 0, history_day(1))
    deals = four_deals(700, 100)
    for number, points in enumerate(deals[:-1], start=1):
        entries = [{"melded_points": p} for p in points]
        loaded, _ = matches.record_deal(loaded, entries, f"deal-{number}", number)
    ann = db.session.scalar(select(Player).where(Player.name == "Ann"))
    first = ann.rating_mu  # loaded now, held through the last deal's save
    entries = [{"melded_points": p} for p in deals[-1]]
    loaded, _ = matches.record_deal(loaded, entries, "deal-4", 4)
    assert loaded.game.finished
    stored = db.session.execute(
        select(Player.__table__.c.rating_mu).where(Player.__table__.c.id == ann.id)
    ).scalar_one()
    assert ann.rating_mu == stored
    assert stored > first


def history_day(week):
    return date(2023, 1, 2) + timedelta(days=7 * week)


def weekly_history(club, weeks):
    """Two tables a week among six regulars, finished in date order."""
    people = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    made = []
    for week in range(weeks):
        for table in (0, 1):
            a, b, c, d = (people[(week + table + i) % 6] for i in (0, 2, 3, 5))
            points = four_deals(300 + 100 * ((week * 7 + table) % 5), 450)
            made.append(play(club, [(a, b), (c, d)], points, history_day(week)))
    return made


def test_a_change_far_back_marks_the_ratings_as_updating_and_the_catch_up_replays_them(
    ctx, monkeypatch
):
    """More than IN_REQUEST matches after a correction: the request only marks the club;
    catching up, a chunk at a time, gives what a replay from scratch gives (issue 17)."""
    monkeypatch.setattr(ratings, "IN_REQUEST", 3)
    club = clubs.create_club("Tuesday")
    made = weekly_history(club, 6)
    before = snapshot(club)
    old = matches.reopen(matches.load_match(made[1].row.public_id))
    matches.correct_deal(old, 1, [{"melded_points": 40}, {"melded_points": 900}], None)
    assert ratings.updating(club.id)
    assert ratings.stale_clubs() == [club.id]
    assert snapshot(club) == before  # not yet replayed: the pages say "updating"

    # while it is updating, a new night and a late one are finished: nothing is appended
    # on top of stale ratings, the catch-up rates them in their place
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(700, 100), history_day(7))
    play(club, [("Eve", "Bob"), ("Cid", "Fay")], four_deals(200, 100), history_day(0))
    assert ratings.updating(club.id)

    assert ratings.catch_up(club.id, chunk=2, chunks=1) == 2
    assert ratings.updating(club.id)
    assert ratings.catch_up(club.id, chunk=2) == 11  # 13 from the corrected one on
    assert not ratings.updating(club.id)
    assert ratings.catch_up(club.id) == 0
    caught_up = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == caught_up
    assert len(caught_up[1]) == 4 * 14


@pytest.mark.parametrize(("weeks", "in_request"), [(1, True), (2, False)])
def test_a_night_entered_late_is_rated_again_in_the_request_only_when_few_matches_follow(
    ctx, monkeypatch, weeks, in_request
):
    """A late night's table (one of its players has a later game) rates again, in the
    request, the matches after it when at most ``IN_REQUEST`` follow (what its standing
    lines read for their counts, read once and handed on: ``Probe.following``), else only
    marks the club as updating; the policy is the ratings' own, whatever reads the games
    after it. Either way the ratings end as a replay from scratch gives them."""
    monkeypatch.setattr(ratings, "IN_REQUEST", 3)
    club = clubs.create_club("Tuesday")
    weekly_history(club, weeks)  # two tables a week: 2 or 4 matches after the late one
    play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), history_day(-1))
    assert ratings.updating(club.id) is not in_request
    ratings.catch_up(club.id)
    caught_up = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == caught_up and len(caught_up[1]) == 4 * (2 * weeks + 1)


@pytest.mark.parametrize("in_request", [0, 2])
def test_any_order_of_changes_with_deferred_catch_ups_equals_a_replay_from_scratch(
    ctx, monkeypatch, in_request
):
    """Late nights, corrections and removals, some replayed in the request and some left
    for the catch-up, in chunks that end in the middle of a night."""
    monkeypatch.setattr(ratings, "IN_REQUEST", in_request)
    club = clubs.create_club("Tuesday")
    made = weekly_history(club, 5)
    late = [play(club, [("Ann", "Cid"), ("Bob", "Fay")], four_deals(100, 600), history_day(1))]
    ratings.catch_up(club.id, chunk=3, chunks=1)
    old = matches.reopen(matches.load_match(made[3].row.public_id))
    matches.correct_deal(old, 2, [{"melded_points": 900}, {"melded_points": 0}], None)
    ratings.catch_up(club.id, chunk=3, chunks=2)
    matches.remove_last_deal(matches.reopen(matches.load_match(made[6].row.public_id)), 4)
    matches.remove_last_deal(matches.reopen(matches.load_match(late[0].row.public_id)), 4)
    ratings.catch_up(club.id, chunk=3)
    assert not ratings.updating(club.id)
    kept = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept


def test_a_change_far_back_costs_the_same_statements_whatever_follows_it(ctx, monkeypatch):
    """The request that corrects the first match of a club marks the ratings and stops:
    the same work after 6 or 12 later nights (issue 17)."""
    monkeypatch.setattr(ratings, "IN_REQUEST", 3)
    costs = []
    for weeks in (6, 12):
        club = clubs.create_club(f"Club of {weeks}")
        made = weekly_history(club, weeks)
        old = matches.reopen(matches.load_match(made[0].row.public_id))
        costs.append(
            statements_while(
                lambda old=old: matches.correct_deal(
                    old, 1, [{"melded_points": 40}, {"melded_points": 900}], None
                )
            )
        )
        assert ratings.updating(club.id)
    assert costs[0] == costs[1]


def test_recompute_clears_the_updating_mark(ctx, monkeypatch):
    monkeypatch.setattr(ratings, "IN_REQUEST", 0)
    club = clubs.create_club("Tuesday")
    made = weekly_history(club, 2)
    matches.remove_last_deal(matches.reopen(matches.load_match(made[0].row.public_id)), 4)
    assert ratings.updating(club.id)
    ratings.recompute(club.id)
    db.session.commit()
    assert not ratings.updating(club.id)


def test_on_postgresql_a_finished_match_s_probe_reads_each_player_s_newest_point(ctx):
    """psycopg prepares a statement a connection has run five times, and PostgreSQL may
    then keep one generic plan for it, made without the values: for the probe of whether
    a finished match's players have a later rated game, spelled "any point from this
    place on", that plan scanned every rating point of the club. Spelled as each player's
    newest point, read newest first, the generic plan reads it along the player's index
    too. A match just finished takes what the probe reads from the standing lines' own
    probe (``aggregates._read_after``); a correction of a finished match runs it. A matter
    of PostgreSQL's plans: SQLite's are ``test_write_plans``'s."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's plans; the suite runs on SQLite")
    import re

    import psycopg

    club = clubs.create_club("Tuesday")
    weekly_history(club, 3)
    seen = []

    def record(_conn, _cursor, statement, parameters, _context, _many):
        if "newest0" in statement:
            seen.append((statement, parameters))

    loaded = play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), history_day(3))
    loaded = matches.reopen(loaded)
    sqlalchemy_event.listen(db.engine, "before_cursor_execute", record)
    try:
        matches.correct_deal(loaded, 1, [{"melded_points": 250}, {"melded_points": 600}], None)
    finally:
        sqlalchemy_event.remove(db.engine, "before_cursor_execute", record)
    assert len(seen) == 1
    statement, parameters = seen[0]
    names = list(dict.fromkeys(re.findall(r"%\((\w+)\)s", statement)))
    numbered = re.sub(r"%\((\w+)\)s", lambda m: f"${names.index(m.group(1)) + 1}", statement)
    raw = db.session.connection().connection.dbapi_connection
    cursor = psycopg.ClientCursor(raw)  # the values written into EXECUTE's text
    try:
        cursor.execute(f"PREPARE probe AS {numbered}")
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(
            f"EXPLAIN EXECUTE probe({', '.join(['%s'] * len(names))})",
            [parameters[name] for name in names],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("DEALLOCATE probe")
    finally:
        cursor.close()
    db.session.rollback()
    assert "Seq Scan on rating_points" not in plan, plan
    assert plan.count("Index Only Scan Backward using ix_rating_points_player_order") == 4, plan


def test_a_replay_rates_again_the_players_of_the_points_it_deletes_not_only_those_seated(ctx):
    """A match taken back (its last deal removed) is no longer rated: a newcomer who
    played only in it goes back to no rating, though no match of the replay seats them.
    On PostgreSQL the replay deletes the points and reads its players' last ratings
    before them in one statement (the ``DELETE`` a ``WITH`` part); SQLite, which has no
    such part, takes two. Either way the ratings equal a replay from scratch."""
    club = clubs.create_club("Tuesday")
    weekly_history(club, 3)
    newcomer = play(club, [("Zed", "Ann"), ("Bob", "Cid")], four_deals(800, 100), history_day(1))
    zed = db.session.scalar(select(Player).where(Player.name == "Zed"))
    assert zed is not None and zed.rating_mu is not None
    seen: list[str] = []

    def record(_conn, _cursor, statement, _parameters, _context, _many):
        if "rating_points" in statement and "DELETE" in statement:
            seen.append(" ".join(statement.split()))

    sqlalchemy_event.listen(db.engine, "before_cursor_execute", record)
    try:
        matches.remove_last_deal(matches.reopen(matches.load_match(newcomer.row.public_id)), 4)
    finally:
        sqlalchemy_event.remove(db.engine, "before_cursor_execute", record)
    assert not ratings.updating(club.id)
    assert len(seen) == 1
    if db.engine.dialect.name == "postgresql":
        assert seen[0].startswith("WITH gone AS (DELETE FROM rating_points")
    kept = snapshot(club)
    assert kept[0]["Zed"] == (None, None)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept


def test_a_replay_rewrites_in_place_the_points_it_rates_again_and_deletes_the_rest(ctx):
    """A correction far enough back to replay in the request updates each later point
    where it is (the same row), rather than deleting and inserting it again; the points
    of a match taken back are deleted; either way the ratings equal a replay from
    scratch."""
    club = clubs.create_club("Tuesday")
    second = history(club)
    # points of a club rated after it: a point deleted and inserted again gets a new id
    # on SQLite too, which would otherwise give the deleted ids again
    play(clubs.create_club("Other"), [("Eve",), ("Fay",)], four_deals(500, 300))

    def points():
        db.session.expire_all()
        rows = db.session.execute(
            select(
                RatingPoint.id, RatingPoint.player_id, RatingPoint.match_id, RatingPoint.mu
            ).where(RatingPoint.club_id == club.id)
        ).all()
        return {(row.player_id, row.match_id): (row.id, row.mu) for row in rows}

    before = points()
    loaded = matches.reopen(matches.load_match(second.public_id))
    matches.correct_deal(loaded, 1, [{"melded_points": 900}, {"melded_points": 100}], None)
    after = points()
    assert not ratings.updating(club.id)
    assert after.keys() == before.keys()  # 12 points: 3 matches of 4 players
    later = [key for key in after if key[1] != second.row.id and before[key][1] != after[key][1]]
    assert later  # the match after the corrected one was rated again…
    assert all(after[key][0] == before[key][0] for key in after)  # …each point in place
    kept = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept

    # taken back (its last deal removed): its points go, the later ones stay in place
    before = points()  # as the recompute above wrote them again
    matches.remove_last_deal(matches.reopen(matches.load_match(second.public_id)), 4)
    taken_back = points()
    assert {key for key in before if key[1] != second.row.id} == taken_back.keys()
    assert all(taken_back[key][0] == before[key][0] for key in taken_back)
    kept = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == kept
