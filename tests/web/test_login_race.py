"""A log-in is not undone by an answer to a request sent before it (the service worker's
first fetches of the shell, sent from the log-in page with its cookie)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from support import PASSWORD, give_role

from scorekeeper.services import clubs


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}  # as the browser tests: the log-in page makes a session


def session_cookie(client: Any) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return str(cookie.value)


@pytest.mark.parametrize("shell_page", ["/", "/offline", "/meld", "/rules"])
def test_an_answer_to_a_request_sent_before_the_log_in_sets_no_cookie(
    app: Flask, shell_page: str
) -> None:
    with app.app_context():
        club_id = clubs.create_club("Private Tuesdays", visibility="members").public_id
    give_role(app, club_id, "keeper", "owner")
    phone = app.test_client()
    page = phone.get("/login").get_data(as_text=True)
    before = session_cookie(phone)  # the cookie the worker's fetches are sent with
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    answer = phone.post(
        "/login", data={"username": "keeper", "password": PASSWORD, "csrf_token": token[1]}
    )
    assert answer.status_code == 303
    assert phone.get(f"/c/{club_id}").status_code == 200

    worker = app.test_client()  # the same phone's request, sent before the log-in
    worker.set_cookie("session", before)
    late = worker.get(shell_page)
    assert late.status_code == 200
    assert late.headers.getlist("Set-Cookie") == []  # nothing for the phone to keep
    assert phone.get(f"/c/{club_id}").status_code == 200  # still logged in
