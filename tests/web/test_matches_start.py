"""Starting a match through the plain form: presets, seatings, names, first dealer."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    NAMES,
    assert_refused_beside,
    enter_deal,
    layout_sizes,
    match_count,
    new_match_data,
    show,
    start_match,
)
from htmltree import parse

from scorekeeper.extensions import db
from scorekeeper.models import Match as MatchRow

ALLOWED = [
    ("classic", "1+1"),
    ("classic", "1+1+1"),
    ("classic", "2+2"),
    ("classic", "2+2+2"),
    ("classic", "3+3"),
    ("four-books", "1+1"),
    ("four-books", "1+1+1"),
    ("four-books", "2+2"),
    ("whitnack", "2+2"),
]
REFUSED = [
    ("four-books", "2+2+2", "Four books is not played with 3 teams of 2."),
    ("four-books", "3+3", "Four books is not played with 2 teams of 3."),
    ("whitnack", "1+1", "Whitnack is not played with 2 players alone."),
    ("whitnack", "1+1+1", "Whitnack is not played with 3 players alone."),
    ("whitnack", "2+2+2", "Whitnack is not played with 3 teams of 2."),
    ("whitnack", "3+3", "Whitnack is not played with 2 teams of 3."),
]


def _name_fields(html: str) -> list[str]:
    form = parse(html).find_all("form", id="new-match")[0]
    return [n.attrs["name"] for n in form.find_all("input") if "_player_" in n.attrs["name"]]


@pytest.mark.parametrize(("rules", "layout"), ALLOWED)
def test_the_new_match_page_asks_one_name_per_seat_of_the_layout(
    client: FlaskClient, rules: str, layout: str
) -> None:
    html = client.get("/matches/new", query_string={"rules": rules, "layout": layout}).get_data(
        as_text=True
    )
    expected = [
        f"side_{i}_player_{j}" for i, size in enumerate(layout_sizes(layout)) for j in range(size)
    ]
    assert _name_fields(html) == expected


@pytest.mark.parametrize(("rules", "layout"), ALLOWED)
def test_a_match_starts_under_each_preset_and_each_layout_it_allows(
    app: Flask, client: FlaskClient, rules: str, layout: str
) -> None:
    public_id = start_match(client, rules, layout)
    with app.app_context():
        row = db.session.query(MatchRow).filter_by(public_id=public_id).one()
        assert row.rules["id"] == rules
        assert [len(side.players) for side in row.sides] == layout_sizes(layout)
    html = show(client, public_id)
    players = NAMES[: sum(layout_sizes(layout))]
    assert all(name in html for name in players)
    assert "Deal 1 of 4" in html
    assert "Dealer: Ana" in html


@pytest.mark.parametrize(("rules", "layout", "message"), REFUSED)
def test_a_layout_the_preset_does_not_allow_is_refused_beside_the_players_choice(
    app: Flask, client: FlaskClient, rules: str, layout: str, message: str
) -> None:
    response = client.post("/matches", data=new_match_data(rules, layout))
    assert_refused_beside(response, "layout", message)
    assert match_count(app) == 0


@pytest.mark.parametrize(("rules", "layout", "message"), REFUSED)
def test_the_new_match_page_never_offers_a_layout_the_preset_does_not_allow(
    client: FlaskClient, rules: str, layout: str, message: str
) -> None:
    html = client.get("/matches/new", query_string={"rules": rules, "layout": layout}).get_data(
        as_text=True
    )
    offered = [o.attrs["value"] for o in parse(html).find_all("select", id="layout")[0].iter()[1:]]
    assert layout not in offered
    fallback = "2+2" if "2+2" in offered else offered[0]
    assert len(_name_fields(html)) == sum(layout_sizes(fallback))


def test_names_typed_once_are_offered_again_next_time(client: FlaskClient) -> None:
    start_match(client, "classic", "1+1", ["Ana", "Boris"])
    start_match(client, "classic", "1+1", ["ana", "Cecile"])
    html = client.get("/matches/new").get_data(as_text=True)
    tree = parse(html)
    offered = [o.attrs["value"] for o in tree.find_all("datalist", id="known-names")[0].iter()[1:]]
    assert sorted(offered) == ["Boris", "Cecile", "ana"]  # one spelling per name, the latest
    assert all(n.attrs.get("list") == "known-names" for n in tree.find_all("input", type="text")
               if "_player_" in n.attrs["name"])  # fmt: skip


def test_no_player_of_a_members_only_club_is_offered_to_a_visitor(app: Flask) -> None:
    # The new-match page is open to anyone; it listed the names of every club match's
    # players, those of members-only clubs too, which the clubs' own pages refuse.
    from scorekeeper.services import clubs
    from scorekeeper.services.demo import four_deals, play

    with app.app_context():
        private = clubs.create_club("Private", visibility="members")
        play(private, [("Secret Sarah",), ("Hidden Hank",)], four_deals(500, 300))
        public = clubs.create_club("Open", visibility="public")
        play(public, [("Open Olga",), ("Public Paul",)], four_deals(500, 300))
    visitor = app.test_client()
    start_match(visitor, "classic", "1+1", ["Ana", "Hidden Hank"])  # typed in a casual match
    tree = parse(visitor.get("/matches/new").get_data(as_text=True))
    offered = [o.attrs["value"] for o in tree.find_all("datalist", id="known-names")[0].iter()[1:]]
    assert offered == ["Ana"]  # not a members-only club's player, even typed casually


@pytest.mark.parametrize(
    ("layout", "first_dealer", "dealers"),
    [
        ("2+2", 0, ["Ana", "Cecile", "Boris", "Dusan"]),
        ("2+2", 1, ["Cecile", "Boris", "Dusan", "Ana"]),
        ("2+2", 3, ["Dusan", "Ana", "Cecile", "Boris"]),
        ("1+1+1", 2, ["Cecile", "Ana", "Boris", "Cecile"]),
    ],
)
def test_the_first_dealer_deals_deal_one_and_the_deal_passes_to_the_left(
    client: FlaskClient, layout: str, first_dealer: int, dealers: list[str]
) -> None:
    public_id = start_match(client, "classic", layout, first_dealer=first_dealer)
    side_count = len(layout_sizes(layout))
    for deal, dealer in enumerate(dealers, start=1):
        html = show(client, public_id)
        assert f"Deal {deal} of 4" in html
        assert f"Dealer: {dealer}" in html
        enter_deal(client, public_id, *([{"melded_points": 50}] * side_count))


def test_the_first_dealer_choice_lists_every_seat_in_clockwise_order(client: FlaskClient) -> None:
    html = client.get("/matches/new?rules=classic&layout=2%2B2").get_data(as_text=True)
    select = parse(html).find_all("select", name="first_dealer")[0]
    assert [o.text for o in select.find_all("option")] == [
        "Side 1, player 1",
        "Side 2, player 1",
        "Side 1, player 2",
        "Side 2, player 2",
    ]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"side_0_player_1": ""}, "side_0_player_1", "Type a name."),
        ({"side_1_player_0": "   "}, "side_1_player_0", "This cannot be empty."),
        ({"side_1_player_1": "ANA"}, "side_1_player_1", "ANA already plays in this match."),
        ({"side_0_player_0": "A" * 41}, "side_0_player_0", "longer than 40 characters"),
        ({"side_0_player_0": "Ana\x00"}, "side_0_player_0", "Use letters, digits and spaces"),
        ({"side_0_name": "We\x00"}, "side_0_name", "Use letters, digits and spaces"),
        ({"side_1_name": "T" * 81}, "side_1_name", "longer than 80 characters"),
        ({"first_dealer": "4"}, "first_dealer", "Not a valid choice"),
        ({"first_dealer": "-1"}, "first_dealer", "Not a valid choice"),
        ({"first_dealer": "first"}, "first_dealer", "could not coerce"),
    ],
)
def test_a_missing_or_impossible_name_or_dealer_is_refused_beside_its_field(
    app: Flask, client: FlaskClient, change: dict[str, str], field: str, message: str
) -> None:
    data = {**new_match_data("classic", "2+2", team_names=["We", "They"]), **change}
    response = client.post("/matches", data=data)
    assert_refused_beside(response, field, message)
    assert match_count(app) == 0


def test_names_typed_before_a_refusal_stay_in_the_form(client: FlaskClient) -> None:
    data = {**new_match_data("classic", "2+2", ["Ana", "", "Cecile", "Dusan"])}
    html = client.post("/matches", data=data).get_data(as_text=True)
    values = {n.attrs["name"]: n.attrs.get("value") for n in parse(html).find_all("input")}
    assert [values[f"side_{i}_player_{j}"] for i in (0, 1) for j in (0, 1)] == [
        "Ana",
        "",
        "Cecile",
        "Dusan",
    ]


def test_team_names_label_the_sides_and_players_names_do_without_them(
    client: FlaskClient,
) -> None:
    named = start_match(client, "classic", "2+2", team_names=["North", "South"])
    unnamed = start_match(client, "classic", "2+2", ["Emir", "Fatima", "Goran", "Hana"])
    assert [s.text for s in parse(show(client, named)).find_all("span", cls="side-name")] == [
        "North",
        "South",
    ]
    assert [s.text for s in parse(show(client, unnamed)).find_all("span", cls="side-name")] == [
        "Emir & Fatima",
        "Goran & Hana",
    ]


def test_an_unreadable_layout_is_a_bad_request_and_saves_nothing(
    app: Flask, client: FlaskClient
) -> None:
    response = client.post("/matches", data={**new_match_data(), "layout": "9+9"})
    assert response.status_code == 400
    assert "Something is not right" in response.get_data(as_text=True)
    assert match_count(app) == 0
