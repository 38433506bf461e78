"""Rule sets that cannot work are refused with every problem and its field path."""

from typing import Any

import pytest

from scorekeeper.engine import PRESETS, RuleSet, RuleSetError

MISSING = object()


def classic_with(**changes: Any) -> dict[str, Any]:
    """The classic preset as a dict, renamed, with fields changed (MISSING deletes one)."""
    data = {**PRESETS["classic"].to_dict(), "id": "house", "name": "House"}
    for key, value in changes.items():
        if value is MISSING:
            del data[key]
        else:
            data[key] = value
    return data


def problems_of(data: Any) -> list[tuple[str, str]]:
    with pytest.raises(RuleSetError) as caught:
        RuleSet.from_dict(data)
    return [(p.field, p.message) for p in caught.value.problems]


SEVENS = {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1000, "wilds": False}
VALUES = PRESETS["classic"].to_dict()["card_values"]
LIMIT = {"max_wilds": 2, "naturals_per_wild": 2}
THREES = {"laid": 100, "laid_without_meld": -100, "left": -100}

# (case, changes to the classic preset, field, message fragment)
CASES = [
    ("a missing field", {"hand_size": MISSING}, "hand_size", "This field is required."),
    ("a missing name", {"name": MISSING}, "name", "This field is required."),
    ("a missing id", {"id": MISSING}, "id", "This field is required."),
    ("a null required field", {"deals": None}, "deals", "This field is required."),
    ("null card values", {"card_values": None}, "card_values", "This field is required."),
    ("a null exact-draw bonus", {"exact_draw_bonus": None}, "exact_draw_bonus",
     "must be a whole number"),
    ("an unknown field", {"colour": "red"}, "colour", "Unknown field 'colour'."),
    ("an id with capitals", {"id": "House"}, "id", "lower-case letters, digits and dashes"),
    ("an id as a number", {"id": 7}, "id", "lower-case letters"),
    ("an empty name", {"name": "  "}, "name", "This cannot be empty."),
    ("a name as a number", {"name": 5}, "name", "This must be text."),
    ("a name with a NUL", {"name": "a\x00b"}, "name", "NUL character"),
    ("a long name", {"name": "x" * 81}, "name", "at most 80 characters"),
    ("a description as a list", {"description": ["x"]}, "description", "This must be text."),
    ("a long source", {"source": "x" * 501}, "source", "at most 500 characters"),
    # players
    ("players as a list", {"players": [2, 2]}, "players", "must be an object"),
    ("an unknown players field", {"players": {"layouts": [[2, 2]], "seats": 4}},
     "players.seats", "Unknown field 'seats'"),
    ("layouts missing", {"players": {}}, "players.layouts", "This must be a list."),
    ("no layout", {"players": {"layouts": []}}, "players.layouts",
     "Allow at least one way to seat the players."),
    ("a layout as a number", {"players": {"layouts": [4]}}, "players.layouts[0]",
     "This must be a list."),
    ("a team of four", {"players": {"layouts": [[4, 4]]}}, "players.layouts[0][0]",
     "at most 3"),
    ("a side of nobody", {"players": {"layouts": [[2, 0]]}}, "players.layouts[0][1]",
     "at least 1"),
    ("fewer than two sides", {"players": {"layouts": [[2]]}}, "players.layouts[0]",
     "A game needs at least two sides."),
    ("too many players", {"players": {"layouts": [[3, 3, 3]]}}, "players.layouts[0]",
     "At most 8 players can sit at one table."),
    ("a duplicate layout", {"players": {"layouts": [[2, 2], [1, 1], [2, 2]]}},
     "players.layouts[2]", "This layout is listed twice."),
    # decks and table facts
    ("decks as other text", {"decks": "players+2"}, "decks", 'a number or "players+1"'),
    ("negative decks", {"decks": -1}, "decks", "The number of decks must be at least 1."),
    ("no deck", {"decks": 0}, "decks", "at least 1"),
    ("too many decks", {"decks": 21}, "decks", "The number of decks must be at most 20."),
    ("a fraction of a deck", {"decks": 2.5}, "decks", "must be a whole number"),
    ("no hand", {"hand_size": 0}, "hand_size", "The hand size must be at least 1."),
    ("a negative foot", {"foot_size": -1}, "foot_size", "The foot size cannot be negative."),
    ("drawing eleven", {"draw": 11}, "draw", "The number of cards drawn must be at most 10."),
    ("deals as a boolean", {"deals": True}, "deals",
     "The number of deals must be a whole number."),
    ("a pickup as a number", {"discard_pickup": 7}, "discard_pickup", "must be an object"),
    ("an unknown pickup field", {"discard_pickup": {"cards": 7, "colour": 1}},
     "discard_pickup.colour", "Unknown field"),
    ("an unknown pair", {"discard_pickup": {"pair": "any"}}, "discard_pickup.pair",
     "natural or natural_or_wild"),
    ("negative pickup cards", {"discard_pickup": {"cards": -7}}, "discard_pickup.cards",
     "cannot be negative"),
    ("a huge pile minimum", {"discard_pickup": {"pile_minimum": 101}},
     "discard_pickup.pile_minimum", "at most 100"),
    # minimum meld
    ("minimum meld as a number", {"minimum_meld": 50}, "minimum_meld", "This must be a list."),
    ("no minimum meld", {"minimum_meld": []}, "minimum_meld",
     "Give a minimum meld for every deal."),
    ("three minimum melds for four deals", {"minimum_meld": [50, 90, 120]}, "minimum_meld",
     "The game has 4 deals, so it needs 4 minimum melds, not 3."),
    ("a minimum meld as text", {"minimum_meld": [50, "90", 120, 150]}, "minimum_meld[1]",
     "must be a whole number"),
    ("a negative minimum meld", {"minimum_meld": [50, 90, -120, 150]}, "minimum_meld[2]",
     "cannot be negative"),
    ("thresholds not increasing", {"minimum_meld": [[0, 50], [2500, 90], [2500, 120]]},
     "minimum_meld[2][0]", "Thresholds must increase from one to the next."),
    ("thresholds going down", {"minimum_meld": [[0, 50], [-10, 90]]}, "minimum_meld[1][0]",
     "must increase"),
    ("a threshold of three numbers", {"minimum_meld": [[0, 50, 1], [2500, 90]]},
     "minimum_meld[0]", "A threshold is a running total and its minimum meld."),
    ("a threshold beyond any total", {"minimum_meld": [[0, 50], [1_000_001, 90]]},
     "minimum_meld[1][0]", "at most 1000000"),
    ("a threshold with a negative minimum", {"minimum_meld": [[0, -50]]},
     "minimum_meld[0][1]", "cannot be negative"),
    ("thresholds mixed with numbers", {"minimum_meld": [[0, 50], 90, 120, 150]},
     "minimum_meld[0]", "must be a whole number"),
    # card values
    ("card values as a list", {"card_values": [50]}, "card_values", "must be an object"),
    ("a card without a value", {"card_values": {k: v for k, v in VALUES.items() if k != "joker"}},
     "card_values.joker", "Every card needs a value."),
    ("a value for threes", {"card_values": {**VALUES, "3": 5}}, "card_values.3",
     "Unknown field '3'"),
    ("a negative card value", {"card_values": {**VALUES, "A": -20}}, "card_values.A",
     "A card value cannot be negative."),
    ("a card value over the bound", {"card_values": {**VALUES, "joker": 10_001}},
     "card_values.joker", "A card value must be at most 10000."),
    # books
    ("book bonuses as a number", {"book_bonus": 500}, "book_bonus", "must be an object"),
    ("no clean book", {"book_bonus": {"clean": None, "dirty": 300}}, "book_bonus.clean",
     "A book bonus must be a whole number."),
    ("an unknown book kind", {"book_bonus": {"clean": 500, "golden": 900}},
     "book_bonus.golden", "Unknown field 'golden'"),
    ("a negative dirty bonus", {"book_bonus": {"clean": 500, "dirty": -300}},
     "book_bonus.dirty", "A book bonus cannot be negative."),
    ("a bonus over the bound", {"book_bonus": {"clean": 100_001}}, "book_bonus.clean",
     "at most 100000"),
    ("dirty books with no wild card allowed",
     {"wild_limit": {"max_wilds": 0, "naturals_per_wild": 2}}, "book_bonus.dirty",
     "Dirty books are allowed, but the wild-card limit lets no book hold a wild card."),
    # special books
    ("special books as an object", {"special_books": {"sevens": 1}}, "special_books",
     "This must be a list."),
    ("a special book as text", {"special_books": ["sevens"]}, "special_books[0]",
     "must be an object"),
    ("a special book with a bad key", {"special_books": [{**SEVENS, "key": "Sevens!"}]},
     "special_books[0].key", "The key must be lower-case letters and digits."),
    ("two special books with one key", {"special_books": [SEVENS, SEVENS]},
     "special_books[1].key", "Two special books have this key."),
    ("a special book named like a standard kind",
     {"special_books": [{**SEVENS, "key": "clean"}]}, "special_books[0].key",
     "This name is a standard kind."),
    ("a special book without a name", {"special_books": [{**SEVENS, "name": None}]},
     "special_books[0].name", "This must be text."),
    ("a special book of threes", {"special_books": [{**SEVENS, "rank": "3"}]},
     "special_books[0].rank", "A special book is of one natural rank, 4 to A."),
    ("a special book without a bonus", {"special_books": [{**SEVENS, "bonus": None}]},
     "special_books[0].bonus", "must be a whole number"),
    ("a special book with wilds as text", {"special_books": [{**SEVENS, "wilds": "no"}]},
     "special_books[0].wilds", "Say true or false."),
    ("an unknown special book field", {"special_books": [{**SEVENS, "colour": 1}]},
     "special_books[0].colour", "Unknown field"),
    # wild-card limit
    ("a limit as a number", {"wild_limit": 2}, "wild_limit", "must be an object"),
    ("an unknown limit field", {"wild_limit": {**LIMIT, "min": 1}}, "wild_limit.min",
     "Unknown field"),
    ("eight wilds", {"wild_limit": {**LIMIT, "max_wilds": 8}}, "wild_limit.max_wilds",
     "at most 7"),
    ("negative naturals per wild", {"wild_limit": {**LIMIT, "naturals_per_wild": -1}},
     "wild_limit.naturals_per_wild", "cannot be negative"),
    # red threes
    ("red threes as a number", {"red_three": 100}, "red_three", "must be an object"),
    ("a red three without its laid value", {"red_three": {**THREES, "laid": MISSING}},
     "red_three.laid", "must be a whole number"),
    ("a red-three penalty over the bound", {"red_three": {**THREES, "left": -100_001}},
     "red_three.left", "at least -100000"),
    ("an unknown red-three field", {"red_three": {**THREES, "kept": 0}}, "red_three.kept",
     "Unknown field"),
    # going out
    ("a negative going-out bonus", {"going_out_bonus": -100}, "going_out_bonus",
     "cannot be negative"),
    ("an exact-draw bonus as text", {"exact_draw_bonus": "50"}, "exact_draw_bonus",
     "must be a whole number"),
    ("requirements as a list", {"going_out_requires": ["clean"]}, "going_out_requires",
     "must be an object"),
    ("requiring too many books", {"going_out_requires": {"clean": 21}},
     "going_out_requires.clean", "A number of books must be at most 20."),
    ("requiring a kind not allowed",
     {"book_bonus": {"clean": 500, "dirty": 300, "wild": None}}, "going_out_requires.wild",
     "Going out requires wild books, but this rule set has none."),
    ("requiring an unknown kind", {"going_out_requires": {"golden": 1}},
     "going_out_requires.golden", "Going out requires golden books, but this rule set has none."),
    ("conditions as text", {"going_out_conditions": "ask"}, "going_out_conditions",
     "This must be a list."),
    ("an empty condition", {"going_out_conditions": ["ask", " "]}, "going_out_conditions[1]",
     "This cannot be empty."),
    ("a tie that is not a draw", {"tie": "replay"}, "tie", "A tie for first can only be a draw."),
]  # fmt: skip


def _apply(changes: dict[str, Any]) -> dict[str, Any]:
    if "red_three" in changes and isinstance(changes["red_three"], dict):
        changes = {
            **changes,
            "red_three": {k: v for k, v in changes["red_three"].items() if v is not MISSING},
        }
    return classic_with(**changes)


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_rule_set_that_cannot_work_is_refused_with_its_field(
    changes: dict[str, Any], field: str, fragment: str
) -> None:
    found = problems_of(_apply(changes))
    assert any(f == field and fragment in m for f, m in found), found


@pytest.mark.parametrize("data", [None, [1, 2], "classic", {1: 2}])
def test_a_rule_set_must_be_an_object(data: Any) -> None:
    assert problems_of(data) == [("rules", "This must be an object with named fields.")]


def test_every_problem_of_a_rule_set_comes_back_together() -> None:
    data = classic_with(
        id="Bad Id",
        decks=-1,
        deals=3,
        book_bonus={"clean": 500, "dirty": 300, "wild": None},
        tie="replay",
        colour="red",
        foot_size=MISSING,
    )
    assert [f for f, _ in problems_of(data)] == [
        "colour",
        "foot_size",
        "id",
        "decks",
        "minimum_meld",
        "tie",
        "going_out_requires.wild",
    ]


def test_a_problem_in_one_special_book_does_not_hide_a_standard_key_in_another() -> None:
    data = classic_with(
        special_books=[{**SEVENS, "key": "clean"}, {**SEVENS, "key": "eights", "rank": "3"}],
        book_bonus={"clean": -1},
    )
    fields = [f for f, _ in problems_of(data)]
    assert "special_books[0].key" in fields
    assert "special_books[1].rank" in fields


def test_a_requirement_of_a_kind_is_not_questioned_while_the_book_bonuses_are_wrong() -> None:
    data = classic_with(book_bonus={"clean": "lots"}, going_out_requires={"golden": 1})
    assert problems_of(data) == [("book_bonus.clean", "A book bonus must be a whole number.")]


def test_dirty_books_may_be_absent_when_no_wild_card_is_allowed() -> None:
    data = classic_with(
        book_bonus={"clean": 500},
        wild_limit={"max_wilds": 0, "naturals_per_wild": 0},
        going_out_requires={"clean": 2},
    )
    rules = RuleSet.from_dict(data)
    assert rules.book_kinds() == ("clean",)
    assert rules.wild_limit.most_wilds(7) == 0


def test_a_requirement_of_zero_books_of_a_missing_kind_is_accepted() -> None:
    data = classic_with(
        book_bonus={"clean": 500, "dirty": 300}, going_out_requires={"clean": 2, "wild": 0}
    )
    assert dict(RuleSet.from_dict(data).going_out_requires) == {"clean": 2, "wild": 0}


def test_omitted_optional_fields_take_their_defaults() -> None:
    data = classic_with(
        description=MISSING,
        source=MISSING,
        special_books=MISSING,
        going_out_conditions=MISSING,
        exact_draw_bonus=MISSING,
        discard_pickup={},
        wild_limit={},
    )
    rules = RuleSet.from_dict(data)
    assert (rules.description, rules.source, rules.special_books) == ("", "", ())
    assert (rules.going_out_conditions, rules.exact_draw_bonus) == ((), 0)
    assert (rules.discard_pickup.cards, rules.discard_pickup.pile_minimum) == (0, 0)
    assert rules.discard_pickup.pair == "natural"
    assert (rules.wild_limit.max_wilds, rules.wild_limit.naturals_per_wild) == (None, 0)


def test_text_fields_are_trimmed() -> None:
    rules = RuleSet.from_dict(classic_with(name="  House  ", going_out_conditions=[" Ask. "]))
    assert (rules.name, rules.going_out_conditions) == ("House", ("Ask.",))


REQUIRED = [
    "id", "name", "players", "decks", "hand_size", "foot_size", "draw", "discard_pickup",
    "deals", "minimum_meld", "card_values", "book_bonus", "wild_limit", "red_three",
    "going_out_bonus", "going_out_requires", "tie",
]  # fmt: skip


@pytest.mark.parametrize("key", REQUIRED)
@pytest.mark.parametrize("how", ["missing", "null"])
def test_a_required_field_left_out_or_null_is_reported_once(key: str, how: str) -> None:
    data = classic_with(**{key: MISSING if how == "missing" else None})
    found = problems_of(data)
    assert [m for f, m in found if f == key] == ["This field is required."]
