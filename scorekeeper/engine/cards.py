"""Card vocabulary: ranks, their order, and the keys that entries and rule sets use."""

from __future__ import annotations

from typing import Final

from .errors import phrase

#: Natural (meldable) ranks in the order the rules use for ranges: 4 5 6 7 8 9 10 J Q K A.
NATURAL_RANKS: Final = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
WILD_RANKS: Final = ("joker", "2")
#: Every key of ``card_values``, in the order a rules card lists them.
CARD_KEYS: Final = ("joker", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "black3")
BOOK_KINDS: Final = ("clean", "dirty", "wild")

RANK_NAMES: Final = {
    "joker": phrase("jokers"),
    "2": phrase("twos"),
    "A": phrase("aces"),
    "K": phrase("kings"),
    "Q": phrase("queens"),
    "J": phrase("jacks"),
    "10": phrase("tens"),
    "9": phrase("nines"),
    "8": phrase("eights"),
    "7": phrase("sevens"),
    "6": phrase("sixes"),
    "5": phrase("fives"),
    "4": phrase("fours"),
    "black3": phrase("black threes"),
}

NUMBER_WORDS: Final = (
    "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
)  # fmt: skip


def number_word(n: int) -> str:
    """``5`` -> ``"five"`` for the small numbers a message reads better with."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def rank_span(key: str) -> tuple[str, ...] | None:
    """The natural ranks a key covers: ``"K"`` -> ``("K",)``, ``"8-K"`` -> 8 9 10 J Q K.

    Returns ``None`` for a key that is not a natural rank or an ascending range of them.
    """
    if key in NATURAL_RANKS:
        return (key,)
    low, sep, high = key.partition("-")
    if not sep or low not in NATURAL_RANKS or high not in NATURAL_RANKS:
        return None
    i, j = NATURAL_RANKS.index(low), NATURAL_RANKS.index(high)
    if i > j:
        return None
    return NATURAL_RANKS[i : j + 1]


def describe_key(key: str) -> str:
    """A player's name for an entry key: ``"joker"`` -> ``"jokers"``, ``"8-K"`` -> ``"8 to K"``."""
    if key in RANK_NAMES:
        return RANK_NAMES[key]
    span = rank_span(key)
    if span is not None and len(span) > 1:
        return phrase("cards from %(low)s to %(high)s", low=span[0], high=span[-1])
    return key
