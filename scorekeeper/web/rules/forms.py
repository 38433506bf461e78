"""Forms of the rules area: the rule-set editor, import, and the import from a share link.

The editor only reads what was typed (whole numbers, text, choices); whether the rules
can work is the engine's call (``RuleSet.from_dict``), and its problems are put beside
these fields by ``mapping.apply_problems``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    Field,
    Form,
    FormField,
    HiddenField,
    RadioField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.fields import FieldList
from wtforms.validators import Optional
from wtforms.widgets import CheckboxInput, ListWidget

from ...engine.cards import CARD_KEYS, NATURAL_RANKS
from ..matches.fields import IntegerText

MAX_ROWS = 20
NOT_A_NUMBER = _l("Enter a whole number, like 50 or -100.")


class IntegerMessage(IntegerText):
    """An integer field whose parse error speaks the table's language."""

    def process_formdata(self, valuelist: list[str]) -> None:
        """Parse the number, with a friendlier message than WTForms' own."""
        try:
            super().process_formdata(valuelist)
        except ValueError:
            raise ValueError(str(NOT_A_NUMBER)) from None


def whole(label: object = "", signed: bool = False) -> IntegerMessage:
    """A blank-or-whole-number field; ``signed`` fields get a keyboard with a minus sign."""
    render_kw = {"autocomplete": "off"}
    if not signed:
        render_kw["inputmode"] = "numeric"
    return IntegerMessage(label, [Optional()], render_kw=render_kw)


class MultiCheckboxField(SelectMultipleField):
    """Several checkboxes for one list (works without JavaScript)."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class ThresholdForm(Form):
    """One running-total threshold: from this total on, this minimum meld."""

    at = whole(_l("From a running total of"), signed=True)
    minimum = whole(_l("Minimum meld"))


class SpecialBookForm(Form):
    """An extra book kind with its own bonus (blank rows are ignored)."""

    key = HiddenField()
    name = StringField(_l("Name"), render_kw={"maxlength": 60, "autocomplete": "off"})
    rank = SelectField(
        _l("Rank"),
        choices=[SelectChoice("", "—"), *map(SelectChoice, NATURAL_RANKS)],
        validate_choice=False,
    )
    bonus = whole(_l("Bonus"))
    wilds = BooleanField(_l("May hold wild cards"))
    requires = whole(_l("Needed to go out"))


class RuleSetForm(FlaskForm):
    """Every knob of a rule set (RULES.md section 4)."""

    version = HiddenField()
    name = StringField(_l("Name"), render_kw={"maxlength": 80, "autocomplete": "off"})
    description = TextAreaField(_l("Description"), render_kw={"rows": 3})
    source = StringField(_l("Where these rules come from"), render_kw={"maxlength": 500})

    layouts = MultiCheckboxField(_l("Who can play"), validate_choice=False)
    decks_mode = RadioField(
        _l("Decks"),
        choices=[
            SelectChoice("fixed", _l("A fixed number")),
            SelectChoice("players+1", _l("One more than players")),
        ],
        default="fixed",
        validate_choice=False,
    )
    decks = whole(_l("Number of decks"), signed=True)
    hand_size = whole(_l("Hand size"))
    foot_size = whole(_l("Foot size"))
    draw = whole(_l("Cards drawn a turn"))
    deals = whole(_l("Deals in a game"))
    pickup_cards = whole(_l("Cards taken from the discard pile (0: the whole pile)"))
    pickup_pile_minimum = whole(_l("The pile must hold at least (0: any size)"))
    pickup_pair = SelectField(
        _l("Pair needed from hand"),
        choices=[
            SelectChoice("natural", _l("Two natural cards")),
            SelectChoice("natural_or_wild", _l("Natural or wild cards")),
        ],
        validate_choice=False,
    )

    meld_by = RadioField(
        _l("Minimum meld"),
        choices=[
            SelectChoice("deal", _l("By deal")),
            SelectChoice("total", _l("By the side's running total")),
        ],
        default="deal",
        validate_choice=False,
    )
    meld_per_deal = FieldList(whole(_l("Deal")), max_entries=MAX_ROWS)
    meld_thresholds = FieldList(FormField(ThresholdForm), max_entries=MAX_ROWS)

    bonus_clean = whole(_l("Clean book"), signed=True)
    allow_dirty = BooleanField(_l("Dirty books allowed"))
    bonus_dirty = whole(_l("Dirty book"), signed=True)
    allow_wild = BooleanField(_l("Wild books allowed"))
    bonus_wild = whole(_l("Wild book"), signed=True)
    special_books = FieldList(FormField(SpecialBookForm), max_entries=MAX_ROWS)

    max_wilds = whole(_l("Most wild cards in a meld (blank: no fixed cap)"))
    naturals_per_wild = whole(_l("Natural cards needed per wild card (0: no ratio)"))

    red_laid = whole(_l("Red three laid"), signed=True)
    red_laid_without_meld = whole(_l("Red three laid by a side that never melded"), signed=True)
    red_left = whole(_l("Red three left in a hand"), signed=True)
    red_left_in_foot = whole(_l("Red three left in a foot nobody picked up"), signed=True)
    red_foot_only_if_opponent_out = BooleanField(
        _l("A red three in a foot counts only when another side went out")
    )
    pile_blocked_by = MultiCheckboxField(
        _l("Top cards that block the discard pile"),
        choices=[
            SelectChoice("black3", _l("A black three")),
            SelectChoice("wild", _l("A wild card")),
        ],
    )
    one_open_meld_per_rank = BooleanField(
        _l("One unfinished meld per rank (a book must close before another starts)")
    )

    going_out_bonus = whole(_l("Going-out bonus"), signed=True)
    requires_clean = whole(_l("Clean books needed"), signed=True)
    requires_dirty = whole(_l("Dirty books needed"), signed=True)
    requires_wild = whole(_l("Wild books needed"), signed=True)
    conditions = FieldList(
        StringField(_l("Condition"), render_kw={"maxlength": 300}), max_entries=MAX_ROWS
    )
    exact_draw_bonus = whole(_l("Exact-draw bonus (0: none)"), signed=True)

    def validate(self, extra_validators: Any = None) -> bool:
        """Every field but those of the way not chosen: the thresholds while the minimum
        meld is by deal (or the per-deal list while it is by total), the number of decks
        while it is one more than players. Hidden on the page, and not saved, they held a
        save back with a message nobody could see."""
        for field in self._set_aside():
            field.process_errors = []
            field.validators = ()
        return bool(super().validate(extra_validators))

    def _set_aside(self) -> Iterator[Field]:
        if self.decks_mode.data == "players+1":
            yield self.decks
        if self.meld_by.data == "total":
            yield from self.meld_per_deal
        else:
            for row in self.meld_thresholds:
                yield from row.form


for _key in CARD_KEYS:
    setattr(RuleSetForm, f"value_{_key}", whole(_key, signed=True))

#: The lists that have an "Add a row" button, and how many blank rows a fresh form gets.
ROW_LISTS = {"meld_per_deal": 1, "meld_thresholds": 1, "special_books": 1, "conditions": 1}


class ImportForm(FlaskForm):
    """Import a rule set from a JSON file or from pasted JSON, optionally renamed."""

    file = FileField(_l("A rule-set file (.json)"), render_kw={"accept": ".json,application/json"})
    text = TextAreaField(_l("Or paste the JSON"), render_kw={"rows": 6, "spellcheck": "false"})
    name = StringField(
        _l("Save under another name (optional)"), render_kw={"maxlength": 80, "autocomplete": "off"}
    )


class ImportSharedForm(FlaskForm):
    """Copy a shared rule set into this installation, under this name."""

    name = StringField(_l("Save as"), render_kw={"maxlength": 80, "autocomplete": "off"})
