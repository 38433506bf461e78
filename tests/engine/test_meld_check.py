"""The minimum-meld check of RULES.md sections 1 and 6."""

from typing import Any

import pytest

from scorekeeper.engine import PRESETS, Meld, MeldError, RuleSet, check_meld, check_meld_request
from scorekeeper.engine.meld import meld_reasons

CLASSIC = PRESETS["classic"]
FOUR_BOOKS = PRESETS["four-books"]
WHITNACK = PRESETS["whitnack"]


def custom_rules(**changes: Any) -> RuleSet:
    data = {**CLASSIC.to_dict(), "id": "custom", "name": "Custom", **changes}
    return RuleSet.from_dict(data)


def test_the_rules_section_6_meld_request_is_enough_for_deal_2() -> None:
    """classic, deal 2 (minimum 90):

    - K: 3x10 + 1 two x 20 = 50
    - Q with the top card: 3x10 = 30
    - wild: 2 jokers x 50 + 1 two x 20 = 120
    - counted 50 + 30 + 120 = 200 >= 90
    """
    request = {
        "rules": "classic",
        "deal": 2,
        "running_total": 0,
        "melds": [
            {"rank": "K", "naturals": 3, "jokers": 0, "twos": 1},
            {"rank": "Q", "naturals": 3, "top_card": True},
            {"rank": "wild", "jokers": 2, "twos": 1},
        ],
    }
    assert check_meld_request(request).as_dict() == {
        "deal": 2,
        "minimum": 90,
        "counted": 200,
        "enough": True,
        "short_by": 0,
        "melds": [
            {"legal": True, "value": 50, "reasons": []},
            {"legal": True, "value": 30, "reasons": []},
            {"legal": True, "value": 120, "reasons": []},
        ],
    }


@pytest.mark.parametrize(
    ("meld", "reason"),
    [
        (Meld("K", 2), "A meld needs at least 3 cards; this one has 2."),
        (Meld("K", 0), "A meld needs at least 3 cards; this one has 0."),
        (Meld("K", 8), "A meld holds at most 7 cards; this one has 8."),
        (Meld("wild", jokers=2), "A meld needs at least 3 cards; this one has 2."),
        (Meld("wild", jokers=4, twos=4), "A meld holds at most 7 cards; this one has 8."),
    ],
)
def test_a_meld_holds_three_to_seven_cards(meld: Meld, reason: str) -> None:
    assert reason in meld_reasons(CLASSIC, meld)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_a_meld_of_three_to_seven_natural_cards_is_legal(size: int) -> None:
    assert meld_reasons(CLASSIC, Meld("9", size)) == ()


# (naturals, wilds, legal): the same under every preset (RULES.md 5).
WILD_LIMIT_CASES = [
    (2, 1, True),  # 3 cards, 1 wild
    (3, 1, True),
    (2, 2, False),  # 4 cards may hold 1 wild
    (4, 1, True),
    (3, 2, False),  # classic: 5 cards with 2 wilds is illegal
    (4, 2, True),  # 6 cards with 2 wilds is legal
    (5, 2, True),  # 7 cards, 2 wilds
    (4, 3, False),  # 7 cards may hold 2 wilds
    (0, 3, False),  # all wild, but meant as a rank
]


@pytest.mark.parametrize("preset_id", ["classic", "four-books", "whitnack"])
@pytest.mark.parametrize(("naturals", "wilds", "legal"), WILD_LIMIT_CASES)
def test_the_wild_card_limit_applies_at_every_meld_size(
    preset_id: str, naturals: int, wilds: int, legal: bool
) -> None:
    meld = Meld("A", naturals, jokers=wilds // 2, twos=wilds - wilds // 2)
    assert (meld_reasons(PRESETS[preset_id], meld) == ()) is legal


@pytest.mark.parametrize(
    ("meld", "reason"),
    [
        (Meld("A", 3, twos=2), "A meld of 5 cards may hold at most 1 wild card; this one has 2."),
        (
            Meld("A", 4, jokers=3),
            "A meld of 7 cards may hold at most 2 wild cards; this one has 3.",
        ),
    ],
)
def test_a_meld_over_the_wild_limit_says_how_many_wilds_it_may_hold(
    meld: Meld, reason: str
) -> None:
    assert meld_reasons(CLASSIC, meld) == (reason,)


def test_a_rule_set_without_wild_cards_in_melds_says_no_wild_card() -> None:
    rules = custom_rules(
        book_bonus={"clean": 500},
        wild_limit={"max_wilds": 0, "naturals_per_wild": 0},
        going_out_requires={"clean": 2},
    )
    assert meld_reasons(rules, Meld("A", 3, twos=1)) == (
        "A meld of 4 cards may hold no wild card; this one has 1.",
    )


@pytest.mark.parametrize(
    ("preset_id", "legal"), [("classic", True), ("whitnack", True), ("four-books", False)]
)
def test_a_wild_only_meld_is_legal_only_where_wild_books_are(preset_id: str, legal: bool) -> None:
    """2 jokers + 1 two = 2x50 + 20 = 120, a wild meld ignores the wild-card limit."""
    check = check_meld(PRESETS[preset_id], 1, [Meld("wild", jokers=2, twos=1)])
    assert (check.melds[0].legal, check.melds[0].value) == (legal, 120)
    if not legal:
        assert check.melds[0].reasons == (
            "This rule set has no wild books, so a meld of only wild cards is not allowed.",
        )


@pytest.mark.parametrize(("naturals", "legal"), [(1, False), (2, False), (3, True), (4, True)])
def test_taking_the_pile_needs_a_natural_pair_from_hand(naturals: int, legal: bool) -> None:
    """The top card is one of the naturals, so the pair from hand means naturals >= 3."""
    meld = Meld("Q", naturals, jokers=1, top_card=True)
    reasons = meld_reasons(CLASSIC, meld)
    pair_reason = (
        f"Taking the pile needs two natural queens from your hand with the top card;"
        f" this meld has {naturals - 1}."
    )
    assert (pair_reason not in reasons) is legal


def test_a_wild_card_does_not_make_the_natural_pair() -> None:
    assert meld_reasons(WHITNACK, Meld("10", 2, twos=1, top_card=True)) == (
        "Taking the pile needs two natural tens from your hand with the top card; this meld has 1.",
    )


@pytest.mark.parametrize(
    ("naturals", "wilds", "legal"),
    [(3, 0, True), (2, 1, True), (1, 2, False), (2, 0, False)],
)
def test_a_natural_or_wild_pair_takes_one_natural_and_a_wild(
    naturals: int, wilds: int, legal: bool
) -> None:
    rules = custom_rules(
        discard_pickup={"cards": 7, "pile_minimum": 0, "pair": "natural_or_wild"},
        wild_limit={"max_wilds": 2, "naturals_per_wild": 0},
    )
    reasons = meld_reasons(rules, Meld("5", naturals, twos=wilds, top_card=True))
    pair_reason = (
        "Taking the pile needs a pair from your hand with the top card: two fives,"
        " or one and a wild card."
    )
    assert (pair_reason not in reasons) is legal


def test_the_pile_cannot_be_taken_with_a_wild_card_on_top_where_a_wild_card_blocks_it() -> None:
    rules = custom_rules(pile_blocked_by=["black3", "wild"])
    assert meld_reasons(rules, Meld("wild", jokers=3, top_card=True)) == (
        "The discard pile cannot be taken with a wild card on top.",
    )


@pytest.mark.parametrize(("pile_size", "legal"), [(None, True), (0, False), (6, False), (7, True)])
def test_whitnack_takes_the_pile_only_when_it_holds_seven_cards(
    pile_size: int | None, legal: bool
) -> None:
    check = check_meld(WHITNACK, 1, [Meld("K", 3, top_card=True)], pile_size=pile_size)
    assert check.melds[0].legal is legal
    if not legal:
        assert check.melds[0].reasons == (
            f"The pile can only be taken when it holds 7 cards; it holds {pile_size}.",
        )


def test_classic_takes_a_pile_of_any_size() -> None:
    assert check_meld(CLASSIC, 1, [Meld("A", 3, top_card=True)], pile_size=1).enough


def test_a_first_meld_below_the_minimum_is_short_by_the_difference() -> None:
    """classic, deal 4 (minimum 150): 3 kings + 3 aces = 30 + 60 = 90, short by 60."""
    check = check_meld(CLASSIC, 4, [Meld("K", 3), Meld("A", 3)])
    assert (check.minimum, check.counted, check.enough, check.short_by) == (150, 90, False, 60)


def test_a_first_meld_exactly_at_the_minimum_is_enough() -> None:
    """classic, deal 1 (minimum 50): 3 aces + 1 two = 60 + 20 = 80 >= 50."""
    check = check_meld(CLASSIC, 1, [Meld("A", 3, twos=1)])
    assert (check.counted, check.enough, check.short_by) == (80, True, 0)
    check = check_meld(CLASSIC, 1, [Meld("K", 5)])
    assert (check.counted, check.enough, check.short_by) == (50, True, 0)


def test_only_legal_melds_count_toward_the_minimum() -> None:
    """classic, deal 1: kings 3 + 2 wilds (illegal, 30 + 70 = 100) and three aces (60).

    counted is 60 (the illegal meld is left out), not enough although 60 >= 50: every
    meld must be legal.
    """
    check = check_meld(CLASSIC, 1, [Meld("K", 3, jokers=1, twos=1), Meld("A", 3)])
    assert [m.legal for m in check.melds] == [False, True]
    assert [m.value for m in check.melds] == [100, 60]
    assert (check.counted, check.enough, check.short_by) == (60, False, 0)


def test_no_meld_at_all_is_short_by_the_whole_minimum() -> None:
    check = check_meld(CLASSIC, 3, [])
    assert (check.counted, check.enough, check.short_by) == (0, False, 120)


def test_a_running_total_sets_the_minimum_under_thresholds() -> None:
    request = {
        "rules": {**CLASSIC.to_dict(), "minimum_meld": [[0, 50], [2500, 90], [5000, 120]]},
        "deal": 1,
        "running_total": 2600,
        "melds": [{"rank": "K", "naturals": 3}],
    }
    assert check_meld_request(request).short_by == 90 - 30
    assert check_meld_request({**request, "running_total": -40}).minimum == 50


def test_a_meld_request_passes_the_pile_size_on() -> None:
    request = {
        "rules": "whitnack",
        "deal": 1,
        "pile_size": 5,
        "melds": [{"rank": "A", "naturals": 3, "top_card": True}],
    }
    assert check_meld_request(request).melds[0].reasons == (
        "The pile can only be taken when it holds 7 cards; it holds 5.",
    )


def meld_problems(data: Any) -> list[tuple[str, str]]:
    with pytest.raises(MeldError) as caught:
        check_meld_request(data)
    return [(p.field, p.message) for p in caught.value.problems]


def request_with(*melds: Any, **fields: Any) -> dict[str, Any]:
    return {"rules": "classic", "deal": 1, "melds": list(melds), **fields}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            request_with({"rank": "3", "naturals": 3}),
            [("melds[0].rank", "Threes are never melded.")],
        ),
        (
            request_with({"rank": "K", "naturals": 3}, {"rank": "Z", "naturals": 3}),
            [("melds[1].rank", "Choose a rank from 4 to A, or wild.")],
        ),
        (request_with({"naturals": 3}), [("melds[0].rank", "Choose a rank from 4 to A, or wild.")]),
        (
            request_with(
                {"rank": "K", "naturals": 3, "top_card": True},
                {"rank": "Q", "naturals": 3, "top_card": True},
            ),
            [("melds", "Only one meld can be made with the top card of the discard pile.")],
        ),
        (
            request_with({"rank": "wild", "naturals": 1, "jokers": 2}),
            [("melds[0].naturals", "A wild meld holds only jokers and twos.")],
        ),
        (
            request_with({"rank": "K", "naturals": -1}),
            [("melds[0].naturals", "This cannot be negative.")],
        ),
        (
            request_with({"rank": "K", "jokers": 1.5}),
            [("melds[0].jokers", "This must be a whole number.")],
        ),
        (
            request_with({"rank": "K", "twos": True}),
            [("melds[0].twos", "This must be a whole number.")],
        ),
        (
            request_with({"rank": "K", "naturals": 29}),
            [("melds[0].naturals", "This must be at most 28.")],
        ),
        (
            request_with({"rank": "K", "top_card": "yes"}),
            [("melds[0].top_card", "Say true or false.")],
        ),
        (
            request_with({"rank": "K", "colour": 1}),
            [("melds[0].colour", "Unknown field 'colour'.")],
        ),
        (request_with("K"), [("melds[0]", "This must be an object with named fields.")]),
        ({"rules": "classic", "deal": 1, "melds": "K"}, [("melds", "This must be a list.")]),
        (request_with(colour=1), [("colour", "Unknown field 'colour'.")]),
        (request_with(deal=5), [("deal", "This game has 4 deals; there is no deal 5.")]),
        (
            request_with(running_total=10**7 + 1),
            [("running_total", "This must be at most 10000000.")],
        ),
        (request_with(pile_size=-1), [("pile_size", "This cannot be negative.")]),
        ({"deal": 1, "melds": []}, [("rules", "Name a preset or give a whole rule set.")]),
        ("melds", [("request", "This must be an object with named fields.")]),
    ],
)
def test_a_malformed_meld_request_is_refused_with_field_paths(
    data: Any, expected: list[tuple[str, str]]
) -> None:
    assert meld_problems(data) == expected


def test_every_problem_of_a_meld_request_comes_back_together() -> None:
    data = {
        "rules": "canasta",
        "deal": "first",  # read as a number even while the rules cannot be read
        "running_total": "lots",
        "melds": [{"rank": "3"}, {"rank": "wild", "naturals": 2, "top_card": 1}],
    }
    assert [f for f, _ in meld_problems(data)] == [
        "rules",
        "deal",
        "running_total",
        "melds[0].rank",
        "melds[1].top_card",
        "melds[1].naturals",
    ]


def test_a_meld_request_without_melds_checks_nothing() -> None:
    check = check_meld_request({"rules": "four-books", "deal": 2})
    assert (check.minimum, check.counted, check.enough, check.melds) == (90, 0, False, ())
