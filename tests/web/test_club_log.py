"""The club's log: every change an owner makes to the club itself (settings, seasons,
roles, members, invitation and reset links), a member joining, the command line's owner
and a finished club match reopened, each kept with who and when, in the same transaction
as the change; shown to the club's owners only, newest first, in the reader's language;
exported and imported with the club, deleted with it."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from authz_world import build, client_as
from flask import Flask
from sqlalchemy import select
from support import signed_in_client

from scorekeeper.extensions import db
from scorekeeper.models import Club, ClubEvent, Match
from scorekeeper.services import accounts, clubs, data_export, data_import, memberships

LIST = re.compile(r'<ol class="history-list club-log">(.*?)</ol>', re.S)


def events(app: Flask, club_public_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The club's events, oldest first: (kind, actor, details)."""
    with app.app_context():
        club = clubs.get_club(club_public_id)
        assert club is not None
        rows = db.session.scalars(
            select(ClubEvent).where(ClubEvent.club_id == club.id).order_by(ClubEvent.id)
        )
        return [(row.kind, row.actor, dict(row.details)) for row in rows]


def lines(page: str) -> list[str]:
    """The log page's lines, newest first, as text."""
    found = LIST.search(page)
    assert found, page[:500]
    items = re.findall(r"<li[^>]*>(.*?)</li>", found.group(1), re.S)
    return [html.unescape(" ".join(re.sub(r"<[^>]+>", "", item).split())) for item in items]


def settings_data(**changed: str) -> dict[str, str]:
    data = {"name": "Tuesday", "default_rules": "classic", "min_games": "2",
            "visibility": "members"}  # fmt: skip
    return {**data, **changed}


def test_starting_a_club_logs_who_started_it_and_with_which_settings(app: Flask) -> None:
    client = signed_in_client(app, "ana")
    answer = client.post("/clubs", data=settings_data(name="Fridays"))
    public_id = answer.headers["Location"].removeprefix("/c/")
    assert events(app, public_id) == [
        (
            "created",
            "ana",
            {
                "name": "Fridays",
                "default_rules": "classic",
                "min_games": 2,
                "visibility": "members",
            },
        )
    ]
    page = client.get(f"/c/{public_id}/log").get_data(as_text=True)
    assert 'aria-current="page">Log</a>' in page
    [line] = lines(page)
    assert "· ana Started the club: Club name: Fridays;" in line
    assert "Games needed to be ranked: 2" in line
    assert "Only the club's members (they log in)" in line


def test_each_change_an_owner_makes_is_logged_once_with_what_it_changed(app: Flask) -> None:
    world = build(app)
    before = len(events(app, world.club))
    owner = client_as(app, "owner")
    # settings: one event for the whole save, naming only what changed
    owner.post(f"/c/{world.club}/settings", data=settings_data(min_games="5", visibility="public"))
    owner.post(f"/c/{world.club}/settings", data=settings_data(min_games="5", visibility="public"))
    # a season, a role, which player a member is, a member out, links made and stopped
    owner.post(
        f"/c/{world.club}/seasons",
        data={"name": "Winter", "starts_on": "2026-01-01", "ends_on": "2026-03-31"},
    )
    with app.app_context():
        scorer = accounts.find("scorer")
        reader = accounts.find("reader")
        ids = scorer.public_id, reader.public_id  # type: ignore[union-attr]
        player = clubs.get_club(world.club).players[0]  # type: ignore[union-attr]
        player_id, player_name = player.public_id, player.name
    owner.post(f"/c/{world.club}/members/{ids[0]}", data={"role": "member"})
    owner.post(f"/c/{world.club}/members/{ids[0]}", data={"role": "member"})  # no change
    owner.post(f"/c/{world.club}/members/{ids[1]}", data={"player": player_id})
    owner.post(f"/c/{world.club}/members/{ids[1]}/reset")
    owner.post(f"/c/{world.club}/members/{ids[1]}", data={"remove": "1"})
    owner.post(f"/c/{world.club}/invitations", data={"role": "scorer", "uses": "3"})
    owner.post(f"/c/{world.club}/invitations/{world.invitation}/revoke")
    owner.post(f"/c/{world.club}/invitations/{world.invitation}/revoke")  # stopped already
    kept = events(app, world.club)[before:]
    assert [kind for kind, _who, _d in kept] == [
        "settings", "season_added", "role_changed", "player_linked", "reset_link",
        "member_removed", "invited", "invitation_revoked",
    ]  # fmt: skip
    assert {who for _kind, who, _d in kept} == {"owner"}
    assert kept[0][2] == {"changes": [["min_games", 2, 5], ["visibility", "members", "public"]]}
    assert kept[1][2] == {"name": "Winter", "starts_on": "2026-01-01", "ends_on": "2026-03-31"}
    assert kept[2][2] == {"member": "scorer", "before": "scorer", "after": "member"}
    assert kept[3][2] == {"member": "reader", "player": player_name, "before": None}
    assert kept[4][2] == {"member": "reader"}  # never the link itself
    assert kept[5][2] == {"member": "reader", "role": "member"}
    assert kept[6][2] == {"role": "scorer", "uses": 3}
    assert kept[7][2] == {"role": "member", "uses_left": 5}

    said = lines(owner.get(f"/c/{world.club}/log").get_data(as_text=True))
    assert [line.split(" · owner ", 1)[1] for line in said[:8]] == [
        "Stopped an invitation link to join as member (5 uses left).",
        "Made an invitation link for 3 people, to join as scorer.",
        "Took reader (member) out of the club.",
        "Made a password reset link for reader.",
        f"Changed which player reader is: nobody → {player_name}.",
        "Changed the role of scorer: scorer → member.",
        "Added the season Winter (Jan 1, 2026 – Mar 31, 2026).",
        "Changed the settings: Games needed to be ranked: 2 → 5; Who can see the standings,"
        " player pages and club night: Only the club's members (they log in) → Anyone with"
        " the link, without logging in (read-only).",
    ]


def test_joining_by_an_invitation_is_logged_as_the_newcomer_did_it(app: Flask) -> None:
    world = build(app)
    newcomer = signed_in_client(app, "newcomer")
    assert newcomer.post(f"/join/{world.invite_token}").status_code == 303
    kind, who, details = events(app, world.club)[-1]
    assert (kind, who) == ("joined", "newcomer")
    assert details == {"member": "newcomer", "role": "member", "before": None}
    # opened again by a member holding the role already: nothing changed, nothing logged
    count = len(events(app, world.club))
    newcomer.post(f"/join/{world.invite_token}")
    assert len(events(app, world.club)) == count
    line = lines(client_as(app, "owner").get(f"/c/{world.club}/log").get_data(as_text=True))[0]
    assert line.endswith("· newcomer newcomer joined as member by an invitation link.")


def test_the_command_lines_owner_is_logged_without_an_account(app: Flask) -> None:
    world = build(app)
    with app.app_context():
        accounts.sign_up("boss", "long enough")
        memberships.assign_owner(world.club, "boss")
    kind, who, details = events(app, world.club)[-1]
    assert (kind, who) == ("owner_assigned", "")
    assert details == {"member": "boss", "role": "owner", "before": None}
    line = lines(client_as(app, "owner").get(f"/c/{world.club}/log").get_data(as_text=True))[0]
    assert "· the server's command line Made boss an owner." in line


def test_a_refused_change_logs_nothing(app: Flask) -> None:
    world = build(app)
    before = events(app, world.club)
    owner = client_as(app, "owner")
    with app.app_context():
        me = accounts.find("owner").public_id  # type: ignore[union-attr]
    # the last owner cannot step down; an overlapping season; a bad setting
    assert owner.post(f"/c/{world.club}/members/{me}", data={"role": "member"}).status_code == 422
    data = {"name": "A", "starts_on": "2026-01-01", "ends_on": "2026-03-31"}
    assert owner.post(f"/c/{world.club}/seasons", data=data).status_code == 303
    data = {"name": "B", "starts_on": "2026-02-01", "ends_on": "2026-02-02"}
    assert owner.post(f"/c/{world.club}/seasons", data=data).status_code == 422
    bad = settings_data(min_games="lots")
    assert owner.post(f"/c/{world.club}/settings", data=bad).status_code == 422
    assert events(app, world.club) == [*before, events(app, world.club)[-1]]
    assert events(app, world.club)[-1][0] == "season_added"


@pytest.mark.parametrize("who", [None, "reader", "scorer", "stranger"])
def test_only_the_clubs_owners_read_its_log(app: Flask, who: str | None) -> None:
    world = build(app, visibility="public")
    answer = client_as(app, who).get(f"/c/{world.club}/log")
    assert answer.status_code in (302, 403, 404)
    assert "club-log" not in answer.get_data(as_text=True)
    standings = client_as(app, who).get(f"/c/{world.club}").get_data(as_text=True)
    assert f"/c/{world.club}/log" not in standings  # nor offered


def test_names_are_shown_as_text_and_the_log_reads_in_the_readers_language(app: Flask) -> None:
    world = build(app)
    owner = client_as(app, "owner")
    owner.post(f"/c/{world.club}/settings", data=settings_data(name="<b>Tue</b>"))
    html = owner.get(f"/c/{world.club}/log").get_data(as_text=True)
    assert "&lt;b&gt;Tue&lt;/b&gt;" in html and "<b>Tue</b>" not in html
    owner.get("/language?lang=ru")
    russian = lines(owner.get(f"/c/{world.club}/log").get_data(as_text=True))
    assert "Изменены настройки" in russian[0], russian[0]
    assert "Название клуба: Tuesday → <b>Tue</b>" in russian[0]


def test_the_log_comes_a_page_at_a_time_newest_first(app: Flask, monkeypatch: Any) -> None:
    from scorekeeper.services import club_trail

    monkeypatch.setattr(club_trail, "PAGE", 3)
    world = build(app)
    owner = client_as(app, "owner")
    for games in range(3, 8):
        owner.post(f"/c/{world.club}/settings", data=settings_data(min_games=str(games)))
    pages, url = [], f"/c/{world.club}/log"
    while url:
        page = owner.get(url).get_data(as_text=True)
        pages.append(lines(page))
        found = re.search(r'href="(/c/[^"]+/log\?before=\d+)">Older changes', page)
        url = found.group(1) if found else ""
    assert [len(p) for p in pages] == [3, 3, 1]  # 5 settings, the invitation, the start
    said = [line.split(": ", 1)[-1] for page in pages for line in page]
    assert [line[-6:] for line in said[:5]] == ["6 → 7.", "5 → 6.", "4 → 5.", "3 → 4.", "2 → 3."]
    assert "Started the club" in pages[-1][0]
    assert owner.get(f"/c/{world.club}/log?before=nonsense").status_code == 200


def test_the_log_travels_with_an_export_and_goes_with_the_club(app: Flask) -> None:
    world = build(app)
    client_as(app, "owner").post(f"/c/{world.club}/settings", data=settings_data(min_games="4"))
    kept = events(app, world.club)
    assert kept
    with app.app_context():
        exported = data_export.dumps(data_export.document())
        doc = json.loads(exported)
        assert len(doc["tables"]["club_events"]) >= len(kept)
        db.session.remove()
        db.drop_all()
        db.create_all()
        data_import.load(data_import.parse(doc, "club.json"), "club.json")
        db.session.remove()
    assert events(app, world.club) == kept
    # an export made before the log existed has no such table: it imports, the log empty
    with app.app_context():
        del doc["tables"]["club_events"]
        db.session.remove()
        db.drop_all()
        db.create_all()
        data_import.load(data_import.parse(doc, "old.json"), "old.json")
        db.session.remove()
    assert events(app, world.club) == []
    with app.app_context():
        db.drop_all()
        db.create_all()
        data_import.load(data_import.parse(json.loads(exported), "club.json"), "club.json")
        clubs.delete_club(clubs.get_club(world.club))  # type: ignore[arg-type]
        left = db.session.scalars(select(ClubEvent.club_id).distinct()).all()
        assert left == [db.session.scalar(select(Club.id))]  # the other club's


#: A stored event of each kind, as the services write them.
EVERY_KIND = {
    "created": {"name": "Fridays", "default_rules": "classic", "min_games": 3,
                "visibility": "public"},
    "settings": {"changes": [["name", "Fridays", "Tuesdays"]]},
    "season_added": {"name": "Winter", "starts_on": "2026-01-01", "ends_on": "2026-03-31"},
    "invited": {"role": "scorer", "uses": 1},
    "invitation_revoked": {"role": "member", "uses_left": 2},
    "joined": {"member": "ana", "role": "scorer", "before": "member"},
    "role_changed": {"member": "ana", "before": "scorer", "after": "owner"},
    "member_removed": {"member": "ana", "role": "member"},
    "player_linked": {"member": "ana", "player": None, "before": "Ann"},
    "reset_link": {"member": "ana"},
    "owner_assigned": {"member": "ana", "role": "owner", "before": None},
    "match_reopened": {"match": "abcdefgh12345678", "sides": ["Ann & Bob", "Cy & Di"],
                       "played_on": "2026-11-12"},
}  # fmt: skip


def sentences(app: Flask, language: str) -> dict[str, str]:
    """Each kind's sample event said in ``language``."""
    from datetime import UTC, datetime

    from scorekeeper.services.club_trail import Entry
    from scorekeeper.web.clubs.log import said

    with app.test_request_context("/", headers={"Accept-Language": language}):
        at = datetime.now(UTC)
        return {kind: str(said(Entry(1, kind, at, "bo", d))) for kind, d in EVERY_KIND.items()}


@pytest.mark.parametrize("language", ["bs", "cs", "ru"])
def test_every_kind_of_event_is_said_in_every_language(app: Flask, language: str) -> None:
    from scorekeeper.models.club_trail import KINDS

    assert set(EVERY_KIND) == set(KINDS)
    english, said = sentences(app, "en"), sentences(app, language)
    assert english["joined"] == "ana became scorer by an invitation link (was member)."
    for kind in KINDS:
        for sentence in (english[kind], said[kind]):
            assert sentence != kind and "%(" not in sentence and sentence.endswith("."), sentence
            assert ".." not in sentence, sentence  # a date ending "г." closed no sentence
        assert said[kind] != english[kind], (kind, said[kind])  # in the language


def test_a_finished_club_match_reopened_is_logged_with_a_link_to_it(app: Flask) -> None:
    world = build(app, visibility="public")
    scorer = client_as(app, "scorer")
    assert scorer.post(f"/m/{world.match}/reopen").status_code == 303
    assert scorer.post(f"/m/{world.match}/reopen").status_code == 303  # open already
    kind, who, details = events(app, world.club)[-1]
    assert (kind, who) == ("match_reopened", "scorer")
    assert details["match"] == world.match and details["sides"] == ["Ann & Bob", "Cid & Dee"]
    assert [k for k, _who, _d in events(app, world.club)].count("match_reopened") == 1
    page = client_as(app, "owner").get(f"/c/{world.club}/log").get_data(as_text=True)
    assert f'<a href="/m/{world.match}">Ann &amp; Bob · Cid &amp; Dee</a>' in page
    assert "to correct its deals." in lines(page)[0]
    # a casual match reopened is nobody's club's business
    with app.app_context():
        before = db.session.scalars(select(ClubEvent.id)).all()
    from helpers import SIDE_A_COUNTS, SIDE_B_POINTS, enter_deal, start_match

    client = app.test_client()
    casual = start_match(client)
    for _ in range(4):
        assert (
            enter_deal(client, casual, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0).status_code < 400
        )
    assert client.post(f"/m/{casual}/reopen").status_code == 303
    with app.app_context():
        row = db.session.scalar(select(Match).where(Match.public_id == casual))
        assert row is not None and row.finished and row.reopened
        assert db.session.scalars(select(ClubEvent.id)).all() == before


def test_a_made_up_page_number_is_the_first_page_not_an_error(app: Flask) -> None:
    world = build(app)
    owner = client_as(app, "owner")
    first = lines(owner.get(f"/c/{world.club}/log").get_data(as_text=True))
    for made_up in ("99999999999999999999999", "-99999999999999999999999", "1e9", "½"):
        answer = owner.get(f"/c/{world.club}/log?before={made_up}")
        assert answer.status_code == 200, made_up
        assert lines(answer.get_data(as_text=True)) == first, made_up
