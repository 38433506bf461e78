"""Match progression: deals recorded, corrected or removed; totals, dealer, winner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ._read import read_int, read_text
from .entries import SideEntry
from .errors import EntryError, MatchError, Problem, Problems, phrase
from .rules import MAX_DEALS, MIN_DEALS, RuleSet, layout_label
from .scoring import DealScore, read_deal_entries, score_entries

__all__ = ["Match", "RecordedDeal", "Side", "layout_label"]


@dataclass(frozen=True)
class Side:
    """A team, or one player alone: its players in the order they sit."""

    players: tuple[str, ...]
    name: str = ""

    @property
    def label(self) -> str:
        """The side's name, or its players' names joined when it has none."""
        return self.name or " & ".join(self.players)


@dataclass(frozen=True)
class RecordedDeal:
    """A deal as entered, with its score."""

    entries: tuple[SideEntry, ...]
    score: DealScore


@dataclass(frozen=True)
class Match:
    """A game in progress or finished, as a value: every operation returns a new Match."""

    rules: RuleSet
    sides: tuple[Side, ...]
    first_dealer: int = 0  # a seat index (see ``seating``)
    deals: tuple[RecordedDeal, ...] = ()

    @classmethod
    def start(
        cls, rules: RuleSet, sides: Sequence[Side], first_dealer: Any = 0, deals: Any = None
    ) -> Match:
        """A new match; the side layout must be one the rule set allows.

        ``deals``: the number of deals the table agreed on (1 to 20; the rule set's own
        number when None). The match's rule set is then fitted to it (``with_deals``).
        """
        problems = Problems()
        length = rules.deals if deals is None else deals
        length = read_int(
            problems,
            length,
            "deals",
            low=MIN_DEALS,
            high=MAX_DEALS,
            what=phrase("The number of deals"),
        )
        names: list[str] = []
        for i, side in enumerate(sides):
            for j, player in enumerate(side.players):
                name = read_text(problems, player, f"sides[{i}].players[{j}]", max_length=40)
                if name is not None and name.casefold() in names:
                    problems.add(
                        f"sides[{i}].players[{j}]",
                        phrase("%(name)s already plays in this match.", name=name),
                    )
                elif name is not None:
                    names.append(name.casefold())
        layout = tuple(sorted(len(s.players) for s in sides))
        if layout not in {tuple(sorted(lay)) for lay in rules.layouts}:
            problems.add(
                "sides",
                phrase(
                    "%(rules)s is not played with %(shape)s.",
                    rules=phrase(rules.name),
                    shape=layout_label(layout),
                ),
            )
        count = len(names)
        if (
            isinstance(first_dealer, bool)
            or not isinstance(first_dealer, int)
            or not (0 <= first_dealer < max(count, 1))
        ):
            problems.add("first_dealer", phrase("Choose the first dealer among the players."))
        problems.raise_if_any(MatchError)
        assert length is not None
        stripped = tuple(Side(tuple(p.strip() for p in s.players), s.name.strip()) for s in sides)
        if length != rules.deals:
            rules = rules.with_deals(length)
        return cls(rules=rules, sides=stripped, first_dealer=first_dealer)

    @classmethod
    def restore(
        cls,
        rules: RuleSet,
        sides: Sequence[Side],
        first_dealer: int,
        deals: Sequence[Sequence[SideEntry]],
    ) -> Match:
        """Rebuild a stored match from entries that were validated when they were saved."""
        recorded = tuple(
            RecordedDeal(entries=tuple(entries), score=score_entries(rules, n, entries))
            for n, entries in enumerate(deals, start=1)
        )
        return cls(rules=rules, sides=tuple(sides), first_dealer=first_dealer, deals=recorded)

    # -- seats and dealers ------------------------------------------------------------

    @property
    def side_sizes(self) -> tuple[int, ...]:
        """How many players each side has."""
        return tuple(len(s.players) for s in self.sides)

    @property
    def player_count(self) -> int:
        """How many players sit at the table."""
        return sum(self.side_sizes)

    @property
    def seating(self) -> tuple[tuple[int, str], ...]:
        """(side index, player) clockwise: sides alternate, so partners sit apart."""
        seats = []
        for seat in range(max(self.side_sizes)):
            for index, side in enumerate(self.sides):
                if seat < len(side.players):
                    seats.append((index, side.players[seat]))
        return tuple(seats)

    def dealer(self, deal: int) -> str:
        """Who deals ``deal``: the deal passes left (clockwise) from the first dealer."""
        return self.seating[(self.first_dealer + deal - 1) % self.player_count][1]

    # -- progress -----------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Whether every deal of the game has been recorded."""
        return len(self.deals) >= self.rules.deals

    @property
    def current_deal(self) -> int | None:
        """The next deal to enter, or None when the match is finished."""
        return None if self.finished else len(self.deals) + 1

    def running_totals(self) -> tuple[tuple[int, ...], ...]:
        """Each side's total after each deal, in deal order."""
        totals = [0] * len(self.sides)
        rows = []
        for recorded in self.deals:
            totals = [t + b.total for t, b in zip(totals, recorded.score.sides, strict=True)]
            rows.append(tuple(totals))
        return tuple(rows)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each side's total so far."""
        rows = self.running_totals()
        return rows[-1] if rows else tuple(0 for _ in self.sides)

    def minimum_meld(self, side: int) -> int | None:
        """The minimum first meld of ``side`` in the current deal (None when finished).

        With running-total thresholds it depends on that side's own total.
        """
        deal = self.current_deal
        if deal is None:
            return None
        return self.rules.minimum_meld.for_deal(deal, self.totals[side])

    def leaders(self) -> tuple[int, ...]:
        """The indices of the sides with the highest total."""
        best = max(self.totals)
        return tuple(i for i, t in enumerate(self.totals) if t == best)

    @property
    def winner(self) -> int | None:
        """The winning side's index once finished; None while playing or on a draw."""
        leaders = self.leaders()
        return leaders[0] if self.finished and len(leaders) == 1 else None

    @property
    def is_draw(self) -> bool:
        """Whether the finished match ended with a tie for first (a draw)."""
        return self.finished and len(self.leaders()) > 1

    # -- changes ------------------------------------------------------------------------

    def _recorded(self, deal: int, entries: Sequence[Any]) -> RecordedDeal:
        # The deal check allows up to one side per player; a match knows its sides.
        if len(entries) != len(self.sides):
            message = phrase(
                "This match has %(sides)s sides; the entry has %(entries)s.",
                sides=len(self.sides),
                entries=len(entries),
            )
            raise EntryError([Problem.of("sides", message)])
        number, read = read_deal_entries(
            self.rules, deal, self.player_count, list(entries), self.side_sizes
        )
        return RecordedDeal(entries=read, score=score_entries(self.rules, number, read))

    def record(self, entries: Sequence[Any]) -> Match:
        """Record the next deal; raise EntryError (bad entry) or MatchError (finished)."""
        deal = self.current_deal
        if deal is None:
            raise MatchError(
                [Problem.of("deal", phrase("The match is finished; correct a deal instead."))]
            )
        return replace(self, deals=(*self.deals, self._recorded(deal, entries)))

    def correct(self, deal: int, entries: Sequence[Any]) -> Match:
        """Replace the entry of an earlier (or the last) deal; totals follow."""
        if not 1 <= deal <= len(self.deals):
            raise MatchError(
                [Problem.of("deal", phrase("Deal %(deal)s has not been played.", deal=deal))]
            )
        deals = list(self.deals)
        deals[deal - 1] = self._recorded(deal, entries)
        return replace(self, deals=tuple(deals))

    def remove_last(self) -> Match:
        """Remove the last recorded deal."""
        if not self.deals:
            raise MatchError([Problem.of("deal", phrase("No deal has been recorded yet."))])
        return replace(self, deals=self.deals[:-1])
