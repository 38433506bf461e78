"""OpenSkill ratings: updated when a match finishes, replayed exactly after a correction."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from scorekeeper.extensions import db
from scorekeeper.models import Player, RatingPoint
from scorekeeper.services import clubs, matches, ratings
from scorekeeper.services.demo import four_deals, play


@pytest.fixture
def ctx(app):
    with app.app_context():
        yield


def snapshot(club):
    db.session.expire_all()
    players = db.session.scalars(select(Player).where(Player.club_id == club.id)).all()
    points = db.session.execute(
        select(RatingPoint.player_id, RatingPoint.match_id, RatingPoint.sequence, RatingPoint.mu)
        .where(RatingPoint.club_id == club.id)
        .order_by(RatingPoint.sequence, RatingPoint.player_id)
    ).all()
    return {p.name: (p.rating_mu, p.rating_sigma) for p in players}, [tuple(p) for p in points]


def history(club):
    play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    second = play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(300, 600), date(2024, 3, 8))
    play(club, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    return second


def test_a_winner_gains_and_a_loser_drops_from_the_start_rating(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
    found, _points = snapshot(club)
    assert found["Ann"][0] > ratings.START_MU > found["Bob"][0]
    assert found["Ann"][1] < ratings.START_SIGMA
    assert ratings.ordinal(*found["Ann"]) > 0 > ratings.ordinal(*found["Bob"])


def test_a_new_player_has_no_rating_and_a_team_needs_every_member_rated(ctx):
    assert ratings.ordinal(None, None) is None
    assert ratings.team_ordinal([1.0, None]) is None
    assert ratings.team_ordinal([]) is None
    assert ratings.team_ordinal([1.0, 2.0]) == 1.5


def test_incremental_ratings_equal_a_replay_from_scratch(ctx):
    club = clubs.create_club("Tuesday")
    history(club)
    incremental = snapshot(club)
    ratings.recompute(club.id)
    db.session.commit()
    assert snapshot(club) == incremental
    assert len(incremental[1]) == 12


def test_a_corrected_finished_match_gives_the_ratings_of_the_corrected_history(ctx):
    club = clubs.create_club("Tuesday")
    second = history(club)
    loaded = matches.reopen(matches.load_match(second.public_id))
    matches.correct_deal(loaded, 1, [{"melded_points": 900}, {"melded_points": 100}], None)
    corrected = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(900, 100), day=date(2024, 3, 8))
    play(fresh, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == corrected[0]
    assert corrected[0]["Ann"][0] > corrected[0]["Bob"][0]


def test_removing_a_deal_of_a_finished_match_replays_the_history_without_it(ctx):
    club = clubs.create_club("Tuesday")
    second = history(club)
    matches.remove_last_deal(matches.reopen(matches.load_match(second.public_id)), 4)
    without = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann", "Dee"), ("Bob", "Cid")], four_deals(450, 450), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == without[0]
    assert len(without[1]) == 8


def test_a_match_finished_out_of_date_order_is_rated_in_date_order(ctx):
    club = clubs.create_club("Tuesday")
    play(club, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 3, 15))
    play(club, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 3, 1))
    late = snapshot(club)

    fresh = clubs.create_club("Fresh")
    play(fresh, [("Ann",), ("Bob",)], four_deals(100, 300), day=date(2024, 3, 1))
    play(fresh, [("Ann",), ("Bob",)], four_deals(500, 300), day=date(2024, 3, 15))
    assert snapshot(fresh)[0] == late[0]
    sequences = [sequence for _p, _m, sequence, _mu in late[1]]
    assert sequences == [0, 0, 1, 1]
