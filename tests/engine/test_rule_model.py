"""The rule model: presets as data, the dict round trip, and the helpers around them."""

from typing import Any

import pytest

from scorekeeper.engine import CARD_KEYS, PRESETS, Problem, RuleSet, preset, value_groups
from scorekeeper.engine.cards import decks_word, describe_key, rank_span
from scorekeeper.engine.errors import Phrase
from scorekeeper.engine.rules import MinimumMeld, WildLimit

CLASSIC = PRESETS["classic"]

CUSTOM: dict[str, Any] = {
    "id": "house-rules",
    "name": "House rules",
    "description": "Sevens books and a bonus for drawing exactly.",
    "source": "Our table",
    "players": {"layouts": [[1, 2], [2, 2], [3, 3]]},
    "decks": 6,
    "hand_size": 11,
    "foot_size": 11,
    "draw": 2,
    "discard_pickup": {"cards": 0, "pile_minimum": 3, "pair": "natural_or_wild"},
    "deals": 3,
    "minimum_meld": [[0, 50], [2500, 90], [5000, 120]],
    "card_values": {**CLASSIC.card_values, "black3": 0},
    "book_bonus": {"clean": 500, "dirty": 300, "wild": None},
    "special_books": [
        {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1500, "wilds": False}
    ],
    "wild_limit": {"max_wilds": None, "naturals_per_wild": 1},
    "red_three": {
        "laid": 100,
        "laid_without_meld": 0,
        "left": -300,
        "left_in_foot": -200,
        "foot_only_if_opponent_out": True,
    },
    "pile_blocked_by": ["wild"],
    "one_open_meld_per_rank": True,
    "going_out_bonus": 200,
    "going_out_requires": {"clean": 1, "sevens": 1},
    "going_out_conditions": ["Ask your partner."],
    "exact_draw_bonus": 100,
    "tie": "draw",
}


@pytest.mark.parametrize("preset_id", ["classic", "four-books", "whitnack"])
def test_a_preset_reads_back_from_its_dict_exactly(preset_id: str) -> None:
    rules = PRESETS[preset_id]
    data = rules.to_dict()
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict(data).to_dict() == data


def test_a_custom_rule_set_reads_back_from_its_dict_exactly() -> None:
    rules = RuleSet.from_dict(CUSTOM)
    assert rules.to_dict() == CUSTOM
    assert RuleSet.from_dict(rules.to_dict()) == rules


def test_the_custom_rule_set_knows_its_kinds_players_and_bonuses() -> None:
    rules = RuleSet.from_dict(CUSTOM)
    assert rules.book_kinds() == ("clean", "dirty", "sevens")
    assert rules.book_bonus_of("dirty") == 300
    assert rules.book_bonus_of("sevens") == 1500
    assert rules.book_name("sevens") == "sevens"
    assert rules.book_name("clean") == "clean"
    assert rules.player_counts == (3, 4, 6)
    assert rules.deck_count(4) == 6


def test_a_rule_set_is_a_value_that_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        CLASSIC.card_values["joker"] = 1000  # type: ignore[index]
    with pytest.raises(AttributeError):
        CLASSIC.deals = 5  # type: ignore[misc]


FIVE_BOOKS = {"clean": 2, "dirty": 2, "wild": 1}


@pytest.mark.parametrize(
    ("preset_id", "players", "decks", "kinds", "requires"),
    [
        ("classic", (2, 3, 4, 5, 6), 5, ("clean", "dirty", "wild"), FIVE_BOOKS),
        ("four-books", (2, 3, 4), "players+1", ("clean", "dirty"), {"clean": 2, "dirty": 2}),
        ("whitnack", (4,), 5, ("clean", "dirty", "wild"), FIVE_BOOKS),
    ],
)
def test_the_presets_follow_rules_section_5(
    preset_id: str, players: tuple[int, ...], decks: Any, kinds: tuple[str, ...], requires: Any
) -> None:
    rules = PRESETS[preset_id]
    assert (rules.player_counts, rules.decks, rules.book_kinds()) == (players, decks, kinds)
    assert dict(rules.going_out_requires) == requires
    assert rules.minimum_meld.per_deal == (50, 90, 120, 150)
    assert (rules.deals, rules.going_out_bonus, rules.hand_size, rules.draw) == (4, 100, 13, 2)
    assert dict(rules.card_values) == {
        "joker": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10,
        "8": 10, "7": 5, "6": 5, "5": 5, "4": 5, "black3": 5,
    }  # fmt: skip
    assert tuple(rules.card_values) == CARD_KEYS


def test_the_presets_differ_where_their_sources_do() -> None:
    classic, four, whitnack = PRESETS["classic"], PRESETS["four-books"], PRESETS["whitnack"]
    assert [r.book_bonus["wild"] for r in (classic, four, whitnack)] == [1500, None, 150]
    assert [r.red_three.laid_without_meld for r in (classic, four, whitnack)] == [-100, -100, 100]
    assert [r.discard_pickup.pile_minimum for r in (classic, four, whitnack)] == [0, 0, 7]
    assert "150" in whitnack.description and "1500" in whitnack.description


def test_a_preset_is_found_by_its_id() -> None:
    assert preset("whitnack") is PRESETS["whitnack"]
    assert preset("canasta") is None


@pytest.mark.parametrize(("size", "most"), [(3, 1), (4, 1), (5, 1), (6, 2), (7, 2), (8, 2)])
def test_the_preset_wild_limit_allows_one_wild_below_six_cards_and_two_from_six(
    size: int, most: int
) -> None:
    assert CLASSIC.wild_limit.most_wilds(size) == most


@pytest.mark.parametrize(
    ("limit", "naturals", "wilds", "allowed"),
    [
        (WildLimit(max_wilds=None, naturals_per_wild=1), 3, 3, True),
        (WildLimit(max_wilds=None, naturals_per_wild=1), 2, 3, False),
        (WildLimit(max_wilds=1, naturals_per_wild=0), 0, 1, True),
        (WildLimit(max_wilds=1, naturals_per_wild=0), 5, 2, False),
        (WildLimit(max_wilds=0, naturals_per_wild=0), 7, 0, True),
    ],
)
def test_a_wild_limit_caps_wilds_and_asks_naturals_per_wild(
    limit: WildLimit, naturals: int, wilds: int, allowed: bool
) -> None:
    assert limit.allows(naturals, wilds) is allowed


def test_minimum_melds_per_deal_follow_the_deal_number() -> None:
    minimum = MinimumMeld(per_deal=(50, 90, 120, 150))
    assert [minimum.for_deal(d) for d in (1, 2, 3, 4)] == [50, 90, 120, 150]
    assert minimum.for_deal(2, running_total=9000) == 90
    assert minimum.to_json() == [50, 90, 120, 150]
    assert MinimumMeld(thresholds=((0, 50), (2500, 90))).to_json() == [[0, 50], [2500, 90]]


@pytest.mark.parametrize(
    ("values", "groups"),
    [
        ({}, ("A", "8-K", "4-7")),
        ({"A": 15, "K": 15}, ("K-A", "8-Q", "4-7")),
        ({"7": 10}, ("A", "7-K", "4-6")),
        ({"8": 5, "Q": 30}, ("Q", "A", "9-J", "K", "4-8")),
        ({r: 10 for r in ("4", "5", "6", "7", "A")}, ("4-A",)),
    ],
)
def test_value_groups_join_adjacent_ranks_of_equal_value_highest_first(
    values: dict[str, int], groups: tuple[str, ...]
) -> None:
    data = {**CLASSIC.to_dict(), "card_values": {**CLASSIC.card_values, **values}}
    assert value_groups(RuleSet.from_dict(data)) == groups


@pytest.mark.parametrize(
    ("key", "span"),
    [
        ("K", ("K",)),
        ("8-K", ("8", "9", "10", "J", "Q", "K")),
        ("4-4", ("4",)),
        ("K-8", None),
        ("3", None),
        ("8-", None),
        ("8-Z", None),
        ("joker", None),
    ],
)
def test_rank_span_reads_ranks_and_ascending_ranges_only(
    key: str, span: tuple[str, ...] | None
) -> None:
    assert rank_span(key) == span


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("joker", "jokers"),
        ("2", "twos"),
        ("black3", "black threes"),
        ("10", "tens"),
        ("4-7", "cards from 4 to 7"),
        ("4-4", "4-4"),
        ("purple", "purple"),
    ],
)
def test_entry_keys_are_described_in_a_players_words(key: str, name: str) -> None:
    assert describe_key(key) == name


@pytest.mark.parametrize(
    ("n", "words"), [(1, "One deck"), (5, "Five decks"), (12, "Twelve decks"), (13, "13 decks")]
)
def test_a_number_of_decks_is_written_in_words_up_to_twelve(n: int, words: str) -> None:
    said = decks_word(n)
    assert said == words
    assert isinstance(said, Phrase)  # each its own message, to translate


def test_a_problem_reads_as_a_json_dict() -> None:
    assert Problem("deal", "No such deal.").as_dict() == {
        "field": "deal",
        "message": "No such deal.",
    }
