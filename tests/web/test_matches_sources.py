"""The match pages follow the sources (issue 10): red threes in a foot, the agreed number
of deals, and matches saved before keep their scores."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    SIDE_A_COUNTS,
    assert_refused_beside,
    enter_deal,
    match_count,
    new_match_data,
    show,
    start_match,
    totals,
)
from htmltree import parse
from support import owner_client

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import Deal, DealSide, MatchPlayer, MatchSide
from scorekeeper.models import Match as MatchRow
from scorekeeper.services import clubs

#: Side B of the standard deal (UX.md): its red three is in the foot nobody picked up.
SIDE_B_FOOT = {
    "books_clean": 1,
    "melded_points": 185,
    "left_points": 75,
    "red_threes_left_in_foot": 1,
}


def _inputs(html: str) -> dict[str, str]:
    return {n.attrs["name"]: n.attrs.get("value", "") for n in parse(html).find_all("input")}


def _labels(html: str) -> str:
    return " ".join(label.text for label in parse(html).find_all("label"))


def test_classic_asks_for_red_threes_in_a_hand_and_in_a_foot_apart(client: FlaskClient) -> None:
    html = show(client, start_match(client, "classic"))
    names = _inputs(html)
    assert "sides-1-red_threes_left" in names and "sides-1-red_threes_left_in_foot" in names
    assert "Left in a hand" in html and "In a foot nobody picked up" in html
    assert "if another side went out" in html


@pytest.mark.parametrize("rules", ["four-books", "whitnack"])
def test_a_rule_set_that_treats_hand_and_foot_alike_keeps_one_stepper(
    client: FlaskClient, rules: str
) -> None:
    html = show(client, start_match(client, rules))
    names = _inputs(html)
    assert "sides-1-red_threes_left" in names
    assert "sides-1-red_threes_left_in_foot" not in names
    assert "Not laid (left in hand or foot)" in html


def test_the_standard_deal_with_its_red_three_in_the_foot_scores_3990_and_510(
    client: FlaskClient,
) -> None:
    public_id = start_match(client, "classic")
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_FOOT, went_out=0)
    assert totals(show(client, public_id)) == [3990, 510]


def test_a_red_three_in_the_foot_costs_nothing_under_classic_when_nobody_went_out(
    client: FlaskClient,
) -> None:
    """The stock ran out: 185 + 500 - 75 = 610 (Bosnian: only "if your opponents go out")."""
    public_id = start_match(client, "classic")
    enter_deal(client, public_id, {}, SIDE_B_FOOT)
    assert totals(show(client, public_id)) == [0, 610]


def test_correcting_a_classic_deal_shows_the_foot_count_in_its_own_stepper(
    client: FlaskClient,
) -> None:
    public_id = start_match(client, "classic")
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_FOOT, went_out=0)
    values = _inputs(client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True))
    assert (values["sides-1-red_threes_left_in_foot"], values["sides-1-red_threes_left"]) == (
        "1",
        "",
    )


def test_a_player_alone_who_went_out_with_a_red_three_in_the_foot_is_refused_beside_it(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client, "classic", "1+1")
    out = {"books_clean": 2, "books_dirty": 2, "books_wild": 1, "melded_joker": 7,
           "melded_2": 4, "melded_A": 30, "red_threes_left_in_foot": 1}  # fmt: skip
    response = enter_deal(client, public_id, out, {}, went_out=0)
    assert_refused_beside(
        response, "sides-0-red_threes_left_in_foot", "A player who went out has no red threes"
    )


# -- the number of deals ---------------------------------------------------------------


def test_the_new_match_form_offers_the_rule_sets_number_of_deals(client: FlaskClient) -> None:
    html = client.get("/matches/new?rules=whitnack").get_data(as_text=True)
    assert _inputs(html)["deals_in_game"] == "4"
    assert "Number of deals" in _labels(html)


def test_a_match_started_with_six_deals_keeps_six_and_fits_its_minimum_melds(
    app: Flask, client: FlaskClient
) -> None:
    response = client.post("/matches", data={**new_match_data("whitnack"), "deals_in_game": "6"})
    assert response.status_code == 303
    with app.app_context():
        row = db.session.query(MatchRow).one()
        assert row.rules["deals"] == 6
        assert row.rules["minimum_meld"] == [50, 90, 120, 150, 150, 150]
    public_id = response.headers["Location"].removeprefix("/m/")
    for _ in range(5):
        enter_deal(client, public_id, {"melded_points": 10}, {})
    html = show(client, public_id)
    assert "Enter deal 6" in html and "Minimum meld: 150" in html


def test_a_two_deal_match_is_finished_after_two_deals(app: Flask, client: FlaskClient) -> None:
    response = client.post("/matches", data={**new_match_data("classic"), "deals_in_game": "2"})
    public_id = response.headers["Location"].removeprefix("/m/")
    enter_deal(client, public_id, {"melded_points": 10}, {})
    enter_deal(client, public_id, {"melded_points": 10}, {})
    with app.app_context():
        assert db.session.query(MatchRow).one().finished


@pytest.mark.parametrize(("deals", "message"), [("0", "from 1 to 20"), ("21", "from 1 to 20"),
                                                ("four", "from 1 to 20")])  # fmt: skip
def test_a_number_of_deals_outside_1_to_20_is_refused_beside_the_field(
    app: Flask, client: FlaskClient, deals: str, message: str
) -> None:
    response = client.post("/matches", data={**new_match_data("classic"), "deals_in_game": deals})
    assert_refused_beside(response, "deals_in_game", message)
    assert match_count(app) == 0


def test_an_empty_number_of_deals_plays_the_rule_sets_number(
    app: Flask, client: FlaskClient
) -> None:
    client.post("/matches", data={**new_match_data("classic"), "deals_in_game": ""})
    with app.app_context():
        assert db.session.query(MatchRow).one().rules["deals"] == 4


def test_a_club_match_starts_with_the_agreed_number_of_deals(app: Flask) -> None:
    with app.app_context():
        club = clubs.create_club("Tuesday", min_games=1).public_id
    client = owner_client(app, club)  # a club's matches are started by its scorers
    data = {**new_match_data("classic"), "played_on": "2024-03-20", "deals_in_game": "3"}
    html = client.get(f"/c/{club}/matches/new").get_data(as_text=True)
    assert _inputs(html)["deals_in_game"] == "4"
    assert client.post(f"/c/{club}/matches", data=data).status_code == 303
    with app.app_context():
        assert db.session.query(MatchRow).one().rules["minimum_meld"] == [50, 90, 120]


# -- matches saved before these knobs ------------------------------------------------


def _old_whitnack() -> dict[str, Any]:
    """Whitnack as a match froze it before issue 10: a red three left cost 100."""
    data = PRESETS["whitnack"].to_dict()
    del data["pile_blocked_by"], data["one_open_meld_per_rank"]
    data["red_three"] = {"laid": 100, "laid_without_meld": 100, "left": -100}
    return data


def test_a_match_saved_before_keeps_its_scores_and_its_corrections_score_the_old_way(
    app: Flask, client: FlaskClient
) -> None:
    """Deal 1 as it was stored: side B 250 - 35 - 100 = 115 (a red three left cost 100
    under the old whitnack copy); side A 900 + 1750 + 100 + 100 = 2850."""
    entries = [
        {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "red_threes": 1,
         "red_threes_left": 0, "melded_points": 900, "left": {}},
        {"went_out": False, "books": {}, "red_threes": 0, "red_threes_left": 1,
         "melded_points": 250, "left_points": 35},
    ]  # fmt: skip
    with app.app_context():
        row = MatchRow(rules=_old_whitnack(), rules_origin="whitnack", first_dealer=0)
        for position, names in enumerate((("Ana", "Ben"), ("Cleo", "Dan"))):
            side = MatchSide(position=position, name="")
            side.players = [MatchPlayer(position=i, name=n) for i, n in enumerate(names)]
            row.sides.append(side)
        deal = Deal(number=1, submission_key="old")
        for position, (entry, total) in enumerate(zip(entries, (2850, 115), strict=True)):
            deal.sides.append(
                DealSide(position=position, entry=entry, went_out=entry["went_out"],
                         card_points=0, book_bonus=0, red_threes=0, going_out=0,
                         exact_draws=0, left_points=0, red_threes_left=0, total=total)
            )  # fmt: skip
        row.deals.append(deal)
        row.sides[0].total, row.sides[1].total, row.deal_count = 2850, 115, 1
        db.session.add(row)
        db.session.commit()
        public_id = row.public_id
    html = show(client, public_id)
    assert totals(html) == [2850, 115]
    assert "Not laid (left in hand or foot)" in html  # the old copy treats hand and foot alike
    response = client.get(f"/api/v1/matches/{public_id}")
    assert response.json["totals"] == [2850, 115]
    assert response.json["rules"]["red_three"]["left_in_foot"] == -100
