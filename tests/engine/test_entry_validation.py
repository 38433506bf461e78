"""Every impossible deal entry of RULES.md section 3 is refused with its field path."""

import re
from collections.abc import Sequence
from typing import Any

import pytest

from scorekeeper.engine import (
    PRESETS,
    EntryError,
    RuleSet,
    SideEntry,
    read_deal_entries,
    score_deal,
    score_request,
)
from scorekeeper.engine.entries import CardBlock, read_side
from scorekeeper.engine.errors import Phrase, Problem, Problems

CLASSIC = PRESETS["classic"]
FOUR_BOOKS = PRESETS["four-books"]
WHITNACK = PRESETS["whitnack"]
GONE_OUT = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900}


def custom_rules(**changes: Any) -> RuleSet:
    data = CLASSIC.to_dict()
    data.update(id="custom", name="Custom", **changes)
    return RuleSet.from_dict(data)


def problems_of(
    rules: RuleSet,
    sides: Any,
    *,
    deal: Any = 1,
    players: Any = 4,
    side_sizes: tuple[int, ...] | None = None,
) -> list[tuple[str, str]]:
    with pytest.raises(EntryError) as caught:
        score_deal(rules, deal, players, sides, side_sizes)
    return [(p.field, p.message) for p in caught.value.problems]


def assert_problem(found: list[tuple[str, str]], field: str, fragment: str) -> None:
    assert any(f == field and fragment in m for f, m in found), found


def one_side(side: dict[str, Any]) -> list[dict[str, Any]]:
    return [side, {}]


# (case, sides, field, message fragment); classic, deal 1, four players.
SIDE_CASES = [
    ("a count as text", one_side({"red_threes": "two"}), "sides[0].red_threes", "whole number"),
    ("a boolean as a count", one_side({"melded": {"joker": True}}), "sides[0].melded.joker",
     "A count must be a whole number"),
    ("a boolean as books", one_side({"books": {"clean": True}}), "sides[0].books.clean",
     "A number of books must be a whole number"),
    ("a fraction", [{}, {"melded": {"K": 2.5}}], "sides[1].melded.K", "whole number"),
    ("a count given as null", one_side({"melded": {"K": None}}), "sides[0].melded.K",
     "A count must be a whole number"),
    ("a fraction of points", one_side({"left_points": 12.5}), "sides[0].left_points",
     "Points must be a whole number"),
    ("infinity", one_side({"melded_points": float("inf")}), "sides[0].melded_points",
     "whole number"),
    ("a negative count", one_side({"left": {"A": -1}}), "sides[0].left.A",
     "A count cannot be negative"),
    ("negative red threes", one_side({"red_threes_left": -2}), "sides[0].red_threes_left",
     "cannot be negative"),
    ("a count over the sane bound", one_side({"melded": {"joker": 2001}}),
     "sides[0].melded.joker", "at most 2000"),
    ("points over the sane bound", one_side({"melded_points": 1_000_001}),
     "sides[0].melded_points", "at most 1000000"),
    ("books over the sane bound", one_side({"books": {"clean": 2001}}), "sides[0].books.clean",
     "at most 2000"),
    ("an unknown field", one_side({"colour": "red"}), "sides[0].colour",
     "Unknown field 'colour'"),
    ("an unknown card", one_side({"melded": {"Z": 1}}), "sides[0].melded.Z",
     "Unknown card 'Z'"),
    ("a descending range", one_side({"melded": {"K-8": 1}}), "sides[0].melded.K-8",
     "Unknown card 'K-8'"),
    ("a three as a card", one_side({"left": {"3": 1}}), "sides[0].left.3",
     "Enter red threes as red threes laid or left"),
    ("a red three as a card", one_side({"melded": {"red3": 1}}), "sides[0].melded.red3",
     "red threes laid or left"),
    ("black threes on the table", one_side({"melded": {"black3": 1}}),
     "sides[0].melded.black3", "Black threes are never melded."),
    ("an unknown book kind", one_side({"books": {"golden": 1}}), "sides[0].books.golden",
     "Unknown book kind 'golden'"),
    ("went out as text", one_side({"went_out": "yes"}), "sides[0].went_out",
     "Say true or false."),
    ("books as a list", one_side({"books": [1, 2]}), "sides[0].books",
     "must be an object with named fields"),
    ("a block as a number", one_side({"melded": 5}), "sides[0].melded",
     "must be an object with named fields"),
    ("a side as a number", [{}, 5], "sides[1]", "must be an object with named fields"),
    ("both counts and points", one_side({"melded": {"K": 3}, "melded_points": 30}),
     "sides[0].melded", "either as counts or as points, not both (cards on the table)"),
    ("both counts and points left", one_side({"left": {}, "left_points": 0}),
     "sides[0].left", "either as counts or as points"),
    ("a range whose ranks differ in value", one_side({"melded": {"4-K": 10}}),
     "sides[0].melded.4-K", "cards from 4 to K are not all worth the same (5 to 10"),
    ("a range reaching the aces", one_side({"left": {"K-A": 2}}), "sides[0].left.K-A",
     "(10 to 20 under these rules)"),
    # Supply: five decks under classic.
    ("too many kings", [{"melded": {"K": 15}}, {"left": {"K": 6}}], "sides[1].left.K",
     "Five decks hold only 20 kings; the sides report 21."),
    ("too many in a range", [{"melded": {"8-K": 100}}, {"melded": {"8-K": 21}}],
     "sides[1].melded.8-K", "Five decks hold only 120 cards from 8 to K; the sides report 121."),
    ("a range and its rank together", [{"melded": {"K": 20}}, {"left": {"8-K": 101}}],
     "sides[1].left.8-K", "only 120 cards from 8 to K; the sides report 121."),
    ("too many jokers", [{"melded": {"joker": 6}}, {"left": {"joker": 5}}],
     "sides[1].left.joker", "Five decks hold only 10 jokers; the sides report 11."),
    ("too many twos", one_side({"melded": {"2": 21}}), "sides[0].melded.2",
     "Five decks hold only 20 twos; the sides report 21."),
    ("too many black threes", [{"left": {"black3": 6}}, {"left": {"black3": 5}}],
     "sides[1].left.black3", "Five decks hold only 10 black threes; the sides report 11."),
    ("too many red threes laid and left", [{"red_threes": 6}, {"red_threes_left": 5}],
     "sides[1].red_threes_left", "Five decks hold only 10 red threes; the sides report 11."),
    ("too many red threes laid", [{"red_threes_left": 6}, {"red_threes": 3, "red_threes_left": 2}],
     "sides[1].red_threes", "only 10 red threes; the sides report 11."),
    # Books must be possible with the cards on the table.
    ("fewer cards than books need", one_side({"books": {"clean": 2}, "melded": {"K": 13}}),
     "sides[0].books", "2 books need at least 14 cards on the table; the side reports 13."),
    ("one book with six cards", one_side({"books": {"clean": 1}, "melded": {"K": 6}}),
     "sides[0].books", "1 book needs at least 7 cards on the table; the side reports 6."),
    ("a wild book without seven wild cards",
     one_side({"books": {"wild": 1}, "melded": {"joker": 6, "A": 10}}), "sides[0].books.wild",
     "This book needs at least 7 wild cards on the table; the side reports 6."),
    ("dirty books without a wild card each",
     one_side({"books": {"dirty": 2}, "melded": {"K": 14, "2": 1}}), "sides[0].books.dirty",
     "These books need at least 2 wild cards on the table; the side reports 1."),
    ("books without enough natural cards",
     one_side({"books": {"clean": 1, "dirty": 1}, "melded": {"2": 4, "joker": 3, "K": 7}}),
     "sides[0].books.clean",
     "These books need at least 12 natural cards on the table; the side reports 7."),
    ("dirty books without enough natural cards",
     one_side({"books": {"dirty": 1}, "melded": {"2": 3, "joker": 1, "K": 3}}),
     "sides[0].books.dirty",
     "This book needs at least 5 natural cards on the table; the side reports 3."),
    # Going out.
    ("two sides went out", [GONE_OUT, GONE_OUT], "sides[1].went_out",
     "Only one side can go out in a deal."),
    ("going out without the wild book",
     one_side({"went_out": True, "books": {"clean": 2, "dirty": 2}, "melded_points": 900}),
     "sides[0].books.wild", "Going out needs 1 wild book; this side has 0."),
    ("going out with one clean book",
     one_side({"went_out": True, "books": {"clean": 1, "dirty": 2, "wild": 1},
               "melded_points": 900}),
     "sides[0].books.clean", "Going out needs 2 clean books; this side has 1."),
    # The sides themselves.
    ("one side only", [{}], "sides", "At least two sides play a deal."),
    ("no side at all", [], "sides", "At least two sides play a deal."),
    ("sides as an object", {"a": {}}, "sides", "This must be a list."),
    ("missing sides", None, "sides", "This must be a list."),
    ("more sides than players", [{}] * 5, "sides", "4 players cannot make 5 sides."),
    # Points: a multiple of 5, and no more than every card in play is worth.
    ("points not a multiple of 5", one_side({"melded_points": 12}), "sides[0].melded_points",
     "Every card is worth a multiple of 5 here, so 12 cannot be right."),
    ("left points not a multiple of 5", one_side({"left_points": 3}), "sides[0].left_points",
     "multiple of 5"),
    # 5 x (2x50 + 4x20 + 2x5 + 4x(20 + 6x10 + 4x5)) = 5 x (190 + 400) = 2950
    ("points above everything in play", one_side({"left_points": 2955}),
     "sides[0].left_points", "All the cards in play are worth 2950 points; 2955 is too many."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sides", "field", "fragment"),
    [case[1:] for case in SIDE_CASES],
    ids=[case[0] for case in SIDE_CASES],
)
def test_an_impossible_side_entry_is_refused_with_its_field(
    sides: Any, field: str, fragment: str
) -> None:
    assert_problem(problems_of(CLASSIC, sides), field, fragment)


@pytest.mark.parametrize(
    ("rules", "deal", "players", "field", "fragment"),
    [
        (CLASSIC, 5, 4, "deal", "This game has 4 deals; there is no deal 5."),
        (CLASSIC, 0, 4, "deal", "This game has 4 deals; there is no deal 0."),
        (CLASSIC, -1, 4, "deal", "The deal number cannot be negative."),
        (CLASSIC, None, 4, "deal", "The deal number is required."),
        (CLASSIC, True, 4, "deal", "The deal number must be a whole number."),
        (CLASSIC, 1, 7, "players", "Classic is played by 2, 3, 4, 5 or 6 players, not 7."),
        (WHITNACK, 1, 3, "players", "Whitnack is played by 4 players, not 3."),
        (FOUR_BOOKS, 1, 5, "players", "Four books is played by 2, 3 or 4 players, not 5."),
        (CLASSIC, 1, 0, "players", "The number of players must be at least 1."),
        (CLASSIC, 1, 101, "players", "The number of players must be at most 100."),
        (CLASSIC, 1, "four", "players", "The number of players must be a whole number."),
    ],
)
def test_a_deal_or_player_count_outside_the_game_is_refused(
    rules: RuleSet, deal: Any, players: Any, field: str, fragment: str
) -> None:
    assert_problem(problems_of(rules, [{}, {}], deal=deal, players=players), field, fragment)


def _unsaid(found: Sequence[Problem]) -> list[str]:
    """Problems, or words inside them ("natural cards", "2, 3 or 4"), given as plain
    English instead of as phrases. (A one-word value is a key the entry used, as typed.)"""
    unsaid = []
    for problem in found:
        if problem.phrase is None:
            unsaid.append(problem.message)
            continue
        values = [v for v in problem.phrase.params.values() if isinstance(v, str)]
        unsaid += [v for v in values if not isinstance(v, Phrase) and re.search("[a-z] ", v)]
    return unsaid


@pytest.mark.parametrize("sides", [case[1] for case in SIDE_CASES], ids=[c[0] for c in SIDE_CASES])
def test_every_problem_of_an_entry_can_be_said_in_another_language(sides: Any) -> None:
    # A sentence made as plain English (an f-string) reached a Czech or Russian table in
    # English: the supply, the books' cards and the points once did.
    with pytest.raises(EntryError) as caught:
        score_deal(CLASSIC, 1, 4, sides)
    assert _unsaid(caught.value.problems) == []


def test_the_player_counts_and_book_kinds_in_a_problem_are_words_to_translate() -> None:
    with pytest.raises(EntryError) as caught:
        score_deal(FOUR_BOOKS, 1, 5, [{"went_out": True, "books": {"clean": 1}}, {}])
    found = caught.value.problems
    assert [p.field for p in found] == ["players"]
    assert _unsaid(found) == []
    with pytest.raises(EntryError) as caught:
        score_deal(CLASSIC, 1, 4, [{"went_out": True, "melded_points": 900}, {}])
    assert _unsaid(caught.value.problems) == []
    assert {p.phrase.params["kind"].msgid for p in caught.value.problems if p.phrase} == {
        "clean",
        "dirty",
        "wild",
    }


def test_a_wild_book_is_refused_under_four_books() -> None:
    found = problems_of(FOUR_BOOKS, one_side({"books": {"wild": 1}, "melded_points": 500}))
    assert found == [("sides[0].books.wild", "This rule set has no wild books.")]


def test_no_wild_books_under_four_books_is_accepted_and_dropped() -> None:
    side = {"books": {"clean": 1, "wild": 0}, "melded": {"K": 7}}
    _, entries = read_deal_entries(FOUR_BOOKS, 1, 4, [side, {}])
    assert dict(entries[0].books) == {"clean": 1}


def test_a_special_book_needs_its_natural_cards() -> None:
    sevens = {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1000, "wilds": False}
    rules = custom_rules(special_books=[sevens])
    found = problems_of(rules, one_side({"books": {"sevens": 1}, "melded": {"joker": 7}}))
    assert found == [
        (
            "sides[0].books.sevens",
            "This book needs at least 7 natural cards on the table; the side reports 0.",
        )
    ]


def test_a_special_book_that_may_hold_wilds_needs_fewer_natural_cards() -> None:
    """With ``wilds`` true a sevens book may hold 2 wild cards: 5 sevens do."""
    sevens = {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1000, "wilds": True}
    rules = custom_rules(special_books=[sevens])
    side = {"books": {"sevens": 1}, "melded": {"7": 5, "2": 2}}
    assert score_deal(rules, 1, 4, [side, {}]).sides[0].total == 5 * 5 + 2 * 20 + 1000
    side = {"books": {"sevens": 1}, "melded": {"7": 4, "2": 3}}
    assert_problem(problems_of(rules, [side, {}]), "sides[0].books.sevens", "5 natural cards")


def test_books_entered_with_points_are_not_checked_against_cards() -> None:
    side = {"books": {"clean": 2, "wild": 1}, "melded_points": 100}
    assert score_deal(CLASSIC, 1, 4, [side, {}]).sides[0].book_bonus == 2500


def test_a_solo_player_who_went_out_can_have_no_cards_left() -> None:
    side = {**GONE_OUT, "left_points": 5}
    found = problems_of(CLASSIC, [side, {}], players=2, side_sizes=(1, 1))
    assert found == [("sides[0].left", "A player who went out has no cards left.")]


def test_a_solo_player_who_went_out_can_have_no_red_threes_left() -> None:
    side = {**GONE_OUT, "red_threes_left": 1}
    found = problems_of(CLASSIC, [side, {}], players=2, side_sizes=(1, 1))
    assert found == [("sides[0].red_threes_left", "A player who went out has no red threes left.")]


def test_a_team_that_went_out_may_still_have_cards_in_the_partners_hand() -> None:
    side = {**GONE_OUT, "left_points": 5, "red_threes_left": 1}
    score = score_deal(CLASSIC, 1, 4, [side, {}], side_sizes=(2, 2))
    assert score.sides[0].total == 900 + 3100 + 100 - 5 - 100


def test_whole_numbers_written_as_floats_are_accepted() -> None:
    score = score_deal(CLASSIC, 2.0, 4.0, [{"melded": {"K": 3.0}}, {"left_points": 10.0}])
    assert (score.deal, [s.total for s in score.sides]) == (2, [30, -10])


def test_a_rank_and_its_range_may_be_counted_side_by_side() -> None:
    """Kings alone and 8-K together: 20 kings + 100 others from 8 to K is possible."""
    score = score_deal(CLASSIC, 1, 4, [{"melded": {"K": 20}}, {"melded": {"8-K": 100}}])
    assert [s.total for s in score.sides] == [200, 1000]


def test_the_same_key_twice_in_one_block_adds_up() -> None:
    block = CardBlock(counts={"K": 2})
    entry = SideEntry(melded=block)
    assert entry.melded.value(CLASSIC) == 20


def test_overlapping_ranges_cannot_hide_a_card_too_many() -> None:
    """20 eights, 100 cards from 9 to K, and one more 8 or 9: 121 cards from 8 to K.

    Each key alone fits (20 eights; 100 of 9-K; 21 of 8-9), but together they need
    121 of the 120 cards from 8 to K, which five decks do not hold.
    """
    sides = [{"melded": {"8": 20, "9-K": 100}}, {"left": {"8-9": 1}}]
    assert_problem(
        problems_of(CLASSIC, sides),
        "sides[1].left.8-9",
        "Five decks hold only 120 cards from 8 to K; the sides report 121.",
    )


def test_natural_cards_over_the_supply_are_caught_across_every_rank() -> None:
    """Custom values where every natural card is worth 10, so ``4-A`` is one range.

    Five decks hold 4 x 5 x 11 = 220 natural cards; 221 is too many.
    """
    values = {**CLASSIC.card_values, **{r: 10 for r in ("A", "7", "6", "5", "4")}}
    rules = custom_rules(card_values=values)
    assert score_deal(rules, 1, 4, [{"melded": {"4-A": 220}}, {}]).sides[0].total == 2200
    assert problems_of(rules, [{"melded": {"4-A": 200}}, {"left": {"4-A": 21}}]) == [
        (
            "sides[1].left.4-A",
            "Five decks hold only 220 natural cards; the sides report 221.",
        )
    ]


def test_points_must_be_a_multiple_of_the_card_values_common_divisor_only() -> None:
    """With a black three worth 3, values share no divisor above 1: any total is possible."""
    rules = custom_rules(card_values={**CLASSIC.card_values, "black3": 3})
    assert score_deal(rules, 1, 4, [{"left_points": 13}, {}]).sides[0].total == -13


def test_one_deck_is_named_in_the_singular() -> None:
    rules = custom_rules(decks=1)
    assert problems_of(rules, [{"melded": {"joker": 3}}, {}]) == [
        ("sides[0].melded.joker", "One deck holds only 2 jokers; the sides report 3.")
    ]


def test_every_problem_of_a_deal_comes_back_together() -> None:
    sides = [
        {"melded": {"joker": True, "3": 1}, "colour": "red", "went_out": "no"},
        {"melded_points": 12, "red_threes": -1},
    ]
    with pytest.raises(EntryError) as caught:
        score_deal(CLASSIC, 9, 7, sides)
    fields = [p.field for p in caught.value.problems]
    assert fields == [
        "deal",
        "players",
        "sides[0].colour",
        "sides[0].went_out",
        "sides[0].melded.joker",
        "sides[0].melded.3",
        "sides[1].red_threes",
    ]


@pytest.mark.parametrize(
    ("sides", "players", "fields"),
    [
        pytest.param(
            [
                {"went_out": True, "books": {"clean": 1}, "melded": {"K": 21}},
                {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1},
                 "melded_points": 12},
            ],
            4,
            ["sides[0].melded.K", "sides[1].melded_points", "sides[1].went_out",
             "sides[0].books.clean", "sides[0].books.dirty", "sides[0].books.wild"],
            id="supply-books-and-going-out",
        ),
        # Side 1's negative points once stopped every check across the sides: side 0's
        # joker too many and its impossible books came back only after it was put right.
        pytest.param(
            [
                {"books": {"clean": 3}, "melded": {"joker": 11, "K": 6}},
                {"left_points": -1},
                {"went_out": True, "books": {"clean": 1}, "melded_points": 400},
            ],
            6,
            ["sides[1].left_points", "sides[0].melded.joker", "sides[0].books",
             "sides[2].books.clean", "sides[2].books.dirty", "sides[2].books.wild"],
            id="another-sides-bad-field",
        ),
        # ... and the side's own other problems: a second side going out, 9 books from 11
        # cards, books missing for going out, a joker more than five decks hold.
        pytest.param(
            [
                {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1},
                 "melded_points": 900},
                {"went_out": True, "books": {"clean": 9}, "melded": {"joker": 11},
                 "left_points": -5},
            ],
            4,
            ["sides[1].left_points", "sides[1].melded.joker", "sides[1].books",
             "sides[1].went_out", "sides[1].books.dirty", "sides[1].books.wild"],
            id="its-own-bad-field",
        ),
    ],
)  # fmt: skip
def test_every_problem_of_a_deal_comes_back_at_once(
    sides: list[dict[str, Any]], players: int, fields: list[str]
) -> None:
    found = problems_of(CLASSIC, sides, players=players)
    assert [f for f, _ in found] == fields
    said = dict(found)
    for field in fields:  # each says why in the words of its kind
        if field.endswith(".melded.joker"):
            assert said[field].startswith("Five decks hold only 10 jokers")
        elif field.endswith("].books"):
            assert re.match(r"\d+ books? needs? at least \d+ cards on the table", said[field])


@pytest.mark.parametrize(
    ("side", "field"),
    [
        # a card count that cannot be read: its books are not checked against the rest
        ({"books": {"clean": 1}, "melded": {"K": "seven", "A": 2}}, "sides[0].melded.K"),
        ({"books": {"clean": 1}, "melded": {"3": 7}}, "sides[0].melded.3"),
        ({"books": {"clean": 1}, "melded_points": -1}, "sides[0].melded_points"),
        ({"red_threes": -1, "melded": {"K": 7}, "books": {"clean": 1}}, "sides[0].red_threes"),
        # went_out that cannot be read is not a second side going out
        (
            {"went_out": "yes", "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 90},
            "sides[0].went_out",
        ),
    ],
)
def test_a_bad_field_adds_no_problem_the_entry_does_not_have(side: Any, field: str) -> None:
    other = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900}
    assert [f for f, _ in problems_of(CLASSIC, [side, other])] == [field]


@pytest.mark.parametrize(
    ("side", "field"),
    [
        ({"went_out": True, "books": {"clean": "two"}, "melded": {"K": 3}}, "sides[0].books.clean"),
        ({"went_out": True, "books": [2, 2, 1]}, "sides[0].books"),
    ],
)
def test_books_that_cannot_be_read_are_not_missing_for_going_out(side: Any, field: str) -> None:
    # nor checked against the cards on the table
    assert [f for f, _ in problems_of(CLASSIC, [side, {"melded_points": 90}])] == [field]


def test_a_side_that_is_not_an_object_stands_in_as_an_empty_side() -> None:
    sides = [
        ["books", 2],
        {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900},
    ]
    assert [f for f, _ in problems_of(CLASSIC, sides)] == ["sides[0]"]


def test_one_side_read_alone_is_none_with_any_problem_and_the_entry_without() -> None:
    problems = Problems()
    assert read_side(problems, {"melded": {"K": 7}, "books": {"clean": 1}}, "e", CLASSIC) == (
        SideEntry(books={"clean": 1}, melded=CardBlock(counts={"K": 7}))
    )
    assert not problems.items
    assert read_side(problems, {"melded": {"K": 7}, "shoes": 1}, "e", CLASSIC) is None
    assert [p.field for p in problems.items] == ["e.shoes"]
    assert read_side(problems, "nothing", "f", CLASSIC) is None


def test_an_error_lists_its_problems_as_json_and_in_its_message() -> None:
    with pytest.raises(EntryError) as caught:
        score_deal(CLASSIC, 5, 4, [{}, {}])
    assert caught.value.as_dicts() == [
        {"field": "deal", "message": "This game has 4 deals; there is no deal 5."}
    ]
    assert str(caught.value) == "deal: This game has 4 deals; there is no deal 5."


def test_a_side_entry_reads_back_from_its_dict() -> None:
    _, entries = read_deal_entries(
        CLASSIC,
        1,
        4,
        [
            {"books": {"clean": 1}, "melded": {"K": 7}, "left_points": 10, "exact_draws": 1},
            {"melded_points": 40, "left": {"A": 1}, "red_threes": 1, "red_threes_left": 1},
        ],
    )
    again = read_deal_entries(CLASSIC, 1, 4, [e.to_dict() for e in entries])[1]
    assert again == entries
    assert entries[1].to_dict() == {
        "went_out": False,
        "books": {},
        "red_threes": 1,
        "red_threes_left": 1,
        "melded_points": 40,
        "left": {"A": 1},
    }


def test_side_entries_already_read_are_accepted_as_they_are() -> None:
    entry = SideEntry(melded=CardBlock(counts={"A": 3}))
    score = score_deal(CLASSIC, 1, 4, [entry, SideEntry()])
    assert [s.total for s in score.sides] == [60, 0]


# -- the JSON request of POST /api/v1/score ------------------------------------------


def request_problems(data: Any) -> list[tuple[str, str]]:
    with pytest.raises(EntryError) as caught:
        score_request(data)
    return [(p.field, p.message) for p in caught.value.problems]


def test_a_score_request_with_a_preset_id_is_scored() -> None:
    request = {
        "rules": "classic",
        "deal": 2,
        "players": 4,
        "sides": [
            {
                "went_out": True,
                "books": {"clean": 2, "dirty": 2, "wild": 1},
                "red_threes": 1,
                "red_threes_left": 0,
                "melded": {"joker": 4, "2": 6, "A": 6, "8-K": 20, "4-7": 10},
                "left": {"black3": 0},
            },
            {
                "went_out": False,
                "books": {"clean": 1, "dirty": 0, "wild": 0},
                "red_threes": 0,
                "red_threes_left": 1,
                "melded_points": 185,
                "left_points": 75,
            },
        ],
    }
    assert [s.total for s in score_request(request).sides] == [3990, 510]


def test_a_score_request_with_a_whole_rule_set_is_scored() -> None:
    rules = {**WHITNACK.to_dict(), "id": "house", "name": "House"}
    request = {"rules": rules, "deal": 1, "players": 4, "sides": [{"red_threes": 1}, {}]}
    assert [s.total for s in score_request(request).sides] == [100, 0]


@pytest.mark.parametrize(
    ("request_data", "expected"),
    [
        ([1, 2], [("request", "This must be an object with named fields.")]),
        (
            {"deal": 1, "players": 4, "sides": [{}, {}]},
            [("rules", "Name a preset or give a whole rule set.")],
        ),
        (
            {"rules": "canasta", "deal": 1, "players": 4, "sides": [{}, {}]},
            [
                (
                    "rules",
                    "Unknown rule set 'canasta'; the presets are classic, four-books, whitnack.",
                )
            ],
        ),
        (
            {"rules": [1], "deal": 1, "players": 4, "sides": [{}, {}]},
            [("rules", "This must be an object with named fields.")],
        ),
        (
            {
                "rules": {**CLASSIC.to_dict(), "deals": 0},
                "deal": 1,
                "players": 4,
                "sides": [{}, {}],
            },
            [("rules.deals", "The number of deals must be at least 1.")],
        ),
        # rules that cannot be read do not hide what can be checked without them
        (
            {"rules": "nope", "deal": "x", "players": 0, "sides": [{"wilds": 1}, 5, {}]},
            [
                (
                    "rules",
                    "Unknown rule set 'nope'; the presets are classic, four-books, whitnack.",
                ),
                ("deal", "The deal number must be a whole number."),
                ("players", "The number of players must be at least 1."),
                ("sides[0].wilds", "Unknown field 'wilds'."),
                ("sides[1]", "This must be an object with named fields."),
            ],
        ),
        (
            {"deal": -1, "sides": [{}]},
            [
                ("rules", "Name a preset or give a whole rule set."),
                ("deal", "The deal number cannot be negative."),
                ("players", "The number of players is required."),
                ("sides", "At least two sides play a deal."),
            ],
        ),
        (
            {"rules": "canasta", "sides": "both"},
            [
                (
                    "rules",
                    "Unknown rule set 'canasta'; the presets are classic, four-books, whitnack.",
                ),
                ("deal", "The deal number is required."),
                ("players", "The number of players is required."),
                ("sides", "This must be a list."),
            ],
        ),
        (
            {"rules": "classic", "deal": 1, "players": 4, "sides": [{}, {}], "colour": 1},
            [("colour", "Unknown field 'colour'.")],
        ),
        (
            {"rules": "classic", "deal": 1, "players": 4, "sides": [{}, {}, {}, {}, {}], "x": 1},
            [("x", "Unknown field 'x'."), ("sides", "4 players cannot make 5 sides.")],
        ),
    ],
)
def test_a_malformed_score_request_is_refused_with_every_problem(
    request_data: Any, expected: list[tuple[str, str]]
) -> None:
    assert request_problems(request_data) == expected


def test_a_problem_collector_is_false_while_empty_and_raises_nothing() -> None:
    from scorekeeper.engine.errors import Problems

    problems = Problems()
    assert not problems
    problems.raise_if_any(EntryError)
    problems.add("deal", "No such deal.")
    assert problems
    with pytest.raises(EntryError):
        problems.raise_if_any(EntryError)


def test_an_error_says_its_problems_in_one_phrase_a_catalog_can_translate() -> None:
    """An import's refusal quotes the engine's reasons; they were English in every
    language (``str(error)``). ``said`` is the same sentence as a phrase of phrases."""
    from scorekeeper.engine.errors import EngineError, Phrase, Problem, phrase

    error = EngineError(
        [
            Problem.of("sides[0].books", phrase("Going out needs %(n)s clean books.", n=2)),
            Problem.of("deal", "plain words"),
        ]
    )
    said = error.said()
    assert said == str(error) == "sides[0].books: Going out needs 2 clean books.; deal: plain words"
    assert isinstance(said, Phrase) and said.msgid == "%(before)s; %(more)s"
    first = said.params["before"]
    assert isinstance(first, Phrase) and first.msgid == "%(field)s: %(message)s"
    message = first.params["message"]
    assert isinstance(message, Phrase) and message.msgid == "Going out needs %(n)s clean books."
    assert EngineError([]).said() == ""
