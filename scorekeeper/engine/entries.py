"""What a side enters after a deal, read from JSON-like input (RULES.md sections 2 and 6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from ._read import join, read_int, read_mapping, unknown_keys
from .cards import NATURAL_RANKS, describe_key, rank_span
from .errors import Phrase, Problems, phrase
from .rules import RuleSet

ENTRY_KEYS: Final = (
    "went_out", "books", "red_threes", "red_threes_left", "red_threes_left_in_foot", "melded",
    "left", "melded_points", "left_points", "exact_draws",
)  # fmt: skip
COUNT_BOUND: Final = 2_000  # more cards than twenty decks hold
POINTS_BOUND: Final = 1_000_000


@dataclass(frozen=True)
class CardBlock:
    """Cards on the table or left: counts by key (rank, range, wild, black3) or points."""

    counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    points: int | None = None

    @property
    def by_points(self) -> bool:
        """Whether the players entered one points number instead of counts."""
        return self.points is not None

    def value(self, rules: RuleSet) -> int:
        """The face value of the block under ``rules``."""
        if self.points is not None:
            return self.points
        return sum(n * key_value(rules, key) for key, n in self.counts.items())

    def count(self, keys: tuple[str, ...] | None = None) -> int:
        """How many cards the counts hold (of ``keys`` only, when given)."""
        return sum(n for k, n in self.counts.items() if keys is None or k in keys)

    def naturals(self) -> int:
        """How many natural cards (4 to A) the counts hold."""
        return sum(n for k, n in self.counts.items() if rank_span(k) is not None)

    def is_empty(self) -> bool:
        """Whether the block holds no card and no points."""
        return not self.points and not any(self.counts.values())


@dataclass(frozen=True)
class SideEntry:
    """One side's entry for one deal. Omitted fields are 0 / false (RULES.md 6)."""

    went_out: bool = False
    books: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    red_threes: int = 0
    red_threes_left: int = 0  # in the side's hands
    red_threes_left_in_foot: int = 0  # in a foot the side never picked up
    melded: CardBlock = field(default_factory=CardBlock)
    left: CardBlock = field(default_factory=CardBlock)
    exact_draws: int = 0

    def has_melded(self) -> bool:
        """A side has melded when it has a book or a card on the table (RULES.md 2)."""
        return any(self.books.values()) or not self.melded.is_empty()

    @property
    def all_red_threes_left(self) -> int:
        """Red threes left anywhere: in hands and in unpicked feet."""
        return self.red_threes_left + self.red_threes_left_in_foot

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of the scoring contract; ``read_side`` reads it back."""
        data: dict[str, Any] = {
            "went_out": self.went_out,
            "books": dict(self.books),
            "red_threes": self.red_threes,
            "red_threes_left": self.red_threes_left,
        }
        if self.red_threes_left_in_foot:  # absent before the field existed: 0
            data["red_threes_left_in_foot"] = self.red_threes_left_in_foot
        for name, block in (("melded", self.melded), ("left", self.left)):
            if block.points is not None:
                data[f"{name}_points"] = block.points
            else:
                data[name] = dict(block.counts)
        if self.exact_draws:
            data["exact_draws"] = self.exact_draws
        return data


def key_value(rules: RuleSet, key: str) -> int:
    """The value of one card of an entry key (a range's ranks share one value)."""
    span = rank_span(key)
    return rules.card_values[span[0] if span else key]


def read_side(problems: Problems, data: Any, path: str, rules: RuleSet) -> SideEntry | None:
    """Read one side's entry; record every problem under ``path`` and return None if any."""
    before = len(problems.items)
    read = read_side_partly(problems, data, path, rules)
    if read is None or len(problems.items) > before:
        return None
    return read.entry


@dataclass(frozen=True)
class PartlyRead:
    """A side's entry with what could be read of it, and which parts could not.

    A part with a problem (``went_out``, ``books``, ``melded``, ``left``, ``counts`` for
    the red threes and exact draws) stands in as its empty value: a card count or a book
    left out can only lower the sums of the supply's checks, so those still run on the
    rest and report nothing false (RULES.md 6: every problem listed, not only the first).
    """

    entry: SideEntry
    unread: frozenset[str]


def read_side_partly(problems: Problems, data: Any, path: str, rules: RuleSet) -> PartlyRead | None:
    """Read one side's entry, recording every problem under ``path``; None if it is not
    an object at all."""
    entry = read_mapping(problems, data, path)
    if entry is None:
        return None
    unknown_keys(problems, entry, ENTRY_KEYS, path)
    unread: set[str] = set()
    went_out = entry.get("went_out", False)
    if not isinstance(went_out, bool):
        problems.add(join(path, "went_out"), phrase("Say true or false."))
        unread.add("went_out")
    before = len(problems.items)
    books = _read_books(problems, entry.get("books", {}), join(path, "books"), rules)
    if books is None or len(problems.items) > before:
        unread.add("books")
    counts = {
        name: read_int(problems, entry.get(name, 0), join(path, name), high=COUNT_BOUND)
        for name in ("red_threes", "red_threes_left", "red_threes_left_in_foot", "exact_draws")
    }
    if any(number is None for number in counts.values()):
        unread.add("counts")
    blocks: dict[str, CardBlock | None] = {}
    for name in ("melded", "left"):
        before = len(problems.items)
        blocks[name] = _read_block(problems, entry, path, name, rules)
        if blocks[name] is None or len(problems.items) > before:
            unread.add(name)
    return PartlyRead(
        SideEntry(
            went_out=went_out is True,
            books=MappingProxyType(books or {}),
            red_threes=int(counts["red_threes"] or 0),
            red_threes_left=int(counts["red_threes_left"] or 0),
            red_threes_left_in_foot=int(counts["red_threes_left_in_foot"] or 0),
            melded=blocks["melded"] or CardBlock(),
            left=blocks["left"] or CardBlock(),
            exact_draws=int(counts["exact_draws"] or 0),
        ),
        frozenset(unread),
    )


def _read_books(problems: Problems, value: Any, path: str, rules: RuleSet) -> dict[str, int] | None:
    data = read_mapping(problems, value, path)
    if data is None:
        return None
    kinds = rules.book_kinds()
    books: dict[str, int] = {}
    for kind, raw in data.items():
        field_path = join(path, kind)
        number = read_int(
            problems, raw, field_path, high=COUNT_BOUND, what=phrase("A number of books")
        )
        if number is None:
            continue
        if kind not in kinds and kind in rules.book_bonus:
            if number:
                problems.add(
                    field_path, phrase("This rule set has no %(kind)s books.", kind=phrase(kind))
                )
            continue
        if kind not in kinds:
            problems.add(field_path, phrase("Unknown book kind %(kind)s.", kind=repr(kind)))
            continue
        books[kind] = number
    return books


#: A card block as a table says it (its key, "melded", is the contract's word, not theirs).
BLOCK_WORDS: Final = {"melded": phrase("cards on the table"), "left": phrase("cards left")}


def _read_block(
    problems: Problems, entry: Mapping[str, Any], path: str, name: str, rules: RuleSet
) -> CardBlock | None:
    """A card block (``melded`` or ``left``), problems recorded: None when it cannot be read
    at all, else the counts that could be read."""
    points_name = f"{name}_points"
    if name in entry and points_name in entry:
        problems.add(
            join(path, name),
            phrase(
                "Give the cards either as counts or as points, not both (%(name)s).",
                name=BLOCK_WORDS[name],
            ),
        )
        return None
    if points_name in entry:
        points = read_int(
            problems,
            entry[points_name],
            join(path, points_name),
            high=POINTS_BOUND,
            what=phrase("Points"),
        )
        return None if points is None else CardBlock(points=points)
    data = read_mapping(problems, entry.get(name, {}), join(path, name))
    if data is None:
        return None
    counts: dict[str, int] = {}
    for key, raw in data.items():
        field_path = join(path, f"{name}.{key}")
        number = read_int(problems, raw, field_path, high=COUNT_BOUND, what=phrase("A count"))
        problem = _key_problem(key, name, rules)
        if problem:
            problems.add(field_path, problem)
        if number is not None and not problem:
            counts[key] = counts.get(key, 0) + number
    return CardBlock(counts=MappingProxyType(counts))  # the keys that could be read


def _key_problem(key: str, block: str, rules: RuleSet) -> Phrase | None:
    """Why an entry key cannot be used in a block, or None when it can."""
    if key in ("joker", "2"):
        return None
    if key == "black3":
        return None if block == "left" else phrase("Black threes are never melded.")
    span = rank_span(key)
    if span is None:
        if key in ("3", "red3"):
            return phrase(
                "Enter red threes as red threes laid or left, and black threes as black3."
            )
        return phrase(
            "Unknown card %(key)s: use joker, 2, a rank from 4 to A, or a range like 8-K.",
            key=repr(key),
        )
    values = sorted({rules.card_values[r] for r in span})
    if len(values) > 1:
        return phrase(
            "The %(cards)s are not all worth the same (%(low)s to %(high)s under these rules):"
            " count them in smaller groups.",
            cards=describe_key(key),
            low=values[0],
            high=values[-1],
        )
    return None


def value_groups(rules: RuleSet) -> tuple[str, ...]:
    """Entry keys grouping the natural ranks of equal value, highest value first.

    Under the presets: ``("A", "8-K", "4-7")``. Adjacent ranks of one value form a range;
    the form offers these groups, with jokers and twos before them.
    """
    groups: list[list[str]] = []
    for rank in NATURAL_RANKS:
        if groups and rules.card_values[groups[-1][-1]] == rules.card_values[rank]:
            groups[-1].append(rank)
        else:
            groups.append([rank])
    keys = [g[0] if len(g) == 1 else f"{g[0]}-{g[-1]}" for g in groups]
    return tuple(sorted(keys, key=lambda k: -key_value(rules, k)))
