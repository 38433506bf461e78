"""Faults get a clear answer and nothing typed is lost: huge numbers, NUL characters, and
a database that cannot store (disk full, read-only), on SQLite and on PostgreSQL."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_sqlalchemy.session import Session
from helpers import (
    HX,
    SIDE_A_COUNTS,
    SIDE_B_POINTS,
    assert_refused_beside,
    deal_count,
    deal_form_data,
    enter_deal,
    hidden_fields,
    start_match,
    totals,
)
from htmltree import parse
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from support import give_role, signed_in_client
from test_rules_support import changed, error_beside, form_fields

from scorekeeper.database import UnstorableText
from scorekeeper.extensions import db
from scorekeeper.services import clubs

HUGE = "9" * 310
NOT_STORED = "The server could not store this"


def _value(html: str, name: str) -> str:
    found = parse(html).find_all("input", name=name)
    assert found, f"no input {name}"
    return found[0].attrs.get("value", "")


# --- numbers no float holds -------------------------------------------------------------


def test_a_310_digit_number_in_a_deal_is_refused_beside_its_field(client: FlaskClient) -> None:
    public_id = start_match(client)
    response = enter_deal(client, public_id, {"melded_points": HUGE}, {})
    assert_refused_beside(
        response, "sides-0-melded_points", "Enter a whole number from 0 to 1000000."
    )
    assert _value(response.get_data(as_text=True), "sides-0-melded_points") == HUGE


def test_a_310_digit_number_in_a_correction_or_a_preview_is_refused_beside_its_field(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    page = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data({"books_clean": HUGE}, {})}
    response = client.post(f"/m/{public_id}/deals/1", data=data)
    assert_refused_beside(response, "sides-0-books_clean", "Enter a whole number from 0 to")
    preview = client.post(f"/m/{public_id}/preview?deal=2", data=data, headers=HX)
    assert preview.status_code == 200
    assert "Enter a whole number from 0 to" in preview.get_data(as_text=True)


def test_a_310_digit_minimum_of_games_is_refused_beside_its_field(app: Flask) -> None:
    client = signed_in_client(app)  # starting a club and its settings need an account
    data = {"name": "Tuesday", "default_rules": "classic", "min_games": HUGE}
    message = "Enter a whole number from 0 to 100."
    assert_refused_beside(client.post("/clubs", data=data), "min_games", message)
    with app.app_context():
        club_id = clubs.create_club("Friday").public_id
    give_role(app, club_id, "owner", "owner")
    response = client.post(f"/c/{club_id}/settings", data=data, headers=HX)
    assert_refused_beside(response, "min_games", message, status=200)


# --- digits grouped with underscores -------------------------------------------------------
# Python's int() reads "1_0" as 10: a slip of the thumb was stored as a number.

UNDERSCORED = "1_0"


def test_digits_with_an_underscore_in_a_deal_are_refused_beside_their_field(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    response = enter_deal(client, public_id, {"melded_points": UNDERSCORED}, {})
    assert_refused_beside(
        response, "sides-0-melded_points", "Enter a whole number from 0 to 1000000."
    )
    assert deal_count(app, public_id) == 0


def test_digits_with_an_underscore_in_a_club_or_an_invitation_are_refused(app: Flask) -> None:
    client = signed_in_client(app)
    data = {"name": "Tuesday", "default_rules": "classic", "min_games": UNDERSCORED}
    assert_refused_beside(
        client.post("/clubs", data=data), "min_games", "Enter a whole number from 0 to 100."
    )
    with app.app_context():
        club_id = clubs.create_club("Friday").public_id
    give_role(app, club_id, "owner", "owner")
    answer = client.post(f"/c/{club_id}/invitations", data={"role": "member", "uses": "1_0"})
    assert_refused_beside(answer, "uses", "Enter a number from 1 to 50.")


def test_digits_with_an_underscore_in_house_rules_are_refused_beside_their_field(
    app: Flask,
) -> None:
    client = signed_in_client(app)  # house rules are saved by an account
    fields = form_fields(client.get("/rules/new?from=classic").get_data(as_text=True))
    response = client.post("/rules", data=changed(fields, value_joker=UNDERSCORED))
    assert response.status_code == 422
    beside = error_beside(response.get_data(as_text=True), "value_joker")
    assert "Enter a whole number, like 50 or -100." in beside


# --- NUL characters ----------------------------------------------------------------------


def test_a_nul_in_a_player_search_is_refused_with_a_page_that_names_it(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        club_id = clubs.create_club("Tuesday").public_id
    response = client.get(f"/c/{club_id}/players?q=%00")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "“q” holds a character that cannot be stored (NUL)" in html
    assert client.get(f"/c/{club_id}/players?q=An").status_code == 200


def test_a_nul_in_a_name_is_refused_beside_its_field_and_in_an_id_finds_nothing(
    app: Flask,
) -> None:
    client = signed_in_client(app)
    response = client.post("/clubs", data={"name": "Tues\x00day", "min_games": "3"})
    assert_refused_beside(response, "name", "Use letters, digits and spaces only.")
    with app.app_context():
        assert clubs.all_clubs() == []
    assert client.get("/m/abc%00def").status_code == 404


def test_text_with_a_nul_never_reaches_the_database_whatever_the_caller(app: Flask) -> None:
    with app.app_context():
        with pytest.raises(UnstorableText):
            clubs.create_club("Tues\x00day")
        db.session.rollback()
        assert clubs.all_clubs() == []


def test_a_nul_in_the_api_json_is_refused_with_its_field(client: FlaskClient) -> None:
    body = {"rules": "classic", "sides": [{"melded_points": 5}, {"books": {"clean\x00": 1}}]}
    response = client.post("/api/v1/score", json=body)
    assert response.status_code == 422
    assert response.json == {
        "errors": [
            {
                "field": "sides[1].books",
                "message": "This text holds a character that cannot be stored (NUL).",
            }
        ]
    }


# --- a database that cannot store ---------------------------------------------------------


def _disk_full() -> OperationalError:
    return OperationalError("COMMIT", {}, sqlite3.OperationalError("database or disk is full"))


@pytest.fixture
def failing_commits(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """``fail(n)``: the next ``n`` commits raise what SQLite raises when the disk is full."""
    left = [0]
    commit = Session.commit

    def maybe_failing(self: Session) -> None:
        if left[0]:
            left[0] -= 1
            raise _disk_full()
        commit(self)

    monkeypatch.setattr(Session, "commit", maybe_failing)

    def fail(times: int) -> None:
        left[0] = times

    return fail


@pytest.fixture
def read_only(app: Flask) -> Iterator[Callable[[bool], None]]:
    """``read_only(True)``: every new connection can read but not write, as a database
    file made read-only (SQLite) or a read-only server (PostgreSQL) does."""
    with app.app_context():
        engine = db.engine

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        if engine.dialect.name == "sqlite":
            cursor.execute("PRAGMA query_only = 1")
        else:
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            dbapi_connection.commit()
        cursor.close()

    def switch(on: bool) -> None:
        if on:
            event.listen(engine, "connect", on_connect)
        elif event.contains(engine, "connect", on_connect):
            event.remove(engine, "connect", on_connect)
        engine.dispose()  # the pooled connections are made again, with or without

    yield switch
    switch(False)


def _deal_sent(client: FlaskClient, public_id: str, headers: dict[str, str] | None = None) -> Any:
    page = client.get(f"/m/{public_id}").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    return data, client.post(f"/m/{public_id}/deals", data=data, headers=headers or {})


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_a_deal_the_disk_cannot_hold_comes_back_with_its_numbers_and_saves_once_on_resend(
    app: Flask,
    client: FlaskClient,
    failing_commits: Callable[[int], None],
    caplog: pytest.LogCaptureFixture,
    htmx: bool,
) -> None:
    public_id = start_match(client)
    failing_commits(1)
    with caplog.at_level(logging.ERROR):
        data, response = _deal_sent(client, public_id, HX if htmx else None)
    html = response.get_data(as_text=True)
    assert response.status_code == (200 if htmx else 503)
    assert NOT_STORED in html and "what you typed is still here" in html
    assert _value(html, "sides-0-melded_8toK") == "20"
    assert _value(html, "sides-1-melded_points") == "185"
    assert _value(html, "submission_key") == data["submission_key"]
    assert any("database or disk is full" in r.getMessage() for r in caplog.records)
    assert deal_count(app, public_id) == 0
    # The fault clears; the same form, sent again, is saved (once).
    resent = {**hidden_fields(html), **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    assert client.post(f"/m/{public_id}/deals", data=resent).status_code == 303
    assert client.post(f"/m/{public_id}/deals", data=resent).status_code == 303
    assert deal_count(app, public_id) == 1
    html = client.get(f"/m/{public_id}").get_data(as_text=True)
    assert totals(html) == [3990, 510]


def test_a_correction_sent_to_a_read_only_database_comes_back_and_saves_once_it_is_writable(
    app: Flask, client: FlaskClient, read_only: Callable[[bool], None]
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    page = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data({"melded_points": 60}, {}, went_out=None)}
    read_only(True)
    response = client.post(f"/m/{public_id}/deals/1", data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 503
    assert NOT_STORED in html
    assert _value(html, "sides-0-melded_points") == "60"
    # Reading still works meanwhile: the match page and a live preview.
    assert client.get(f"/m/{public_id}").status_code == 200
    assert client.post(f"/m/{public_id}/preview?deal=1", data=data, headers=HX).status_code == 200
    read_only(False)
    assert client.post(f"/m/{public_id}/deals/1", data=data).status_code == 303
    assert totals(client.get(f"/m/{public_id}").get_data(as_text=True)) == [60, 0]


def test_any_other_save_that_cannot_be_stored_answers_with_a_page_not_a_500(
    app: Flask, read_only: Callable[[bool], None]
) -> None:
    client = signed_in_client(app)  # logged in while the database can store a session
    read_only(True)
    response = client.post("/clubs", data={"name": "Tuesday", "min_games": "3"})
    assert response.status_code == 503
    assert "The server could not store or read this just now" in response.get_data(as_text=True)
    fragment = client.post("/clubs", data={"name": "Tuesday", "min_games": "3"}, headers=HX)
    assert fragment.status_code == 200
    assert fragment.headers["HX-Reswap"] == "afterbegin"
    assert 'role="alert"' in fragment.get_data(as_text=True)
    read_only(False)
    assert client.post("/clubs", data={"name": "Tuesday", "min_games": "3"}).status_code == 303


def test_the_first_field_with_a_problem_takes_the_focus(app: Flask, client: FlaskClient) -> None:
    # A form refused by the server came back with the focus at the top of the page: its
    # problems were tied to their fields, but nothing moved to them or said them.
    import re

    def focused(html: str) -> list[str]:
        return re.findall(r'<(?:input|select|textarea)[^>]*\bautofocus\b[^>]*\bid="([^"]+)"', html)

    club = signed_in_client(app)
    data = {"name": "", "default_rules": "classic", "min_games": "lots"}
    assert focused(club.post("/clubs", data=data).get_data(as_text=True)) == ["name"]
    fields = form_fields(club.get("/rules/new?from=classic").get_data(as_text=True))
    refused = club.post("/rules", data=changed(fields, value_joker="x", going_out_bonus="y"))
    assert focused(refused.get_data(as_text=True)) == ["value_joker"]
    assert focused(client.get("/login").get_data(as_text=True)) == []  # nothing refused yet
