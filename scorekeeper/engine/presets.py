"""The three presets of RULES.md section 5, one per rule source in ``shared/seeds/``.

Each ``source`` names its text by title and language; where a value is a reading of the
source or a default rather than the source's own word, the description says so (the
notes of RULES.md section 5; the rules card shows them in full).
"""

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
    # Every source: one unfinished meld of a rank at a time (RULES.md 5, note (5)).
    "one_open_meld_per_rank": True,
}

_PRESET_DICTS: Final[tuple[dict[str, Any], ...]] = (
    {
        **_COMMON,
        "id": "classic",
        "name": "Classic",
        "description": (
            "Five decks, 2 to 6 players (usually two partnerships). Going out needs two clean,"
            " two dirty and one wild book; a wild book is worth 1500. A red three left in an"
            " unpicked foot costs 100 only when another side went out, and only a black three"
            " on top blocks the pile (a wild card on top is taken with two wild cards from"
            " hand): both as the Bosnian source words them."
        ),
        "source": "Pravila kartaške igre rukom i nogom - Kako igrati rukom i nogom (Bosnian)",
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
        "red_three": {
            "laid": 100,
            "laid_without_meld": -100,
            "left": -100,
            "left_in_foot": -100,
            "foot_only_if_opponent_out": True,
        },
        "pile_blocked_by": ["black3"],
        "going_out_requires": {"clean": 2, "dirty": 2, "wild": 1},
        "going_out_conditions": [
            "A partner has picked up the foot and played from it.",
            "Ask your partner for permission to go out.",
            "Meld all your cards but one and discard the last.",
        ],
    },
    {
        **_COMMON,
        "id": "four-books",
        "name": "Four books",
        "description": (
            "One deck more than there are players; 2 or 3 play alone, 4 in two partnerships."
            " No wild books: going out needs two clean and two dirty books. A wild card or a"
            " three on top blocks the pile, and every red three left in a foot nobody picked"
            " up costs 100. The source plays exactly four deals; every value is its own."
        ),
        "source": "Ruka a noha: varianta hry Canasta (Czech)",
        "players": {"layouts": [[1, 1], [1, 1, 1], [2, 2]]},
        "decks": "players+1",
        "discard_pickup": {"cards": 7, "pile_minimum": 0, "pair": "natural"},
        "book_bonus": {"clean": 500, "dirty": 300, "wild": None},
        "red_three": {
            "laid": 100,
            "laid_without_meld": -100,
            "left": -100,
            "left_in_foot": -100,
            "foot_only_if_opponent_out": False,
        },
        "pile_blocked_by": ["black3", "wild"],
        "going_out_requires": {"clean": 2, "dirty": 2},
        "going_out_conditions": [
            "You are playing from your own foot.",
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
            " the discard pile taken only when it holds seven cards. A red three laid always"
            " scores +100; one not laid only misses its bonus (the source names no penalty)."
            " The wild book is worth 150 as the Russian source gives it; pagat's English"
            " text of the same rules gives 1500, so check which your table plays. The table"
            " agrees on the number of deals (4 by default); the minimum melds are the other"
            ' sources\' (the Russian text gives none), and "one meld at a time" is read as'
            " one unfinished meld per rank."
        ),
        "source": "Рука и нога (Hand and Foot), Bill Whitnack's rules (Russian)",
        "players": {"layouts": [[2, 2]]},
        "decks": 5,
        "discard_pickup": {"cards": 7, "pile_minimum": 7, "pair": "natural"},
        "book_bonus": {"clean": 500, "dirty": 300, "wild": 150},
        "red_three": {
            "laid": 100,
            "laid_without_meld": 100,
            "left": 0,
            "left_in_foot": 0,
            "foot_only_if_opponent_out": False,
        },
        "pile_blocked_by": ["black3"],
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
