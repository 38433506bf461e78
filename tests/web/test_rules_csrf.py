"""The rules area with CSRF protection on, as in production."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from support import csrf_token_of, signed_in_client
from test_rules_support import HX, form_fields, preset_dict

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
