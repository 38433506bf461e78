"""The worked examples of RULES.md sections 6 and 7, published in the OpenAPI document.

They are data the tests replay against the live endpoints, so a documented example
that stopped being true would fail the suite.
"""

from __future__ import annotations

from typing import Any, Final

SCORE_REQUEST: Final[dict[str, Any]] = {
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
            "red_threes_left_in_foot": 1,
            "melded_points": 185,
            "left_points": 75,
        },
    ],
}

SCORE_RESPONSE: Final[dict[str, Any]] = {
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

MELD_REQUEST: Final[dict[str, Any]] = {
    "rules": "classic",
    "deal": 2,
    "running_total": 0,
    "melds": [
        {"rank": "K", "naturals": 3, "jokers": 0, "twos": 1},
        {"rank": "Q", "naturals": 3, "top_card": True},
        {"rank": "wild", "jokers": 2, "twos": 1},
    ],
}

#: RULES.md 5 note (4) and 6: under classic a wild card on top is taken with two wild
#: cards from hand (3 jokers: 150); a second unfinished meld of kings is not legal.
MELD_WILD_TOP_REQUEST: Final[dict[str, Any]] = {
    "rules": "classic",
    "deal": 2,
    "melds": [
        {"rank": "wild", "jokers": 3, "top_card": True},
        {"rank": "K", "naturals": 3},
        {"rank": "K", "naturals": 4},
    ],
}

MELD_RESPONSE: Final[dict[str, Any]] = {
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

#: The worked example with two impossible entries: a count of threes in the table block
#: and a negative number of books. The 422 answer lists both, in the order found.
SCORE_ERROR_REQUEST: Final[dict[str, Any]] = {
    **SCORE_REQUEST,
    "sides": [
        {**SCORE_REQUEST["sides"][0], "melded": {**SCORE_REQUEST["sides"][0]["melded"], "3": 1}},
        {**SCORE_REQUEST["sides"][1], "books": {"clean": 1, "dirty": 0, "wild": -1}},
    ],
}

ERRORS: Final[dict[str, Any]] = {
    "errors": [
        {
            "field": "sides[0].melded.3",
            "message": ("Enter red threes as red threes laid or left, and black threes as black3."),
        },
        {"field": "sides[1].books.wild", "message": "A number of books cannot be negative."},
    ]
}
