"""The three presets of RULES.md section 5, one per rule source in ``shared/seeds/``."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final

from .rules import RuleSet

_CARD_VALUES: Final = {
    "joker": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
    "7": 5, "6": 5, "5": 5, "4": 5, "black3": 5,
}  # fmt: skip

_COMMON: Final[dict[str, Any]] = {
    "hand_size": 13,
    "foot_size": 13,
    "draw": 2,
    "deals": 4,
    "minimum_meld": [50, 90, 120, 150],
    "card_values": _CARD_VALUES,
    # All three wordings of the wild-card limit come to the same thing (RULES.md 5).
    "wild_limit": {"max_wilds": 2, "naturals_per_wild": 2},
    "going_out_bonus": 100,
    "special_books": [],
    "exact_draw_bonus": 0,
    "tie": "draw",
}

_PRESET_DICTS: Final[tuple[dict[str, Any], ...]] = (
    {
        **_COMMON,
        "id": "classic",
        "name": "Classic",
        "description": (
            "Five decks, 2 to 6 players (usually two partnerships). Going out needs two clean,"
            " two dirty and one wild book; a wild book is worth 1500."
        ),
        "source": "Bosnian rule source (shared/seeds/000_f39004b1ffcd09d7.txt)",
        "players": {
            "layouts": [
                [1, 1],
                [1, 1, 1],
                [1, 1, 1, 1],
                [2, 2],
                [1, 1, 1, 1, 1],
                [1, 1, 1, 1, 1, 1],
                [2, 2, 2],
                [3, 3],
            ]
        },
        "decks": 5,
        "discard_pickup": {"cards": 7, "pile_minimum": 0, "pair": "natural"},
        "book_bonus": {"clean": 500, "dirty": 300, "wild": 1500},
        "red_three": {"laid": 100, "laid_without_meld": -100, "left": -100},
        "going_out_requires": {"clean": 2, "dirty": 2, "wild": 1},
        "going_out_conditions": [
            "A partner has picked up the foot and played from it.",
            "Ask your partner for permission to go out.",
        ],
    },
    {
        **_COMMON,
        "id": "four-books",
        "name": "Four books",
        "description": (
            "One deck more than there are players; 2 or 3 play alone, 4 in two partnerships."
            " No wild books: going out needs two clean and two dirty books."
        ),
        "source": "Czech rule source (shared/seeds/002_10af36338e7c99d0.txt)",
        "players": {"layouts": [[1, 1], [1, 1, 1], [2, 2]]},
        "decks": "players+1",
        "discard_pickup": {"cards": 7, "pile_minimum": 0, "pair": "natural"},
        "book_bonus": {"clean": 500, "dirty": 300, "wild": None},
        "red_three": {"laid": 100, "laid_without_meld": -100, "left": -100},
        "going_out_requires": {"clean": 2, "dirty": 2},
        "going_out_conditions": [
            "With four players, your partner has picked up the foot and played from it.",
            "You may ask your partner before going out.",
        ],
    },
    {
        **_COMMON,
        "id": "whitnack",
        "name": "Whitnack",
        "description": (
            "Bill Whitnack's partnership rules: four players in two partnerships, five decks,"
            " the discard pile taken only when it holds seven cards. A red three always scores"
            " +100. The wild book is worth 150 as the Russian source gives it; pagat's English"
            " text of the same rules gives 1500, so check which your table plays."
        ),
        "source": (
            "Russian rule source, Bill Whitnack's rules (shared/seeds/004_d878a51282fabc65.txt)"
        ),
        "players": {"layouts": [[2, 2]]},
        "decks": 5,
        "discard_pickup": {"cards": 7, "pile_minimum": 7, "pair": "natural"},
        "book_bonus": {"clean": 500, "dirty": 300, "wild": 150},
        "red_three": {"laid": 100, "laid_without_meld": 100, "left": -100},
        "going_out_requires": {"clean": 2, "dirty": 2, "wild": 1},
        "going_out_conditions": [
            "Your partner is playing from the foot.",
            "Ask your partner for permission to go out.",
        ],
    },
)

PRESETS: Final = MappingProxyType({d["id"]: RuleSet.from_dict(d) for d in _PRESET_DICTS})


def preset(preset_id: str) -> RuleSet | None:
    """The preset with this id, or None."""
    return PRESETS.get(preset_id)
