"""The match pages with CSRF protection on, as in production."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    SIDE_A_COUNTS,
    SIDE_B_POINTS,
    deal_count,
    deal_form_data,
    hidden_fields,
    match_count,
    new_match_data,
    show,
    totals,
)
from sqlalchemy import select
from support import csrf_token_of

from scorekeeper.extensions import db
from scorekeeper.models import Match

FRIENDLY = "This page was open too long or came from elsewhere. Reload it and try again."


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}


def _started(client: FlaskClient) -> str:
    page = client.get("/matches/new").get_data(as_text=True)
    data = {**new_match_data(), "csrf_token": csrf_token_of(page)}
    response = client.post("/matches", data=data)
    assert response.status_code == 303
    return response.headers["Location"].removeprefix("/m/")


def _assert_refused(response: Any) -> None:
    assert response.status_code == 400
    assert FRIENDLY in response.get_data(as_text=True)


def test_starting_a_match_without_the_token_is_refused_with_a_friendly_page(
    app: Flask, client: FlaskClient
) -> None:
    _assert_refused(client.post("/matches", data=new_match_data()))
    _assert_refused(client.post("/matches", data={**new_match_data(), "csrf_token": "forged"}))
    assert match_count(app) == 0


def test_starting_a_match_with_the_token_from_the_page_works(
    app: Flask, client: FlaskClient
) -> None:
    _started(client)
    assert match_count(app) == 1


def test_a_deal_without_the_token_is_refused_and_nothing_is_saved(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _started(client)
    guards = hidden_fields(show(client, public_id))
    del guards["csrf_token"]
    data = {**guards, **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    _assert_refused(client.post(f"/m/{public_id}/deals", data=data))
    _assert_refused(client.post(f"/m/{public_id}/deals", data=data, headers={"HX-Request": "true"}))
    assert deal_count(app, public_id) == 0


def test_a_deal_with_the_token_from_the_form_is_saved(app: Flask, client: FlaskClient) -> None:
    public_id = _started(client)
    guards = hidden_fields(show(client, public_id))
    assert guards["csrf_token"]
    data = {**guards, **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert totals(show(client, public_id)) == [3990, 510]


def test_htmx_sends_the_token_in_the_x_csrftoken_header_and_that_works(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _started(client)
    page = show(client, public_id)
    header_token = csrf_token_of(page[page.index("<body") :].split('name="csrf_token"')[0])
    guards = hidden_fields(page)
    del guards["csrf_token"]
    headers = {"HX-Request": "true", "X-CSRFToken": header_token}
    data = {**guards, **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    preview = client.post(f"/m/{public_id}/preview", data=data, headers=headers)
    assert preview.status_code == 200
    assert "+3990" in preview.get_data(as_text=True)
    response = client.post(f"/m/{public_id}/deals", data=data, headers=headers)
    assert response.status_code == 200
    assert totals(response.get_data(as_text=True)) == [3990, 510]
    assert deal_count(app, public_id) == 1


def test_removing_correcting_and_reopening_need_the_token_too(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _started(client)
    page = show(client, public_id)
    data = {**hidden_fields(page), **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    client.post(f"/m/{public_id}/deals", data=data)
    _assert_refused(client.post(f"/m/{public_id}/deals/1/remove"))
    _assert_refused(client.post(f"/m/{public_id}/deals/1", data=deal_form_data({}, {})))
    _assert_refused(client.post(f"/m/{public_id}/reopen"))
    _assert_refused(client.post(f"/m/{public_id}/preview", data=deal_form_data({}, {})))
    assert totals(show(client, public_id)) == [3990, 510]
    confirm = client.get(f"/m/{public_id}/deals/1/remove").get_data(as_text=True)
    token = csrf_token_of(confirm.split("<form")[1])
    response = client.post(f"/m/{public_id}/deals/1/remove", data={"csrf_token": token})
    assert response.status_code == 303
    assert deal_count(app, public_id) == 0


def test_a_post_to_a_match_or_a_page_that_is_not_there_is_404_or_405_not_a_token_error(
    app: Flask, client: FlaskClient
) -> None:
    """Asked without a form token (an onlooker trying the scoring URLs with the token of
    the watching link, a mistyped address), the answer is what a GET would say: nothing is
    there (404), or nothing takes a post there (405); a real match still asks for its token."""
    public_id = _started(client)
    with app.app_context():
        token = db.session.scalar(select(Match.onlooker_token).where(Match.public_id == public_id))
    watcher = app.test_client()
    data = deal_form_data({"melded_points": 100}, {"melded_points": 50}, expected_deal="1")
    for url in (f"/m/{token}/deals", f"/m/{token}/deals/1", f"/m/{token}/reopen", "/nowhere"):
        assert watcher.post(url, data=data).status_code == 404, url
    assert watcher.post(f"/watch/{token}", data=data).status_code == 405
    assert watcher.post(f"/m/{public_id}/deals", data=data).status_code == 400
    assert deal_count(app, public_id) == 0
