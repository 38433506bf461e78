"""The checker's GET form: the counts can be typed, and every tap is one of its buttons.

It is a plain WTForms ``Form`` (no CSRF token): a GET form that saves nothing. The
fields only carry text; the engine reads the numbers and names what is wrong.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from wtforms import Form, FormField, HiddenField, StringField
from wtforms.fields import FieldList

from .state import COUNT_FIELDS, MAX_MELDS, NUMBER, CheckerState

NUMERIC = {"inputmode": "numeric", "pattern": "[0-9]*", "autocomplete": "off", "placeholder": "0"}


class MeldRowForm(Form):
    """One meld: its rank (fixed once added), its counts, and the top-card mark."""

    rank = HiddenField()
    naturals = StringField(_l("Natural cards"), render_kw=NUMERIC)
    jokers = StringField(_l("Jokers"), render_kw=NUMERIC)
    twos = StringField(_l("Twos"), render_kw=NUMERIC)
    top_card = HiddenField()


class CheckerForm(Form):
    """The melds, the cards in the discard pile, the running total."""

    melds = FieldList(FormField(MeldRowForm), max_entries=MAX_MELDS)
    size = StringField(_l("Cards in the discard pile"), render_kw=NUMERIC)
    total = StringField(
        _l("Running total"),
        render_kw={"inputmode": "numeric", "pattern": "-?[0-9]*", "autocomplete": "off"},
    )


def form_of_state(state: CheckerState) -> CheckerForm:
    """The form showing ``state``."""
    return CheckerForm(
        data={
            "melds": [
                {
                    "rank": m.rank,
                    "naturals": str(m.naturals),
                    "jokers": str(m.jokers),
                    "twos": str(m.twos),
                    "top_card": "1" if m.top_card else "",
                }
                for m in state.melds
            ],
            "size": "" if state.size is None else str(state.size),
            "total": str(state.total),
        }
    )


def meld_dicts(form: CheckerForm) -> list[dict[str, Any]]:
    """The typed melds as the engine's meld dicts; an empty count is 0."""
    melds = []
    for row in form.melds:
        data: dict[str, Any] = {"rank": (row.rank.data or "").strip()}
        for key in COUNT_FIELDS:
            text = (row[key].data or "").strip() or "0"
            data[key] = int(text) if NUMBER.fullmatch(text) else text
        data["top_card"] = row.top_card.data == "1"
        melds.append(data)
    return melds
