"""Standings arithmetic on a hand-built history (engine only, no database)."""

from __future__ import annotations

from fractions import Fraction

from scorekeeper.engine.rivals import (
    AGAINST,
    WITH,
    best_game,
    head_to_head,
    meetings,
    pair_tallies,
    partners,
)
from scorekeeper.engine.standings import (
    Line,
    Opponent,
    SideRecord,
    Tally,
    add,
    extend,
    line_of,
    lines,
    outcome_of,
    partnership,
    partnership_keys,
    player_keys,
    rank,
    retract,
    streak,
    versus,
)


def game(match, sides, extra=None):
    """Records for one match: ``sides`` is [(players, points), ...]; outcomes follow."""
    totals = [points for _players, points in sides]
    records = []
    for i, (players, points) in enumerate(sides):
        others = [Opponent(tuple(p), pts) for j, (p, pts) in enumerate(sides) if j != i]
        records.append(
            SideRecord(
                match=match,
                players=tuple(players),
                outcome=outcome_of(points, totals),
                points_for=points,
                points_against=max(o.points for o in others),
                opponents=tuple(others),
                **(extra or {}).get(i, {}),
            )
        )
    return records


# Ann and Bob against Cid and Dee, then partners change; oldest first.
HISTORY = [
    *game(
        1,
        [("ab", 5000), ("cd", 3000)],
        {
            0: {
                "deals": 4,
                "went_out": 3,
                "books": {"clean": 6, "dirty": 5, "wild": 1},
                "red_threes": 4,
                "red_threes_left": 1,
            },
            1: {
                "deals": 4,
                "went_out": 1,
                "books": {"clean": 3, "dirty": 2},
                "red_threes": 2,
                "red_threes_left": 0,
            },
        },
    ),
    *game(2, [("ac", 4000), ("bd", 4000)], {0: {"deals": 4}, 1: {"deals": 4}}),
    *game(3, [("ad", 2000), ("bc", 6000)], {0: {"deals": 4, "books": {"other": 1}}}),
]


def by_key(found):
    return {line.key: line for line in found}


def test_a_player_line_sums_every_metric_of_their_games():
    ann = by_key(lines(HISTORY, player_keys))["a"]
    assert (ann.games, ann.tally.wins, ann.tally.draws, ann.tally.losses) == (3, 1, 1, 1)
    assert ann.win_rate == Fraction(1, 2)
    assert (ann.points_for, ann.points_against) == (11000, 13000)
    assert ann.points_per_game == Fraction(11000, 3)
    assert ann.against_per_game == Fraction(13000, 3)
    assert ann.deals == 12
    assert ann.points_per_deal == Fraction(11000, 12)
    assert ann.went_out == 3
    assert ann.books == {"clean": 6, "dirty": 5, "wild": 1, "other": 1}
    assert (ann.red_threes, ann.red_threes_left) == (4, 1)
    assert ann.streak == ("loss", 1)


def test_a_draw_counts_half_a_win():
    assert Tally(wins=1, draws=1, losses=0).win_rate == Fraction(3, 4)
    assert Tally(draws=2).win_rate == Fraction(1, 2)


def test_an_empty_line_has_zero_averages_rather_than_dividing_by_zero():
    empty = line_of("nobody", [])
    assert empty.games == 0
    assert empty.win_rate == 0 and empty.points_per_game == 0
    assert empty.against_per_game == 0 and empty.points_per_deal == 0
    assert empty.streak == ("", 0)


def test_the_current_streak_counts_the_last_run_of_one_outcome():
    assert streak(["loss", "win", "win", "win"]) == ("win", 3)
    assert streak(["win", "draw"]) == ("draw", 1)
    assert streak([]) == ("", 0)


def test_lines_keep_the_order_players_first_appear_in():
    assert [line.key for line in lines(HISTORY, player_keys)] == ["a", "b", "c", "d"]


def test_a_partnership_is_the_same_pair_whoever_is_named_first():
    records = [*game(1, [("ab", 10), ("cd", 5)]), *game(2, [("ba", 3), ("dc", 9)])]
    pairs = by_key(lines(records, partnership_keys))
    assert set(pairs) == {("a", "b"), ("c", "d")}
    assert pairs[("a", "b")].tally == Tally(wins=1, losses=1)
    assert partnership("ba") == ("a", "b")


def test_a_player_alone_forms_no_partnership():
    records = game(1, [("a", 10), ("b", 5), ("c", 1)])
    assert lines(records, partnership_keys) == []


def test_outcomes_win_draw_and_loss_follow_the_highest_total():
    assert outcome_of(10, [10, 5]) == "win"
    assert outcome_of(10, [10, 10, 3]) == "draw"
    assert outcome_of(3, [10, 10, 3]) == "loss"
    assert versus(5, 5) == "draw" and versus(6, 5) == "win" and versus(4, 5) == "loss"


def test_ranking_puts_the_better_win_rate_first():
    table = rank(lines(HISTORY, player_keys), HISTORY, min_games=1)
    order = [(p.place, p.line.key) for p in table.ranked]
    # b: W D W = 5/6; c: L D W = 1/2 with 13000/3; a: 1/2 with 11000/3; d: L D L = 1/6
    assert order == [(1, "b"), (2, "c"), (3, "a"), (4, "d")]
    decided = {p.line.key: p.decided_by for p in table.ranked}
    assert decided == {"b": "win rate", "c": "win rate", "a": "points per game", "d": "win rate"}


def test_players_below_the_minimum_games_are_listed_unranked():
    records = [*HISTORY, *game(4, [("e", 100), ("f", 50)])]
    table = rank(lines(records, player_keys), records, min_games=2)
    assert [p.line.key for p in table.ranked] == ["b", "c", "a", "d"]
    assert [line.key for line in table.unranked] == ["e", "f"]


def test_a_minimum_of_zero_still_needs_one_game():
    empty = line_of("x", [])
    table = rank([empty], [], min_games=0)
    assert table.ranked == () and table.unranked == (empty,)


def test_a_cycle_of_head_to_head_results_leaves_the_entries_sharing_a_place():
    # x beat y, y beat z, z beat x, all by the same scores: level on every tie-break.
    records = [
        *game(1, [("x", 100), ("y", 50)]),
        *game(2, [("y", 100), ("z", 50)]),
        *game(3, [("z", 100), ("x", 50)]),
    ]
    table = rank(lines(records, player_keys), records, min_games=1)
    tied = [(p.place, p.line.key, p.decided_by) for p in table.ranked]
    assert tied == [(1, "x", "tied"), (1, "y", "tied"), (1, "z", "tied")]


def test_head_to_head_decides_between_two_entries_level_on_both_averages():
    records = [
        *game(1, [("x", 100), ("y", 60)]),
        *game(2, [("y", 100), ("q", 60)]),
        *game(3, [("q", 140), ("x", 60)]),
    ]
    found = by_key(lines(records, player_keys))
    assert found["x"].win_rate == found["y"].win_rate == Fraction(1, 2)
    assert found["x"].points_per_game == found["y"].points_per_game == 80
    table = rank(found.values(), records, min_games=2)
    places = [(p.place, p.line.key, p.decided_by) for p in table.ranked]
    assert places[1:] == [(2, "x", "head-to-head"), (3, "y", "head-to-head")]
    assert places[0][1] == "q"


def test_head_to_head_records_can_be_read_on_demand_for_the_tied_entries_only():
    records = [
        *game(1, [("x", 100), ("y", 60)]),
        *game(2, [("y", 100), ("q", 60)]),
        *game(3, [("q", 140), ("x", 60)]),
    ]
    asked = []

    def meetings(keys):
        asked.append(keys)
        return [r for r in records if len(keys & {p for o in r.opponents for p in o.players}) > 0]

    found = lines(records, player_keys)
    table = rank(found, meetings, min_games=2)
    assert asked == [frozenset({"x", "y"})]
    assert table == rank(found, records, min_games=2)


def test_entries_that_never_met_and_are_level_share_a_place():
    records = [*game(1, [("x", 100), ("p", 50)]), *game(2, [("y", 100), ("q", 50)])]
    table = rank(lines(records, player_keys), records, min_games=1)
    assert [(p.place, p.line.key, p.decided_by) for p in table.ranked[:2]] == [
        (1, "x", "tied"),
        (1, "y", "tied"),
    ]


def test_partnerships_break_ties_by_their_own_meetings():
    records = [
        *game(1, [("ab", 100), ("cd", 60)]),
        *game(2, [("cd", 100), ("ef", 60)]),
        *game(3, [("ef", 140), ("ab", 60)]),
        *game(4, [("ac", 500), ("bd", 10)]),  # the same people, other partnerships
    ]
    table = rank(lines(records, partnership_keys), records, min_games=2, by_partnership=True)
    keys = [(p.place, p.line.key, p.decided_by) for p in table.ranked]
    assert keys == [
        (1, ("e", "f"), "points per game"),
        (2, ("a", "b"), "head-to-head"),
        (3, ("c", "d"), "head-to-head"),
    ]
    assert [line.key for line in table.unranked] == [("a", "c"), ("b", "d")]


def test_head_to_head_lists_each_opponent_the_player_met():
    against = head_to_head(HISTORY, "a")
    assert against == {
        "c": Tally(wins=1, losses=1, draws=0),
        "d": Tally(wins=1, draws=1, losses=0),
        "b": Tally(draws=1, losses=1),
    }
    assert list(against) == ["c", "d", "b"]


def test_partners_compare_the_record_together_and_apart():
    with_partner = partners(HISTORY, "a")
    assert with_partner["b"] == (Tally(wins=1), Tally(draws=1, losses=1))
    assert with_partner["c"] == (Tally(draws=1), Tally(wins=1, losses=1))
    assert with_partner["d"] == (Tally(losses=1), Tally(wins=1, draws=1))


def test_a_side_s_meetings_are_each_player_against_each_opponent_and_with_each_partner():
    three_way = game(7, [("ab", 300), ("c", 300), ("d", 500)])
    assert meetings(three_way[0]) == [
        ("a", WITH, "b", "loss"),
        ("a", AGAINST, "c", "draw"),
        ("a", AGAINST, "d", "loss"),
        ("b", WITH, "a", "loss"),
        ("b", AGAINST, "c", "draw"),
        ("b", AGAINST, "d", "loss"),
    ]


def test_pair_tallies_sum_the_meetings_as_head_to_head_and_partners_count_them():
    tallies = pair_tallies(HISTORY)
    for player in "abcd":
        against = {o: t for (p, rel, o), t in tallies.items() if p == player and rel == AGAINST}
        assert against == head_to_head(HISTORY, player)
        together = {o: t for (p, rel, o), t in tallies.items() if p == player and rel == WITH}
        assert together == {mate: pair[0] for mate, pair in partners(HISTORY, player).items()}


def test_the_best_game_is_the_highest_score_and_the_earliest_on_equal_points():
    assert best_game(HISTORY, "a").match == 1
    assert best_game(HISTORY, "b").match == 3
    equal = [*game(1, [("x", 10), ("y", 5)]), *game(2, [("x", 10), ("y", 5)])]
    assert best_game(equal, "x").match == 1
    assert best_game(HISTORY, "nobody") is None


def test_a_lone_entry_leads_on_win_rate():
    records = game(1, [("x", 100), ("y", 50)])
    table = rank(lines(records, player_keys), records, min_games=1)
    assert [(p.line.key, p.decided_by) for p in table.ranked] == [
        ("x", "win rate"),
        ("y", "win rate"),
    ]
    alone = rank(lines(records[:1], player_keys), records[:1], min_games=1)
    assert [(p.place, p.decided_by) for p in alone.ranked] == [(1, "win rate")]


def test_a_line_is_a_plain_value():
    line = line_of("a", HISTORY[:1])
    assert isinstance(line, Line) and line.key == "a"


def test_a_line_extended_by_each_newer_record_is_the_line_of_all_of_them():
    """Appending one finished match to a stored line (the common write) gives what summing
    the whole history gives, at every step: tallies, sums, books and the streak."""
    for key in "abcdef":
        own = [r for r in HISTORY if key in r.players]
        line = line_of(key, [])
        for count, record in enumerate(own, start=1):
            line = extend(line, record)
            assert line == line_of(key, own[:count])
    runs = [extend(extend(line_of("z", []), r), r).streak for r in HISTORY[:2]]
    assert runs == [("win", 2), ("loss", 2)]


def test_a_record_added_anywhere_gives_the_line_of_all_of_them_in_order():
    """A match that finished late is added before the ``newer`` records after it: every
    sequence of up to six outcomes, every place, every outcome gives what summing the
    whole history in order gives (the streak is what depends on the place)."""
    import itertools

    def record(number: int, outcome: str) -> SideRecord:
        points = {"win": 300, "draw": 200, "loss": 100}[outcome]
        return SideRecord(
            match=number,
            players=("a", "b"),
            outcome=outcome,
            points_for=points,
            points_against=200,
            opponents=(Opponent(("c", "d"), 200),),
        )

    checked = 0
    for size in range(7):
        for outcomes in itertools.product(("win", "loss", "draw"), repeat=size):
            history = [record(n, o) for n, o in enumerate(outcomes)]
            for place in range(size + 1):
                for outcome in ("win", "loss", "draw"):
                    late = record(99, outcome)
                    stored = line_of("a", history)
                    whole = [*history[:place], late, *history[place:]]
                    assert add(stored, late, size - place) == line_of("a", whole)
                    checked += 1
    assert checked > 10_000


def test_a_record_taken_out_anywhere_gives_the_line_of_the_others():
    """A correction takes a match's record out of a line: every sequence of up to six
    outcomes, every record taken out, with books, gives the sums of the others; the
    streak is the one the caller passes (the service finds it from the records around)."""
    import itertools

    def record(number: int, outcome: str) -> SideRecord:
        return SideRecord(
            match=number,
            players=("a", "b"),
            outcome=outcome,
            points_for=100 + number,
            points_against=50 * number,
            deals=number % 4 + 1,
            went_out=number % 2,
            books={"clean": number % 3, "wild": 1, "sevens": number},
            red_threes=number % 5,
            red_threes_left=number % 2,
        )

    checked = 0
    for size in range(1, 7):
        for outcomes in itertools.product(("win", "loss", "draw"), repeat=size):
            history = [record(n, o) for n, o in enumerate(outcomes)]
            stored = line_of("a", history)
            for place in range(size):
                others = [*history[:place], *history[place + 1 :]]
                expected = line_of("a", others)
                found = retract(stored, history[place], expected.streak)
                assert found.streak == expected.streak
                assert {k: v for k, v in found.books.items() if v} == {
                    k: v for k, v in expected.books.items() if v
                }
                assert found == Line(**{**expected.__dict__, "books": found.books})
                checked += 1
    assert checked > 3_000
