"""A small world for the authorization tests: two clubs, their people, a finished club
match, saved house rules, an open invitation and reset link; and a snapshot of every row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask
from sqlalchemy import select
from support import PASSWORD, account_id, give_role, log_in
from test_rules_support import preset_dict

from scorekeeper.extensions import db
from scorekeeper.models import Account, Club
from scorekeeper.services import accounts, clubs, memberships, rule_sets
from scorekeeper.services.demo import four_deals, play

#: Rows that log-ins add and remove, and the tries they count (a refused try counts too);
#: everything else must not change when refused.
VOLATILE = {"account_sessions", "rate_limit_counts"}


@dataclass
class World:
    club: str  # members-only, owned by "owner"; "scorer" scores, "reader" reads
    other: str  # "stranger" owns it
    match: str  # a finished match of ``club``
    player: str
    rules: str  # saved by "owner"
    invitation: str  # public id of an open invitation to ``club``
    invite_token: str
    reset_token: str  # for "reader"
    reader: str  # reader's account public id


def build(app: Flask, visibility: str = "members") -> World:
    with app.app_context():
        club = clubs.create_club("Tuesday", min_games=2, visibility=visibility)
        loaded = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
        other = clubs.create_club("Elsewhere", visibility="members")
        ids = club.public_id, other.public_id, loaded.public_id
        player = club.players[0].public_id
    give_role(app, ids[0], "owner", "owner")
    give_role(app, ids[0], "scorer", "scorer")
    give_role(app, ids[0], "reader", "member")
    give_role(app, ids[1], "stranger", "owner")
    owner = account_id(app, "owner")
    with app.app_context():
        saved = rule_sets.create({**preset_dict("classic"), "name": "Ours"}, account_id=owner)
        club_row = clubs.get_club(ids[0])
        me = accounts.find("owner")
        reader = accounts.find("reader")
        invitation, token = memberships.invite(club_row, me, "member", 5)  # type: ignore[arg-type]
        reset = accounts.make_reset_link(reader, me)  # type: ignore[arg-type]
        return World(
            ids[0], ids[1], ids[2], player, saved.public_id, invitation.public_id, token,
            reset, reader.public_id,  # type: ignore[union-attr]
        )  # fmt: skip


def snapshot(app: Flask) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (but log-ins' ``VOLATILE`` ones), to compare before and after."""
    with app.app_context():
        db.session.remove()
        found = {}
        for table in db.metadata.sorted_tables:
            if table.name in VOLATILE:
                continue
            rows = db.session.execute(select(table).order_by(*table.primary_key.columns))
            found[table.name] = [tuple(r) for r in rows]
        db.session.remove()
        return found


def client_as(app: Flask, username: str | None) -> Any:
    """A fresh client: anonymous (None) or logged in as ``username``."""
    client = app.test_client()
    if username:
        log_in(client, username, PASSWORD)
    return client


def club_row(app: Flask, public_id: str) -> tuple[str, int, str]:
    with app.app_context():
        found = db.session.scalar(select(Club).where(Club.public_id == public_id))
        assert found is not None
        return found.name, found.min_games, found.visibility


def account_names(app: Flask) -> list[str]:
    with app.app_context():
        return sorted(db.session.scalars(select(Account.username)))
