"""Deals scored by hand, one preset (or custom rule set) at a time.

Every docstring shows the arithmetic the way RULES.md section 7 does; the test checks the
engine comes to the same numbers.
"""

from typing import Any

import pytest

from scorekeeper.engine import PRESETS, EntryError, RuleSet, check_meld, score_deal
from scorekeeper.engine.meld import Meld

CLASSIC = PRESETS["classic"]
FOUR_BOOKS = PRESETS["four-books"]
WHITNACK = PRESETS["whitnack"]


def custom_rules(base: str = "classic", **changes: Any) -> RuleSet:
    data = PRESETS[base].to_dict()
    data.update(id="custom", name="Custom", **changes)
    return RuleSet.from_dict(data)


def totals(rules: RuleSet, deal: int, players: int, sides: list[dict[str, Any]]) -> list[int]:
    return [side.total for side in score_deal(rules, deal, players, sides).sides]


SECTION_7_SIDE_A = {
    "went_out": True,
    "books": {"clean": 2, "dirty": 2, "wild": 1},
    "red_threes": 1,
    "red_threes_left": 0,
    "melded": {"joker": 4, "2": 6, "A": 6, "8-K": 20, "4-7": 10},
    "left": {"black3": 0},
}
SECTION_7_SIDE_B = {
    "went_out": False,
    "books": {"clean": 1, "dirty": 0, "wild": 0},
    "red_threes": 0,
    "red_threes_left_in_foot": 1,
    "melded_points": 185,
    "left_points": 75,
}


def test_rules_section_7_example_scores_3990_and_510() -> None:
    """classic, deal 2, four players (RULES.md section 7).

    Side A:
    - card points: 4x50 + 6x20 + 6x20 + 20x10 + 10x5 = 200 + 120 + 120 + 200 + 50 = 690
    - books: 2x500 + 2x300 + 1x1500 = 3100
    - red three: +100; going out: +100; nothing left
    - total: 690 + 3100 + 100 + 100 = 3990
    Side B:
    - 185 + 500 + 0 + 0 - 75 - 100 = 510 (the red three in its unpicked foot costs 100:
      side A went out)
    """
    score = score_deal(CLASSIC, 2, 4, [SECTION_7_SIDE_A, SECTION_7_SIDE_B])
    assert score.as_dict() == {
        "deal": 2,
        "minimum_meld": 90,
        "sides": [
            {
                "card_points": 690,
                "book_bonus": 3100,
                "red_threes": 100,
                "going_out": 100,
                "exact_draws": 0,
                "left_points": 0,
                "red_threes_left": 0,
                "total": 3990,
            },
            {
                "card_points": 185,
                "book_bonus": 500,
                "red_threes": 0,
                "going_out": 0,
                "exact_draws": 0,
                "left_points": 75,
                "red_threes_left": 100,
                "total": 510,
            },
        ],
    }


def test_counting_by_points_gives_the_same_score_as_counting_by_ranks() -> None:
    """Side A of section 7 again, its table counted as one number, its hand by ranks.

    - table by ranks: 4x50 + 6x20 + 6x20 + 20x10 + 10x5 = 690; by points: 690
    - left by ranks: 1 ace + 2 from 8-K + 3 from 4-7 + 2 black threes
      = 20 + 2x10 + 3x5 + 2x5 = 20 + 20 + 15 + 10 = 65; by points: 65
    - both ways: 690 + 3100 + 100 - 65 = 3825 (nobody went out this time)
    """
    by_ranks = {
        **SECTION_7_SIDE_A,
        "went_out": False,
        "left": {"A": 1, "8-K": 2, "4-7": 3, "black3": 2},
    }
    by_points = {**by_ranks, "melded_points": 690, "left_points": 65}
    del by_points["melded"], by_points["left"]
    other = {"melded_points": 100}
    assert totals(CLASSIC, 2, 4, [by_ranks, other]) == [3825, 100]
    assert totals(CLASSIC, 2, 4, [by_points, other]) == [3825, 100]


def test_side_without_meld_loses_its_red_threes() -> None:
    """classic, deal 1: a red three is +100 with a meld, -100 without one.

    Side A melded three kings and laid one red three:
    - 3x10 + 1x100 = 30 + 100 = 130
    Side B never melded, laid two red threes and holds 40 points:
    - 0 + 2x(-100) - 40 = -240
    """
    side_a = {"melded": {"K": 3}, "red_threes": 1}
    side_b = {"red_threes": 2, "left_points": 40}
    score = score_deal(CLASSIC, 1, 4, [side_a, side_b])
    assert [s.red_threes for s in score.sides] == [100, -200]
    assert [s.total for s in score.sides] == [130, -240]


def test_whitnack_red_threes_score_plus_100_even_without_a_meld() -> None:
    """whitnack, deal 1, the same two sides as the classic example:

    Side A: 3x10 + 1x100 = 130
    Side B (never melded): 0 + 2x(+100) - 40 = 160
    """
    side_a = {"melded": {"K": 3}, "red_threes": 1}
    side_b = {"red_threes": 2, "left_points": 40}
    assert totals(WHITNACK, 1, 4, [side_a, side_b]) == [130, 160]


def test_a_book_alone_counts_as_having_melded_for_red_threes() -> None:
    """classic, deal 1: a side with a book but its table entered as 0 points has melded.

    - 0 + 500 + 1x100 = 600
    """
    side = {"books": {"clean": 1}, "melded_points": 0, "red_threes": 1}
    assert totals(CLASSIC, 1, 4, [side, {}]) == [600, 0]


def test_red_threes_left_in_a_hand_cost_100_each() -> None:
    """classic, deal 3: the side melded 3 aces and a two, holds 4 kings, 2 red threes in hand.

    - card points: 3x20 + 1x20 = 80
    - left: 4x10 = 40
    - red threes left: 2x100 = 200
    - total: 80 - 40 - 200 = -160
    """
    side = {"melded": {"A": 3, "2": 1}, "left": {"K": 4}, "red_threes_left": 2}
    breakdown = score_deal(CLASSIC, 3, 4, [side, {}]).sides[0]
    assert (breakdown.card_points, breakdown.left_points, breakdown.red_threes_left) == (
        80,
        40,
        200,
    )
    assert breakdown.total == -160


def test_only_the_side_that_went_out_gets_the_going_out_bonus() -> None:
    """classic, deal 4.

    Side A went out with 2 clean, 2 dirty and 1 wild book, 900 points on the table:
    - 900 + 2x500 + 2x300 + 1x1500 + 100 = 900 + 1000 + 600 + 1500 + 100 = 4100
    Side B: 300 on the table, 50 left: 300 - 50 = 250
    """
    side_a = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900}
    side_b = {"melded_points": 300, "left_points": 50}
    score = score_deal(CLASSIC, 4, 4, [side_a, side_b])
    assert [s.going_out for s in score.sides] == [100, 0]
    assert [s.total for s in score.sides] == [4100, 250]


def test_nobody_gets_the_going_out_bonus_when_the_stock_ran_out() -> None:
    """classic, deal 1, nobody went out:

    Side A: 200 - 30 = 170; Side B: 150 - 60 = 90; no bonus either way.
    """
    sides = [{"melded_points": 200, "left_points": 30}, {"melded_points": 150, "left_points": 60}]
    score = score_deal(CLASSIC, 1, 4, sides)
    assert [s.going_out for s in score.sides] == [0, 0]
    assert [s.total for s in score.sides] == [170, 90]


def test_exact_draws_earn_their_bonus_under_a_rule_set_that_has_one() -> None:
    """A custom rule set (classic with an exact-draw bonus of 50), deal 1.

    - 100 on the table + 2 exact draws x 50 = 100 + 100 = 200
    Under classic (no exact-draw bonus) the same entry is 100 + 2x0 = 100.
    """
    rules = custom_rules(exact_draw_bonus=50)
    side = {"melded_points": 100, "exact_draws": 2}
    assert score_deal(rules, 1, 4, [side, {}]).sides[0].exact_draws == 100
    assert totals(rules, 1, 4, [side, {}]) == [200, 0]
    assert totals(CLASSIC, 1, 4, [side, {}]) == [100, 0]


SEVENS = {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1000, "wilds": False}


def test_a_special_sevens_book_earns_its_own_bonus() -> None:
    """A custom rule set: classic plus a sevens book worth 1000, deal 1.

    The side has 1 clean book of kings and 1 sevens book, 7 kings and 7 sevens on the table:
    - card points: 7x10 + 7x5 = 70 + 35 = 105
    - books: 1x500 + 1x1000 = 1500
    - total: 105 + 1500 = 1605
    """
    rules = custom_rules(special_books=[SEVENS])
    side = {"books": {"clean": 1, "sevens": 1}, "melded": {"K": 7, "7": 7}}
    breakdown = score_deal(rules, 1, 4, [side, {}]).sides[0]
    assert breakdown.book_bonus == 1500
    assert breakdown.total == 1605


def test_going_out_can_require_a_special_book() -> None:
    """Custom: going out needs a sevens book. Without one the side may not go out."""
    rules = custom_rules(special_books=[SEVENS], going_out_requires={"clean": 1, "sevens": 1})
    side = {"went_out": True, "books": {"clean": 1}, "melded_points": 600}
    with pytest.raises(EntryError) as caught:
        score_deal(rules, 1, 4, [side, {}])
    assert [p.as_dict() for p in caught.value.problems] == [
        {
            "field": "sides[0].books.sevens",
            "message": "Going out needs 1 sevens book; this side has 0.",
        }
    ]


def test_four_books_with_three_players_alone() -> None:
    """four-books, deal 1, three players alone (4 decks: players + 1).

    Player A went out with 2 clean and 2 dirty books; on the table 2 jokers, 2 twos,
    10 aces and 14 cards from 8 to K:
    - card points: 2x50 + 2x20 + 10x20 + 14x10 = 100 + 40 + 200 + 140 = 480
    - books: 2x500 + 2x300 = 1600
    - going out: +100; total 480 + 1600 + 100 = 2180
    Player B: 120 on the table, 1 red three laid, 60 left: 120 + 100 - 60 = 160
    Player C never melded, laid 1 red three, 200 left: -100 - 200 = -300
    """
    side_a = {
        "went_out": True,
        "books": {"clean": 2, "dirty": 2},
        "melded": {"joker": 2, "2": 2, "A": 10, "8-K": 14},
    }
    side_b = {"melded_points": 120, "red_threes": 1, "left_points": 60}
    side_c = {"red_threes": 1, "left_points": 200}
    assert totals(FOUR_BOOKS, 1, 3, [side_a, side_b, side_c]) == [2180, 160, -300]


@pytest.mark.parametrize(
    ("players", "decks_word", "jokers"), [(2, "Three", 6), (3, "Four", 8), (4, "Five", 10)]
)
def test_four_books_shuffles_one_deck_more_than_there_are_players(
    players: int, decks_word: str, jokers: int
) -> None:
    """four-books: decks = players + 1, so the jokers in play are 2 x (players + 1).

    2 players: 3 decks, 6 jokers; 3 players: 4 decks, 8; 4 players: 5 decks, 10.
    """
    assert FOUR_BOOKS.deck_count(players) == players + 1
    sides = [{"melded": {"joker": jokers}}] + [{}] * (players - 1 if players < 4 else 1)
    assert totals(FOUR_BOOKS, 1, players, sides)[0] == jokers * 50
    sides[0] = {"melded": {"joker": jokers + 1}}
    with pytest.raises(EntryError) as caught:
        score_deal(FOUR_BOOKS, 1, players, sides)
    assert caught.value.as_dicts() == [
        {
            "field": "sides[0].melded.joker",
            "message": f"{decks_word} decks hold only {jokers} jokers;"
            f" the sides report {jokers + 1}.",
        }
    ]


def test_whitnack_values_a_wild_book_at_150() -> None:
    """whitnack, deal 2, Side A went out with 2 clean, 2 dirty, 1 wild book, 900 points:

    - books: 2x500 + 2x300 + 1x150 = 1000 + 600 + 150 = 1750
    - 900 + 1750 + 1 red three x 100 + going out 100 = 2850
    Side B: 250 on the table, 1 red three left, 35 in hand: 250 - 35 - 0 = 215 (the
    Russian source names no penalty for a red three not laid, RULES.md 5 note (2))
    """
    side_a = {
        "went_out": True,
        "books": {"clean": 2, "dirty": 2, "wild": 1},
        "melded_points": 900,
        "red_threes": 1,
    }
    side_b = {"melded_points": 250, "red_threes_left": 1, "left_points": 35}
    assert totals(WHITNACK, 2, 4, [side_a, side_b]) == [2850, 215]


THRESHOLDS = [[0, 50], [2500, 90], [5000, 120], [7500, 150]]


@pytest.mark.parametrize(
    ("running_total", "minimum"),
    [(-300, 50), (0, 50), (2499, 50), (2500, 90), (4999, 90), (5000, 120), (9000, 150)],
)
def test_thresholds_set_the_minimum_meld_from_the_running_total(
    running_total: int, minimum: int
) -> None:
    """Custom: minimum meld by running total, 0 -> 50, 2500 -> 90, 5000 -> 120, 7500 -> 150.

    A total below the first threshold (a negative total) still needs the first one, 50.
    The deal number does not matter.
    """
    rules = custom_rules(minimum_meld=THRESHOLDS)
    assert rules.minimum_meld.for_deal(1, running_total) == minimum
    assert rules.minimum_meld.for_deal(4, running_total) == minimum


def test_a_side_at_5000_needs_120_to_go_down_under_thresholds() -> None:
    """Custom thresholds, running total 5000: the minimum is 120.

    - 3 kings + 3 aces = 3x10 + 3x20 = 30 + 60 = 90
    - short by 120 - 90 = 30; with 3 more aces (60 more) 150 >= 120 is enough
    """
    rules = custom_rules(minimum_meld=THRESHOLDS)
    short = check_meld(rules, 1, [Meld("K", 3), Meld("A", 3)], running_total=5000)
    assert (short.minimum, short.counted, short.enough, short.short_by) == (120, 90, False, 30)
    enough = check_meld(rules, 1, [Meld("K", 3), Meld("A", 6)], running_total=5000)
    assert (enough.counted, enough.enough, enough.short_by) == (150, True, 0)
