"""Every route has one authorization rule, and every route that changes data refuses an
anonymous visitor, a member of another club and a read-only member, changing nothing.

The matrix is built from ``app.url_map``: a route added without a rule fails here, and
so does a new route that changes data without saying who may.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from authz_world import World, build, client_as, snapshot
from flask import Flask

from scorekeeper.app import create_app
from scorekeeper.web.authz import Rule

#: Routes that change data and are open to anyone on purpose (casual play needs no
#: account; computing or previewing saves nothing; the account forms themselves).
OPEN_ON_PURPOSE = {
    "matches.create",  # a casual match (a club's is started under /c/<club>/matches)
    "rules.preview",  # draws a rules card, saves nothing
    "rules.draft",  # a visitor's editor shown again (a row added), saves nothing
    "api.score",  # computes, saves nothing
    "api.meld",  # computes, saves nothing
    "auth.login",
    "auth.signup",
    "auth.logout",
    "auth.reset",  # the one-time token in the link is the right to use it
}
#: Any account may: start a club, save or import house rules, join by invitation.
ANY_ACCOUNT = {"signed_in"}
#: What a read-only member may change: their own membership (leave the club).
A_MEMBER_MAY = {"clubs.leave"}


def missing_rules(app: Flask) -> list[str]:
    """Endpoints whose view has no authorization rule (static files excepted)."""
    return sorted(
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        and not isinstance(getattr(app.view_functions[rule.endpoint], "authz", None), Rule)
    )


def url_for_rule(rule: Any, world: World) -> str:
    """The rule's URL filled with the world's ids (a match id for match routes...)."""
    values = {
        "club_id": world.club,
        "player_id": world.player,
        "number": 1,
        "invitation_id": world.invitation,
        "account_id": world.reader,
        "preset_id": "classic",
        "rule_set_id": "classic",
    }
    if rule.endpoint.startswith(("matches.", "trail.", "live.", "api.")):
        values["public_id"] = world.match
    else:
        values["public_id"] = world.rules
    values["token"] = world.reset_token if rule.endpoint == "auth.reset" else world.invite_token
    if rule.endpoint == "matches.remove":
        values["number"] = 4
    return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda m: str(values[m.group(1)]), rule.rule)


def refused(response: Any) -> bool:
    if response.status_code in (401, 403):
        return True
    return response.status_code in (302, 303) and "/login" in response.headers["Location"]


def changing_routes(app: Flask) -> list[Any]:
    return [
        r
        for r in app.url_map.iter_rules()
        if r.endpoint != "static" and {"POST", "PUT", "PATCH", "DELETE"} & r.methods
    ]


def test_every_route_of_the_app_carries_an_authorization_rule(app: Flask) -> None:
    assert missing_rules(app) == []


def test_a_route_added_without_a_rule_is_reported(tmp_path) -> None:
    fresh = create_app({"TESTING": True, "SECRET_KEY": "t",
                        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.db'}"})  # fmt: skip
    fresh.add_url_rule("/new-thing", "new_thing", lambda: "hi", methods=["POST"])
    assert missing_rules(fresh) == ["new_thing"]


def test_every_route_that_changes_data_is_open_on_purpose_or_guarded(app: Flask) -> None:
    for rule in changing_routes(app):
        guard = app.view_functions[rule.endpoint].authz
        assert guard.kind != "anyone" or rule.endpoint in OPEN_ON_PURPOSE, rule.endpoint


@pytest.mark.parametrize("who", [None, "stranger", "reader"])
def test_every_guarded_route_that_changes_data_refuses_and_changes_nothing(
    app: Flask, who: str | None
) -> None:
    world = build(app)
    before = snapshot(app)
    client = client_as(app, who)
    checked = []
    for rule in changing_routes(app):
        guard = app.view_functions[rule.endpoint].authz
        if guard.kind == "anyone" or (who and guard.kind in ANY_ACCOUNT):
            continue  # open on purpose (above), or any account may
        if who == "reader" and rule.endpoint in A_MEMBER_MAY:
            continue  # a member leaving (tests/web/test_leave_club.py)
        url = url_for_rule(rule, world)
        response = client.post(url, data={"name": "Hacked", "min_games": "100", "role": "owner",
                                          "remove": "1", "player": "", "uses": "5"})  # fmt: skip
        assert refused(response), (who, rule.endpoint, response.status_code)
        checked.append(rule.endpoint)
    assert snapshot(app) == before
    assert {
        "clubs.save_settings",
        "matches.reopen",
        "matches.correct",
        "trail.restore",
        "rules.delete",
    } <= set(checked)


@pytest.mark.parametrize("who", [None, "stranger"])
def test_members_only_reads_are_refused_to_anyone_outside_the_club(
    app: Flask, who: str | None
) -> None:
    world = build(app, visibility="members")
    client = client_as(app, who)
    reads = [
        r
        for r in app.url_map.iter_rules()
        if r.endpoint != "static"
        and "GET" in r.methods
        and app.view_functions[r.endpoint].authz.kind in ("club", "match")
    ]
    assert len(reads) >= 8
    for rule in reads:
        response = client.get(url_for_rule(rule, world))
        assert refused(response), (who, rule.endpoint, response.status_code)


def test_a_read_only_member_reads_a_members_only_club_but_sees_no_buttons(app: Flask) -> None:
    world = build(app, visibility="members")
    client = client_as(app, "reader")
    for path in ("", "/players", "/tonight", f"/p/{world.player}", "/standings.csv"):
        assert client.get(f"/c/{world.club}{path}").status_code == 200, path
    page = client.get(f"/m/{world.match}").get_data(as_text=True)
    assert "Correct a deal" not in page and "/reopen" not in page
    assert "/settings" not in client.get(f"/c/{world.club}").get_data(as_text=True)
    assert client.get(f"/c/{world.club}/settings").status_code == 403
