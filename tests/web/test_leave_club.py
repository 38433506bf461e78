"""Leaving a club: any member may, for themselves, after a confirmation; the club's only
owner is told how to hand it on instead. The club's history stays; the club's log says
who left; the phone forgets the pages it kept for offline use."""

from __future__ import annotations

import html
import re

import pytest
from authz_world import build, client_as, snapshot
from flask import Flask
from sqlalchemy import func, select
from support import give_role
from test_club_log import events, lines

from scorekeeper.extensions import db
from scorekeeper.models import Account, Membership, PasswordReset


def member_role(app: Flask, username: str) -> str | None:
    with app.app_context():
        return db.session.scalar(
            select(Membership.role).join(Account).where(Account.username == username)
        )


def text(page: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


@pytest.mark.parametrize("username", ["reader", "scorer"])
def test_a_member_leaves_after_confirming_and_the_log_says_so(app: Flask, username: str) -> None:
    world = build(app)
    client = client_as(app, username)
    confirm = client.get(f"/c/{world.club}/leave")
    assert confirm.status_code == 200
    page = text(confirm.get_data(as_text=True))
    role = {"reader": "member", "scorer": "scorer"}[username]
    assert f"You are in it as {role}." in page and "Leave the club" in page
    assert member_role(app, username) == role  # the page alone changes nothing

    left = client.post(f"/c/{world.club}/leave")
    assert left.status_code == 303 and left.headers["Location"] == "/account"
    account = text(client.get("/account").get_data(as_text=True))
    assert "You left Tuesday." in account and "You are in no club yet" in account
    assert member_role(app, username) is None
    assert client.get(f"/c/{world.club}").status_code == 403  # members-only, closed now
    assert events(app, world.club)[-1] == (
        "member_removed", username, {"member": username, "role": role, "left": True},
    )  # fmt: skip
    owner = client_as(app, "owner")
    assert lines(owner.get(f"/c/{world.club}/log").get_data(as_text=True))[0].endswith(
        f"{username} ({role}) left the club."
    )
    # the club's history stays: its match, its players
    assert owner.get(f"/m/{world.match}").status_code == 200


def test_leaving_tells_the_phone_to_forget_its_offline_pages(app: Flask) -> None:
    world = build(app)
    client = client_as(app, "reader")
    client.post(f"/c/{world.club}/leave")
    with client.session_transaction() as session:
        assert session.get("clear_offline") is True


def test_the_reset_links_an_owner_made_for_a_member_go_when_they_leave(app: Flask) -> None:
    world = build(app)  # the owner made "reader" a reset link
    client_as(app, "reader").post(f"/c/{world.club}/leave")
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(PasswordReset)) == 0
    assert client_as(app, None).get(f"/reset/{world.reset_token}").status_code in (404, 410)


def test_the_only_owner_is_told_how_to_hand_the_club_on_and_cannot_leave(app: Flask) -> None:
    world = build(app)
    client = client_as(app, "owner")
    page = client.get(f"/c/{world.club}/leave").get_data(as_text=True)
    assert "You are its only owner" in text(page)
    assert f'action="/c/{world.club}/leave"' not in page  # no button to leave
    assert f'href="/c/{world.club}/members"' in page and f'href="/c/{world.club}/delete"' in page
    before = snapshot(app)
    refused = client.post(f"/c/{world.club}/leave")
    assert refused.status_code == 422
    assert "You are its only owner" in text(refused.get_data(as_text=True))
    assert snapshot(app) == before  # still the owner; nothing logged


def test_one_of_two_owners_may_leave(app: Flask) -> None:
    world = build(app)
    give_role(app, world.club, "second", "owner")
    client = client_as(app, "second")
    assert "Leave the club" in text(client.get(f"/c/{world.club}/leave").get_data(as_text=True))
    assert client.post(f"/c/{world.club}/leave").status_code == 303
    assert member_role(app, "second") is None and member_role(app, "owner") == "owner"


@pytest.mark.parametrize("who", [None, "stranger"])
def test_only_a_member_can_leave(app: Flask, who: str | None) -> None:
    world = build(app)
    before = snapshot(app)
    client = client_as(app, who)
    for answer in (client.get(f"/c/{world.club}/leave"), client.post(f"/c/{world.club}/leave")):
        assert answer.status_code == 403 or "/login" in answer.headers.get("Location", "")
    assert snapshot(app) == before


def test_leaving_twice_from_two_tabs_leaves_once(app: Flask) -> None:
    world = build(app, visibility="public")  # a public club still opens its pages
    client = client_as(app, "reader")
    assert client.post(f"/c/{world.club}/leave").status_code == 303
    assert client.post(f"/c/{world.club}/leave").status_code == 403
    assert [e for e in events(app, world.club) if e[0] == "member_removed"] == [
        ("member_removed", "reader", {"member": "reader", "role": "member", "left": True})
    ]


def test_the_account_page_offers_to_leave_each_club(app: Flask) -> None:
    world = build(app)
    page = client_as(app, "scorer").get("/account").get_data(as_text=True)
    assert f'href="/c/{world.club}/leave"' in page
    assert 'Leave<span class="visually-hidden"> Tuesday</span>' in page


def test_the_leave_page_reads_in_russian(app: Flask) -> None:
    world = build(app)
    client = client_as(app, "reader")
    page = client.get(f"/c/{world.club}/leave", headers={"Accept-Language": "ru"})
    said = text(page.get_data(as_text=True))
    assert "Leave the club" not in said and "You are in it as" not in said


@pytest.mark.parametrize("language", ["en", "bs", "cs", "ru"])
def test_a_member_who_left_is_said_apart_from_one_taken_out(app: Flask, language: str) -> None:
    from datetime import UTC, datetime

    from scorekeeper.services.club_trail import Entry
    from scorekeeper.web.clubs.log import said

    def sentence(details: dict[str, object], lang: str) -> str:
        with app.test_request_context("/", headers={"Accept-Language": lang}):
            return str(said(Entry(1, "member_removed", datetime.now(UTC), "ana", details)))

    left = {"member": "ana", "role": "scorer", "left": True}
    taken = {"member": "ana", "role": "scorer"}
    assert sentence(left, language) != sentence(taken, language)
    assert "ana" in sentence(left, language) and sentence(left, language).endswith(".")
    if language == "en":
        assert sentence(left, "en") == "ana (scorer) left the club."
    else:
        assert sentence(left, language) != sentence(left, "en")


def test_taken_out_by_an_owner_while_leaving_is_said_not_an_error(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy import delete

    from scorekeeper.services import memberships

    world = build(app)
    leave = memberships.remove

    def taken_out_first(member: Membership, **kwargs: object) -> None:
        # an owner's "take out" committed between this request's read and its turn
        db.session.execute(delete(Membership).where(Membership.id == member.id))
        leave(member, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(memberships, "remove", taken_out_first)
    client = client_as(app, "reader")
    answer = client.post(f"/c/{world.club}/leave")
    assert answer.status_code == 303 and answer.headers["Location"] == "/account"
    assert "This account is no longer in the club." in text(client.get("/account").get_data(True))
    assert "member_removed" not in [kind for kind, *_rest in events(app, world.club)]
