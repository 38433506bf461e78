"""Closing an account: confirmed by its password; it leaves its clubs (each club's log
says so), every log-in ends, the account is deleted; what it did stays by its name. Its
clubs' only owner is refused, naming the clubs, and nothing changes."""

from __future__ import annotations

import html
import re

import pytest
from authz_world import build, client_as, snapshot
from flask import Flask
from sqlalchemy import func, select
from support import PASSWORD, account_id, give_role, log_in
from test_club_log import events

from scorekeeper.extensions import db
from scorekeeper.models import Account, AccountSession, Membership, RetiredUsername, SavedRuleSet


def text(page: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


def count(app: Flask, model: type, **where: object) -> int:
    with app.app_context():
        query = select(func.count()).select_from(model)
        for name, value in where.items():
            query = query.where(getattr(model, name) == value)
        return db.session.scalar(query) or 0


def test_a_member_closes_their_account_with_their_password(app: Flask) -> None:
    world = build(app)
    client = client_as(app, "reader")
    reader = account_id(app, "reader")
    page = text(client.get("/account/close").get_data(as_text=True))
    assert "Close your account?" in page and "You leave each of your clubs" in page
    assert count(app, Account, username="reader") == 1  # the page alone changes nothing

    closed = client.post("/account/close", data={"password": PASSWORD})
    assert closed.status_code == 303 and closed.headers["Location"] == "/"
    home = text(client.get("/").get_data(as_text=True))
    assert "Your account is closed." in home
    assert client.get("/account").status_code in (302, 303)  # logged out
    assert count(app, Account, username="reader") == 0
    assert count(app, AccountSession, account_id=reader) == 0
    assert count(app, Membership, account_id=reader) == 0
    kind, actor, details = events(app, world.club)[-1]
    assert (kind, actor, details) == (
        "member_removed", "reader", {"member": "reader", "role": "member", "left": True},
    )  # fmt: skip
    assert "reader (member) left the club." in text(
        client_as(app, "owner").get(f"/c/{world.club}/log").get_data(as_text=True)
    )
    # a log-in with the old password finds no account
    again = app.test_client().post("/login", data={"username": "reader", "password": PASSWORD})
    assert again.status_code == 422 and count(app, AccountSession, account_id=reader) == 0


def test_a_wrong_password_is_refused_beside_the_field_and_nothing_changes(app: Flask) -> None:
    build(app)
    before = snapshot(app)
    client = client_as(app, "reader")
    for password in ("not it", ""):
        refused = client.post("/account/close", data={"password": password})
        assert refused.status_code == 422
        page = refused.get_data(as_text=True)
        assert 'id="password-errors"' in page and 'aria-invalid="true"' in page
    assert "This is not your password." in text(
        client.post("/account/close", data={"password": "not it"}).get_data(as_text=True)
    )
    assert snapshot(app) == before
    assert client.get("/account").status_code == 200  # still logged in


def test_the_only_owner_of_a_club_is_refused_and_told_which(app: Flask) -> None:
    world = build(app)
    give_role(app, world.other, "owner", "member")  # a member of another club too
    before = snapshot(app)
    refused = client_as(app, "owner").post("/account/close", data={"password": PASSWORD})
    assert refused.status_code == 422
    assert "You are the only owner of Tuesday: make another member owner first" in text(
        refused.get_data(as_text=True)
    )
    assert snapshot(app) == before  # nothing left, nothing logged


def test_an_owner_who_hands_the_club_on_can_close_and_their_house_rules_stay(
    app: Flask,
) -> None:
    world = build(app)
    give_role(app, world.club, "second", "owner")
    client = client_as(app, "owner")
    assert client.post("/account/close", data={"password": PASSWORD}).status_code == 303
    assert count(app, Account, username="owner") == 0
    with app.app_context():
        rules = db.session.scalar(select(SavedRuleSet).where(SavedRuleSet.name == "Ours"))
        assert rules is not None and rules.account_id is None  # read-only, kept
    # the club's history names who played and scored as they were
    assert client_as(app, "second").get(f"/m/{world.match}").status_code == 200


def test_every_other_log_in_of_the_account_ends(app: Flask) -> None:
    build(app)
    phone, laptop = client_as(app, "scorer"), app.test_client()
    log_in(laptop, "scorer")
    assert laptop.get("/account").status_code == 200
    assert phone.post("/account/close", data={"password": PASSWORD}).status_code == 303
    assert laptop.get("/account").status_code in (302, 303)
    assert count(app, AccountSession) == 0


def test_closing_tells_the_phone_to_forget_its_offline_pages(app: Flask) -> None:
    build(app)
    client = client_as(app, "reader")
    client.post("/account/close", data={"password": PASSWORD})
    with client.session_transaction() as session:
        assert session.get("clear_offline") is True
        assert "_user_id" not in session


def test_a_visitor_is_sent_to_log_in(app: Flask) -> None:
    answer = app.test_client().get("/account/close")
    assert answer.status_code in (302, 303) and "/login" in answer.headers["Location"]


def test_the_account_page_leads_to_closing_and_it_reads_in_russian(app: Flask) -> None:
    build(app)
    client = client_as(app, "reader")
    assert 'href="/account/close"' in client.get("/account").get_data(as_text=True)
    page = client.get("/account/close", headers={"Accept-Language": "ru"})
    said = text(page.get_data(as_text=True))
    assert "Close your account" not in said and "You leave each" not in said


@pytest.mark.parametrize("language", ["bs", "cs", "ru"])
def test_the_only_owners_refusal_is_said_in_every_language(app: Flask, language: str) -> None:
    build(app)
    refused = client_as(app, "owner").post(
        "/account/close", data={"password": PASSWORD}, headers={"Accept-Language": language}
    )
    said = text(refused.get_data(as_text=True))
    assert "Tuesday" in said and "You are the only owner" not in said


def test_a_club_joined_while_closing_is_left_too_and_its_log_says_so(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorekeeper.services import clubs, memberships

    world = build(app)
    reader = account_id(app, "reader")
    checked = memberships.is_last_owner

    def joined_meanwhile(member: Membership) -> bool:
        # an invitation to the other club accepted between the read and the delete
        if not getattr(joined_meanwhile, "done", False):
            joined_meanwhile.done = True  # type: ignore[attr-defined]
            other = clubs.get_club(world.other)
            assert other is not None
            db.session.add(Membership(account_id=reader, club_id=other.id, role="scorer"))
            db.session.flush()
        return checked(member)

    monkeypatch.setattr(memberships, "is_last_owner", joined_meanwhile)
    closed = client_as(app, "reader").post("/account/close", data={"password": PASSWORD})
    assert closed.status_code == 303
    assert count(app, Membership, account_id=reader) == 0
    assert events(app, world.other)[-1] == (
        "member_removed", "reader", {"member": "reader", "role": "scorer", "left": True},
    )  # fmt: skip
    assert events(app, world.club)[-1][2] == {"member": "reader", "role": "member", "left": True}


def test_a_closed_accounts_username_cannot_be_signed_up_with_again(app: Flask) -> None:
    # The club's log still says "reader (member) left the club.": someone signing up as
    # "reader" afterwards would read there (and in the match trails) as its author.
    world = build(app)
    client_as(app, "reader").post("/account/close", data={"password": PASSWORD})
    assert count(app, RetiredUsername, username_key="reader") == 1
    before = snapshot(app)
    for name in ("reader", "READER", "  Reader "):
        answer = app.test_client().post("/signup", data={"username": name, "password": PASSWORD})
        page = answer.get_data(as_text=True)
        assert answer.status_code == 422
        said = text(page)
        assert "This username belonged to an account that was closed" in said
        # said beside the username field, which keeps what was typed
        assert re.search(r'id="username-errors"[^>]*><li>This username belonged', page)
        assert snapshot(app) == before
    assert "reader (member) left the club." in text(
        client_as(app, "owner").get(f"/c/{world.club}/log").get_data(as_text=True)
    )
    # another name is free, and an account still open keeps its own name to itself
    fresh = app.test_client().post("/signup", data={"username": "reader2", "password": PASSWORD})
    assert fresh.status_code == 303
    taken = app.test_client().post("/signup", data={"username": "owner", "password": PASSWORD})
    assert "This username is taken" in taken.get_data(as_text=True)


#: Words of the refusal and of the close page's warning, in each language.
RETIRED_SAID = {
    "bs": ("pripadalo računu koji je zatvoren", "niko se više ne može registrovati"),
    "cs": ("patřilo účtu, který byl zrušen", "nikdo se s ním už nemůže zaregistrovat"),
    "ru": ("принадлежало закрытому аккаунту", "никто больше не сможет зарегистрироваться"),
}


@pytest.mark.parametrize("language", sorted(RETIRED_SAID))
def test_a_retired_username_is_refused_in_every_language(app: Flask, language: str) -> None:
    refusal, warning = RETIRED_SAID[language]
    build(app)
    client_as(app, "reader").post("/account/close", data={"password": PASSWORD})
    answer = app.test_client().post(
        "/signup",
        data={"username": "reader", "password": PASSWORD},
        headers={"Accept-Language": language},
    )
    said = text(answer.get_data(as_text=True))
    assert answer.status_code == 422 and refusal in said and "This username belonged" not in said
    closing = client_as(app, "scorer").get("/account/close", headers={"Accept-Language": language})
    said = text(closing.get_data(as_text=True))
    assert warning in said and "no one can sign up with it again" not in said


def test_a_retired_username_travels_with_an_export(app: Flask) -> None:
    import json

    from scorekeeper.services import accounts, data_export, data_import
    from scorekeeper.services.accounts import AccountError

    build(app)
    client_as(app, "reader").post("/account/close", data={"password": PASSWORD})
    with app.app_context():
        doc = json.loads(data_export.dumps(data_export.document()))
        assert [row["username_key"] for row in doc["tables"]["retired_usernames"]] == ["reader"]
        db.session.remove()
        db.drop_all()
        db.create_all()
        data_import.load(data_import.parse(doc, "club.json"))
        with pytest.raises(AccountError, match="belonged to an account that was closed"):
            accounts.sign_up("Reader", PASSWORD)


def test_releasing_a_name_no_account_can_have_frees_nothing_on_either_database(
    app: Flask,
) -> None:
    # what ``scorekeeper release-username`` is given reaches the database only as a name an
    # account could have (PostgreSQL refuses a NUL; a name over 40 characters is none)
    from scorekeeper.services import accounts

    build(app)
    client_as(app, "reader").post("/account/close", data={"password": PASSWORD})
    with app.app_context():
        for name in ("read\x00er", "reader" * 7, "", "   "):
            assert accounts.release_username(name) is False
        assert accounts.release_username(" READER ") is True
        assert accounts.release_username("reader") is False
    assert count(app, RetiredUsername) == 0
