"""Match URLs: only the unguessable public id opens a match; anything else is a 404."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import SIDE_A_COUNTS, SIDE_B_POINTS, deal_count, enter_deal, show, start_match
from htmltree import parse

from scorekeeper.extensions import db
from scorekeeper.models import Match as MatchRow

ROUTES = [
    ("GET", "/m/{id}"),
    ("POST", "/m/{id}/deals"),
    ("POST", "/m/{id}/preview"),
    ("GET", "/m/{id}/deals/1/edit"),
    ("POST", "/m/{id}/deals/1"),
    ("GET", "/m/{id}/deals/1/remove"),
    ("POST", "/m/{id}/deals/1/remove"),
    ("POST", "/m/{id}/reopen"),
]
UNKNOWN_IDS = ["doesNotExist123", "1", "a" * 65, "x%00y", "%E2%98%83", "..%2F..%2Fetc"]


@pytest.mark.parametrize("unknown", UNKNOWN_IDS)
@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_an_unknown_public_id_is_not_found_on_every_match_route(
    app: Flask, client: FlaskClient, method: str, route: str, unknown: str
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    response = client.open(route.format(id=unknown), method=method, data={})
    assert response.status_code == 404
    assert "There is nothing here" in response.get_data(as_text=True)
    assert deal_count(app, public_id) == 1


@pytest.mark.parametrize(("method", "route"), ROUTES[3:7])
@pytest.mark.parametrize("number", ["0", "2", "99999999999999999999", "-1"])
def test_a_deal_that_was_not_played_is_not_found(
    app: Flask, client: FlaskClient, method: str, route: str, number: str
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    response = client.open(
        route.format(id=public_id).replace("/deals/1", f"/deals/{number}"), method=method, data={}
    )
    assert response.status_code == 404
    assert deal_count(app, public_id) == 1


def test_the_integer_id_never_appears_in_a_match_url(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    with app.app_context():
        row = db.session.query(MatchRow).filter_by(public_id=public_id).one()
        integer_id = str(row.id)
    assert public_id != integer_id and len(public_id) >= 16
    html = show(client, public_id)
    tree = parse(html)
    urls = [
        n.attrs[a]
        for n in tree.iter()
        for a in ("href", "action", "hx-post", "hx-get", "formaction")
        if n.attrs.get(a, "").startswith("/m/")
    ]
    assert urls, "the match page links to itself"
    assert all(u.startswith(f"/m/{public_id}") for u in urls)
    assert not re.search(rf"/m/{integer_id}(?![\w-])", html)  # "/m/1-x…" is a public id
    assert client.get(f"/m/{integer_id}").status_code == 404
