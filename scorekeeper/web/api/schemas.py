"""JSON Schemas of the API's requests and responses (the ``components`` of the OpenAPI
document), built from the engine's constants so they cannot drift from what it reads.
"""

from __future__ import annotations

from typing import Any

from ...engine.cards import NATURAL_RANKS, WILD_RANKS
from ...engine.entries import COUNT_BOUND, POINTS_BOUND
from ...engine.meld import MAX_MELD, WILD
from .schema_match import match_schema
from .schema_rules import closed, integer, ref, rule_set_schema

_RANK = "(" + "|".join(NATURAL_RANKS) + ")"
#: A natural rank, or an ascending range of natural ranks of one value (``8-K``).
RANK_OR_RANGE = f"{_RANK}(-{_RANK})?"


def _counts(block: str, extra: tuple[str, ...]) -> dict[str, Any]:
    keys = "|".join((*WILD_RANKS, *extra))
    return {
        "type": "object",
        "description": (
            f"Cards {block}, counted by key: {', '.join(WILD_RANKS)}, a natural rank"
            f" ({' '.join(NATURAL_RANKS)}) or an ascending range of ranks of one value such"
            f" as 8-K{'' if not extra else ', and ' + ', '.join(extra)}. A missing key is 0."
        ),
        "propertyNames": {"pattern": f"^({keys}|{RANK_OR_RANGE})$"},
        "additionalProperties": integer(0, COUNT_BOUND),
    }


def _side_entry() -> dict[str, Any]:
    count = integer(0, COUNT_BOUND)
    points = integer(0, POINTS_BOUND)
    properties = {
        "went_out": {"type": "boolean", "default": False},
        "books": {
            "type": "object",
            "description": "Completed books by kind: clean, dirty, wild or a special book key.",
            "additionalProperties": count,
        },
        "red_threes": {**count, "description": "Red threes laid down."},
        "red_threes_left": {**count, "description": "Red threes left in the side's hands."},
        "red_threes_left_in_foot": {
            **count,
            "description": (
                "Red threes in a foot the side never picked up (red_three.left_in_foot;"
                " under some rule sets they count only when another side went out)."
            ),
        },
        "melded": ref("MeldedCounts"),
        "melded_points": {**points, "description": "Replaces melded: the table counted."},
        "left": ref("LeftCounts"),
        "left_points": {**points, "description": "Replaces left: the cards left counted."},
        "exact_draws": {**count, "default": 0},
    }
    schema = closed(properties)
    schema["description"] = "One side's entry for a deal. Omitted fields are 0 / false."
    schema["allOf"] = [
        {"not": {"required": ["melded", "melded_points"]}},
        {"not": {"required": ["left", "left_points"]}},
    ]
    return schema


def _meld() -> dict[str, Any]:
    count = integer(0, MAX_MELD * 4)
    properties = {
        "rank": {
            "enum": [*NATURAL_RANKS, WILD],
            "description": f"A natural rank, or {WILD} for a meld of only jokers and twos.",
        },
        "naturals": {**count, "default": 0},
        "jokers": {**count, "default": 0},
        "twos": {**count, "default": 0},
        "top_card": {
            "type": "boolean",
            "default": False,
            "description": (
                "Made with the top card of the discard pile (counted in naturals; it needs"
                " the pair from hand the rule set asks for). At most one meld has it. On a"
                " wild meld the top card is a wild card (counted in jokers or twos): refused"
                " where the rule set's pile_blocked_by holds wild, elsewhere it needs two"
                " wild cards from hand and a rule set with wild books."
            ),
        },
    }
    return closed(properties, ["rank"])


def _breakdown() -> dict[str, Any]:
    fields = {
        "card_points": "Face value of the cards on the table.",
        "book_bonus": "Bonuses of the completed books.",
        "red_threes": "Points of the red threes laid (negative when they are a penalty).",
        "going_out": "The going-out bonus (only the side that went out).",
        "exact_draws": "Exact-draw bonuses.",
        "left_points": "Amount taken off for the cards left (not negative).",
        "red_threes_left": "Amount taken off for the red threes left, in hands and feet.",
        "total": "The side's deal score.",
    }
    props = {name: {"type": "integer", "description": why} for name, why in fields.items()}
    return closed(props, list(fields))


def component_schemas() -> dict[str, Any]:
    """Every named schema of the API."""
    integer_ = {"type": "integer"}
    return {
        "RuleSet": rule_set_schema(),
        "RuleSetSummary": closed(
            {
                "id": {
                    "type": "string",
                    "description": "A preset id, or saved:<public_id> for saved house rules.",
                },
                "name": {"type": "string"},
                "description": {"type": "string"},
                "source": {"type": "string"},
                "preset": {"type": "boolean", "description": "A built-in preset."},
                "url": {"type": "string", "description": "Where the whole rule set is."},
            },
            ["id", "name", "description", "source", "preset", "url"],
        ),
        "RuleSetList": closed(
            {"rule_sets": {"type": "array", "items": ref("RuleSetSummary")}}, ["rule_sets"]
        ),
        "RulesChoice": {
            "description": "The id of an available rule set, or a whole rule-set object.",
            "oneOf": [{"type": "string"}, ref("RuleSet")],
        },
        "MeldedCounts": _counts("on the table", ()),
        "LeftCounts": _counts("left in hand and unpicked foot", ("black3",)),
        "SideEntry": _side_entry(),
        "ScoreRequest": closed(
            {
                "rules": ref("RulesChoice"),
                "deal": integer(1, 20, "The deal number, from 1."),
                "players": integer(1, 100, "How many players sit at the table."),
                "sides": {
                    "type": "array",
                    "minItems": 2,
                    "items": ref("SideEntry"),
                    "description": (
                        "One entry per side, in seating order. The players in this many"
                        " sides must make a seating the rule set allows (e.g. four-books"
                        " refuses four players alone, whitnack anything but two pairs): a"
                        " 422 on sides. Where every side is one player, one who went out"
                        " has no cards, black threes or red threes left."
                    ),
                },
            },
            ["rules", "deal", "players", "sides"],
        ),
        "Breakdown": _breakdown(),
        "DealScore": closed(
            {
                "deal": integer_,
                "minimum_meld": integer_,
                "sides": {"type": "array", "items": ref("Breakdown")},
            },
            ["deal", "minimum_meld", "sides"],
        ),
        "Meld": _meld(),
        "MeldRequest": closed(
            {
                "rules": ref("RulesChoice"),
                "deal": integer(1, 20),
                "running_total": {
                    **integer(-(10**7), 10**7),
                    "default": 0,
                    "description": "Matters only when the minimum depends on the total.",
                },
                "pile_size": {
                    **integer(0, 10_000),
                    "description": "Cards in the discard pile, to check its minimum size.",
                },
                "melds": {"type": "array", "default": [], "items": ref("Meld")},
            },
            ["rules", "deal"],
        ),
        "MeldVerdict": closed(
            {
                "legal": {"type": "boolean"},
                "value": integer_,
                "reasons": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": (
                        "Why the meld is not legal, in a player's words: too few or too many"
                        " cards, too many wild cards for its size, a wild meld without wild"
                        " books, a pickup without its pair or from too small a pile, a wild"
                        " card on top, or a second unfinished meld of a rank where the rule"
                        " set allows one (one_open_meld_per_rank; the first stays legal)."
                    ),
                },
            },
            ["legal", "value", "reasons"],
        ),
        "MeldCheck": closed(
            {
                "deal": integer_,
                "minimum": integer_,
                "counted": {**integer_, "description": "The value of the legal melds."},
                "enough": {"type": "boolean"},
                "short_by": {"type": "integer", "minimum": 0},
                "melds": {"type": "array", "items": ref("MeldVerdict")},
            },
            ["deal", "minimum", "counted", "enough", "short_by", "melds"],
        ),
        "Problem": closed(
            {
                "field": {
                    "type": "string",
                    "description": 'A field path such as sides[1].books.wild; "request" or'
                    ' "" for the request as a whole.',
                },
                "message": {"type": "string"},
            },
            ["field", "message"],
        ),
        "Errors": closed(
            {"errors": {"type": "array", "minItems": 1, "items": ref("Problem")}}, ["errors"]
        ),
        "Match": match_schema(),
    }
