"""A change far back in a club's history: the answer comes at once, the pages say the
ratings are updating, and they are brought up to date once the answer is sent (issue 17)."""

from __future__ import annotations

import threading
import time
from datetime import date, timedelta

import brotli
import pytest
from helpers import correct_deal
from support import give_role, log_in

from scorekeeper.extensions import db
from scorekeeper.models import Club, Player
from scorekeeper.services import clubs, matches, ratings
from scorekeeper.services.demo import four_deals, play
from scorekeeper.web import background

NOTE = "Ratings are being brought up to date"


@pytest.fixture
def club(app, monkeypatch):
    monkeypatch.setattr(ratings, "IN_REQUEST", 2)
    with app.app_context():
        made = clubs.create_club("Tuesday", min_games=1)
        first = play(made, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day(0))
        for week in range(1, 5):
            play(
                made, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(300, 400 + 50 * week), day(week)
            )
        public_id, match_id = made.public_id, first.row.public_id
    give_role(app, public_id, "owner", "owner")
    return public_id, match_id


def day(week):
    return date(2024, 1, 2) + timedelta(days=7 * week)


def ratings_of(app):
    with app.app_context():
        db.session.expire_all()
        return {p.name: (p.rating_mu, p.rating_sigma) for p in db.session.query(Player)}


def updating(app):
    with app.app_context():
        return db.session.query(Club).one().ratings_updating


def from_scratch(app):
    with app.app_context():
        ratings.recompute(db.session.query(Club).one().id)
        db.session.commit()
    return ratings_of(app)


def test_a_correction_far_back_is_answered_then_the_ratings_catch_up_after_the_answer(app, club):
    public_id, match_id = club
    scorer = app.test_client()
    log_in(scorer, "owner")
    with app.app_context():  # reopened earlier; its ratings are caught up
        matches.reopen(matches.load_match(match_id))
        ratings.catch_up(db.session.query(Club).one().id)
    assert not updating(app)
    edit = correct_deal(
        scorer, match_id, 1, {"melded_points": 50}, {"melded_points": 900}, went_out=None
    )
    assert edit.status_code == 303
    with app.app_context():
        assert matches.load_match(match_id).game.totals == (50, 900)  # was 500 to 300
    assert updating(app)
    page = scorer.get(f"/c/{public_id}")
    assert NOTE in page.get_data(as_text=True)
    edit.close()  # the server closes the answer once it is sent: the catch-up starts then
    assert background.join()  # on a thread of its own
    assert not updating(app)
    caught_up = ratings_of(app)
    assert caught_up == from_scratch(app)
    assert NOTE not in scorer.get(f"/c/{public_id}").get_data(as_text=True)


def test_the_next_view_of_the_standings_or_a_player_finishes_an_interrupted_catch_up(app, club):
    """A server killed before its catch-up ran leaves the club marked: the next view of the
    club's pages says so and catches up after its own answer."""
    public_id, match_id = club
    with app.app_context():
        loaded = matches.load_match(match_id)
        matches.remove_last_deal(matches.reopen(loaded), 4)
        db.session.info.pop(ratings.STALE, None)  # as if the process died there
        ann = db.session.query(Player).filter_by(name="Ann").one().public_id
    assert updating(app)
    reader = app.test_client()
    log_in(reader, "owner")
    # buffered: read and closed as a WSGI server does (compression and every hook run)
    page = reader.get(f"/c/{public_id}/p/{ann}", buffered=True, headers={"Accept-Encoding": "br"})
    assert page.headers["Content-Encoding"] == "br"
    assert NOTE.encode() in brotli.decompress(page.data)  # said before the catch-up ran
    assert background.join()
    assert not updating(app)
    assert ratings_of(app) == from_scratch(app)


def test_the_catch_up_runs_on_a_thread_of_its_own_not_the_answers(app, club, monkeypatch):
    """With one thread a server process, a catch-up on the request's thread held up every
    connection of the process until it ended: closing the answer must not wait for it."""
    _public_id, match_id = club
    release, ran_on = threading.Event(), []

    def slow_catch_up(club_id, *args, **kwargs):
        ran_on.append(threading.current_thread())
        release.wait(10)
        return 0

    monkeypatch.setattr(ratings, "catch_up", slow_catch_up)
    scorer = app.test_client()
    log_in(scorer, "owner")
    with app.app_context():
        matches.reopen(matches.load_match(match_id))
        db.session.info.pop(ratings.STALE, None)
    edit = correct_deal(
        scorer, match_id, 1, {"melded_points": 50}, {"melded_points": 900}, went_out=None
    )
    assert edit.status_code == 303
    began = time.monotonic()
    edit.close()
    assert time.monotonic() - began < 5  # the answer's thread went on at once
    release.set()
    assert background.join()
    assert ran_on and threading.current_thread() not in ran_on


def _catching_up_in_twos(app, club, monkeypatch, requests_meanwhile):
    """Catch up from the first of five matches, two matches a chunk; a request is
    answered during each chunk when ``requests_meanwhile``. The chunks' (rated, took)
    and the pauses after them."""
    _public_id, match_id = club
    rate, chunks, pauses = ratings.catch_up, [], []

    def in_twos(club_id, **kwargs):
        assert kwargs == {"chunks": 1}  # one chunk a call, the pause between calls
        began = time.monotonic()
        rated = rate(club_id, 2, **kwargs)
        if requests_meanwhile:
            assert app.test_client().get("/").status_code == 200
        chunks.append((rated, time.monotonic() - began))
        return rated

    monkeypatch.setattr(ratings, "catch_up", in_twos)
    monkeypatch.setattr(background.time, "sleep", pauses.append)
    with app.app_context():
        loaded = matches.load_match(match_id)
        matches.remove_last_deal(matches.reopen(loaded), 4)  # the first of five matches
        db.session.info.pop(ratings.STALE, None)
        club_id = db.session.query(Club).one().id
    assert updating(app)
    background.catch_up(app, [club_id])
    assert [rated for rated, _took in chunks] == [2, 2, 0]  # the first is no longer finished
    assert not updating(app)
    assert ratings_of(app) == from_scratch(app)
    return chunks, pauses


def test_while_requests_come_the_catch_up_pauses_after_each_chunk(app, club, monkeypatch):
    """A chunk of matches at a time, then a pause ``background.PAUSE`` times as long:
    the requests and the club's writers have the cores and the lock meanwhile. The
    ratings come out as a replay of the whole history gives them."""
    chunks, pauses = _catching_up_in_twos(app, club, monkeypatch, requests_meanwhile=True)
    assert background.PAUSE >= 1
    took = [seconds for _rated, seconds in chunks[:2]]  # the last found none: no pause
    assert len(pauses) == 2
    assert all(p >= t * background.PAUSE * 0.9 for p, t in zip(pauses, took, strict=True))


def test_on_an_idle_server_the_catch_up_goes_on_at_once(app, club, monkeypatch):
    _chunks, pauses = _catching_up_in_twos(app, club, monkeypatch, requests_meanwhile=False)
    assert pauses == []
