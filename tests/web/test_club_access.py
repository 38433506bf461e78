"""Invitations with QR codes, owner reset links, public or members-only clubs, house rules
ownership, the CLI that gives an old club an owner, and this device's home page."""

from __future__ import annotations

import re
from datetime import timedelta

from authz_world import build, client_as
from flask import Flask
from sqlalchemy import select, update
from support import PASSWORD, account_id, ensure_account, give_role, log_in, signed_in_client
from test_rules_support import preset_dict

from scorekeeper.extensions import db
from scorekeeper.models import Invitation, Membership, PasswordReset, SavedRuleSet, utcnow
from scorekeeper.services import accounts, clubs, rule_sets


def role(app: Flask, username: str, club_public_id: str) -> str | None:
    from scorekeeper.services import memberships

    with app.app_context():
        return memberships.role_of(accounts.find(username), clubs.get_club(club_public_id))  # type: ignore[arg-type]


def test_starting_a_club_makes_its_owner_and_asks_who_may_see_it(app: Flask) -> None:
    client = signed_in_client(app, "ana")
    response = client.post(
        "/clubs",
        data={"name": "Fridays", "default_rules": "classic", "min_games": "2",
              "visibility": "members"},
    )  # fmt: skip
    public_id = response.headers["Location"].removeprefix("/c/")
    assert role(app, "ana", public_id) == "owner"
    assert client_as(app, None).get(f"/c/{public_id}").status_code == 302


def test_an_invitation_link_with_a_qr_code_lets_people_join_until_it_is_used_up(
    app: Flask,
) -> None:
    world = build(app)
    owner = client_as(app, "owner")
    page = owner.post(f"/c/{world.club}/invitations", data={"role": "scorer", "uses": "1"})
    html = page.get_data(as_text=True)
    link = re.search(r'value="(http://localhost/join/[^"]+)"', html).group(1)  # type: ignore[union-attr]
    assert "<svg" in html and 'class="qr"' in html
    assert "<title>QR code of the invitation link</title>" in html  # not the rules' title
    token = link.rsplit("/", 1)[1]
    with app.app_context():
        stored = db.session.scalars(select(Invitation.token_hash)).all()
    assert token not in stored and accounts.token_hash(token) in stored
    visitor = app.test_client()
    assert "Log in, or make an account" in visitor.get(f"/join/{token}").get_data(as_text=True)
    assert visitor.post(f"/join/{token}").status_code in (302, 303)  # log in first
    newcomer = signed_in_client(app, "newcomer")
    assert newcomer.post(f"/join/{token}").status_code == 303
    assert role(app, "newcomer", world.club) == "scorer"
    late = signed_in_client(app, "late")
    assert late.post(f"/join/{token}").status_code == 404  # used up
    assert role(app, "late", world.club) is None


def test_an_expired_or_withdrawn_invitation_does_not_work(app: Flask) -> None:
    world = build(app)
    with app.app_context():
        row = db.session.scalar(select(Invitation))
        row.expires_at = utcnow() - timedelta(minutes=1)  # type: ignore[union-attr]
        db.session.commit()
    assert signed_in_client(app, "late").post(f"/join/{world.invite_token}").status_code == 404
    assert role(app, "late", world.club) is None


def test_an_owner_hands_over_a_one_time_reset_link_and_old_log_ins_end(app: Flask) -> None:
    world = build(app)
    reader_phone = client_as(app, "reader")
    owner = client_as(app, "owner")
    page = owner.post(f"/c/{world.club}/members/{world.reader}/reset").get_data(as_text=True)
    assert "<title>QR code of the password reset link</title>" in page
    link = re.search(r'value="http://localhost(/reset/[^"]+)"', page).group(1)  # type: ignore[union-attr]
    fresh = app.test_client()
    assert 'autocomplete="new-password"' in fresh.get(link).get_data(as_text=True)
    assert fresh.post(link, data={"new": "short"}).status_code == 422
    assert fresh.post(link, data={"new": "a brand new one"}).status_code == 303
    assert fresh.get("/account").status_code == 200
    assert reader_phone.get("/account").status_code == 302  # logged out everywhere else
    assert app.test_client().post(link, data={"new": "another one!"}).status_code == 404
    with app.app_context():
        assert accounts.authenticate("reader", "a brand new one") is not None
        # the link handed over earlier stops working too: the password was just chosen
        assert not db.session.scalar(select(PasswordReset).where(PasswordReset.used_at.is_(None)))
    assert app.test_client().get(f"/reset/{world.reset_token}").status_code == 404


def _reset_links(app: Flask) -> int:
    with app.app_context():
        return len(db.session.scalars(select(PasswordReset)).all())


def test_no_reset_link_for_an_account_in_another_club_or_keeping_house_rules(
    app: Flask,
) -> None:
    # A reset link logs in as the account everywhere: an owner who had invited someone could
    # take over an account owning a club of its own, then rename or delete that club.
    world = build(app)
    owner = client_as(app, "owner")
    give_role(app, world.other, "reader", "member")  # the stranger's club too
    before = _reset_links(app)
    refused = owner.post(f"/c/{world.club}/members/{world.reader}/reset")
    text = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "reader is also in another club" in text
    assert "/reset/" not in text and _reset_links(app) == before
    with app.app_context():
        scorer = accounts.find("scorer")
        rule_sets.create({**preset_dict("classic"), "name": "Scorer's"}, account_id=scorer.id)  # type: ignore[union-attr]
        scorer_id = scorer.public_id  # type: ignore[union-attr]
    refused = owner.post(f"/c/{world.club}/members/{scorer_id}/reset")
    assert refused.status_code == 422 and "keeps house rules" in refused.get_data(as_text=True)
    with app.app_context():
        me = accounts.find("owner").public_id  # type: ignore[union-attr]
    refused = owner.post(f"/c/{world.club}/members/{me}/reset")
    assert refused.status_code == 422 and "scorekeeper reset-link" in refused.get_data(as_text=True)
    assert _reset_links(app) == before


def test_a_reset_link_ends_when_its_member_leaves_or_chooses_a_password(app: Flask) -> None:
    world = build(app)
    owner = client_as(app, "owner")
    page = owner.post(f"/c/{world.club}/members/{world.reader}/reset").get_data(as_text=True)
    fresh = re.search(r'value="http://localhost(/reset/[^"]+)"', page).group(1)  # type: ignore[union-attr]
    reader = client_as(app, "reader")
    changed = reader.post("/account", data={"current": PASSWORD, "new": "a brand new one"})
    assert changed.status_code == 303, changed.get_data(as_text=True)
    for link in (fresh, f"/reset/{world.reset_token}"):
        assert app.test_client().get(link).status_code == 404, link
    with app.app_context():
        reader_row = accounts.find("reader")
        again = accounts.make_reset_link(reader_row, accounts.find("owner"))  # type: ignore[arg-type]
    owner.post(f"/c/{world.club}/members/{world.reader}", data={"remove": "1"})
    assert app.test_client().get(f"/reset/{again}").status_code == 404


def test_an_invitation_spends_a_use_on_each_member_whose_role_it_raises(app: Flask) -> None:
    # A link for one scorer made every member who opened it a scorer, and still worked.
    world = build(app)
    owner = client_as(app, "owner")
    for name in ("m1", "m2"):
        assert signed_in_client(app, name).post(f"/join/{world.invite_token}").status_code == 303
    page = owner.post(f"/c/{world.club}/invitations", data={"role": "scorer", "uses": "1"})
    link = re.search(r'value="http://localhost/join/([^"]+)"', page.get_data(as_text=True))
    token = link.group(1)  # type: ignore[union-attr]
    assert client_as(app, "m1").post(f"/join/{token}").status_code == 303
    assert role(app, "m1", world.club) == "scorer"
    assert client_as(app, "m2").post(f"/join/{token}").status_code == 404  # used up
    assert role(app, "m2", world.club) == "member"
    assert client_as(app, "scorer").get(f"/join/{token}").status_code == 404


def test_a_link_used_up_or_its_club_deleted_while_joining_joins_no_one(app: Flask) -> None:
    # The join page read the link as usable; by the time its owner joins, the last use was
    # spent (or the club deleted) by someone else: accept reads it again under the lock.
    from scorekeeper.services import memberships

    world = build(app)
    ensure_account(app, "late")
    with app.app_context():
        invitation = memberships.invitation_of(world.invite_token)
        assert invitation is not None
        db.session.execute(
            update(Invitation).where(Invitation.id == invitation.id).values(uses_left=0)
        )
        assert memberships.accept(invitation, accounts.find("late")) is None  # type: ignore[arg-type]
    assert role(app, "late", world.club) is None
    with app.app_context():
        db.session.execute(update(Invitation).values(uses_left=5))
        db.session.commit()
        invitation = memberships.invitation_of(world.invite_token)
        assert invitation is not None
        club_id = invitation.club_id
        clubs.delete_club(clubs.get_club(world.club))  # type: ignore[arg-type]
        assert memberships.accept(invitation, accounts.find("late")) is None  # type: ignore[arg-type]
        assert db.session.scalar(select(Membership).where(Membership.club_id == club_id)) is None


def test_the_last_owner_cannot_step_down_and_roles_change_from_the_members_page(
    app: Flask,
) -> None:
    world = build(app)
    owner = client_as(app, "owner")
    with app.app_context():
        me = accounts.find("owner").public_id  # type: ignore[union-attr]
    refused = owner.post(f"/c/{world.club}/members/{me}", data={"role": "member"})
    assert refused.status_code == 422 and "A club needs an owner" in refused.get_data(as_text=True)
    owner.post(f"/c/{world.club}/members/{world.reader}", data={"role": "scorer"})
    assert role(app, "reader", world.club) == "scorer"
    # each role says what it may do, as the invitation's choices do (it read "scorer")
    page = owner.get(f"/c/{world.club}/members").get_data(as_text=True)
    assert '<option value="scorer" selected>Scorer (keeps scores)</option>' in page
    assert '<option value="owner">Owner (settings, roles, seasons)</option>' in page
    owner.post(f"/c/{world.club}/members/{world.reader}", data={"remove": "1"})
    assert role(app, "reader", world.club) is None


def test_a_public_club_is_read_without_logging_in_and_sets_no_cookie(app: Flask) -> None:
    world = build(app, visibility="public")
    visitor = app.test_client()
    for path in ("", "/players", "/tonight", f"/p/{world.player}", "/standings.csv"):
        response = visitor.get(f"/c/{world.club}{path}")
        assert response.status_code == 200, path
        assert "Set-Cookie" not in response.headers, path
    match = visitor.get(f"/m/{world.match}")
    assert match.status_code == 200 and "Set-Cookie" not in match.headers
    for path in ("/", "/clubs", "/rules", f"/rules/{world.rules}", "/rules/presets/classic"):
        assert "Set-Cookie" not in visitor.get(path).headers, path


def test_a_page_with_a_form_still_gets_a_working_csrf_token(app: Flask) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    client = app.test_client()
    page = client.get("/matches/new")
    assert "session=" in page.headers.get("Set-Cookie", "")
    assert 'hx-headers=\'{"X-CSRFToken"' in client.get("/matches/new").get_data(as_text=True)


def test_saved_rules_are_changed_only_by_their_owner_and_copied_by_anyone(app: Flask) -> None:
    owner = account_id(app, "owner")
    with app.app_context():
        mine = rule_sets.create({**preset_dict("classic"), "name": "Ours"}, account_id=owner)
        old = rule_sets.create({**preset_dict("classic"), "name": "From before accounts"})
        ids = mine.public_id, old.public_id
    other = signed_in_client(app, "other")
    page = other.get(f"/rules/{ids[0]}").get_data(as_text=True)
    assert "Copy to my house rules" in page and f"/rules/{ids[0]}/edit" not in page
    assert other.get(f"/rules/{ids[0]}/edit").status_code == 403
    assert other.post(f"/rules/{ids[0]}/delete").status_code == 403
    owner_client = signed_in_client(app, "owner")
    assert owner_client.get(f"/rules/{ids[0]}/edit").status_code == 200
    assert owner_client.get(f"/rules/{ids[1]}/edit").status_code == 403  # unowned: copy it
    copy = other.get(f"/rules/new?from=saved:{ids[1]}").get_data(as_text=True)
    assert "From before accounts (copy)" in copy
    imported = other.post(f"/r/{ids[0]}/import", data={"name": "Their copy"})
    assert imported.status_code == 303
    theirs = account_id(app, "other")
    with app.app_context():
        row = db.session.scalar(select(SavedRuleSet).where(SavedRuleSet.name == "Their copy"))
        assert row is not None and row.account_id == theirs
    assert app.test_client().post("/rules", data={"name": "x"}).status_code == 303  # to log in


def test_the_cli_gives_a_club_made_before_accounts_an_owner(app: Flask) -> None:
    with app.app_context():
        public_id = clubs.create_club("Old club").public_id
    ensure_account(app, "ana")
    runner = app.test_cli_runner()
    result = runner.invoke(args=["club-owner", "old CLUB", "ANA"])
    assert result.exit_code == 0, result.output
    assert "ana is now an owner of Old club" in result.output
    assert role(app, "ana", public_id) == "owner"
    # "--": a public id may start with "-", which would read as an option
    missing = runner.invoke(args=["club-owner", "--", public_id, "nobody"])
    assert missing.exit_code != 0 and "No account is called" in missing.output


def test_the_home_page_lists_this_devices_matches_only(app: Flask) -> None:
    from helpers import start_match

    mine, theirs = app.test_client(), app.test_client()
    public_id = start_match(mine)
    assert public_id in mine.get("/").get_data(as_text=True)
    assert public_id not in theirs.get("/").get_data(as_text=True)
    theirs.get(f"/m/{public_id}")  # opened by its link: now theirs to resume too
    assert public_id in theirs.get("/").get_data(as_text=True)
    forged = app.test_client()
    forged.set_cookie("scorekeeper_device", f'{{"id": "abcdef12", "matches": ["{public_id}"]}}')
    assert public_id not in forged.get("/").get_data(as_text=True)


def test_membership_rows_reference_real_accounts(app: Flask) -> None:
    build(app)
    with app.app_context():
        assert len(db.session.scalars(select(Membership)).all()) == 4
    log_in(app.test_client(), "reader", PASSWORD)
