"""Forms of the clubs area."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateField, SelectChoice, SelectField, StringField
from wtforms.validators import InputRequired, Length

from ..i18n import translate_problem as tr
from ..matches.fields import IntegerText, WholeRange, no_control_characters
from ..matches.forms import rule_choices

#: The club's settings as the settings page labels them (the club's log names them so).
SETTING_LABELS = {
    "name": _l("Club name"),
    "default_rules": _l("Rules the club plays"),
    "min_games": _l("Games needed to be ranked"),
    "visibility": _l("Who can see the standings, player pages and club night"),
}

#: Who may read a club, as the settings say it (the club's log says it the same way).
VISIBILITY = {
    "members": _l("Only the club's members (they log in)"),
    "public": _l("Anyone with the link, without logging in (read-only)"),
}


class ClubForm(FlaskForm):
    """A new club, or its settings."""

    name = StringField(
        SETTING_LABELS["name"],
        [InputRequired(_l("Give the club a name.")), Length(max=80), no_control_characters],
    )
    default_rules = SelectField(
        SETTING_LABELS["default_rules"], choices=rule_choices, default="classic"
    )
    min_games = IntegerText(
        SETTING_LABELS["min_games"],
        [
            InputRequired(_l("Enter a whole number from 0 to 100.")),
            WholeRange(0, 100, _l("Enter a whole number from 0 to 100.")),
        ],
        default=3,
        render_kw={"inputmode": "numeric"},
    )
    visibility = SelectField(
        SETTING_LABELS["visibility"],
        choices=[SelectChoice(value, words) for value, words in VISIBILITY.items()],
        default="members",
    )


class PlayerForm(FlaskForm):
    """A new club player."""

    name = StringField(
        _l("Name"),
        [InputRequired(_l("Type a name.")), Length(max=40), no_control_characters],
        render_kw={"autocomplete": "off", "maxlength": 40},
    )


class SeasonForm(FlaskForm):
    """A new season."""

    name = StringField(
        _l("Season name"),
        [InputRequired(_l("Give the season a name.")), Length(max=80), no_control_characters],
    )
    starts_on = DateField(_l("First day"), [InputRequired(_l("Choose the first day."))])
    ends_on = DateField(_l("Last day"), [InputRequired(_l("Choose the last day."))])


def played_on_field() -> DateField:
    """The date of a club match (today unless typed)."""
    return DateField(_l("Date played"), [InputRequired(_l("Choose the date."))], default=date.today)


def apply_problems(form: Any, problems: Any) -> None:
    """Put service problems beside their fields (or the first field)."""
    for problem in problems:
        field = form._fields.get(problem.field) or next(iter(form))
        field.errors = [*field.errors, tr(problem)]
