"""The rule model of RULES.md section 4: a frozen rule-set value and its JSON dict.

``RuleSet.from_dict`` reads and validates a plain dict (collecting every problem with its
field path); ``RuleSet.to_dict`` gives the same dict back, exactly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final

from .cards import BOOK_KINDS, BOOK_NAMES
from .errors import phrase, phrase_n

PLAYERS_PLUS_ONE: Final = "players+1"
PAIR_KINDS: Final = ("natural", "natural_or_wild")
TIE_RULES: Final = ("draw",)
MAX_PLAYERS: Final = 8
# \Z, not $: "$" also matches before a trailing newline, and "classic\n" is no id.
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")

REQUIRED_KEYS: Final = (
    "id", "name", "players", "decks", "hand_size", "foot_size", "draw", "discard_pickup",
    "deals", "minimum_meld", "card_values", "book_bonus", "wild_limit", "red_three",
    "going_out_bonus", "going_out_requires", "tie",
)  # fmt: skip
OPTIONAL_KEYS: Final = (
    "description", "source", "special_books", "going_out_conditions", "exact_draw_bonus",
    "pile_blocked_by", "one_open_meld_per_rank",
)  # fmt: skip
#: Top cards of the discard pile that may block it (RULES.md 4, ``pile_blocked_by``).
PILE_BLOCKERS: Final = ("black3", "wild")
#: What a rule set saved before ``pile_blocked_by`` existed meant: the app then refused
#: a black three and a wild card on top alike, so an old rule set keeps refusing both.
DEFAULT_PILE_BLOCKED_BY: Final = PILE_BLOCKERS
MIN_DEALS, MAX_DEALS = 1, 20


@dataclass(frozen=True)
class DiscardPickup:
    """Taking the discard pile: how many cards, how big the pile must be, which pair."""

    cards: int  # cards taken from the top; 0 means the whole pile
    pile_minimum: int  # the pile must hold at least this many cards (0: any size)
    pair: str  # "natural": two naturals of the top card's rank from hand


@dataclass(frozen=True)
class SpecialBook:
    """An extra book kind with its own bonus, e.g. a sevens book."""

    key: str
    name: str
    rank: str
    bonus: int
    wilds: bool  # whether the book may hold wild cards


@dataclass(frozen=True)
class WildLimit:
    """The most wild cards a meld may hold, and naturals needed per wild card."""

    max_wilds: int | None  # None: no fixed cap
    naturals_per_wild: int  # 2: at least twice as many naturals as wilds

    def allows(self, naturals: int, wilds: int) -> bool:
        """Whether a meld of ``naturals`` natural cards may hold ``wilds`` wild cards."""
        if self.max_wilds is not None and wilds > self.max_wilds:
            return False
        return naturals >= self.naturals_per_wild * wilds

    def most_wilds(self, size: int) -> int:
        """The most wild cards a meld of ``size`` cards may hold (``w`` of RULES.md 3)."""
        return max((w for w in range(size + 1) if self.allows(size - w, w)), default=0)


@dataclass(frozen=True)
class RedThree:
    """Signed values of a red three: laid, laid by a side that never melded, left in a
    hand, left in a foot never picked up (and whether that one needs an opponent out)."""

    laid: int
    laid_without_meld: int
    left: int
    left_in_foot: int
    foot_only_if_opponent_out: bool = False

    @property
    def hand_and_foot_alike(self) -> bool:
        """Whether a red three left costs the same in a hand as in an unpicked foot,
        whoever went out: then one count of red threes left is enough."""
        return self.left == self.left_in_foot and not self.foot_only_if_opponent_out

    def left_penalty(self, in_hand: int, in_foot: int, opponent_out: bool) -> int:
        """The signed points of red threes left: ``in_hand`` in hands, ``in_foot`` in feet
        never picked up; the foot's count only when ``opponent_out`` if the rule says so."""
        foot_counts = opponent_out or not self.foot_only_if_opponent_out
        return in_hand * self.left + (in_foot * self.left_in_foot if foot_counts else 0)


@dataclass(frozen=True)
class MinimumMeld:
    """One minimum per deal, or thresholds on the side's running total."""

    per_deal: tuple[int, ...] = ()
    thresholds: tuple[tuple[int, int], ...] = ()

    def for_deal(self, deal: int, running_total: int = 0) -> int:
        """The minimum for ``deal`` (1-based) or, with thresholds, for ``running_total``.

        Below the first threshold (a negative total) the first threshold's value applies:
        the rule sources are silent and that is what a table would do.
        """
        if self.per_deal:
            return self.per_deal[deal - 1]
        value = self.thresholds[0][1]
        for threshold, minimum in self.thresholds:
            if running_total >= threshold:
                value = minimum
        return value

    def to_json(self) -> list[Any]:
        """The JSON form: ``[50, 90, ...]`` or ``[[0, 50], [2500, 90], ...]``."""
        if self.per_deal:
            return list(self.per_deal)
        return [[t, v] for t, v in self.thresholds]


@dataclass(frozen=True)
class RuleSet:
    """Every knob of a Hand and Foot rule set (RULES.md section 4). Build with from_dict."""

    id: str
    name: str
    description: str
    source: str
    layouts: tuple[tuple[int, ...], ...]  # allowed side layouts: (2, 2) is two teams of two
    decks: int | str  # a fixed number, or "players+1"
    hand_size: int
    foot_size: int
    draw: int
    discard_pickup: DiscardPickup
    deals: int
    minimum_meld: MinimumMeld
    card_values: Mapping[str, int]
    book_bonus: Mapping[str, int | None]
    special_books: tuple[SpecialBook, ...]
    wild_limit: WildLimit
    red_three: RedThree
    going_out_bonus: int
    going_out_requires: Mapping[str, int]
    going_out_conditions: tuple[str, ...]
    exact_draw_bonus: int
    tie: str
    pile_blocked_by: tuple[str, ...] = DEFAULT_PILE_BLOCKED_BY
    one_open_meld_per_rank: bool = False

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts some layout allows, ascending."""
        return tuple(sorted({sum(layout) for layout in self.layouts}))

    def deck_count(self, players: int) -> int:
        """How many 54-card decks are shuffled together for ``players`` players."""
        return players + 1 if self.decks == PLAYERS_PLUS_ONE else int(self.decks)

    def book_kinds(self) -> tuple[str, ...]:
        """Every book kind this rule set allows: clean, dirty, wild, then special books."""
        kinds = [k for k in BOOK_KINDS if self.book_bonus.get(k) is not None]
        return (*kinds, *(s.key for s in self.special_books))

    def book_bonus_of(self, kind: str) -> int:
        """The bonus of one completed book of ``kind`` (an allowed kind)."""
        bonus = self.book_bonus.get(kind)
        if bonus is not None:
            return bonus
        return next(s.bonus for s in self.special_books if s.key == kind)

    def book_name(self, kind: str) -> str:
        """A player's name for a book kind: for a standard kind a phrase ("clean"), to
        translate; a special book's name as the rule set gives it."""
        for special in self.special_books:
            if special.key == kind:
                return special.name
        return BOOK_NAMES.get(kind, kind)

    def with_deals(self, deals: int) -> RuleSet:
        """This rule set for a game of ``deals`` deals (the table chose another number).

        A per-deal minimum-meld table is fitted: cut to ``deals`` values, or its last value
        repeated (RULES.md section 4); thresholds on the running total need no fitting.
        """
        meld = self.minimum_meld
        if meld.per_deal:
            values = meld.per_deal[:deals]
            values += (values[-1],) * (deals - len(values))
            meld = MinimumMeld(per_deal=values)
        return replace(self, deals=deals, minimum_meld=meld)

    def to_dict(self) -> dict[str, Any]:
        """The plain JSON-able dict of this rule set; ``from_dict`` reads it back exactly."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "players": {"layouts": [list(layout) for layout in self.layouts]},
            "decks": self.decks,
            "hand_size": self.hand_size,
            "foot_size": self.foot_size,
            "draw": self.draw,
            "discard_pickup": {
                "cards": self.discard_pickup.cards,
                "pile_minimum": self.discard_pickup.pile_minimum,
                "pair": self.discard_pickup.pair,
            },
            "deals": self.deals,
            "minimum_meld": self.minimum_meld.to_json(),
            "card_values": dict(self.card_values),
            "book_bonus": dict(self.book_bonus),
            "special_books": [
                {"key": s.key, "name": s.name, "rank": s.rank, "bonus": s.bonus, "wilds": s.wilds}
                for s in self.special_books
            ],
            "wild_limit": {
                "max_wilds": self.wild_limit.max_wilds,
                "naturals_per_wild": self.wild_limit.naturals_per_wild,
            },
            "red_three": {
                "laid": self.red_three.laid,
                "laid_without_meld": self.red_three.laid_without_meld,
                "left": self.red_three.left,
                "left_in_foot": self.red_three.left_in_foot,
                "foot_only_if_opponent_out": self.red_three.foot_only_if_opponent_out,
            },
            "pile_blocked_by": list(self.pile_blocked_by),
            "one_open_meld_per_rank": self.one_open_meld_per_rank,
            "going_out_bonus": self.going_out_bonus,
            "going_out_requires": dict(self.going_out_requires),
            "going_out_conditions": list(self.going_out_conditions),
            "exact_draw_bonus": self.exact_draw_bonus,
            "tie": self.tie,
        }

    @classmethod
    def from_dict(cls, data: Any) -> RuleSet:
        """Read and validate a rule-set dict; raise RuleSetError listing every problem."""
        # The reader lives in its own module (it is long); it imports this one.
        from ._rules_reader import read_rule_set

        return read_rule_set(data)


def layout_label(layout: Sequence[int]) -> str:
    """``(1, 1, 1)`` -> ``"3 players alone"``, ``(2, 2)`` -> ``"2 teams of 2"``."""
    sizes = set(layout)
    if not sizes:
        return phrase("no players")
    if sizes == {1}:
        return phrase_n("%(num)d player alone", "%(num)d players alone", len(layout))
    if len(sizes) == 1:
        return phrase_n(
            "%(num)d team of %(size)s", "%(num)d teams of %(size)s", len(layout), size=layout[0]
        )
    return phrase("%(sizes)s players", sizes=" + ".join(str(n) for n in layout))


def frozen_map(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only copy of a mapping, so a RuleSet stays a value."""
    return MappingProxyType(dict(values))
