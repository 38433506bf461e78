"""Accounts meet the audit trail and the device: a scorer's correction is kept with the
account that made it and the history names it; one device cookie both labels a phone's
changes and lists its casual matches; a reader of a public club gets no cookie; deleting
a club takes its matches' trails with it."""

from __future__ import annotations

from authz_world import build, client_as, snapshot
from flask import Flask
from helpers import correct_deal, enter_deal, show, start_match
from sqlalchemy import func, select

from scorekeeper.extensions import db
from scorekeeper.models import Account, AuditEvent, Club
from scorekeeper.models import Match as MatchRow
from scorekeeper.web.actor import COOKIE

SMALL = {"books_clean": 1, "melded_points": 120}


def events_of(app: Flask, public_id: str) -> list[tuple[str, int | None, str, int | None]]:
    with app.app_context():
        query = (
            select(AuditEvent.kind, AuditEvent.deal_number, AuditEvent.actor, AuditEvent.account_id)
            .join(MatchRow, MatchRow.id == AuditEvent.match_id)
            .where(MatchRow.public_id == public_id)
            .order_by(AuditEvent.id)
        )
        return [tuple(row) for row in db.session.execute(query)]  # type: ignore[misc]


def account_pk(app: Flask, username: str) -> int:
    with app.app_context():
        found = db.session.scalar(select(Account.id).where(Account.username == username))
        assert found is not None
        return found


def test_a_scorers_correction_is_kept_with_the_account_and_the_history_names_it(
    app: Flask,
) -> None:
    world = build(app, visibility="members")
    scorer = client_as(app, "scorer")
    assert scorer.post(f"/m/{world.match}/reopen").status_code == 303
    response = correct_deal(scorer, world.match, 1, SMALL, SMALL, went_out=None)
    assert response.status_code == 303, response.get_data(as_text=True)[:400]
    me = account_pk(app, "scorer")
    assert events_of(app, world.match)[-2:] == [
        ("reopened", None, "scorer", me),
        ("corrected", 1, "scorer", me),
    ]
    page = show(scorer, world.match)
    assert "Deal 1 corrected at" in page and "by scorer:" in page
    assert "Match reopened for corrections at" in page
    # logged in, the history names the account: no "Name this phone" form
    assert 'name="name" maxlength="30"' not in page and "your account" in page
    # an owner who only reads it sees the same names
    reader_page = show(client_as(app, "reader"), world.match)
    assert "by scorer:" in reader_page


def test_a_casual_match_changed_while_logged_in_names_the_account_and_without_the_device(
    app: Flask,
) -> None:
    client = client_as(app, "ana")
    public_id = start_match(client)
    enter_deal(client, public_id, SMALL, SMALL)
    anonymous = app.test_client()
    anonymous.get(f"/m/{public_id}")
    anonymous.post(f"/m/{public_id}/device", data={"name": "Bo's phone"})
    enter_deal(anonymous, public_id, SMALL, SMALL)
    ana = account_pk(app, "ana")
    assert events_of(app, public_id) == [
        ("recorded", 1, "ana", ana),
        ("recorded", 2, "Bo's phone", None),
    ]
    page = show(anonymous, public_id)
    assert "Deal 1 entered at" in page and "by ana:" in page and "by Bo&#39;s phone:" in page


def test_one_device_cookie_lists_the_matches_and_keeps_the_phones_name(app: Flask) -> None:
    phone = app.test_client()
    first = start_match(phone)
    phone.post(f"/m/{first}/device", data={"name": "Ann's phone"})
    second = start_match(phone)
    home = phone.get("/").get_data(as_text=True)
    assert first in home and second in home
    names = {cookie.key for cookie in phone._cookies.values()}
    assert COOKIE in names and "scorekeeper_matches" not in names
    enter_deal(phone, second, SMALL, SMALL)  # the name survived the second match
    assert events_of(app, second) == [("recorded", 1, "Ann's phone", None)]
    assert first not in app.test_client().get("/").get_data(as_text=True)


def test_a_reader_of_a_public_clubs_match_gets_no_cookie_and_no_forms(app: Flask) -> None:
    world = build(app, visibility="public")
    visitor = app.test_client()
    response = visitor.get(f"/m/{world.match}")
    assert response.status_code == 200
    assert response.headers.getlist("Set-Cookie") == []
    html = response.get_data(as_text=True)
    assert "csrf_token" not in html and "Name this phone" not in html
    assert visitor.post(f"/m/{world.match}/device", data={"name": "x"}).status_code in (302, 303)


def test_an_owner_deletes_a_club_with_its_matches_and_their_trails(app: Flask) -> None:
    world = build(app, visibility="members")
    scorer = client_as(app, "scorer")
    scorer.post(f"/m/{world.match}/reopen")
    assert events_of(app, world.match)  # the match has a trail
    stranger = client_as(app, "stranger")
    theirs = start_match(stranger)
    enter_deal(stranger, theirs, SMALL, SMALL)
    before = snapshot(app)
    owner = client_as(app, "owner")
    wrong = owner.post(f"/c/{world.club}/delete", data={"confirm_name": "tuesday"})
    assert wrong.status_code == 422 and "exactly" in wrong.get_data(as_text=True)
    assert snapshot(app) == before
    done = owner.post(f"/c/{world.club}/delete", data={"confirm_name": "Tuesday"})
    assert done.status_code == 303
    with app.app_context():
        assert db.session.scalar(select(Club).where(Club.public_id == world.club)) is None
        left = db.session.scalar(select(func.count()).select_from(MatchRow))
        assert left == 1  # the stranger's casual match
    assert events_of(app, world.match) == []
    assert len(events_of(app, theirs)) == 1
    assert club_row_exists(app, world.other)


def club_row_exists(app: Flask, public_id: str) -> bool:
    with app.app_context():
        return db.session.scalar(select(Club.id).where(Club.public_id == public_id)) is not None
