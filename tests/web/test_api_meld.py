"""POST /api/v1/meld: the example of RULES.md section 6 and its 422s with field paths."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from scorekeeper.web.api import examples

URL = "/api/v1/meld"


def test_the_meld_example_counts_200_against_a_minimum_of_90(client: FlaskClient) -> None:
    response = client.post(URL, json=examples.MELD_REQUEST)

    assert response.status_code == 200
    assert response.json == {
        "deal": 2, "minimum": 90, "counted": 200, "enough": True, "short_by": 0,
        "melds": [
            {"legal": True, "value": 50, "reasons": []},
            {"legal": True, "value": 30, "reasons": []},
            {"legal": True, "value": 120, "reasons": []},
        ],
    }  # fmt: skip
    assert response.json == examples.MELD_RESPONSE


def test_illegal_melds_are_answered_200_with_reasons_and_do_not_count(
    client: FlaskClient,
) -> None:
    data = {
        "rules": "four-books",
        "deal": 1,
        "melds": [
            {"rank": "wild", "jokers": 3},
            {"rank": "K", "naturals": 2, "twos": 1},
            {"rank": "Q", "naturals": 2},
        ],
    }

    response = client.post(URL, json=data)

    assert response.status_code == 200
    body = response.json
    assert [m["legal"] for m in body["melds"]] == [False, True, False]
    assert body["melds"][0]["reasons"] == [
        "This rule set has no wild books, so a meld of only wild cards is not allowed."
    ]
    assert body["counted"] == 40
    assert (body["enough"], body["short_by"]) == (False, 10)


def test_a_rule_set_object_may_be_given_for_the_meld_check(client: FlaskClient) -> None:
    house = client.get("/api/v1/rules/classic").json
    house.update(id="house", name="House", minimum_meld=[300, 300, 300, 300])

    response = client.post(URL, json={**examples.MELD_REQUEST, "rules": house})

    assert response.status_code == 200
    assert (response.json["minimum"], response.json["short_by"]) == (300, 100)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(
            {
                "rules": "classic",
                "deal": 2,
                "x": 1,
                "melds": [
                    {"rank": "3"},
                    {"rank": "K", "naturals": -1, "top_card": "yes"},
                    {"rank": "wild", "naturals": 2},
                    {"rank": "Q", "naturals": 3, "top_card": True},
                    {"rank": "J", "naturals": 3, "top_card": True},
                ],
            },
            [
                "x",
                "melds[0].rank",
                "melds[1].naturals",
                "melds[1].top_card",
                "melds[2].naturals",
                "melds",
            ],
            id="a three, a negative count, a wild meld with naturals, two top cards",
        ),
        pytest.param(
            {"rules": "classic", "deal": 5, "running_total": 0.5, "melds": "K"},
            ["deal", "running_total", "melds"],
            id="a deal past the game, a fractional total, melds as text",
        ),
        pytest.param(
            {"rules": "classic", "deal": 1, "melds": [{"rank": "Z", "jokers": 1.5, "x": 0}]},
            ["melds[0].x", "melds[0].rank", "melds[0].jokers"],
            id="an unknown rank, key and fraction",
        ),
        pytest.param({"deal": 1}, ["rules"], id="no rules"),
    ],
)
def test_an_unreadable_meld_request_lists_every_problem(
    client: FlaskClient, data: dict[str, Any], expected: list[str]
) -> None:
    response = client.post(URL, json=data)

    assert response.status_code == 422
    assert [p["field"] for p in response.json["errors"]] == expected
    assert all(p["message"] for p in response.json["errors"])


def test_the_meld_check_threes_message_speaks_to_a_player(client: FlaskClient) -> None:
    data = {"rules": "classic", "deal": 1, "melds": [{"rank": "3", "naturals": 3}]}

    response = client.post(URL, json=data)

    assert response.json["errors"] == [
        {"field": "melds[0].rank", "message": "Threes are never melded."}
    ]


def test_get_on_the_meld_endpoint_is_a_json_405(client: FlaskClient) -> None:
    response = client.get(URL)

    assert response.status_code == 405
    assert response.mimetype == "application/json"
