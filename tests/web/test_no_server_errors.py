"""Nonsense typed into any form or URL of the app gets a clear answer, never a 500.

Every route is sent hostile query strings and form bodies (unknown fields, text where
numbers go, NUL characters, huge numbers, very long strings) against a club with real
history, so the real code paths behind each page run.
"""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support import PASSWORD, log_in

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import Match, Player, SavedRuleSet
from scorekeeper.services import accounts, demo, memberships, rule_sets

NASTY = [
    "",
    " ",
    "-1",
    "0",
    "1e9",
    "99999999999999999999999",
    "NaN",
    "x\x00y",
    "<script>alert(1)</script>",
    "=cmd|' /C calc'!A0",
    "ä" * 300,
    "1.5",
    "2+2",
    "saved:",
    "../../etc/passwd",
]
FIELDS = [
    "rules", "layout", "first_dealer", "side_0_player_0", "side_1_player_0", "side_0_name",
    "went_out", "submission_key", "expected_deal", "version", "sides-0-books_clean",
    "sides-0-melded_points", "sides-1-left_4to7", "sides-0-red_threes", "name", "deals",
    "card_values-A", "minimum_meld-0", "q", "as", "season", "view", "sort", "deal", "m",
    "match", "total", "pile", "op", "played_on", "start", "end", "min_games", "json",
    "default_rules", "decks_mode", "meld_by", "from", "csrf_token", "top", "size",
    "username", "password", "remember", "next", "current", "new", "role", "uses", "player",
    "remove", "confirm_name", "visibility", "event",
]  # fmt: skip


@pytest.fixture
def ids(app: Flask) -> dict[str, str]:
    """Real ids of everything a URL can name: a club with history, a match, rules."""
    with app.app_context():
        club = demo.seed("Fuzz club", weeks=1)
        match = db.session.scalars(db.select(Match).where(Match.club_id == club.id)).first()
        player = db.session.scalars(db.select(Player).where(Player.club_id == club.id)).first()
        owner = accounts.sign_up("fuzz", PASSWORD)
        reader = accounts.sign_up("reader", PASSWORD)
        memberships.add_member(club, owner, "owner")
        memberships.add_member(club, reader, "member")
        invitation, token = memberships.invite(club, owner, "member", 50)
        reset = accounts.make_reset_link(reader, owner)
        saved: SavedRuleSet = rule_sets.create(
            PRESETS["classic"].to_dict() | {"name": "Ours"}, account_id=owner.id
        )
        assert match is not None and player is not None
        return {
            "account_id": reader.public_id,
            "invitation_id": invitation.public_id,
            "token": token,
            "reset_token": reset,
            "club_id": club.public_id,
            "player_id": player.public_id,
            "public_id": match.public_id,
            "rule_set_id": "classic",
            "preset_id": "four-books",
            "number": "1",
            "saved_id": saved.public_id,
        }


def _urls(app: Flask, ids: dict[str, str]) -> list[tuple[str, str]]:
    urls = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule.replace("<int:number>", ids["number"])
        token = ids["reset_token" if rule.endpoint == "auth.reset" else "token"]
        path = path.replace("<token>", token)
        for name in ("club_id", "player_id", "public_id", "rule_set_id", "preset_id",
                     "account_id", "invitation_id"):  # fmt: skip
            value = (
                ids["saved_id"]
                if rule.endpoint.startswith("rules.") and name == "public_id"
                else ids[name]
            )
            path = path.replace(f"<{name}>", value)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            urls.append((method, path))
    return urls


def _junk(rng: random.Random) -> dict[str, Any]:
    data = {name: rng.choice(NASTY) for name in rng.sample(FIELDS, 12)}
    data["".join(rng.choices(string.ascii_letters, k=8))] = rng.choice(NASTY)
    return data


@pytest.mark.parametrize("who", [None, "fuzz"])
def test_no_route_answers_hostile_input_with_a_server_error(
    app: Flask, client: FlaskClient, ids: dict[str, str], who: str | None
) -> None:
    """As a visitor, and as the club's owner (so the guarded views run their code too)."""
    rng = random.Random(20261129)
    failures = []
    statuses: dict[int, int] = {}
    if who:
        log_in(client, who)
    for method, path in _urls(app, ids):
        if who and path.startswith(("/logout", "/login", "/signup", "/reset/")):
            continue  # stay logged in as the owner (the visitor's run covers these)
        for _ in range(6):
            data = _junk(rng)
            if method == "GET":
                response = client.get(path, query_string=data)
            else:
                response = client.open(path, method=method, data=data)
            # the whole body, as a browser reads it: a streamed answer (the CSVs) runs its
            # code only then, and is closed, as a server closes it once sent
            response.get_data()
            response.close()
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500:
                failures.append((method, path, data, response.status_code))
    assert failures == []
    if who:  # still the owner: the guarded views ran their own code, not only refusals
        assert f">{who}</a>" in client.get("/account").get_data(as_text=True)
    # the hostile input reached real pages, not only 404s
    assert statuses.get(200, 0) > 40 and statuses.get(404, 0) < sum(statuses.values()) / 2
