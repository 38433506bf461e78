"""The JSON API saves nothing, so it works with CSRF protection on and no token."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from scorekeeper.web.api import examples


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}


def test_scoring_needs_no_csrf_token(client: FlaskClient) -> None:
    response = client.post("/api/v1/score", json=examples.SCORE_REQUEST)

    assert response.status_code == 200
    assert response.json == examples.SCORE_RESPONSE


def test_the_meld_check_needs_no_csrf_token(client: FlaskClient) -> None:
    response = client.post("/api/v1/meld", json=examples.MELD_REQUEST)

    assert response.json == examples.MELD_RESPONSE


def test_the_web_forms_still_demand_a_token(client: FlaskClient) -> None:
    response = client.post("/matches", data={"rules": "classic", "layout": "1+1"})

    assert response.status_code == 400
