"""Entering every deal of a match through the plain form, with the totals after each."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    SIDE_A_COUNTS,
    SIDE_A_POINTS,
    SIDE_B_COUNTS,
    SIDE_B_POINTS,
    STANDARD_TOTALS,
    deal_count,
    deal_scores,
    enter_deal,
    show,
    start_match,
    totals,
)
from htmltree import parse

OUT_WITH_BOOKS = {"books_clean": 2, "books_dirty": 2, "books_wild": 1}

#: A whole classic match, 2 teams of 2: (side 0, side 1, who went out, totals after it).
WINNING_MATCH: list[tuple[dict[str, Any], dict[str, Any], int | None, list[int]]] = [
    (SIDE_A_COUNTS, SIDE_B_POINTS, 0, [3990, 510]),
    (SIDE_B_POINTS, SIDE_A_COUNTS, 1, [4500, 4500]),
    # nobody out; side 1 laid two red threes without melding: -100 each under classic
    (
        {"books_clean": 1, "melded_points": 300, "left_points": 40},
        {"red_threes": 2, "left_points": 120},
        None,
        [5260, 4180],
    ),
    (
        {"left_points": 200, "red_threes_left": 2},
        {**OUT_WITH_BOOKS, "melded_points": 800},
        1,
        [4860, 8180],
    ),
]


@pytest.mark.parametrize(
    ("side_a", "side_b"),
    [
        (SIDE_A_COUNTS, SIDE_B_POINTS),
        (SIDE_A_POINTS, SIDE_B_POINTS),
        (SIDE_A_COUNTS, SIDE_B_COUNTS),
        (SIDE_A_POINTS, SIDE_B_COUNTS),
    ],
    ids=["counts-points", "points-points", "counts-counts", "points-counts"],
)
def test_the_standard_deal_gives_3990_and_510_however_the_cards_are_entered(
    app: Flask, client: FlaskClient, side_a: dict[str, Any], side_b: dict[str, Any]
) -> None:
    public_id = start_match(client)
    response = enter_deal(client, public_id, side_a, side_b, went_out=0)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/m/{public_id}"
    html = show(client, public_id)
    assert totals(html) == STANDARD_TOTALS
    assert deal_scores(html) == [STANDARD_TOTALS]
    assert deal_count(app, public_id) == 1


def test_every_deal_of_a_match_is_entered_and_the_totals_follow_after_each(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    for number, (side_0, side_1, went_out, expected) in enumerate(WINNING_MATCH, start=1):
        assert f"Enter deal {number}" in show(client, public_id)
        assert enter_deal(client, public_id, side_0, side_1, went_out=went_out).status_code == 303
        html = show(client, public_id)
        assert totals(html) == expected
        assert deal_count(app, public_id) == number
    assert deal_scores(html) == [[3990, 510], [510, 3990], [760, -320], [-400, 4000]]


def test_the_side_with_the_highest_total_after_the_last_deal_wins(client: FlaskClient) -> None:
    public_id = start_match(client)
    for side_0, side_1, went_out, _ in WINNING_MATCH:
        enter_deal(client, public_id, side_0, side_1, went_out=went_out)
    html = show(client, public_id)
    tree = parse(html)
    assert tree.find_all("p", cls="result")[0].text == "Cecile & Dusan won."
    winner = tree.find_all("li", cls="winner")
    assert [w.find_all("span", cls="side-name")[0].text for w in winner] == ["Cecile & Dusan"]
    assert not tree.find_all("form", id="deal-entry")  # nothing more to enter


def test_a_tie_for_first_after_the_last_deal_is_a_draw(client: FlaskClient) -> None:
    public_id = start_match(client)
    even = {"books_clean": 1, "melded_points": 120, "left_points": 35}
    for side_0, side_1, went_out in [
        (SIDE_A_COUNTS, SIDE_B_POINTS, 0),
        (SIDE_B_POINTS, SIDE_A_COUNTS, 1),
        (even, even, None),
        (even, even, None),
    ]:
        enter_deal(client, public_id, side_0, side_1, went_out=went_out)
    tree = parse(show(client, public_id))
    assert totals(show(client, public_id)) == [5670, 5670]
    assert tree.find_all("p", cls="result")[0].text == "Draw after 4 deals."
    assert not tree.find_all("li", cls="winner")


@pytest.mark.parametrize(
    ("by_counts", "by_points"),
    [
        ({"melded_A": 3, "melded_8toK": 4, "melded_4to7": 2}, {"melded_points": 110}),
        ({"melded_joker": 2, "melded_2": 1, "melded_A": 5}, {"melded_points": 220}),
        ({"left_black3": 2, "left_4to7": 1, "left_joker": 1}, {"left_points": 65}),
        ({"left_2": 3, "left_8toK": 7}, {"left_points": 130}),
    ],
)
def test_counting_by_value_group_and_by_points_give_the_same_deal_score(
    client: FlaskClient, by_counts: dict[str, Any], by_points: dict[str, Any]
) -> None:
    scores = []
    for entry in (by_counts, by_points):
        public_id = start_match(client, "classic", "1+1", ["Ana", "Boris"])
        enter_deal(client, public_id, {"books_clean": 0, **entry}, {"melded_points": 50})
        scores.append(deal_scores(show(client, public_id)))
    assert scores[0] == scores[1]
    assert scores[0][0][0] != 0


@pytest.mark.parametrize(
    ("rules", "layout", "sides", "went_out", "expected"),
    [
        # four-books: 1 wild book does not exist, going out needs 2 clean and 2 dirty
        (
            "four-books",
            "1+1+1",
            [
                {"books_clean": 2, "books_dirty": 2, "melded_points": 400},
                {"red_threes": 1, "left_points": 60},
                {"books_clean": 1, "melded_points": 100, "red_threes_left": 1},
            ],
            0,
            [2100, -160, 500],
        ),
        # whitnack: a red three laid by a side that never melded still gives +100
        (
            "whitnack",
            "2+2",
            [{"red_threes": 1, "left_points": 30}, {**OUT_WITH_BOOKS, "melded_points": 500}],
            1,
            [70, 2350],
        ),
        # classic, 3 teams of 2: a wild book is worth 1500
        (
            "classic",
            "2+2+2",
            [
                {"books_wild": 1, "melded_2": 4, "melded_joker": 3},
                {"left_points": 5},
                {"melded_points": 0},
            ],
            None,
            [1730, -5, 0],
        ),
    ],
)
def test_each_preset_scores_its_own_way_through_the_form(
    client: FlaskClient,
    rules: str,
    layout: str,
    sides: list[dict[str, Any]],
    went_out: int | None,
    expected: list[int],
) -> None:
    public_id = start_match(client, rules, layout)
    response = enter_deal(client, public_id, *sides, went_out=went_out)
    assert response.status_code == 303, response.get_data(as_text=True)
    assert totals(show(client, public_id)) == expected
