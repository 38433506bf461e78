"""A whole match driven at random: record, correct, remove, and impossible operations.

The machine keeps its own model (the entries of every deal, as sent) and checks after
every step that the match agrees with it: totals are the sums of the deals' totals, the
running totals add up deal by deal, the next deal follows the last, and a finished
match names its winner, or a draw, from the totals alone.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from strategies import deals, rule_sets

from scorekeeper.engine import (
    EngineError,
    EntryError,
    Match,
    MatchError,
    RuleSet,
    Side,
    score_deal,
)

Entries = list[dict[str, Any]]


class MatchMachine(RuleBasedStateMachine):
    """One match under one rule set and layout, with the entries of each deal as a model."""

    def __init__(self) -> None:
        super().__init__()
        self.match: Match
        self.rules: RuleSet
        self.layout: tuple[int, ...] = ()
        self.entries: list[Entries] = []

    @initialize(rules=rule_sets(), data=st.data())
    def start(self, rules: RuleSet, data: Any) -> None:
        self.rules = rules
        self.layout = tuple(data.draw(st.sampled_from(rules.layouts), label="layout"))
        names = iter(f"Player {n}" for n in range(1, sum(self.layout) + 1))
        sides = [Side(tuple(next(names) for _ in range(size))) for size in self.layout]
        first_dealer = data.draw(st.integers(0, sum(self.layout) - 1), label="first dealer")
        self.match = Match.start(rules, sides, first_dealer)

    def _valid_entries(self, data: Any, deal: int) -> Entries:
        return data.draw(deals(self.rules, self.layout, deal), label=f"deal {deal}").sides

    # -- valid operations ---------------------------------------------------------------

    @precondition(lambda self: not self.match.finished)
    @rule(data=st.data())
    def record_a_valid_deal(self, data: Any) -> None:
        entries = self._valid_entries(data, len(self.entries) + 1)
        self.match = self.match.record(entries)
        self.entries.append(entries)
        event("finished" if self.match.finished else "in progress")

    @precondition(lambda self: self.entries)
    @rule(data=st.data())
    def correct_an_earlier_deal(self, data: Any) -> None:
        deal = data.draw(st.integers(1, len(self.entries)), label="deal to correct")
        entries = self._valid_entries(data, deal)
        self.match = self.match.correct(deal, entries)
        self.entries[deal - 1] = entries

    @precondition(lambda self: self.entries)
    @rule()
    def remove_the_last_deal(self) -> None:
        self.match = self.match.remove_last()
        self.entries.pop()

    # -- impossible operations ----------------------------------------------------------

    @rule(data=st.data())
    def an_impossible_operation_is_refused_and_changes_nothing(self, data: Any) -> None:
        match, played = self.match, len(self.entries)
        possible = ["correct a deal not played"]
        possible += ["record after the last deal"] if match.finished else []
        possible += ["record an impossible deal"] if not match.finished else []
        possible += ["correct with an impossible deal"] if played else []
        possible += ["remove from an empty match"] if not played else []
        name = data.draw(st.sampled_from(possible), label="impossible operation")
        event(f"refused: {name}")
        error, operation = self._impossible_operation(data, name)
        snapshot = (match.deals, match.totals, match.running_totals(), match.current_deal)
        with pytest.raises(EngineError) as refused:
            operation()
        assert type(refused.value) is error, name
        assert refused.value.problems
        assert self.match is match
        assert snapshot == (
            match.deals, match.totals, match.running_totals(), match.current_deal
        )  # fmt: skip

    def _impossible_operation(
        self, data: Any, name: str
    ) -> tuple[type[EngineError], Callable[[], Match]]:
        match, played = self.match, len(self.entries)
        if name == "record after the last deal":
            entries = self._valid_entries(data, self.rules.deals)
            return MatchError, lambda: match.record(entries)
        if name == "remove from an empty match":
            return MatchError, match.remove_last
        if name == "correct a deal not played":
            unplayed = data.draw(
                st.one_of(st.integers(-3, 0), st.integers(played + 1, played + 3)),
                label="deal not played",
            )
            entries = self._valid_entries(data, max(1, min(unplayed, self.rules.deals)))
            return MatchError, lambda: match.correct(unplayed, entries)
        bad = self._impossible_entries(data)
        if name == "record an impossible deal":
            return EntryError, lambda: match.record(bad)
        deal = data.draw(st.integers(1, played), label="deal to spoil")
        return EntryError, lambda: match.correct(deal, bad)

    def _impossible_entries(self, data: Any) -> Entries:
        """A valid deal's entries, spoiled in one way the rules forbid."""
        deal = data.draw(deals(self.rules, self.layout, 1), label="deal to spoil")
        sides = copy.deepcopy(deal.sides)
        ways = ["too many jokers", "one side missing", "one side too many", "negative count",
                "unknown card", "two sides went out"]  # fmt: skip
        if 1 in self.layout:
            ways.append("alone, went out with cards left")
        way = data.draw(st.sampled_from(ways), label="spoiled by")
        event(f"spoiled by: {way}")
        if way == "too many jokers":
            sides[0].pop("melded_points", None)
            sides[0]["melded"] = {"joker": 2 * deal.decks + 1}
        elif way == "one side missing":
            sides.pop()
        elif way == "one side too many":
            sides.append({})
        elif way == "negative count":
            sides[-1]["red_threes"] = -1
        elif way == "unknown card":
            sides[0].pop("left_points", None)
            sides[0]["left"] = {**sides[0].get("left", {}), "3": 1}
        elif way == "two sides went out":
            sides[0]["went_out"] = sides[1]["went_out"] = True
        else:
            alone = self.layout.index(1)
            sides[alone]["went_out"] = True
            sides[alone].pop("left_points", None)
            sides[alone]["left"] = {"4": 1}
        return sides

    # -- what must always hold ----------------------------------------------------------

    @invariant()
    def every_deal_scores_as_its_entries_say(self) -> None:
        match = self.match
        assert len(match.deals) == len(self.entries)
        for number, (recorded, entries) in enumerate(
            zip(match.deals, self.entries, strict=True), start=1
        ):
            assert recorded.score == score_deal(self.rules, number, match.player_count, entries)

    @invariant()
    def totals_are_the_sums_of_the_deals(self) -> None:
        match = self.match
        sums = [sum(d.score.sides[i].total for d in match.deals) for i in range(len(self.layout))]
        assert list(match.totals) == sums
        rows = match.running_totals()
        assert len(rows) == len(match.deals)
        previous = [0] * len(self.layout)
        for row, recorded in zip(rows, match.deals, strict=True):
            assert list(row) == [
                p + b.total for p, b in zip(previous, recorded.score.sides, strict=True)
            ]
            previous = list(row)
        assert previous == list(match.totals)

    @invariant()
    def the_next_deal_follows_the_last_until_the_game_is_over(self) -> None:
        match, played = self.match, len(self.entries)
        assert match.finished == (played == self.rules.deals)
        assert match.current_deal == (None if match.finished else played + 1)

    @invariant()
    def a_finished_match_has_a_winner_or_a_draw_from_its_totals(self) -> None:
        match = self.match
        if not match.finished:
            assert match.winner is None and not match.is_draw
            return
        best = max(match.totals)
        leaders = [i for i, total in enumerate(match.totals) if total == best]
        if len(leaders) == 1:
            assert match.winner == leaders[0] and not match.is_draw
        else:
            assert match.winner is None and match.is_draw
            event("a draw")

    @invariant()
    def a_match_restored_from_its_entries_is_the_same_match(self) -> None:
        match = self.match
        restored = Match.restore(
            match.rules, match.sides, match.first_dealer, [d.entries for d in match.deals]
        )
        assert restored == match


MatchMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=20, deadline=None)
test_a_whole_match_keeps_its_totals_and_progress_consistent = MatchMachine.TestCase
