"""A log-in is not undone by an answer to a request sent before it (the service worker's
first fetches of the shell, sent from the log-in page with its cookie), and the forms
shown after a log-in, a sign-up or a log-out are accepted whichever answer came last."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from helpers import new_match_data
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


def _signed_in(phone: Any, way: str) -> None:
    """Log in (an account of the club's) or sign up, as a phone does: the form's token."""
    page = phone.get(f"/{way}").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    who = {"username": "keeper" if way == "login" else "newcomer", "password": PASSWORD}
    answer = phone.post(f"/{way}", data={**who, "csrf_token": token[1]})
    assert answer.status_code == 303


def _shell_fetched(app: Flask, cookie: str, shell_page: str) -> tuple[Any, Any]:
    """The service worker's fetch of a shell page, sent with ``cookie``: its client and
    its answer."""
    worker = app.test_client()
    worker.set_cookie("session", cookie)
    late = worker.get(shell_page)
    assert late.status_code == 200
    return worker, late


def _keep_if_last(phone: Any, worker: Any, late: Any) -> None:
    """The worker's answer came last: if it set the cookie, that is the one kept."""
    if late.headers.getlist("Set-Cookie"):
        phone.set_cookie("session", session_cookie(worker))


@pytest.mark.parametrize("way", ["login", "signup"])
@pytest.mark.parametrize("shell_page", ["/", "/offline", "/meld", "/rules"])
def test_a_form_shown_after_the_log_in_is_accepted_whichever_answer_came_last(
    app: Flask, way: str, shell_page: str
) -> None:
    """After a log-in or sign-up, the phone's next page and the service worker's fetches
    of the shell leave with the log-in's cookie, and each answer may write the session
    (the next page's CSRF token, the welcome shown). Whichever of them the phone keeps,
    the next page's forms must be accepted: the token must not differ between them. It
    did, made anew by each, and a newcomer's first club was refused ("This page was open
    too long") when a worker's answer came last."""
    with app.app_context():
        club_id = clubs.create_club("Private Tuesdays", visibility="members").public_id
    give_role(app, club_id, "keeper", "owner")
    phone = app.test_client()
    _signed_in(phone, way)
    signed_in = session_cookie(phone)

    worker, late = _shell_fetched(app, signed_in, shell_page)  # as the next page is
    page = phone.get("/clubs").get_data(as_text=True)
    token = re.search(
        r'action="/clubs".*?name="csrf_token" type="hidden" value="([^"]+)"', page, re.S
    )
    assert token is not None
    _keep_if_last(phone, worker, late)
    club = {
        "name": "Thursday",
        "default_rules": "classic",
        "min_games": "3",
        "visibility": "members",
    }
    made = phone.post("/clubs", data={"csrf_token": token[1], **club})
    assert made.status_code == 303, made.status_code


@pytest.mark.parametrize("shell_page", ["/", "/offline", "/meld", "/rules"])
def test_a_form_shown_after_the_log_out_is_accepted_whichever_answer_came_last(
    app: Flask, shell_page: str
) -> None:
    """The same after a log-out, which clears the session: the next page and the service
    worker's fetches of the shell leave with its cookie. A match started on this phone
    right after logging out was refused when a worker's answer came last."""
    with app.app_context():
        club_id = clubs.create_club("Private Tuesdays", visibility="members").public_id
    give_role(app, club_id, "keeper", "owner")
    phone = app.test_client()
    _signed_in(phone, "login")
    page = phone.get("/account").get_data(as_text=True)
    token = re.search(
        r'action="/logout".*?name="csrf_token" type="hidden" value="([^"]+)"', page, re.S
    )
    assert token is not None
    assert phone.post("/logout", data={"csrf_token": token[1]}).status_code == 303
    logged_out = session_cookie(phone)

    worker, late = _shell_fetched(app, logged_out, shell_page)  # as the next page is
    page = phone.get("/matches/new").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    _keep_if_last(phone, worker, late)
    started = phone.post(
        "/matches",
        data={"csrf_token": token[1], **new_match_data(names=["Ann", "Bob", "Cid", "Dee"])},
    )
    assert started.status_code == 303, started.status_code
