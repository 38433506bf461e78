"""A finished match offers a rematch: same players in the same seats, the same rules (the
match's frozen copy, its agreed number of deals too), dealt first by whoever deals next."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from helpers import deal_count, enter_deal, new_match_data, show, start_match
from sqlalchemy import delete
from sqlalchemy import event as sqlalchemy_event
from support import owner_client

from scorekeeper.extensions import db
from scorekeeper.models import AuditEvent
from scorekeeper.models import Match as MatchRow
from scorekeeper.services import clubs, matches
from scorekeeper.services.demo import four_deals, play


def _row(app: Flask, public_id: str) -> tuple[dict, int, list[list[str]], int | None]:
    with app.app_context():
        row = db.session.query(MatchRow).filter_by(public_id=public_id).one()
        names = [[p.name for p in side.players] for side in row.sides]
        return row.rules, row.first_dealer, names, row.club_id


def test_a_finished_match_starts_its_rematch_in_one_tap(app: Flask, client: FlaskClient) -> None:
    response = client.post("/matches", data={**new_match_data(), "deals_in_game": "2"})
    public_id = response.headers["Location"].removeprefix("/m/")
    for _ in range(2):
        assert enter_deal(client, public_id, {"melded_points": 50}, {}).status_code == 303
    assert "Rematch" in show(client, public_id)
    response = client.post(f"/m/{public_id}/rematch")
    assert response.status_code == 303
    new_id = response.headers["Location"].removeprefix("/m/")
    assert new_id != public_id
    old_rules, old_dealer, old_names, _club = _row(app, public_id)
    new_rules, new_dealer, new_names, club_id = _row(app, new_id)
    assert new_rules == old_rules and new_rules["deals"] == 2
    assert new_names == old_names
    assert new_dealer == (old_dealer + 2) % 4  # two deals passed the deal on twice
    assert club_id is None
    assert deal_count(app, new_id) == 0
    assert "Enter deal 1" in show(client, new_id)


def test_a_match_still_being_played_has_no_rematch(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    assert "Rematch" not in show(client, public_id)
    response = client.post(f"/m/{public_id}/rematch")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/m/{public_id}"
    with app.app_context():
        assert db.session.query(MatchRow).count() == 1


def test_a_club_match_s_rematch_is_played_in_the_club_today(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        club = clubs.create_club("Tuesday", min_games=1)
        public_id = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300)).public_id
        club_id, club_public_id = club.id, club.public_id
    refused = client.post(f"/m/{public_id}/rematch")  # a stranger starts nothing in the club
    assert refused.status_code in (302, 303) and "/login" in refused.headers["Location"]
    client = owner_client(app, club_public_id)  # the club's people do
    response = client.post(f"/m/{public_id}/rematch")
    new_id = response.headers["Location"].removeprefix("/m/")
    _rules, _dealer, names, new_club = _row(app, new_id)
    assert new_club == club_id
    assert names == [["Ann", "Bob"], ["Cid", "Dee"]]
    with app.app_context():
        row = db.session.query(MatchRow).filter_by(public_id=new_id).one()
        assert all(p.player_id is not None for side in row.sides for p in side.players)


def test_a_second_tap_on_rematch_opens_the_same_new_match(app: Flask, client: FlaskClient) -> None:
    """A double tap, or a second phone at the table, never starts a second rematch."""
    response = client.post("/matches", data={**new_match_data(), "deals_in_game": "2"})
    public_id = response.headers["Location"].removeprefix("/m/")
    for _ in range(2):
        assert enter_deal(client, public_id, {"melded_points": 50}, {}).status_code == 303
    first = client.post(f"/m/{public_id}/rematch").headers["Location"]
    second = client.post(f"/m/{public_id}/rematch").headers["Location"]
    assert first == second
    with app.app_context():
        assert db.session.query(MatchRow).count() == 2
        new = db.session.query(MatchRow).filter_by(public_id=first.removeprefix("/m/")).one()
        old = db.session.query(MatchRow).filter_by(public_id=public_id).one()
        assert new.rematch_of_id == old.id
    page = show(client, public_id)  # the finished match now leads to its rematch
    assert f'href="{first}"' in page and "Open the rematch" in page
    assert f"/m/{public_id}/rematch" not in page


def test_a_club_match_s_second_rematch_tap_starts_nothing_more(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        club = clubs.create_club("Wednesday", min_games=1)
        public_id = play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300)).public_id
        club_public_id = club.public_id
    client = owner_client(app, club_public_id)
    locations = {client.post(f"/m/{public_id}/rematch").headers["Location"] for _ in range(3)}
    assert len(locations) == 1
    with app.app_context():
        assert db.session.query(MatchRow).count() == 2


def _rematched_then_taken_back(client: FlaskClient) -> tuple[str, str]:
    """A match of two deals, finished, its rematch started, then reopened and its last deal
    removed: the match's public id and its rematch's."""
    response = client.post("/matches", data={**new_match_data(), "deals_in_game": "2"})
    public_id = response.headers["Location"].removeprefix("/m/")
    for _ in range(2):
        assert enter_deal(client, public_id, {"melded_points": 50}, {}).status_code == 303
    rematch = client.post(f"/m/{public_id}/rematch").headers["Location"].removeprefix("/m/")
    assert client.post(f"/m/{public_id}/reopen").status_code == 303
    assert client.post(f"/m/{public_id}/deals/2/remove").status_code == 303
    return public_id, rematch


def test_a_save_reads_the_rematch_of_the_match_it_finishes(app: Flask, client: FlaskClient) -> None:
    """The page answering a finishing save takes the rematch from the save's transaction
    (``AsSaved``): the one started before the match was reopened and finished again, and
    none for a match still being played."""
    public_id, rematch = _rematched_then_taken_back(client)
    with app.app_context():
        again = [{"melded_points": 50}, {}]
        playing = matches.load_match(rematch)
        assert playing is not None
        saved_playing, _new = matches.record_deal(playing, again, "key-r", 1)
        loaded = matches.load_match(public_id)
        assert loaded is not None
        finished, _new = matches.record_deal(loaded, again, "key-f", 2)
        assert finished.game.finished
        assert finished.saved is not None and finished.saved.rematch == rematch
        assert saved_playing.saved is not None and saved_playing.saved.rematch is None
        assert matches.rematch_of(finished.row) == rematch


def test_a_finishing_save_reads_its_trail_and_rematch_in_one_statement(
    app: Flask, client: FlaskClient
) -> None:
    """The answer's trail and rematch are one read after the save's writes, not two; a
    finished match without any event (none that a save leaves) still finds its rematch."""
    public_id, rematch = _rematched_then_taken_back(client)
    with app.app_context():
        loaded = matches.load_match(public_id)
        assert loaded is not None
        seen: list[str] = []

        def record(_conn, _cursor, statement, *_rest):
            text = " ".join(statement.split())
            if "FROM audit_events" in text or "WHERE matches.rematch_of_id" in text:
                seen.append(text)

        sqlalchemy_event.listen(db.engine, "before_cursor_execute", record)
        try:
            finished, _new = matches.record_deal(loaded, [{"melded_points": 90}, {}], "key-f", 2)
        finally:
            sqlalchemy_event.remove(db.engine, "before_cursor_execute", record)
        assert finished.game.finished
        assert finished.saved is not None and finished.saved.rematch == rematch
        assert [e.kind for e in finished.saved.history.changes][:1] == ["recorded"]
        reads = [s for s in seen if s.startswith("SELECT")]  # the trail, the rematch
        assert len(reads) == 1 and "WHERE matches.rematch_of_id" in reads[0], reads

        db.session.execute(delete(AuditEvent).where(AuditEvent.match_id == loaded.row.id))
        history, found = matches._history_and_rematch(finished.row, finished.game)
        assert found == rematch and history.changes == []
        db.session.rollback()
