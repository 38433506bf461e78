"""Every impossible entry of RULES.md section 3, refused through the deal form.

Each message must sit in the block of the field it names (the `.stepper` or `.points`
block holding that input), and nothing may be saved. A plain POST answers 422; an htmx
POST answers 200 (htmx does not swap a 4xx) with the same errors in the fragment.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    HX,
    assert_refused_beside,
    deal_count,
    enter_deal,
    general_errors,
    show,
    start_match,
    totals,
)
from htmltree import errors_beside, parse

OUT = {"books_clean": 2, "books_dirty": 2, "books_wild": 1}

#: (side 0, side 1, who went out, the field, its message), classic with 2 teams of 2.
IMPOSSIBLE: list[tuple[dict[str, Any], dict[str, Any], int | None, str, str]] = [
    ({"melded_joker": 6}, {"melded_joker": 5}, None, "sides-1-melded_joker",
     "Five decks hold only 10 jokers; the sides report 11."),
    ({"melded_2": 15}, {"left_2": 6}, None, "sides-1-left_2",
     "Five decks hold only 20 twos; the sides report 21."),
    ({"left_black3": 6}, {"left_black3": 5}, None, "sides-1-left_black3",
     "Five decks hold only 10 black threes; the sides report 11."),
    ({"red_threes": 6}, {"red_threes_left": 5}, None, "sides-1-red_threes_left",
     "Five decks hold only 10 red threes; the sides report 11."),
    ({"red_threes": 4, "red_threes_left": 3}, {"red_threes": 4}, None, "sides-1-red_threes",
     "Five decks hold only 10 red threes; the sides report 11."),
    ({"melded_8toK": 100}, {"left_8toK": 21}, None, "sides-1-left_8toK",
     "Five decks hold only 120 cards from 8 to K; the sides report 121."),
    ({"melded_A": 21}, {}, None, "sides-0-melded_A",
     "Five decks hold only 20 aces; the sides report 21."),
    ({"melded_4to7": 70, "left_4to7": 11}, {}, None, "sides-0-left_4to7",
     "Five decks hold only 80 cards from 4 to 7; the sides report 81."),
    ({"books_clean": 1, "melded_A": 5}, {}, None, "sides-0-books_clean",
     "1 book needs at least 7 cards on the table; the side reports 5."),
    ({"books_dirty": 1, "melded_A": 7}, {}, None, "sides-0-books_dirty",
     "This book needs at least 1 wild card on the table; the side reports 0."),
    ({"books_clean": 1, "melded_joker": 7}, {}, None, "sides-0-books_clean",
     "This book needs at least 7 natural cards on the table; the side reports 0."),
    ({}, {"books_wild": 1, "melded_A": 7}, None, "sides-1-books_wild",
     "This book needs at least 7 wild cards on the table; the side reports 0."),
    ({"books_clean": 1, "melded_points": 500}, {}, 0, "sides-0-books_clean",
     "Going out needs 2 clean books; this side has 1."),
    ({"books_clean": 1, "melded_points": 500}, {}, 0, "sides-0-books_wild",
     "Going out needs 1 wild book; this side has 0."),
    ({}, {**OUT, "books_dirty": 1, "melded_points": 900}, 1, "sides-1-books_dirty",
     "Going out needs 2 dirty books; this side has 1."),
    ({"melded_points": 62}, {}, None, "sides-0-melded_points",
     "Every card is worth a multiple of 5 here, so 62 cannot be right."),
    ({}, {"left_points": 13}, None, "sides-1-left_points",
     "Every card is worth a multiple of 5 here, so 13 cannot be right."),
    ({"melded_points": 50, "melded_A": 2}, {}, None, "sides-0-melded_points",
     "Give the cards either as counts or as points, not both"),
    ({}, {"left_points": 20, "left_black3": 1}, None, "sides-1-left_points",
     "Give the cards either as counts or as points, not both"),
    ({"melded_points": 999995}, {}, None, "sides-0-melded_points",
     "All the cards in play are worth 2950 points; 999995 is too many."),
]  # fmt: skip


def _case_id(case: tuple[Any, ...]) -> str:
    return f"{case[3]}:{case[4][:30]}"


@pytest.mark.parametrize(("headers", "status"), [({}, 422), (HX, 200)], ids=["plain", "htmx"])
@pytest.mark.parametrize("case", IMPOSSIBLE, ids=[_case_id(c) for c in IMPOSSIBLE])
def test_an_impossible_entry_is_refused_beside_its_field_and_nothing_is_saved(
    app: Flask, client: FlaskClient, case: tuple[Any, ...], headers: dict, status: int
) -> None:
    side_0, side_1, went_out, field, message = case
    public_id = start_match(client)
    response = enter_deal(client, public_id, side_0, side_1, went_out=went_out, headers=headers)
    assert_refused_beside(response, field, message, status)
    html = response.get_data(as_text=True)
    assert not any(message in e for e in general_errors(html))
    if headers:
        assert "<html" not in html
    assert deal_count(app, public_id) == 0
    assert totals(show(client, public_id)) == [0, 0]


def test_the_typed_numbers_stay_in_the_form_after_a_refusal(client: FlaskClient) -> None:
    public_id = start_match(client)
    response = enter_deal(
        client, public_id, {"melded_points": 62, "books_clean": 1}, {"left_points": 40}
    )
    values = {
        n.attrs["name"]: n.attrs.get("value", "")
        for n in parse(response.get_data(as_text=True)).find_all("input")
    }
    assert values["sides-0-melded_points"] == "62"
    assert values["sides-0-books_clean"] == "1"
    assert values["sides-1-left_points"] == "40"


@pytest.mark.parametrize(
    ("side_0", "field"),
    [
        ({**OUT, "melded_points": 900, "left_points": 10}, "sides-0-left_points"),
        ({**OUT, "melded_points": 900, "red_threes_left": 1}, "sides-0-red_threes_left"),
        ({**OUT, "melded_points": 900, "left_joker": 1}, "sides-0-left_points"),
    ],
)
def test_a_player_alone_who_went_out_cannot_have_cards_left(
    app: Flask, client: FlaskClient, side_0: dict[str, Any], field: str
) -> None:
    public_id = start_match(client, "classic", "1+1", ["Ana", "Boris"])
    response = enter_deal(client, public_id, side_0, {}, went_out=0)
    assert_refused_beside(response, field, "A player who went out has no ")
    assert deal_count(app, public_id) == 0


def test_a_team_that_went_out_may_have_cards_left_in_a_partners_hand(
    client: FlaskClient,
) -> None:
    public_id = start_match(client, "classic", "2+2")
    response = enter_deal(
        client, public_id, {**OUT, "melded_points": 900, "left_points": 10}, {}, went_out=0
    )
    assert response.status_code == 303
    assert totals(show(client, public_id)) == [4090, 0]


def test_the_went_out_choice_is_one_radio_so_only_one_side_can_go_out(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client, "classic", "1+1+1")
    radios = parse(show(client, public_id)).find_all("input", name="went_out")
    assert {r.attrs["type"] for r in radios} == {"radio"}
    assert [r.attrs["value"] for r in radios] == ["", "0", "1", "2"]
    assert "checked" in radios[0].attrs  # nobody went out is the default
    response = enter_deal(client, public_id, {}, {}, {}, went_out=3)
    assert_refused_beside(response, "went_out", "Not a valid choice")
    assert deal_count(app, public_id) == 0


def test_the_engine_refuses_two_sides_out_where_a_radio_cannot_stop_it(
    client: FlaskClient,
) -> None:
    books = {k.removeprefix("books_"): v for k, v in OUT.items()}
    out = {"went_out": True, "books": books, "melded_points": 500}
    response = client.post(
        "/api/v1/score",
        json={"rules": "classic", "deal": 1, "players": 4, "sides": [out, out]},
    )
    assert response.status_code == 422
    assert {"field": "sides[1].went_out", "message": "Only one side can go out in a deal."} in (
        response.get_json()["errors"]
    )


def test_a_wild_book_is_not_offered_under_four_books_and_the_api_refuses_one(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client, "four-books", "2+2")
    html = show(client, public_id)
    names = {n.attrs.get("name") for n in parse(html).find_all("input")}
    assert {"sides-0-books_clean", "sides-0-books_dirty"} <= names
    assert not {n for n in names if n and n.endswith("books_wild")}
    response = client.post(
        "/api/v1/score",
        json={
            "rules": "four-books",
            "deal": 1,
            "players": 4,
            "sides": [{"books": {"wild": 1}}, {}],
        },
    )
    assert response.status_code == 422
    assert response.get_json()["errors"] == [
        {"field": "sides[0].books.wild", "message": "This rule set has no wild books."}
    ]


def test_errors_in_several_fields_are_all_shown_at_once(client: FlaskClient) -> None:
    public_id = start_match(client)
    response = enter_deal(
        client, public_id, {"melded_points": 62}, {"left_points": 13, "melded_joker": 11}
    )
    html = response.get_data(as_text=True)
    assert errors_beside(html, "sides-0-melded_points")
    assert errors_beside(html, "sides-1-left_points")
    assert errors_beside(html, "sides-1-melded_joker")
