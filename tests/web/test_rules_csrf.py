"""The rules area with CSRF protection on, as in production."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from support import csrf_token_of, log_in, signed_in_client
from test_rules_support import HX, changed, form_fields, preset_dict

from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet
from scorekeeper.services import rule_sets


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """House rules are saved by an account: these tests run logged in (as "owner")."""
    return signed_in_client(app)


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}


def count(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(SavedRuleSet)) or 0


def test_the_editor_saves_with_its_token_and_refuses_without_it(
    app: Flask, client: FlaskClient
) -> None:
    fields = form_fields(client.get("/rules/new").get_data(as_text=True))
    assert fields.get("csrf_token")
    without = fields.copy()
    without.pop("csrf_token")
    assert client.post("/rules", data=without).status_code == 400
    assert count(app) == 0
    assert client.post("/rules", data=fields).status_code == 303
    assert count(app) == 1


def test_the_htmx_preview_sends_its_token_in_a_header(client: FlaskClient) -> None:
    page = client.get("/rules/new").get_data(as_text=True)
    fields = form_fields(page)
    fields.pop("csrf_token")
    headers = {**HX, "X-CSRFToken": csrf_token_of(page)}
    response = client.post("/rules/preview", data=fields, headers=headers)
    assert response.status_code == 200 and 'class="rules-card"' in response.get_data(as_text=True)


def test_imports_and_deletes_need_the_token(app: Flask, client: FlaskClient) -> None:
    pasted = json.dumps(preset_dict())
    assert client.post("/rules/import", data={"text": pasted}).status_code == 400
    token = csrf_token_of(client.get("/rules/import").get_data(as_text=True))
    upload = {"csrf_token": token, "file": (io.BytesIO(pasted.encode()), "r.json")}
    response = client.post("/rules/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 303
    with app.app_context():
        public_id = rule_sets.saved()[0].public_id
    assert client.post(f"/rules/{public_id}/delete").status_code == 400
    shared = client.get(f"/r/{public_id}").get_data(as_text=True)
    data = {"csrf_token": csrf_token_of(shared), "name": "Copy"}
    assert client.post(f"/r/{public_id}/import", data=data).status_code == 303
    assert count(app) == 2


def _saved(app: Flask, name: str) -> dict[str, Any] | None:
    with app.app_context():
        row = db.session.scalar(select(SavedRuleSet).where(SavedRuleSet.name == name))
        return None if row is None else rule_sets.rule_set_of(row).to_dict()


def test_a_visitor_who_logs_in_in_another_tab_keeps_what_they_typed(app: Flask) -> None:
    # The editor tells a visitor to log in in another tab "so nothing typed here is lost";
    # the log-in gives the browser a new token, and the next save was a bare 400 page.
    visitor = app.test_client()
    page = visitor.get("/rules/new").get_data(as_text=True)
    assert 'action="/rules/draft"' in page  # a visitor's editor posts where nothing is saved
    typed = changed(form_fields(page), name="Kitchen table", value_joker="75")
    log_in(visitor, "cook")  # in another tab
    again = visitor.post("/rules/draft", data=typed)
    html = again.get_data(as_text=True)
    assert again.status_code == 400 and "nothing typed here is lost" in html
    assert 'value="Kitchen table"' in html and 'value="75"' in html
    assert 'action="/rules"' in html and count(app) == 0  # now logged in: it saves
    assert visitor.post("/rules", data=form_fields(html)).status_code == 303
    assert _saved(app, "Kitchen table")["card_values"]["joker"] == 75  # type: ignore[index]


def test_a_visitor_adds_rows_and_is_told_how_to_save_without_losing_anything(
    app: Flask,
) -> None:
    # "Add a condition" and Save went to log in (the save needs an account), and the page
    # that came back after the log-in was empty.
    visitor = app.test_client()
    typed = changed(form_fields(visitor.get("/rules/new").get_data(as_text=True)), name="Ours!")
    rows = sum(1 for k in typed if k.startswith("conditions-"))
    added = visitor.post("/rules/draft", data=changed(typed, add="conditions"))
    html = added.get_data(as_text=True)
    assert added.status_code == 200 and 'value="Ours!"' in html
    fields = form_fields(html)
    assert sum(1 for k in fields if k.startswith("conditions-")) == rows + 1
    refused = visitor.post("/rules/draft", data=fields)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 401 and "Saving house rules needs an account" in html
    assert 'value="Ours!"' in html and count(app) == 0


def test_a_field_of_the_way_not_chosen_does_not_hold_the_save_back(
    app: Flask, client: FlaskClient
) -> None:
    # Hidden by the page, never saved, and its message shown nowhere: "2,500" left in a
    # threshold after going back to minimums by deal, or text in the number of decks after
    # choosing one more than players.
    fields = form_fields(client.get("/rules/new").get_data(as_text=True))
    assert fields.get("meld_by") == "deal" and "meld_thresholds-0-at" in fields
    typed = changed(
        fields,
        name="Hidden leftovers",
        **{"meld_thresholds-0-at": "2,500", "meld_thresholds-0-minimum": "x"},
        decks_mode="players+1",
        decks="five",
    )
    saved = client.post("/rules", data=typed)
    assert saved.status_code == 303, saved.get_data(as_text=True)
    rules = _saved(app, "Hidden leftovers")
    assert rules is not None and rules["decks"] == "players+1"
    assert rules["minimum_meld"] == [50, 90, 120, 150]
    # shown, the same values are refused beside their fields
    shown = changed(typed, name="Shown", meld_by="total", decks_mode="fixed")
    refused = client.post("/rules", data=shown)
    assert refused.status_code == 422 and count(app) == 1
