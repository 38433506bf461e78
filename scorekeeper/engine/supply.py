"""Checks that entries are possible with the cards in play (RULES.md section 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import gcd

from .cards import NATURAL_RANKS, decks_word, describe_key, rank_span
from .entries import CardBlock, SideEntry
from .errors import Phrase, Problems, phrase, phrase_n
from .rules import RuleSet

BOOK_SIZE = 7


def _decks_hold(decks: int, how_many: int, what: str, reported: int) -> Phrase:
    return phrase_n(
        "%(decks)s holds only %(supply)s %(what)s; the sides report %(reported)s.",
        "%(decks)s hold only %(supply)s %(what)s; the sides report %(reported)s.",
        decks,
        decks=decks_word(decks),
        supply=how_many,
        what=what,
        reported=reported,
    )


def check_supply(
    problems: Problems, rules: RuleSet, decks: int, entries: Sequence[SideEntry]
) -> None:
    """Cards reported by all sides together never exceed what ``decks`` decks hold."""
    blocks = [
        (f"sides[{i}].{name}", block)
        for i, entry in enumerate(entries)
        for name, block in (("melded", entry.melded), ("left", entry.left))
    ]
    for key, per_deck in (("joker", 2), ("2", 4), ("black3", 2)):
        _check_key_supply(problems, blocks, key, per_deck * decks, decks)
    red = sum(e.red_threes + e.all_red_threes_left for e in entries)
    if red > 2 * decks:
        last = max(i for i, e in enumerate(entries) if e.red_threes or e.all_red_threes_left)
        field = next(
            name
            for name in ("red_threes", "red_threes_left", "red_threes_left_in_foot")
            if getattr(entries[last], name)
        )
        red_threes = _decks_hold(decks, 2 * decks, phrase("red threes"), red)
        problems.add(f"sides[{last}].{field}", red_threes)
    _check_natural_supply(problems, blocks, decks)
    for path, block in blocks:
        if block.points is not None:
            _check_points(problems, rules, decks, block.points, f"{path}_points")


def _check_key_supply(
    problems: Problems, blocks: list[tuple[str, CardBlock]], key: str, supply: int, decks: int
) -> None:
    reported = sum(block.counts.get(key, 0) for _, block in blocks)
    if reported > supply:
        path = [p for p, block in blocks if block.counts.get(key, 0)][-1]
        problems.add(f"{path}.{key}", _decks_hold(decks, supply, describe_key(key), reported))


def _check_natural_supply(
    problems: Problems, blocks: list[tuple[str, CardBlock]], decks: int
) -> None:
    """Every span of ranks (a rank, a range, all naturals) holds 4 cards a rank a deck.

    Overlapping keys are allowed (a side may count kings alone and 8-K too); every span
    of adjacent ranks, not only the keys' own, is checked against all keys inside it:
    20 eights, 100 of 9-K and one of 8-9 each fit alone but not together. (Keys are spans
    of adjacent ranks, so checking every such span finds every impossible entry.) A span
    is not reported again when a smaller span inside it already was.
    """
    count = len(NATURAL_RANKS)
    spans = [NATURAL_RANKS[i:j] for i in range(count) for j in range(i + 1, count + 1)]
    reported_spans: list[set[str]] = []
    for span in sorted(spans, key=len):
        ranks = set(span)
        inside = [
            (path, key, n)
            for path, block in blocks
            for key, n in block.counts.items()
            if n and (s := rank_span(key)) is not None and set(s) <= ranks
        ]
        reported = sum(n for _, _, n in inside)
        supply = 4 * decks * len(span)
        if reported <= supply or any(r <= ranks for r in reported_spans):
            continue
        reported_spans.append(ranks)
        path, key, _ = inside[-1]
        what = (
            phrase("natural cards")
            if span == NATURAL_RANKS
            else describe_key(span[0] if len(span) == 1 else f"{span[0]}-{span[-1]}")
        )
        problems.add(f"{path}.{key}", _decks_hold(decks, supply, what, reported))


def _check_points(problems: Problems, rules: RuleSet, decks: int, points: int, field: str) -> None:
    """A points total must be reachable: a multiple of the values' common divisor, and no
    more than every card in play is worth."""
    values = rules.card_values
    step = 0
    for value in values.values():
        step = gcd(step, value)
    if step > 1 and points % step:
        problems.add(
            field,
            phrase(
                "Every card is worth a multiple of %(step)s here, so %(points)s cannot be right.",
                step=step,
                points=points,
            ),
        )
    most = decks * (
        2 * values["joker"] + 4 * values["2"] + 2 * values["black3"]
        + 4 * sum(values[r] for r in NATURAL_RANKS)
    )  # fmt: skip
    if points > most:
        problems.add(
            field,
            phrase(
                "All the cards in play are worth %(most)s points; %(points)s is too many.",
                most=most,
                points=points,
            ),
        )


def check_books(problems: Problems, rules: RuleSet, entry: SideEntry, path: str) -> None:
    """Books must be possible with the cards the side reports on the table (by counts)."""
    table = entry.melded
    books = entry.books
    total_books = sum(books.values())
    if table.by_points or not total_books:
        return
    cards = table.count()
    if BOOK_SIZE * total_books > cards:
        problems.add(
            f"{path}.books",
            phrase_n(
                "%(num)d book needs at least %(cards)s cards on the table;"
                " the side reports %(reported)s.",
                "%(num)d books need at least %(cards)s cards on the table;"
                " the side reports %(reported)s.",
                total_books,
                cards=BOOK_SIZE * total_books,
                reported=cards,
            ),
        )
        return
    most_wilds = rules.wild_limit.most_wilds(BOOK_SIZE)
    wilds_needed = BOOK_SIZE * books.get("wild", 0) + books.get("dirty", 0)
    wilds = table.count(("joker", "2"))
    if wilds < wilds_needed:
        kind = "wild" if books.get("wild") else "dirty"
        wild_cards = phrase_n("%(num)d wild card", "%(num)d wild cards", wilds_needed)
        problems.add(f"{path}.books.{kind}", _books_need(books, wild_cards, wilds))
    naturals_needed = BOOK_SIZE * books.get("clean", 0) + (BOOK_SIZE - most_wilds) * books.get(
        "dirty", 0
    )
    for special in rules.special_books:
        naturals_needed += (BOOK_SIZE - most_wilds if special.wilds else BOOK_SIZE) * books.get(
            special.key, 0
        )
    naturals = table.naturals()
    if naturals < naturals_needed:
        kind = next(k for k in ("clean", "dirty", *books) if books.get(k))
        natural_cards = phrase_n("%(num)d natural card", "%(num)d natural cards", naturals_needed)
        problems.add(f"{path}.books.{kind}", _books_need(books, natural_cards, naturals))


def _books_need(books: Mapping[str, int], cards: Phrase, reported: int) -> Phrase:
    """The sentence for books short of the cards they need: "These books need at least 9
    wild cards on the table; the side reports 8."."""
    return phrase_n(
        "This book needs at least %(cards)s on the table; the side reports %(reported)s.",
        "These books need at least %(cards)s on the table; the side reports %(reported)s.",
        sum(books.values()),
        cards=cards,
        reported=reported,
    )
