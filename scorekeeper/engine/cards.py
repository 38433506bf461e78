"""Card vocabulary: ranks, their order, and the keys that entries and rule sets use."""

from __future__ import annotations

from typing import Final

from .errors import phrase, phrase_n

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

#: A player's word for each standard kind of book, as it stands before "book" ("2 clean
#: books"); a special book's name is the rule set's own.
BOOK_NAMES: Final = {"clean": phrase("clean"), "dirty": phrase("dirty"), "wild": phrase("wild")}

#: A number of decks as a sentence starts with it ("Five decks hold only 10 jokers"), each
#: a phrase of its own: a language's number agrees with its word for a deck.
DECK_WORDS: Final = (
    phrase("One deck"), phrase("Two decks"), phrase("Three decks"), phrase("Four decks"),
    phrase("Five decks"), phrase("Six decks"), phrase("Seven decks"), phrase("Eight decks"),
    phrase("Nine decks"), phrase("Ten decks"), phrase("Eleven decks"), phrase("Twelve decks"),
)  # fmt: skip


def decks_word(n: int) -> str:
    """``5`` -> "Five decks" (a phrase) for the numbers of decks a game is played with;
    written with digits beyond twelve."""
    if 1 <= n <= len(DECK_WORDS):
        return DECK_WORDS[n - 1]
    return phrase_n("%(num)d deck", "%(num)d decks", n)


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
