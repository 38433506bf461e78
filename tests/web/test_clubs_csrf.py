"""The clubs forms with CSRF protection on, as in production."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from support import csrf_token_of, log_in


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}


def test_starting_a_club_without_the_token_is_refused(client: FlaskClient) -> None:
    response = client.post("/clubs", data={"name": "Fridays", "min_games": "3"})
    assert response.status_code == 400


def test_a_club_match_form_carries_one_token_that_also_covers_its_date(
    client: FlaskClient,
) -> None:
    log_in(client)  # starting a club needs an account (CSRF on: the form's token too)
    page = client.get("/clubs").get_data(as_text=True)
    made = client.post(
        "/clubs",
        data={"name": "Fridays", "default_rules": "classic", "min_games": "3",
              "csrf_token": csrf_token_of(page)},
    )  # fmt: skip
    assert made.status_code == 303
    club_url = made.headers["Location"]
    form = client.get(f"{club_url}/matches/new").get_data(as_text=True)
    data = {
        "csrf_token": csrf_token_of(form),
        "rules": "classic",
        "layout": "2+2",
        "side_0_player_0": "Ann",
        "side_0_player_1": "Bob",
        "side_1_player_0": "Cid",
        "side_1_player_1": "Dee",
        "first_dealer": "0",
        "played_on": "2024-03-20",
    }
    response = client.post(f"{club_url}/matches", data=data)
    assert response.status_code == 303
    assert "/m/" in response.headers["Location"]
