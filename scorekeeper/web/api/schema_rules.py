"""JSON Schema of the rule-set object (RULES.md section 4), built from the engine's constants.

The bounds, key lists and patterns come from the engine modules that read a rule set, so
the published schema cannot drift from what ``RuleSet.from_dict`` accepts.
"""

from __future__ import annotations

from typing import Any

from ...engine._rules_reader import BONUS_BOUND, SANE, VALUE_BOUND
from ...engine.cards import BOOK_KINDS, CARD_KEYS, NATURAL_RANKS
from ...engine.rules import (
    DEFAULT_PILE_BLOCKED_BY,
    MAX_DEALS,
    MAX_PLAYERS,
    MIN_DEALS,
    PAIR_KINDS,
    PILE_BLOCKERS,
    PLAYERS_PLUS_ONE,
    REQUIRED_KEYS,
    SLUG,
    TIE_RULES,
)


def integer(low: int, high: int, description: str = "") -> dict[str, Any]:
    """A whole number in ``[low, high]`` (a float like ``3.0`` is read as 3 too)."""
    schema: dict[str, Any] = {"type": "integer", "minimum": low, "maximum": high}
    if description:
        schema["description"] = description
    return schema


def text(max_length: int, description: str = "", required: bool = True) -> dict[str, Any]:
    """Text without NUL characters, at most ``max_length`` characters once trimmed."""
    schema: dict[str, Any] = {"type": "string", "maxLength": max_length, "pattern": "^[^\\x00]*$"}
    if required:
        schema["minLength"] = 1
    if description:
        schema["description"] = description
    return schema


def closed(
    properties: dict[str, Any], required: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    """An object with exactly these properties (unknown fields are refused)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def ecma(pattern: str) -> str:
    """A Python regex as JSON Schema (ECMA-262) reads it: ``\\Z`` is ``$`` there."""
    return pattern.replace("\\Z", "$")


def ref(name: str) -> dict[str, str]:
    """A reference to a schema of the components."""
    return {"$ref": f"#/components/schemas/{name}"}


def _book_bonus() -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for kind in BOOK_KINDS:
        bonus = integer(0, BONUS_BOUND)
        if kind != "clean":
            bonus = {**bonus, "type": ["integer", "null"]}
            bonus["description"] = f"null: this rule set has no {kind} books."
        properties[kind] = bonus
    return closed(properties, ["clean"])


def _minimum_meld() -> dict[str, Any]:
    per_deal = {
        "type": "array",
        "minItems": 1,
        "items": integer(0, VALUE_BOUND),
        "description": "One minimum per deal: as many values as the game has deals.",
    }
    thresholds = {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "array",
            "prefixItems": [integer(-SANE, SANE), integer(0, VALUE_BOUND)],
            "minItems": 2,
            "maxItems": 2,
        },
        "description": (
            "Thresholds [running total, minimum] in increasing order: the side's running"
            " total picks the minimum."
        ),
    }
    return {"oneOf": [per_deal, thresholds], "examples": [[50, 90, 120, 150]]}


def rule_set_schema() -> dict[str, Any]:
    """The rule-set object: what ``GET /rules/<id>`` returns and ``rules`` may hold."""
    bonus = integer(0, BONUS_BOUND)
    signed = integer(-BONUS_BOUND, BONUS_BOUND)
    properties: dict[str, Any] = {
        "id": {"type": "string", "pattern": ecma(SLUG.pattern)},
        "name": text(80),
        "description": text(4000, required=False),
        "source": text(500, "Where the rules come from.", required=False),
        "players": closed(
            {
                "layouts": {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "description": (
                        "Allowed seatings: each lists the size of every side; [2, 2] is two"
                        f" teams of two. At most {MAX_PLAYERS} players in all."
                    ),
                    "items": {"type": "array", "minItems": 2, "items": integer(1, 3)},
                }
            },
            ["layouts"],
        ),
        "decks": {
            "oneOf": [integer(1, 20), {"const": PLAYERS_PLUS_ONE}],
            "description": f'A fixed number of 54-card decks, or "{PLAYERS_PLUS_ONE}".',
        },
        "hand_size": integer(1, 30),
        "foot_size": integer(0, 30),
        "draw": integer(1, 10),
        "discard_pickup": closed(
            {
                "cards": integer(0, 100, "Cards taken from the top; 0: the whole pile."),
                "pile_minimum": integer(0, 100, "The pile must hold this many cards."),
                "pair": {"enum": list(PAIR_KINDS), "default": PAIR_KINDS[0]},
            }
        ),
        "deals": integer(
            MIN_DEALS,
            MAX_DEALS,
            "Deals in a game, the default: a match may start with another number, which its"
            " frozen copy keeps (a per-deal minimum-meld table is then fitted).",
        ),
        "minimum_meld": _minimum_meld(),
        "card_values": closed({key: integer(0, VALUE_BOUND) for key in CARD_KEYS}, CARD_KEYS),
        "book_bonus": _book_bonus(),
        "special_books": {
            "type": "array",
            "default": [],
            "items": closed(
                {
                    "key": {
                        "type": "string",
                        "pattern": ecma(SLUG.pattern),
                        "not": {"enum": list(BOOK_KINDS)},
                    },
                    "name": text(60),
                    "rank": {"enum": list(NATURAL_RANKS)},
                    "bonus": bonus,
                    "wilds": {"type": "boolean", "default": False},
                },
                ["key", "name", "rank", "bonus"],
            ),
        },
        "wild_limit": closed(
            {
                "max_wilds": {**integer(0, 7), "type": ["integer", "null"]},
                "naturals_per_wild": integer(0, 6),
            }
        ),
        "red_three": closed(
            {
                "laid": {**signed, "description": "Each red three laid by a side that melded."},
                "laid_without_meld": {
                    **signed,
                    "description": "Each red three laid by a side with nothing on the table.",
                },
                "left": {**signed, "description": "Each red three left in a hand."},
                "left_in_foot": {
                    **signed,
                    "description": (
                        "Each red three left in a foot never picked up. Absent: the value"
                        " of left (rule sets saved before this knob)."
                    ),
                },
                "foot_only_if_opponent_out": {
                    "type": "boolean",
                    "default": False,
                    "description": "true: left_in_foot applies only when another side went out.",
                },
            },
            ["laid", "laid_without_meld", "left"],
        ),
        "pile_blocked_by": {
            "type": "array",
            "uniqueItems": True,
            "items": {"enum": list(PILE_BLOCKERS)},
            "default": list(DEFAULT_PILE_BLOCKED_BY),
            "description": (
                "Top cards of the discard pile nobody may take it with. Without wild, a wild"
                " card on top is taken with two wild cards from hand as a wild-only meld."
            ),
        },
        "one_open_meld_per_rank": {
            "type": "boolean",
            "default": False,
            "description": "true: a side may not have two unfinished melds of one rank.",
        },
        "going_out_bonus": bonus,
        "going_out_requires": {
            "type": "object",
            "description": "Books needed to go out, by kind (standard or special).",
            "additionalProperties": integer(0, 20),
        },
        "going_out_conditions": {"type": "array", "default": [], "items": text(300)},
        "exact_draw_bonus": {**bonus, "default": 0},
        "tie": {"enum": list(TIE_RULES)},
    }
    schema = closed(properties, REQUIRED_KEYS)
    schema["description"] = "A rule set (RULES.md section 4); every knob is data."
    return schema
