"""Accounts: sign up, log in (a new session), log out (ended on the server), remember me,
password rules and hashing, changing and resetting passwords."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from flask import Flask
from sqlalchemy import func, select
from support import PASSWORD, ensure_account, log_in

from scorekeeper.extensions import db
from scorekeeper.models import Account, AccountSession
from scorekeeper.services import accounts


def sessions(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(AccountSession))


def cookie(client, name: str) -> str | None:
    found = client.get_cookie(name)
    return found.value if found else None


def logged_in(client) -> bool:
    return client.get("/account").status_code == 200


def test_signing_up_logs_in_and_the_username_is_unique_whatever_its_case(app: Flask) -> None:
    client = app.test_client()
    response = client.post("/signup", data={"username": "Ana", "password": "eight ch"})
    assert response.status_code == 303 and logged_in(client)
    again = app.test_client().post("/signup", data={"username": "ANA", "password": PASSWORD})
    assert again.status_code == 422 and "This username is taken" in again.get_data(as_text=True)


def test_a_new_account_is_told_where_clubs_are_unless_it_is_on_its_way_to_one(
    app: Flask,
) -> None:
    # Signed up, an organizer landed on a home page with "Start a new match" only.
    client = app.test_client()
    client.post("/signup", data={"username": "Ana", "password": PASSWORD})
    home = client.get("/").get_data(as_text=True)
    assert "Welcome, Ana. Start your club under Clubs, or open the invitation link" in home
    joining = app.test_client()
    data = {"username": "Bo", "password": PASSWORD, "next": "/join/sometoken"}
    assert joining.post("/signup", data=data).headers["Location"] == "/join/sometoken"
    page = joining.get("/").get_data(as_text=True)
    assert "Welcome, Bo." in page and "Start your club" not in page


def test_a_username_that_could_pass_for_another_is_refused(app: Flask) -> None:
    # Each was accepted beside an "Ann": a Cyrillic А, a full-width Ａ, a zero-width space,
    # a right-to-left override. (Sign-ups are limited per address: most go to the service.)
    client = app.test_client()
    assert client.post("/signup", data={"username": "Ann", "password": PASSWORD}).status_code == 303
    answer = app.test_client().post("/signup", data={"username": "\u0410nn", "password": PASSWORD})
    assert answer.status_code == 422
    assert "one alphabet in each word" in answer.get_data(as_text=True)
    with app.app_context():
        for name in ("\uff21nn", "Ann\u200b", "\u202eAnn", "Jo\u200dhn"):
            with pytest.raises(accounts.AccountError):
                accounts.sign_up(name, PASSWORD)
        assert db.session.scalar(select(func.count()).select_from(Account)) == 1
        # a name in one alphabet, or in two words of two, is anybody's
        for name in ("Иван Smith", "Ελένη", "Zoë", "Jose\u0301", "O'Brien-Müller"):
            assert accounts.sign_up(name, PASSWORD).username == name


def test_a_short_password_is_refused_beside_the_field_and_no_account_is_made(app: Flask) -> None:
    response = app.test_client().post("/signup", data={"username": "Bo", "password": "seven77"})
    assert response.status_code == 422
    assert "Use at least 8 characters." in response.get_data(as_text=True)
    with app.app_context():
        assert accounts.find("Bo") is None


def test_the_forms_allow_paste_and_tell_password_managers_what_each_field_is(
    app: Flask,
) -> None:
    client = app.test_client()
    login = client.get("/login").get_data(as_text=True)
    signup = client.get("/signup").get_data(as_text=True)
    assert 'autocomplete="username"' in login and 'autocomplete="current-password"' in login
    assert 'autocomplete="new-password"' in signup
    assert "onpaste" not in login + signup and "pattern=" not in signup


def test_passwords_are_hashed_with_argon2id_at_the_owasp_parameters(app: Flask) -> None:
    ensure_account(app, "ana")
    with app.app_context():
        stored = accounts.find("ana").password_hash  # type: ignore[union-attr]
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert PASSWORD not in stored


def test_a_hash_made_with_weaker_parameters_is_remade_at_log_in(app: Flask) -> None:
    ensure_account(app, "ana")
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORD)
    with app.app_context():
        accounts.find("ana").password_hash = weak  # type: ignore[union-attr]
        db.session.commit()
    log_in(app.test_client(), "ana")
    with app.app_context():
        assert accounts.find("ana").password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")  # type: ignore[union-attr]


def test_a_wrong_password_says_so_without_telling_which_part_was_wrong(app: Flask) -> None:
    ensure_account(app, "ana")
    client = app.test_client()
    for name in ("ana", "nobody"):
        page = client.post("/login", data={"username": name, "password": "not the one"})
        assert page.status_code == 422
        assert "Wrong username or password." in page.get_data(as_text=True)
    assert not logged_in(client)


def test_logging_in_starts_a_new_session_and_drops_what_was_there_before(app: Flask) -> None:
    client = app.test_client()
    client.get("/matches/new")  # a form page: the anonymous session gets a CSRF token
    before = cookie(client, "session")
    with client.session_transaction() as anonymous:
        anonymous["planted"] = "by someone else"
    log_in(client, "ana")
    assert cookie(client, "session") != before
    with client.session_transaction() as current:
        assert "planted" not in current
    assert sessions(app) == 1


def test_logging_out_ends_the_session_on_the_server_so_a_copied_cookie_stops_working(
    app: Flask,
) -> None:
    client = app.test_client()
    log_in(client, "ana")
    stolen = cookie(client, "session")
    assert client.post("/logout").status_code == 303
    assert sessions(app) == 0
    thief = app.test_client()
    thief.set_cookie("session", stolen)  # type: ignore[arg-type]
    assert not logged_in(thief)


def test_remember_me_survives_the_browser_closing_but_not_logging_out(app: Flask) -> None:
    ensure_account(app, "ana")
    client = app.test_client()
    client.post("/login", data={"username": "ana", "password": PASSWORD, "remember": "y"})
    token = cookie(client, "remember_token")
    assert token
    reopened = app.test_client()  # no session cookie, only the remember-me one
    reopened.set_cookie("remember_token", token)
    assert logged_in(reopened)
    client.post("/logout")
    later = app.test_client()
    later.set_cookie("remember_token", token)
    assert not logged_in(later)


def test_changing_the_password_logs_out_every_other_device(app: Flask) -> None:
    phone, laptop = app.test_client(), app.test_client()
    log_in(phone, "ana")
    log_in(laptop, "ana")
    wrong = laptop.post("/account", data={"current": "not it", "new": "a new password"})
    assert "This is not your current password." in wrong.get_data(as_text=True)
    done = laptop.post("/account", data={"current": PASSWORD, "new": "a new password"})
    assert done.status_code == 303
    assert logged_in(laptop) and not logged_in(phone)
    with app.app_context():
        assert accounts.authenticate("ana", "a new password") is not None


#: Addresses a "next" may hold that lead off the site: a tab or a line break inside is
#: dropped by browsers and Werkzeug, so "/<tab>/evil.example" became "//evil.example", and
#: a line break in the Location header was a server error.
FOREIGN = (
    "https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example/phish",
    "/\n/evil.example", "/\r\n/x", " //evil.example", "/\x00/x", "/\u2028/x",
)  # fmt: skip


def test_a_next_address_on_another_site_is_never_followed(app: Flask) -> None:
    ensure_account(app, "ana")
    for target in FOREIGN:
        response = app.test_client().post(
            "/login", data={"username": "ana", "password": PASSWORD, "next": target}
        )
        assert response.status_code == 303, target
        assert response.headers["Location"] == "/", target
        # and the language switcher's "next" (no log-in needed)
        switched = app.test_client().get("/language", query_string={"lang": "cs", "next": target})
        assert switched.status_code == 303 and switched.headers["Location"] == "/", target
    ok = app.test_client().post(
        "/login", data={"username": "ana", "password": PASSWORD, "next": "/clubs"}
    )
    assert ok.headers["Location"] == "/clubs"


def test_pages_that_need_an_account_send_a_visitor_to_log_in_and_back(app: Flask) -> None:
    response = app.test_client().get("/account")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login?next=/account")


def test_a_logged_in_account_that_lacks_a_role_sees_what_to_do(app: Flask) -> None:
    from support import give_role

    from scorekeeper.services import clubs

    with app.app_context():
        public_id = clubs.create_club("Tuesday").public_id
    give_role(app, public_id, "reader", "member")
    client = app.test_client()
    log_in(client, "reader")
    page = client.get(f"/c/{public_id}/settings")
    assert page.status_code == 403
    assert "Ask the club&#39;s owner" in page.get_data(as_text=True)


def test_accounts_keep_no_password_in_clear(app: Flask) -> None:
    ensure_account(app, "ana")
    with app.app_context():
        rows = db.session.execute(select(Account.__table__)).all()
    assert all(PASSWORD not in str(row) for row in rows)
