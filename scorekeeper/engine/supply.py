"""Checks that entries are possible with the cards in play (RULES.md section 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import gcd

from .cards import NATURAL_RANKS, describe_key, number_word, rank_span
from .entries import CardBlock, SideEntry
from .errors import Problems
from .rules import RuleSet

BOOK_SIZE = 7


def _decks_hold(decks: int, how_many: int, what: str, reported: int) -> str:
    deck_word = f"{number_word(decks).capitalize()} deck{'s hold' if decks != 1 else ' holds'}"
    return f"{deck_word} only {how_many} {what}; the sides report {reported}."


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
        problems.add(f"sides[{last}].{field}", _decks_hold(decks, 2 * decks, "red threes", red))
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
            "natural cards"
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
            field, f"Every card is worth a multiple of {step} here, so {points} cannot be right."
        )
    most = decks * (
        2 * values["joker"] + 4 * values["2"] + 2 * values["black3"]
        + 4 * sum(values[r] for r in NATURAL_RANKS)
    )  # fmt: skip
    if points > most:
        problems.add(field, f"All the cards in play are worth {most} points; {points} is too many.")


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
            f"{total_books} {'book needs' if total_books == 1 else 'books need'} at least"
            f" {BOOK_SIZE * total_books} cards on the table; the side reports {cards}.",
        )
        return
    most_wilds = rules.wild_limit.most_wilds(BOOK_SIZE)
    wilds_needed = BOOK_SIZE * books.get("wild", 0) + books.get("dirty", 0)
    wilds = table.count(("joker", "2"))
    if wilds < wilds_needed:
        kind = "wild" if books.get("wild") else "dirty"
        problems.add(
            f"{path}.books.{kind}",
            f"{_these_books(books)} at least {_cards(wilds_needed, 'wild')} on the table;"
            f" the side reports {wilds}.",
        )
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
        problems.add(
            f"{path}.books.{kind}",
            f"{_these_books(books)} at least {_cards(naturals_needed, 'natural')} on the"
            f" table; the side reports {naturals}.",
        )


def _these_books(books: Mapping[str, int]) -> str:
    return "This book needs" if sum(books.values()) == 1 else "These books need"


def _cards(n: int, kind: str) -> str:
    return f"{n} {kind} card{'' if n == 1 else 's'}"
