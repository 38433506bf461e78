"""With CSRF protection on (as in production) the checker's GET form needs no token."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}


def test_the_checker_works_with_csrf_on_because_it_saves_nothing(client: FlaskClient) -> None:
    response = client.get("/meld", query_string={"f": "1", "rules": "classic", "op": "add:K"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/meld?rules=classic&deal=1&m=K.3.0.0"
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Short by 20" in html


def test_an_htmx_tap_works_with_csrf_on(client: FlaskClient) -> None:
    response = client.get(
        "/meld?f=1&rules=classic&deal=1&melds-0-rank=K&melds-0-naturals=3&op=inc:0:twos",
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert response.headers["HX-Push-Url"] == "/meld?rules=classic&deal=1&m=K.3.0.1"
