"""Public URLs take unguessable ids; anything malformed is a 404, on every database."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.services import clubs

JUNK = ["x%00y", "a" * 65, "%E2%98%83", "..%2F..", "1%20OR%201=1"]


@pytest.mark.parametrize("junk", JUNK)
@pytest.mark.parametrize(
    "path",
    [
        "/m/{}",
        "/m/{}/deals/1/edit",
        "/api/v1/matches/{}",
        "/c/{}",
        "/c/{}/standings.csv",
        "/c/{club}/p/{}",
        "/rules/{}",
        "/r/{}",
        "/meld?match={}",
    ],
)
def test_a_malformed_public_id_is_not_found_never_an_error(
    app: Flask, client: FlaskClient, path: str, junk: str
) -> None:
    with app.app_context():
        club = clubs.create_club("Tuesday").public_id
    response = client.get(path.format(junk, club=club))
    assert response.status_code in (404, 422), response.status_code
