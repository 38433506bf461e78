"""Names unique whatever their case, whose case-folded key is longer than the name.

Unicode's full case folding makes as many as three characters of one ("ﬃ" is "ffi", "ß"
is "ss"). A username, a club player's name and a name typed at a match's start are kept
unique by that key, so a name of 40 characters (the most the forms take) has a key of up
to 120. With keys 40 wide, PostgreSQL refused such a name with a server error, and on
SQLite the account was made but its username was never found again at log-in.
"""

from __future__ import annotations

from flask import Flask
from helpers import start_match
from sqlalchemy import select
from support import PASSWORD, log_in, owner_client

from scorekeeper.extensions import db
from scorekeeper.models import Account, KnownName, Player
from scorekeeper.services import accounts, clubs

#: 40 characters, the most a name field takes, folding to 120
FOLDS = "\ufb03" * 40
#: 40 characters folding to 80 (a German name's "ß" is "ss" folded)
SHARP = "Straße " + "ß" * 33


def test_a_username_that_folds_longer_signs_up_logs_in_again_and_stays_unique(
    app: Flask,
) -> None:
    # Signing up with ligatures is refused now (a name with a plainer twin: "ﬃ" is "ffi"),
    # but an account made before that rule keeps its name and its 120-character key.
    client = app.test_client()
    refused = client.post("/signup", data={"username": FOLDS, "password": PASSWORD})
    assert refused.status_code == 422 and "one alphabet" in refused.get_data(as_text=True)
    with app.app_context():
        db.session.add(
            Account(
                username=FOLDS,
                username_key=accounts.username_key(FOLDS),
                password_hash=accounts.HASHER.hash(PASSWORD),
            )
        )
        db.session.commit()
    log_in(client, FOLDS)
    assert client.get("/account").status_code == 200
    again = app.test_client().post("/signup", data={"username": FOLDS, "password": PASSWORD})
    assert again.status_code == 422 and "This username is taken" in again.get_data(as_text=True)
    other = app.test_client()
    assert other.post("/signup", data={"username": SHARP, "password": PASSWORD}).status_code == 303
    with app.app_context():
        keys = set(db.session.scalars(select(Account.username_key)))
        assert keys == {"ffi" * 40, "strasse " + "ss" * 33}


def test_a_club_player_whose_name_folds_longer_is_added_once(app: Flask) -> None:
    with app.app_context():
        club_id = clubs.create_club("Tuesday").public_id
    client = owner_client(app, club_id)
    added = client.post(f"/c/{club_id}/players", data={"name": FOLDS})
    assert added.status_code == 303, added.get_data(as_text=True)
    twice = client.post(f"/c/{club_id}/players", data={"name": FOLDS})
    assert twice.status_code == 422
    assert "is already in this club" in twice.get_data(as_text=True)
    found = client.get(f"/c/{club_id}/players?q=ffi").get_data(as_text=True)
    assert FOLDS in found
    with app.app_context():
        assert db.session.scalars(select(Player.key)).all() == ["ffi" * 40]


def test_a_match_started_with_a_name_that_folds_longer_offers_it_again(app: Flask, client) -> None:
    start_match(client, names=[FOLDS, "Bob", "Cid", "Dee"])
    start_match(client, names=[FOLDS, "Bob", "Cid", "Dee"])  # the name found again
    with app.app_context():
        assert db.session.scalar(select(KnownName.key).where(KnownName.name == FOLDS)) == (
            "ffi" * 40
        )
    assert FOLDS in client.get("/matches/new").get_data(as_text=True)
