"""The going-out checklist: the books a side has against the books the rules require."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import phrase_n
from .rules import RuleSet


@dataclass(frozen=True)
class ChecklistItem:
    """One required book kind: how many are needed, how many the side has."""

    kind: str
    name: str
    required: int
    have: int

    @property
    def met(self) -> bool:
        """Whether the side has enough books of this kind."""
        return self.have >= self.required

    @property
    def needed(self) -> str:
        """The checklist's "2 clean": the books of this kind going out needs (a phrase for a
        standard kind: its word agrees with the number in other languages)."""
        if self.kind == "clean":
            return phrase_n("%(num)d clean", "%(num)d clean", self.required)
        if self.kind == "dirty":
            return phrase_n("%(num)d dirty", "%(num)d dirty", self.required)
        if self.kind == "wild":
            return phrase_n("%(num)d wild", "%(num)d wild", self.required)
        return f"{self.required} {self.name}"


@dataclass(frozen=True)
class GoingOutChecklist:
    """Required books, and the conditions the table checks itself (partner in foot...)."""

    items: tuple[ChecklistItem, ...]
    conditions: tuple[str, ...]

    @property
    def books_met(self) -> bool:
        """Whether every required book kind is met."""
        return all(item.met for item in self.items)


def going_out_checklist(rules: RuleSet, books: Mapping[str, int]) -> GoingOutChecklist:
    """The checklist for a side holding ``books`` (by kind) under ``rules``."""
    items = tuple(
        ChecklistItem(kind, rules.book_name(kind), required, books.get(kind, 0))
        for kind, required in rules.going_out_requires.items()
        if required > 0
    )
    return GoingOutChecklist(items=items, conditions=rules.going_out_conditions)
