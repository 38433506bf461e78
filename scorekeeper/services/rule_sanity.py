"""What a house rule set saved from now on must also be: readable, and playable.

The engine reads any rule set a match was started with, and every one stored before; these
checks are the editor's and the import's only (``rule_sets.prepare``), so a rule set saved
before they existed still loads and its matches still open. Each problem names the field a
table puts right, as the engine's do.

- **Texts** (``text_problems``): control characters in a name, a special book's name, a
  condition of going out, the source or the description (which keeps its line breaks and
  tabs) were saved and shown as boxes or not at all.
- **Special books** (``play_problems``): two of one rank, alike in wild cards, are one
  book under two names: which one a table's book is cannot be told.
- **Going out** (``play_problems``): the books going out requires must be possible with the
  cards of the most decks any allowed seating plays with, by RULES.md 3's own counts (a
  book is 7 cards; a wild book 7 wild cards, a dirty one at least 1; a clean book 7 natural
  cards of one rank, a dirty one at least ``7 - w``). One deck holds 4 cards of a rank, so
  it makes no clean book; 6 wild cards make no wild book.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from flask_babel import gettext as _
from flask_babel import ngettext

from ..engine import Problem, RuleSet
from ..engine.cards import NATURAL_RANKS
from ..engine.supply import BOOK_SIZE

#: Line breaks and tabs a description may hold; every other control character is refused.
_LAYOUT = frozenset("\n\r\t")

#: Cards of each kind one 54-card deck holds (RULES.md 3).
_PER_RANK = 4
_WILDS = 6  # 2 jokers and 4 twos


def _controlled(text: Any, allowed: frozenset[str] = frozenset()) -> bool:
    return isinstance(text, str) and any(
        unicodedata.category(c) == "Cc" and c not in allowed and c != "\x00" for c in text
    )


def text_problems(data: Any) -> list[Problem]:
    """Control characters in the texts a rule set shows (NUL has the engine's message)."""
    if not isinstance(data, dict):
        return []
    texts: list[tuple[str, Any, frozenset[str]]] = [
        ("name", data.get("name"), frozenset()),
        ("source", data.get("source"), frozenset()),
        ("description", data.get("description"), _LAYOUT),
    ]
    books = data.get("special_books")
    if isinstance(books, list):
        for i, book in enumerate(books):
            if isinstance(book, dict):
                texts.append((f"special_books[{i}].name", book.get("name"), frozenset()))
    conditions = data.get("going_out_conditions")
    if isinstance(conditions, list):
        texts += [(f"going_out_conditions[{i}]", c, frozenset()) for i, c in enumerate(conditions)]
    message = _("Use letters, digits, punctuation and spaces only (no control characters).")
    return [Problem(field, message) for field, text, allowed in texts if _controlled(text, allowed)]


def play_problems(rules: RuleSet) -> list[Problem]:
    """Special books alike, and books going out requires that no deal could make."""
    return [*_alike_books(rules), *_going_out(rules)]


def _alike_books(rules: RuleSet) -> list[Problem]:
    seen: set[tuple[str, bool]] = set()
    problems: list[Problem] = []
    for i, book in enumerate(rules.special_books):
        if (book.rank, book.wilds) in seen:
            message = _(
                "Another special book is already of this rank, with wild cards alike:"
                " keep one, or let one hold wild cards."
            )
            problems.append(Problem(f"special_books[{i}].rank", message))
        seen.add((book.rank, book.wilds))
    return problems


def _going_out(rules: RuleSet) -> list[Problem]:
    decks = max(rules.deck_count(players) for players in rules.player_counts)
    need = rules.going_out_requires
    most_wilds = rules.wild_limit.most_wilds(BOOK_SIZE)
    problems: list[Problem] = []

    def refuse(kind: str, message: str) -> None:
        field = f"going_out_requires.{kind}"
        if all(p.field != field for p in problems):  # one sentence a field: the first
            problems.append(Problem(field, message))

    wilds_needed = BOOK_SIZE * need.get("wild", 0) + need.get("dirty", 0)
    if wilds_needed > _WILDS * decks:
        refuse(
            "wild" if need.get("wild") else "dirty",
            ngettext(
                "%(num)d deck holds %(supply)d wild cards; these books need %(needed)d.",
                "%(num)d decks hold %(supply)d wild cards; these books need %(needed)d.",
                decks,
                supply=_WILDS * decks,
                needed=wilds_needed,
            ),
        )
    books_of_a_rank = _PER_RANK * decks // BOOK_SIZE
    if need.get("clean", 0) > books_of_a_rank * len(NATURAL_RANKS):
        refuse(
            "clean",
            ngettext(
                "A clean book is 7 cards of one rank: %(num)d deck makes at most %(most)d.",
                "A clean book is 7 cards of one rank: %(num)d decks make at most %(most)d.",
                decks,
                most=books_of_a_rank * len(NATURAL_RANKS),
            ),
        )
    naturals_needed = BOOK_SIZE * need.get("clean", 0) + (BOOK_SIZE - most_wilds) * need.get(
        "dirty", 0
    )
    for book in rules.special_books:
        count = need.get(book.key, 0)
        natural = BOOK_SIZE - most_wilds if book.wilds else BOOK_SIZE
        naturals_needed += natural * count
        if book.rank in NATURAL_RANKS and natural * count > _PER_RANK * decks:
            refuse(
                book.key,
                ngettext(
                    "%(num)d deck holds %(supply)d cards of this rank; these books need"
                    " %(needed)d.",
                    "%(num)d decks hold %(supply)d cards of this rank; these books need"
                    " %(needed)d.",
                    decks,
                    supply=_PER_RANK * decks,
                    needed=natural * count,
                ),
            )
    supply = _PER_RANK * decks * len(NATURAL_RANKS)
    if naturals_needed > supply:
        kind = next(k for k in ("clean", "dirty", *need) if need.get(k))
        refuse(
            kind,
            ngettext(
                "%(num)d deck holds %(supply)d natural cards; these books need %(needed)d.",
                "%(num)d decks hold %(supply)d natural cards; these books need %(needed)d.",
                decks,
                supply=supply,
                needed=naturals_needed,
            ),
        )
    return problems
