"""Every select, radio and checkbox list declares its choices as WTForms ``SelectChoice``.

WTForms 3.3 deprecates ``(value, label)`` tuples and 3.4 drops them: a form still built
from tuples would warn now and break on the upgrade. Each form is built and rendered with
deprecation warnings turned into errors.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from werkzeug.datastructures import MultiDict
from wtforms import Field, Form, SelectChoice
from wtforms.fields import FieldList, FormField
from wtforms.fields.choices import SelectFieldBase

from scorekeeper.engine import PRESETS
from scorekeeper.services import rule_sets
from scorekeeper.web.clubs.forms import ClubForm
from scorekeeper.web.matches import forms as match_forms
from scorekeeper.web.rules.formdata import formdata_of, set_layout_choices
from scorekeeper.web.rules.forms import RuleSetForm, SpecialBookForm


def choice_fields(form: Any) -> Iterator[Field]:
    """The choice fields of a form, nested forms and lists included."""
    for field in form:
        if isinstance(field, FieldList):
            for entry in field:
                yield from choice_fields([entry])
        elif isinstance(field, FormField):
            yield from choice_fields(field.form)
        elif isinstance(field, SelectFieldBase):
            yield field


def built_forms() -> list[tuple[str, Any]]:
    """Every form of the app that offers choices, as its views build them."""
    rules = PRESETS["classic"]
    start = match_forms.StartForm()
    start.layout.choices = match_forms.layout_choices(rules)
    editor = RuleSetForm(data=formdata_of(rules))
    set_layout_choices(editor, rules)
    return [
        ("new match, step one", start),
        ("new match, step two", match_forms.new_match_form((2, 2))),
        ("deal", match_forms.deal_form(rules, 2)),
        ("rule-set editor", editor),
        ("special book row", SpecialBookForm()),
        ("club", ClubForm()),
    ]


def test_every_choice_of_every_form_is_a_select_choice(app: Flask) -> None:
    with app.test_request_context(), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        rule_sets.create(PRESETS["four-books"].to_dict() | {"name": "Our house"})
        seen = 0
        for name, form in built_forms():
            for field in choice_fields(form):
                seen += 1
                choices = field.choices
                assert choices, f"{name}: {field.name} offers nothing"
                odd = [c for c in choices if not isinstance(c, SelectChoice)]
                assert not odd, f"{name}: {field.name} has choices WTForms 3.4 refuses: {odd}"
                assert field()  # renders without a deprecation warning
        assert seen >= 9


def test_a_saved_house_rule_is_offered_with_its_name(app: Flask) -> None:
    with app.test_request_context():
        rule_sets.create(PRESETS["four-books"].to_dict() | {"name": "Our house"})
        labels = [c.label for c in match_forms.rule_choices()]
    assert labels[: len(PRESETS)] == [r.name for r in PRESETS.values()]
    assert labels[-1] == "Our house"


@pytest.mark.parametrize("posted", ["0", "1", ""])
def test_the_deal_form_accepts_nobody_or_one_side_as_went_out(app: Flask, posted: str) -> None:
    with app.test_request_context(method="POST", data={"went_out": posted}):
        form: Form = match_forms.deal_form(PRESETS["classic"], 2, data={"went_out": posted})
        form.validate()
        assert "went_out" not in form.errors


def test_the_deal_form_refuses_a_side_that_is_not_at_the_table(app: Flask) -> None:
    with app.test_request_context(method="POST"):
        form: Form = match_forms.deal_form(PRESETS["classic"], 2, data={"went_out": "2"})
        form.validate()
        assert "went_out" in form.errors


def test_who_deals_first_reads_back_as_a_seat_number(app: Flask) -> None:
    with app.test_request_context(method="POST"):
        form = match_forms.new_match_form((2, 2), data=MultiDict({"first_dealer": "3"}))
        assert form.first_dealer.data == 3
        assert '<option selected value="3">' in str(form.first_dealer())
