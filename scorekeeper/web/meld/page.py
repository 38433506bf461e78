"""What the checker page shows: the rule set, the state, each meld's row, the verdict."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Final

from flask_babel import lazy_gettext as _l

from ...engine import MeldCheck, MeldVerdict, RuleSet
from ...services import rule_sets
from ...services.matches import LoadedMatch
from ..i18n import text
from .forms import CheckerForm, MeldRowForm
from .state import CheckerState

DEFAULT_RULES = "classic"
TOTAL_BOUND = 10**7  # the engine's bound on a running total
PILE_BOUND = 10_000  # the engine's bound on the cards in the discard pile
#: Up to this many rule sets, with names up to BUTTON_NAME characters, are one button each
#: (one tap); more, or longer names, go in a select that fits a phone however many there are.
MAX_BUTTONS = 6
BUTTON_NAME = 24

#: What a meld of each rank is called on the page.
RANK_LABELS: Final = {
    "4": _l("Fours"), "5": _l("Fives"), "6": _l("Sixes"), "7": _l("Sevens"),
    "8": _l("Eights"), "9": _l("Nines"), "10": _l("Tens"), "J": _l("Jacks"),
    "Q": _l("Queens"), "K": _l("Kings"), "A": _l("Aces"), "wild": _l("Wild cards"),
}  # fmt: skip


def rule_choices() -> list[rule_sets.RuleChoice]:
    """The rule sets the checker offers, keyed by origin: the presets (their names in the
    served language), then saved house rules."""
    return [c if c.saved else replace(c, name=text(c.name)) for c in rule_sets.available()]


@dataclass
class Row:
    """One meld as the page shows it: its form fields and the engine's verdict."""

    index: int
    form: MeldRowForm
    rank: str
    verdict: MeldVerdict | None  # None when the meld could not be read
    errors: list[str] = field(default_factory=list)  # problems not tied to one count


@dataclass
class Page:
    """Everything the checker page and its fragment need."""

    state: CheckerState
    rules: RuleSet
    loaded: LoadedMatch | None
    check: MeldCheck
    form: CheckerForm
    rows: list[Row]
    notices: list[str]
    invalid: bool  # something in the request was wrong (a notice or a field error)
    changed: bool  # a form was sent or a button tapped: show the canonical URL

    @property
    def thresholds(self) -> bool:
        """Whether the minimum depends on the side's running total."""
        return bool(self.rules.minimum_meld.thresholds)

    @property
    def deal_choices(self) -> list[tuple[int, int | None]]:
        """Each deal, with its minimum when the minimum goes by deal."""
        per_deal = self.rules.minimum_meld.per_deal
        return [(n, per_deal[n - 1] if per_deal else None) for n in range(1, self.rules.deals + 1)]

    @property
    def side_choices(self) -> list[tuple[int, str, int, int]]:
        """(index, label, running total, minimum) of each side of the match."""
        if self.loaded is None:
            return []
        game = self.loaded.game
        return [
            (i, side.label, total, self.rules.minimum_meld.for_deal(self.state.deal, total))
            for i, (side, total) in enumerate(
                zip(game.sides, totals_before(self.loaded, self.state.deal), strict=True)
            )
        ]

    @cached_property
    def rule_choices(self) -> list[rule_sets.RuleChoice]:
        """The rule sets to choose from (none when the rules come from a match)."""
        return [] if self.loaded else rule_choices()

    @property
    def rule_select(self) -> bool:
        """Whether the rule sets are offered in a select rather than as buttons."""
        choices = self.rule_choices
        return len(choices) > MAX_BUTTONS or any(len(c.name) > BUTTON_NAME for c in choices)

    @property
    def preset_choices(self) -> list[rule_sets.RuleChoice]:
        """The presets among the choices (the select's first group)."""
        return [c for c in self.rule_choices if not c.saved]

    @property
    def saved_choices(self) -> list[rule_sets.RuleChoice]:
        """The saved house rules among the choices (the select's second group)."""
        return [c for c in self.rule_choices if c.saved]

    @property
    def wild_allowed(self) -> bool:
        """Whether the rule set has wild books, so a wild-only meld can be started."""
        return self.rules.book_bonus.get("wild") is not None

    @property
    def illegal(self) -> list[int]:
        """The numbers (1-based) of the melds the engine found not legal."""
        return [r.index + 1 for r in self.rows if r.verdict is not None and not r.verdict.legal]


def add_error(field: Any, message: str) -> None:
    """Show ``message`` beside ``field`` (WTForms keeps a tuple until validation)."""
    field.errors = [*field.errors, message]


def totals_before(loaded: LoadedMatch, deal: int) -> tuple[int, ...]:
    """Each side's running total before ``deal`` of the match."""
    rows = loaded.game.running_totals()
    done = min(deal - 1, len(rows))
    return rows[done - 1] if done > 0 else tuple(0 for _side in loaded.game.sides)
