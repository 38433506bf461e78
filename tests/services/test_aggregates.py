"""Standing lines and the player page's rows (seats, rivals and partners) kept current on
every write equal the rows rebuilt from scratch."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import event, func, select, text, update

from scorekeeper.app import create_app
from scorekeeper.engine import PRESETS, Side
from scorekeeper.engine.rivals import best_game, head_to_head, pair_tallies, partners
from scorekeeper.engine.standings import line_of, partnership
from scorekeeper.extensions import db
from scorekeeper.models import Match, Player, RivalTally, SeatResult, SideResult, StandingLine
from scorekeeper.services import (
    aggregates,
    clubs,
    demo,
    matches,
    player_rows,
    players,
    ratings,
    side_records,
)
from scorekeeper.services.demo import four_deals, play


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def lines_of(club_id):
    """Every stored line of the club, as comparable tuples (ids left out)."""
    db.session.expire_all()
    rows = db.session.scalars(select(StandingLine).where(StandingLine.club_id == club_id))
    skip = {"id"}
    return sorted(
        tuple(getattr(row, c.key) for c in StandingLine.__table__.columns if c.key not in skip)
        for row in rows
    )


def rebuilt(club_id):
    """The lines computed from scratch, in a transaction rolled back afterwards."""
    kept = lines_of(club_id)
    aggregates.rebuild(db.session, club_id)
    fresh = lines_of(club_id)
    db.session.rollback()
    assert lines_of(club_id) == kept
    return fresh


def player_rows_of(club_id):
    """Every seat and rival tally of the club's players, as comparable tuples (no ids)."""
    db.session.expire_all()
    ids = select(Player.id).where(Player.club_id == club_id)
    found = {}
    for model in (SeatResult, RivalTally):
        columns = [c for c in model.__table__.columns if c.key != "id"]
        rows = db.session.execute(select(*columns).where(model.player_id.in_(ids)))
        found[model.__tablename__] = sorted(tuple(row) for row in rows)
    return found


def rebuilt_player_rows(club_id):
    """The player page's rows computed from scratch, in a transaction rolled back."""
    kept = player_rows_of(club_id)
    player_rows.rebuild(db.session, club_id)
    fresh = player_rows_of(club_id)
    db.session.rollback()
    assert player_rows_of(club_id) == kept
    return fresh


def assert_current(club_id):
    """The club's stored lines and player rows are what a rebuild from scratch gives."""
    assert lines_of(club_id) == rebuilt(club_id)
    assert player_rows_of(club_id) == rebuilt_player_rows(club_id)


PEOPLE = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
LAYOUTS = ((2, 2), (1, 1), (1, 1, 1), (2, 2))


def random_match(club, rng, day):
    layout = rng.choice(LAYOUTS)
    people = rng.sample(PEOPLE, sum(layout))
    sides, start = [], 0
    for size in layout:
        sides.append(Side(tuple(people[start : start + size])))
        start += size
    return clubs.start_club_match(club, PRESETS["classic"], sides, 0, day)


def record(loaded, rng):
    sides = range(len(loaded.game.sides))
    entries = [demo.realistic_deal(rng, i == 0 and rng.random() < 0.7) for i in sides]
    number = loaded.game.current_deal
    loaded, _saved = matches.record_deal(loaded, entries, f"k{rng.random()}", number)
    return loaded


def finish(loaded, rng):
    while not loaded.game.finished:
        loaded = record(loaded, rng)
    return loaded


def step(club, rng, played, start):
    """One random write: a new match, a correction, a removal, a reopen or a season."""
    action = rng.choice(("new", "new", "correct", "remove", "season", "partial"))
    day = start + timedelta(days=rng.randrange(0, 120))
    if action in ("new", "partial") or not played:
        loaded = random_match(club, rng, day)
        loaded = finish(loaded, rng) if action != "partial" else record(loaded, rng)
        played.append(loaded.public_id)
        return
    loaded = matches.reopen(matches.load_match(rng.choice(played)))
    if action == "correct" and loaded.game.deals:
        number = rng.randint(1, len(loaded.game.deals))
        entries = [demo.realistic_deal(rng, i == 1) for i in range(len(loaded.game.sides))]
        matches.correct_deal(loaded, number, entries, None)
    elif action == "remove" and loaded.game.deals:
        loaded = matches.remove_last_deal(loaded, len(loaded.game.deals))
        if rng.random() < 0.5:
            finish(loaded, rng)
    elif action == "season":
        first = start + timedelta(days=30 * len(club.seasons))
        clubs.add_season(club, f"S{len(club.seasons)}", first, first + timedelta(days=29))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lines_after_any_sequence_of_writes_equal_the_lines_rebuilt_from_scratch(ctx, seed):
    rng = random.Random(seed)
    club = clubs.create_club("Tuesday")
    played: list[str] = []
    start = date(2024, 1, 1)
    for _ in range(14):
        step(club, rng, played, start)
        assert_current(club.id)
    kinds = {line[2] for line in lines_of(club.id)}
    assert kinds == {aggregates.PLAYER, aggregates.PARTNERSHIP}
    relations = {row[2] for row in player_rows_of(club.id)["rival_tallies"]}
    assert relations == {"against", "with"}


@pytest.mark.parametrize("seed", [4, 5])
def test_lines_of_nights_played_in_date_order_equal_the_lines_rebuilt_from_scratch(ctx, seed):
    """The common case, added to the stored lines match by match: club nights in date
    order, two or three tables a night finishing in any order, seasons, a table left
    unfinished, now and then a night entered late or an old match corrected."""
    rng = random.Random(seed)
    club = clubs.create_club("Tuesday")
    start = date(2024, 1, 1)
    clubs.add_season(club, "Winter", start, start + timedelta(days=59))
    played: list[str] = []
    for night in range(16):
        day = start + timedelta(days=7 * night)
        if night % 6 == 5:  # a night entered a fortnight late
            day -= timedelta(days=14)
        tables = [random_match(club, rng, day) for _ in range(rng.choice((2, 3)))]
        rng.shuffle(tables)
        for loaded in tables:
            loaded = record(loaded, rng) if rng.random() < 0.1 else finish(loaded, rng)
            played.append(loaded.public_id)
        if night % 5 == 4:
            loaded = matches.reopen(matches.load_match(rng.choice(played[:-3])))
            if loaded.game.deals:
                entries = [demo.realistic_deal(rng, i == 0) for i in range(len(loaded.game.sides))]
                matches.correct_deal(loaded, 1, entries, None)
        assert_current(club.id)


SCORES = {"win": (500, 300), "loss": (300, 500), "draw": (400, 400)}


def test_correcting_or_removing_any_game_of_a_run_gives_the_lines_of_the_changed_history(ctx):
    """A correction takes the match's records out of its players' lines and puts the new
    ones in, the streak found from the games around it: every sequence of three outcomes
    of one partnership (with a fourth game by one of them with another partner, before or
    after), every game turned into every other outcome and removed; the lines are the
    ones summed from scratch each time (issue 17)."""
    import itertools

    checked = 0
    for number, outcomes in enumerate(itertools.product(SCORES, repeat=3)):
        club = clubs.create_club("-".join(outcomes))
        games = []
        for week, outcome in enumerate(outcomes):
            pairs = [("Ann", "Bob"), ("Cid", "Dee")]
            games.append(play(club, pairs, four_deals(*SCORES[outcome]), history_day(2 * week)))
        elsewhere = history_day((1, 3, 5)[number % 3])  # Ann and Cid with other partners
        play(club, [("Ann", "Eve"), ("Cid", "Fay")], four_deals(450, 400), elsewhere)
        for index, outcome in enumerate(outcomes):
            for other in SCORES:
                if other == outcome:
                    continue
                loaded = matches.reopen(matches.load_match(games[index].row.public_id))
                entries = [{"melded_points": x} for x in SCORES[other]]
                matches.correct_deal(loaded, 1, entries, None)
                assert lines_of(club.id) == rebuilt(club.id), (outcomes, index, other)
                loaded = matches.reopen(matches.load_match(games[index].row.public_id))
                entries = [{"melded_points": x} for x in SCORES[outcome]]
                matches.correct_deal(loaded, 1, entries, None)
            loaded = matches.reopen(matches.load_match(games[index].row.public_id))
            loaded = matches.remove_last_deal(loaded, 4)
            assert lines_of(club.id) == rebuilt(club.id), (outcomes, index, "removed")
            matches.record_deal(loaded, [{"melded_points": 0}] * 2, f"again{index}", 4)
            assert lines_of(club.id) == rebuilt(club.id), (outcomes, index, "again")
            checked += 1
    assert checked == 27 * 3


def test_a_correction_reads_the_games_around_it_not_the_history(ctx, monkeypatch):
    """Correcting tonight's match of players with a long history reads only the games
    the streak needs: as many rows for 3 and for 12 earlier weeks, and some (the streak
    of alternating results reaches back past tonight's game)."""

    def correct_tonight(club, _first, _size):
        tonight = play(
            club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), date(2024, 1, 1)
        )
        read.clear()
        loaded = matches.reopen(matches.load_match(tonight.public_id))
        matches.correct_deal(loaded, 1, [{"melded_points": 300}, {"melded_points": 500}], None)

    read = counting_reads(monkeypatch, (aggregates, "records_of"), (aggregates, "_outcomes"))
    costs = rows_read_while(read, correct_tonight, outcomes=("win", "loss"))
    assert costs[0] == costs[1] and sum(costs[0]) > 0


def history_day(week):
    return date(2023, 1, 2) + timedelta(days=7 * week)


def counting_reads(monkeypatch, *targets) -> list[int]:
    """Wrap each (module, function) so the number of rows or records every call returns
    is appended to the list returned here."""
    read: list[int] = []
    for module, name in targets:
        real = getattr(module, name)

        def counting(*args, real=real, **kwargs):
            found = real(*args, **kwargs)
            read.append(len(found))
            return found

        monkeypatch.setattr(module, name, counting)
    return read


def rows_read_while(read, write, outcomes=("win",)) -> list[list[int]]:
    """For clubs of 3 and 12 weekly games of Ann & Bob against Cid & Dee (their results
    cycling through ``outcomes``), what ``read`` (``counting_reads``) counted during
    ``write(club, first match's public id, size)``; each club's rows then equal a
    rebuild."""
    costs = []
    for size in (3, 12):
        club = clubs.create_club(f"Club of {size}")
        first = None
        for week in range(size):
            day = date(2023, 1, 2) + timedelta(days=7 * week)
            points = SCORES[outcomes[week % len(outcomes)]]
            loaded = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(*points), day)
            first = first or loaded.public_id
        read.clear()
        write(club, first, size)
        costs.append(list(read))
        assert_current(club.id)
    return costs


def records_read_finishing(monkeypatch, day_of) -> list[int]:
    """The side records read while one more match of the four finishes, dated
    ``day_of(size)``: any the lines need after it (its own are taken from the rows just
    written, for the lines, the player page's rows and its ratings)."""
    read = counting_reads(monkeypatch, (aggregates, "records_of"), (player_rows, "records_of"))

    def finish(club, _first, size):
        play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), day_of(size))

    return [sum(cost) for cost in rows_read_while(read, finish)]


def test_a_match_finished_after_its_players_other_games_reads_no_side_record(ctx, monkeypatch):
    """Tonight's match is added to its players' lines: no side record is read while it is
    saved, however long their history (issue 17)."""
    assert records_read_finishing(monkeypatch, lambda _size: date(2024, 1, 1)) == [0, 0]


def counts_of_newer(monkeypatch) -> list[list[int]]:
    """Each count of a finishing match's lines' games after it, appended to the list
    returned here: what ``aggregates._newer`` returns (the count read), or what
    ``aggregates._counted`` does when it counts them from the games it was given."""
    counted: list[list[int]] = []

    def recording(real):
        def count(*args, **kwargs):
            found = real(*args, **kwargs)
            if found is not None:
                counted.append(list(found))
            return found

        return count

    for name in ("_newer", "_counted"):
        monkeypatch.setattr(aggregates, name, recording(getattr(aggregates, name)))
    return counted


def test_a_finishing_table_counts_games_after_it_only_when_its_players_have_some(ctx, monkeypatch):
    """The count of each line's games after a finishing match is one large statement
    (0.5 ms a run on PostgreSQL, five times its probe's). Tonight's table,
    and a table of other players than a later table of the night that finished first,
    skip it; a table one of whose players has a game after it does not, and its lines are
    still a rebuild's."""
    counted = counts_of_newer(monkeypatch)
    club = clubs.create_club("Tuesday")
    for week in range(3):
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), history_day(week))
    assert counted == []
    tonight = history_day(3)

    def table(*sides):
        return clubs.start_club_match(
            club, PRESETS["classic"], [Side(s) for s in sides], 0, tonight
        )

    def finish(loaded, name):
        for number, points in enumerate(four_deals(200, 600), start=1):
            entries = [{"melded_points": p} for p in points]
            loaded, _ = matches.record_deal(loaded, entries, f"{name}-{number}", number)

    first, second = table(("Ann", "Cid"), ("Bob", "Dee")), table(("Ann", "Bob"), ("Eve", "Fay"))
    play(club, [("Gus", "Hal"), ("Ivy", "Jon")], four_deals(500, 300), tonight)  # a later id
    assert counted == []
    finish(second, "second")  # Ann & Bob's game after the first table
    assert counted == []
    finish(first, "first")
    assert [len(found) for found in counted] == [6]  # 4 players, 2 partnerships (all-time)
    assert lines_of(club.id) == rebuilt(club.id)


def test_a_match_finished_late_reads_no_record_and_counts_what_the_streaks_need(ctx, monkeypatch):
    """A table that finishes after a later one, or a night entered late, is added to the
    stored lines too: no record is read, and the games after it are only counted,
    each line's count stopping at one more than its streak (all that places the match in
    the streak), not the players' whole history nor every game since (issue 17); the
    lines are still what a rebuild gives."""
    counted = counts_of_newer(monkeypatch)

    def finish(day_of):
        def write(club, _first, size):
            counted.clear()
            play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), day_of(size))
            found.append(sum(sum(counts) for counts in counted))

        return write

    read = counting_reads(monkeypatch, (aggregates, "records_of"), (player_rows, "records_of"))
    for day_of in (
        lambda size: history_day(size - 2) + timedelta(days=1),  # before the last week
        lambda size: history_day(0) - timedelta(days=1),  # before every game
    ):
        found: list[int] = []
        # Ann & Bob's wins and losses alternate: every streak is one game long, so each
        # line counts at most two games after the match, whether 2 or 12 follow it
        costs = rows_read_while(read, finish(day_of), outcomes=("win", "loss"))
        assert [sum(cost) for cost in costs] == [0, 0]  # not even its own two sides
        assert found[0] == found[1] > 0


@pytest.mark.parametrize("read", ["_read_after", "_newer"])
def test_on_postgresql_a_late_match_s_reads_look_up_seats_side_by_side(ctx, monkeypatch, read):
    """PostgreSQL turned the seat condition spelled with ``EXISTS`` into a hash join over
    every seat the player ever had, for each line: the count read the history. As a
    scalar subquery it is a per-row lookup (a ``SubPlan``), which it never joins, so the
    read stops at the count's limit; so does the probe of whether the players have a
    game after the match at all. A matter of PostgreSQL's plans: SQLite's are
    ``test_write_plans``'s."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's plans; the suite runs on SQLite")
    seen: list[tuple[str, object]] = []
    real = getattr(aggregates, read)

    def reading(session, *args):
        def record(_conn, _cursor, statement, parameters, _context, _many):
            seen.append((statement, parameters))

        event.listen(db.engine, "before_cursor_execute", record)
        try:
            return real(session, *args)
        finally:
            event.remove(db.engine, "before_cursor_execute", record)

    monkeypatch.setattr(aggregates, read, reading)
    # what follows the match read no further than the match itself (nothing rated again
    # in the request): the lines' games after it are counted by the statement
    monkeypatch.setattr(ratings, "IN_REQUEST", 0)
    club = clubs.create_club("Tuesday")
    for week in range(3):
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), history_day(week))
    seen.clear()
    play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), history_day(0))
    assert len(seen) == 1  # the late match's probe, or its count
    statement, parameters = seen[0]
    plan = db.session.connection().exec_driver_sql(f"EXPLAIN {statement}", parameters).all()
    text_ = "\n".join(row[0] for row in plan)
    assert "SubPlan" in text_ and "Semi Join" not in text_ and "Hash" not in text_, text_


def test_the_counts_after_a_place_are_each_line_s_games_after_it_up_to_its_limit(ctx):
    """``_newer``'s counts (one subquery over the lines sent as arrays on PostgreSQL, a
    subquery a line on SQLite), and ``_counted``'s from what follows the place (whenever
    it gives any), for players and partnerships of two and three, all-time
    and in a season, at every place of a history and with limits from 1 to 9: each is the
    number of the line's games after the place (its own match left out), counted here
    from the club's records, capped at the line's streak and one."""
    rng = random.Random(17)
    club = clubs.create_club("Tuesday")
    clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 3, 31))
    layouts = [(2, 2), (1, 1, 1), (3, 3), (2, 2, 2), (1, 1)]
    for week in range(14):
        layout = layouts[week % len(layouts)]
        people = rng.sample(demo.PEOPLE[:6], sum(layout))
        sides = [people[sum(layout[:i]) : sum(layout[: i + 1])] for i in range(len(layout))]
        deals = [[rng.randrange(0, 1000, 10) for _ in layout], *[[0] * len(layout)] * 3]
        play(club, sides, deals, date(2024, 2, 20) + timedelta(days=3 * (week // 2)))
    season = club.seasons[0].id
    rows = db.session.execute(
        select(SideResult.match_id, SideResult.played_on).where(SideResult.club_id == club.id)
    )
    day_of = dict(rows.all())
    games = {scope: records_of_scope(club.id, scope) for scope in (aggregates.ALL_TIME, season)}
    keys = sorted(
        {(aggregates.PLAYER, p) for r in games[aggregates.ALL_TIME] for p in r.players}
        | {
            (aggregates.PARTNERSHIP, partnership(r.players))
            for r in games[aggregates.ALL_TIME]
            if len(r.players) > 1
        },
        key=repr,
    )
    assert {len(key) for kind, key in keys if kind == aggregates.PARTNERSHIP} == {2, 3}
    checked = whole = enough = 0
    for match_id in sorted(day_of, key=lambda m: (day_of[m], m)):
        place = (day_of[match_id], match_id)
        stored = [
            (scope, kind, replace(line_of(key, []), streak=("win", rng.randrange(0, 9))))
            for scope in games
            for kind, key in keys
        ]
        expected = []
        for scope, kind, line in stored:
            after = [
                r
                for r in games[scope]
                if (day_of[r.match], r.match) > place
                and (
                    line.key in r.players
                    if kind == aggregates.PLAYER
                    else partnership(r.players) == line.key
                )
            ]
            expected.append(min(len(after), line.streak[1] + 1))
        assert aggregates._newer(db.session, club.id, place, stored) == expected, place
        # the same counted from what follows the place, read a few matches at a time: all
        # that follows, or as much as every count needs, else nothing (counted apart)
        for count in (1, 3, 8, 30):
            window = side_records.following(db.session, club.id, place, count)
            found = aggregates._counted(window, match_id, stored)
            assert found == (expected if found is not None else None), (place, count)
            if window.upto is None:
                assert found == expected, (place, count)
                whole += 1
                continue
            for line, wanted in zip(stored, expected, strict=True):  # line by line
                alone = aggregates._counted(window, match_id, [line])
                assert alone in (None, [wanted]), (place, count, line)
                enough += alone is not None
        checked += sum(expected)
    assert checked > 100 and whole > 20 and enough > 20, (checked, whole, enough)


def records_of_scope(club_id, scope):
    """The club's side records in ``scope``, oldest first."""
    query = side_records.seats_query().where(SideResult.club_id == club_id)
    rows = db.session.execute(side_records.in_scope(query, scope))
    return [record for _season, record in side_records.records_of(rows)]


def test_on_postgresql_the_counts_after_a_place_are_one_text_whatever_the_lines(ctx):
    """On PostgreSQL the lines go to ``_newer``'s one statement as arrays, so its text
    (prepared once by psycopg) is the same for any number and kind of lines; the
    subquery a line it replaces was a new text for each shape, planned at every run."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's statement; SQLite runs a subquery a line")
    club = clubs.create_club("Tuesday")
    first = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    play(club, [("Ann", "Bob", "Eve"), ("Cid", "Dee", "Fay")], four_deals(300, 500))
    seen: list[str] = []

    def record(_conn, _cursor, statement, *_rest):
        seen.append(statement)

    place, club_id = (date(2024, 3, 5), first.row.id), club.id
    shapes = [
        [(aggregates.ALL_TIME, aggregates.PLAYER, line_of(1, []))],
        [(aggregates.ALL_TIME, aggregates.PLAYER, line_of(n, [])) for n in range(1, 5)],
        [(7, aggregates.PARTNERSHIP, line_of((1, 2), [])), (0, aggregates.PLAYER, line_of(3, []))],
        [(0, aggregates.PARTNERSHIP, line_of((1, 2, 5), []))],
    ]
    event.listen(db.engine, "before_cursor_execute", record)
    try:
        for stored in shapes:
            assert len(aggregates._newer(db.session, club_id, place, stored)) == len(stored)
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    assert len(seen) == len(shapes) and len(set(seen)) == 1, seen


def test_a_late_match_at_any_place_in_any_run_gives_the_lines_of_the_history(ctx):
    """Every sequence of three outcomes of one partnership, then a match finished late
    before each of its games in turn (its outcome cycling, so that every outcome comes
    at every place): the lines are the ones summed from scratch each time (the late match
    joins the streak, cuts it, or leaves it as it is)."""
    import itertools

    checked = 0
    kinds = list(SCORES)
    for number, outcomes in enumerate(itertools.product(kinds, repeat=3)):
        club = clubs.create_club("-".join(outcomes))
        for week, outcome in enumerate(outcomes):
            pairs = [("Ann", "Bob"), ("Cid", "Dee")]
            play(club, pairs, four_deals(*SCORES[outcome]), history_day(2 * week))
        for place in (2, 0, 1):
            late = kinds[(number + place) % 3]
            day = history_day(2 * place) - timedelta(days=1)
            play(club, [("Ann", "Bob"), ("Cid", "Eve")], four_deals(*SCORES[late]), day)
            assert lines_of(club.id) == rebuilt(club.id), (outcomes, place, late)
            checked += 1
    assert checked == 27 * 3


@pytest.mark.parametrize(
    "sides",
    [
        [("Ann", "Bob"), ("Cid", "Dee")],
        [("Ann",), ("Bob",), ("Cid",)],
        [("Ann", "Bob", "Cid"), ("Dee", "Eve", "Fay")],
        [("Ann", "Bob"), ("Cid", "Dee"), ("Eve", "Fay")],
    ],
    ids=["2+2", "1+1+1", "3+3", "2+2+2"],
)
def test_a_finished_match_s_records_taken_from_its_rows_are_the_rows_read_back(
    ctx, monkeypatch, sides
):
    """A finishing deal hands its lines, player rows and ratings the records of the rows
    it has just written instead of reading them back (``side_records.records_written``):
    they are exactly what reading them back gives, season, seats, opponents and tallies
    included, whatever the layout."""
    club = clubs.create_club("Tuesday")
    clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 3, 31))
    handed: list[list] = []
    real = side_records.records_written

    def written(*args, **kwargs):
        found = real(*args, **kwargs)
        handed.append(found)
        return found

    monkeypatch.setattr(side_records, "records_written", written)
    extra = {0: {"books": {"clean": 1}, "red_threes": 1}, 1: {"books": {"dirty": 2}}}
    deals = [[300 + 10 * i, 200, 250][: len(sides)] for i in range(4)]
    loaded = play(club, sides, deals, date(2024, 3, 5), extra)
    assert len(handed) == 1  # the finishing deal, once
    db.session.expire_all()
    query = side_records.seats_query().where(SideResult.match_id == loaded.row.id)
    read_back = side_records.records_of(db.session.execute(query))
    assert handed[0] == read_back
    assert {season for season, _record in read_back} == {club.seasons[0].id}
    assert all(len(record.opponents) == len(sides) - 1 for _s, record in read_back)


def test_a_season_added_later_gets_lines_for_the_matches_already_played_in_it(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 5))
    spring = clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 3, 31))
    scopes = {(line[1], line[2]) for line in lines_of(club.id)}
    assert scopes == {
        (aggregates.ALL_TIME, "player"),
        (aggregates.ALL_TIME, "partnership"),
        (spring.id, "player"),
        (spring.id, "partnership"),
    }


def test_a_season_added_later_takes_its_games_without_loading_the_club_s_matches(ctx):
    """Each match and result goes to the season its date falls in (a match with no date
    of play by the day it was created), in statements over the rows, not match by match:
    no match of the club is loaded but the one without a date. The lines, seats and
    tallies, of the new season only rewritten, are then what a rebuild from scratch
    gives, the older season's and the all-time ones included."""
    club = clubs.create_club("Tuesday")
    winter = clubs.add_season(club, "Winter", date(2024, 1, 1), date(2024, 2, 28))
    days = [date(2024, 1, 10), date(2024, 3, 1), date(2024, 3, 31), date(2024, 4, 1)]
    sides = [[("Ann", "Bob"), ("Cid", "Dee")], [("Ann",), ("Cid",)]]
    played = [
        play(club, sides[n % 2], four_deals(300 + 100 * n, 400), day=day)
        for n, day in enumerate([*days, date(2024, 5, 2)])
    ]
    undated = played[-1].row.id  # dated 2 May when played; created, say, on 20 March
    db.session.execute(
        update(Match)
        .where(Match.id == undated)
        .values(played_on=None, created_at=datetime(2024, 3, 20, 12, tzinfo=UTC))
    )
    db.session.commit()
    read: list[int] = []

    def seen(target, *_args):
        read.append(target.id)

    for name in ("load", "refresh"):
        event.listen(Match, name, seen)
    try:
        spring = clubs.add_season(club, "Spring", date(2024, 3, 1), date(2024, 3, 31))
    finally:
        for name in ("load", "refresh"):
            event.remove(Match, name, seen)
    assert read == [undated]
    db.session.expire_all()
    expected = [winter.id, spring.id, spring.id, None, spring.id]
    found = db.session.scalars(select(Match.season_id).order_by(Match.id))
    assert list(found) == expected
    # a result goes by its own date (the undated match's results keep 2 May)
    by_match = db.session.execute(
        select(SideResult.match_id, SideResult.season_id).order_by(SideResult.id)
    )
    seasons = dict(by_match.all())
    assert [seasons[match.row.id] for match in played] == [*expected[:4], None]
    assert_current(club.id)


def test_a_removed_match_leaves_no_line_for_players_with_no_other_game(ctx):
    club = clubs.create_club("Tuesday")
    loaded = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    matches.remove_last_deal(matches.reopen(matches.load_match(loaded.public_id)), 4)
    assert lines_of(club.id) == []


@pytest.mark.parametrize("seed", [5, 6])
def test_the_player_page_s_rivals_partners_best_game_and_scores_equal_the_engine_s(ctx, seed):
    """All-time and in each season, from the rows kept current (after any writes)."""
    rng = random.Random(seed)
    club = clubs.create_club("Tuesday")
    played: list[str] = []
    for _ in range(14):
        step(club, rng, played, date(2024, 1, 1))
    seats = db.session.execute(side_records.seats_query())
    seasoned = side_records.records_of(seats)
    scopes = {None: [record for _season, record in seasoned]}
    for season in club.seasons:
        scopes[season.id] = [record for s, record in seasoned if s == season.id]
    assert len(scopes) > 1
    for season_id, every in scopes.items():
        scope = season_id or aggregates.ALL_TIME
        for person in db.session.scalars(select(Player).where(Player.club_id == club.id)):
            line = aggregates.read_line(db.session, club.id, scope, person.id)
            against = {r.player.id: r.tally for r in players.opponents(person.id, season_id)}
            assert against == head_to_head(every, person.id)
            mates = {
                r.player.id: (r.tally, r.apart)
                for r in players.partners(person.id, season_id, line)
            }
            assert mates == partners(every, person.id)
            best, expected = players.best_game(person.id, season_id), best_game(every, person.id)
            if expected is None:
                assert best is None
            else:
                assert (best.points_for, best.match.id) == (expected.points_for, expected.match)
            latest = players._latest_scores().limit(players.CHART_POINTS)
            found = db.session.execute(latest, players._params(person.id, season_id))
            scores = [points for (points,) in found][::-1]
            own = [r.points_for for r in every if person.id in r.players]
            assert scores == own[-players.CHART_POINTS :]


def test_the_rival_tallies_are_the_engine_s_pair_tallies_in_every_scope(ctx):
    rng = random.Random(8)
    club = clubs.create_club("Tuesday")
    played: list[str] = []
    for _ in range(12):
        step(club, rng, played, date(2024, 1, 1))
    seasoned = side_records.records_of(db.session.execute(side_records.seats_query()))
    expected = []
    for scope in {aggregates.ALL_TIME, *(s for s, _r in seasoned if s is not None)}:
        records = [r for s, r in seasoned if scope in (aggregates.ALL_TIME, s)]
        expected += [
            (player, scope, relation, other, tally.wins, tally.draws, tally.losses)
            for (player, relation, other), tally in pair_tallies(records).items()
        ]
    assert player_rows_of(club.id)["rival_tallies"] == sorted(expected)


def records_read_by_player_rows(monkeypatch, write) -> list[list[int]]:
    """The side records the player page's rows take during ``write``: the match's records
    as they were (read: ``side_records.records_before``) and now (as written:
    ``side_records.records_written``), and any other read from the database."""
    read = counting_reads(monkeypatch, (player_rows, "records_of"), (side_records, "records_of"))
    return rows_read_while(read, write)


def test_a_finished_match_reads_only_its_own_records_for_the_player_page_s_rows(ctx, monkeypatch):
    """However long its players' history, and wherever the match falls in it (issue 17)."""

    def finish_late(club, _first, _size):
        play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(200, 600), date(2023, 1, 3))

    assert records_read_by_player_rows(monkeypatch, finish_late) == [[2], [2]]


def test_a_correction_of_the_oldest_match_reads_only_its_records_before_and_after(ctx, monkeypatch):
    """Its old records are taken from its players' tallies and its new ones added: the
    rest of their history is not read (issue 17)."""

    def correct_first(_club, first, _size):
        loaded = matches.reopen(matches.load_match(first))
        matches.correct_deal(loaded, 1, [{"melded_points": 50}, {"melded_points": 900}], None)

    # reopened: its two records taken away; corrected and finished again: put back
    assert records_read_by_player_rows(monkeypatch, correct_first) == [[2, 2], [2, 2]]


def test_a_deleted_club_leaves_no_seat_nor_tally_behind(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    assert db.session.scalar(select(func.count()).select_from(RivalTally)) == 4 * 3
    clubs.delete_club(club)
    for model in (SeatResult, RivalTally):
        assert db.session.scalar(select(func.count()).select_from(model)) == 0


def test_the_player_page_s_reads_use_their_indexes_without_sorting_the_history(ctx):
    """Best game and latest scores: the first rows of an index, never a sort (SQLite's
    plan; PostgreSQL's planner picks by statistics, so only SQLite's is asserted)."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("query plans differ by database")
    for statement, index in (
        (players._best(), "ix_seat_results_best"),
        (players._latest_scores().limit(players.CHART_POINTS), "ix_seat_results_latest"),
    ):
        bound = statement.params(player=1, scope=aggregates.ALL_TIME)
        compiled = bound.compile(db.engine, compile_kwargs={"literal_binds": True})
        plan = db.session.execute(text(f"EXPLAIN QUERY PLAN {compiled}")).all()
        details = " | ".join(row[-1] for row in plan)
        assert index in details, details
        assert "TEMP B-TREE" not in details, details


def test_the_migration_fills_the_lines_of_clubs_already_there(tmp_path: Path, dburi):
    uri = dburi or f"sqlite:///{tmp_path / 'migrations.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": uri})
    with app.app_context():
        db.drop_all()
        with db.engine.begin() as connection:
            connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
        upgrade()
        club = demo.seed(weeks=3)
        club_id, kept = club.id, lines_of(club.id)
        assert kept and db.session.scalar(select(SideResult.id).limit(1))
        db.session.remove()
        downgrade(revision="c1d2e3f4a5b6")
        upgrade()
        assert lines_of(club_id) == kept
        db.session.remove()
        kept_rows = player_rows_of(club_id)
        assert kept_rows["seat_results"] and kept_rows["rival_tallies"]
        db.session.remove()
        downgrade(revision="a7c3e9d2b5f1")  # before the player page's rows
        upgrade()
        assert player_rows_of(club_id) == kept_rows
        db.session.remove()
        downgrade(revision="base")
        db.engine.dispose()
