"""Changing the rules of a new match with htmx swaps the seating choices too."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support import give_role, log_in

from scorekeeper.services import clubs

HX = {"HX-Request": "true"}


def _layout_options(html: str) -> list[str]:
    select = re.search(r'<select id="layout".*?</select>', html, re.S)
    assert select, "no layout select in the fragment"
    return re.findall(r'<option[^>]*value="([^"]+)"', select.group())


def _new_match_url(app: Flask, where: str) -> str:
    if where == "casual":
        return "/matches/new"
    with app.app_context():
        public_id = clubs.create_club("Tuesday").public_id
    give_role(app, public_id, "owner", "scorer")  # who starts club matches
    return f"/c/{public_id}/matches/new"


@pytest.mark.parametrize("where", ["casual", "club"])
def test_choosing_other_rules_offers_only_their_layouts(
    app: Flask, client: FlaskClient, where: str
) -> None:
    url = _new_match_url(app, where)
    if where == "club":
        log_in(client, "owner")
    response = client.get(f"{url}?rules=whitnack&layout=1%2B1%2B1", headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="new-match-page"')
    assert _layout_options(html) == ["2+2"]
    assert 'hx-target="#new-match-page"' in html
    assert html.count('name="side_') == 6  # two sides: a team name and two players each
