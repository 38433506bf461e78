"""Starting matches with saved house rules, and the copy a match keeps of them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from support import account_id, signed_in_client
from test_rules_support import changed, form_fields, preset_dict

from scorekeeper.extensions import db
from scorekeeper.models import Match
from scorekeeper.services import rule_sets

NAMES = {
    "side_0_player_0": "Ana",
    "side_0_player_1": "Cecile",
    "side_1_player_0": "Boris",
    "side_1_player_1": "Dusan",
}


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """House rules are saved by an account: these tests run logged in (as "owner")."""
    return signed_in_client(app)


def save(app: Flask, name: str = "Friday night", **changes: Any) -> str:
    owner = account_id(app)  # the logged-in test client's account
    with app.app_context():
        data = {**preset_dict("classic"), "name": name, **changes}
        return rule_sets.create(data, account_id=owner).public_id


def start(client: FlaskClient, origin: str) -> str:
    page = client.get(f"/matches/new?rules={origin}&layout=2%2B2").get_data(as_text=True)
    fields = changed(form_fields(page, "new-match"), **NAMES)
    response = client.post("/matches", data=fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"]


def only_match(app: Flask) -> tuple[dict[str, Any], str]:
    with app.app_context():
        match = db.session.scalars(select(Match)).one()
        return dict(match.rules), match.rules_origin


def test_the_new_match_page_offers_the_presets_then_the_saved_rule_sets(
    app: Flask, client: FlaskClient
) -> None:
    zebra, apple = save(app, "Zebra"), save(app, "Apple")
    html = client.get("/matches/new").get_data(as_text=True)
    select_ = re.search(r'<select[^>]*name="rules".*?</select>', html, re.S)
    assert select_
    origins = re.findall(r'<option[^>]*value="([^"]+)"', select_.group(0))
    assert origins == ["classic", "four-books", "whitnack", f"saved:{apple}", f"saved:{zebra}"]


def test_a_match_started_with_saved_rules_plays_a_copy_of_them(
    app: Flask, client: FlaskClient
) -> None:
    public_id = save(app, going_out_bonus=250, deals=3, minimum_meld=[60, 100, 140])
    with app.app_context():
        saved_rules = dict(rule_sets.load(public_id).rules)  # type: ignore[union-attr]
    location = start(client, f"saved:{public_id}")
    rules, origin = only_match(app)
    assert rules == saved_rules
    assert origin == f"saved:{public_id}"
    page = client.get(location).get_data(as_text=True)
    assert "Rules card: Friday night" in page


def test_editing_or_deleting_the_saved_rules_never_changes_a_started_match(
    app: Flask, client: FlaskClient
) -> None:
    public_id = save(app, going_out_bonus=250)
    location = start(client, f"saved:{public_id}")
    before, _origin = only_match(app)

    edit = form_fields(client.get(f"/rules/{public_id}/edit").get_data(as_text=True))
    edited = changed(edit, name="Saturday", going_out_bonus=999, value_joker=75)
    assert client.post(f"/rules/{public_id}/edit", data=edited).status_code == 303
    assert only_match(app)[0] == before
    card = client.get(f"{location}/rules")  # the match's rules card, its own page
    page = " ".join(re.sub(r"<[^>]+>", " ", card.get_data(as_text=True)).split())
    assert "Going-out bonus +250" in page and "Joker 50" in page and "+999" not in page
    assert "Rules card: Friday night" in page

    assert client.post(f"/rules/{public_id}/delete").status_code == 303
    assert only_match(app)[0] == before
    assert client.get(location).status_code == 200


def test_presets_start_matches_exactly_as_before(app: Flask, client: FlaskClient) -> None:
    save(app)
    start(client, "whitnack")
    rules, origin = only_match(app)
    assert origin == "whitnack" and rules["id"] == "whitnack"


def test_saved_rules_that_are_gone_fall_back_to_the_classic_preset(
    app: Flask, client: FlaskClient
) -> None:
    start(client, "saved:gone")
    assert only_match(app)[1] == "classic"


def test_the_rules_card_page_links_to_a_new_match_with_these_rules(
    app: Flask, client: FlaskClient
) -> None:
    public_id = save(app)
    html = client.get(f"/rules/{public_id}").get_data(as_text=True)
    assert f'href="/matches/new?rules=saved:{public_id}"' in html


def test_the_match_page_links_its_rules_card_which_has_a_page_of_its_own(
    client: FlaskClient,
) -> None:
    location = start(client, "classic")
    public_id = location.rsplit("/", 1)[1]
    match_page = client.get(location).get_data(as_text=True)
    assert f'href="/m/{public_id}/rules"' in match_page
    assert 'class="rules-card"' not in match_page  # not carried by every visit and save
    card = client.get(f"{location}/rules")
    assert card.status_code == 200
    html = card.get_data(as_text=True)
    assert "<h1>Rules card: Classic</h1>" in html and 'class="rules-card"' in html
    assert f'href="/m/{public_id}"' in html  # back to the match
    assert client.get("/m/no-such-match/rules").status_code == 404
