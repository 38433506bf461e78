"""POST /api/v1/score: the worked example, presets round-tripped, and every bad input a 422."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from scorekeeper.engine import PRESETS
from scorekeeper.web.api import examples

URL = "/api/v1/score"


def request_for(rules_id: str) -> dict[str, Any]:
    """The worked example, with side A holding exactly the books needed to go out."""
    data = copy.deepcopy(examples.SCORE_REQUEST)
    requires = dict(PRESETS[rules_id].going_out_requires)
    data["rules"] = rules_id
    data["sides"][0]["books"] = requires
    data["sides"][1]["books"] = {"clean": 1}
    return data


def fields(response: Any) -> list[str]:
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return [problem["field"] for problem in response.json["errors"]]


def test_worked_example_scores_3990_and_510_with_every_breakdown_field(
    client: FlaskClient,
) -> None:
    response = client.post(URL, json=examples.SCORE_REQUEST)

    assert response.status_code == 200
    assert response.json == {
        "deal": 2,
        "minimum_meld": 90,
        "sides": [
            {"card_points": 690, "book_bonus": 3100, "red_threes": 100, "going_out": 100,
             "exact_draws": 0, "left_points": 0, "red_threes_left": 0, "total": 3990},
            {"card_points": 185, "book_bonus": 500, "red_threes": 0, "going_out": 0,
             "exact_draws": 0, "left_points": 75, "red_threes_left": 100, "total": 510},
        ],
    }  # fmt: skip


def test_the_published_example_response_is_what_the_endpoint_answers(
    client: FlaskClient,
) -> None:
    assert client.post(URL, json=examples.SCORE_REQUEST).json == examples.SCORE_RESPONSE


def test_published_error_example_is_what_the_endpoint_answers(client: FlaskClient) -> None:
    response = client.post(URL, json=examples.SCORE_ERROR_REQUEST)

    assert response.status_code == 422
    assert response.json == examples.ERRORS


@pytest.mark.parametrize("rules_id", list(PRESETS))
def test_every_preset_object_scores_the_same_as_its_id(client: FlaskClient, rules_id: str) -> None:
    rule_set = client.get(f"/api/v1/rules/{rules_id}").json
    by_id = client.post(URL, json=request_for(rules_id))
    by_object = client.post(URL, json={**request_for(rules_id), "rules": rule_set})

    assert by_id.status_code == 200, by_id.json
    assert by_object.status_code == 200, by_object.json
    assert by_object.json == by_id.json
    assert by_id.json["sides"][0]["going_out"] == 100


def test_whitnack_scores_red_threes_of_a_side_that_never_melded_as_a_bonus(
    client: FlaskClient,
) -> None:
    data = request_for("whitnack")
    data["sides"][1] = {"red_threes": 1, "left_points": 40}
    classic = {**copy.deepcopy(data), "rules": "classic"}

    assert client.post(URL, json=data).json["sides"][1]["red_threes"] == 100
    assert client.post(URL, json=classic).json["sides"][1]["red_threes"] == -100


def test_an_edited_rule_set_object_changes_the_score(client: FlaskClient) -> None:
    house = client.get("/api/v1/rules/classic").json
    house.update(id="house", name="House", going_out_bonus=300)

    response = client.post(URL, json={**examples.SCORE_REQUEST, "rules": house})

    assert response.status_code == 200
    assert response.json["sides"][0]["going_out"] == 300
    assert response.json["sides"][0]["total"] == 4190


def test_omitted_fields_count_as_zero_and_false(client: FlaskClient) -> None:
    data = {"rules": "classic", "deal": 1, "players": 2, "sides": [{}, {"melded_points": 60}]}

    response = client.post(URL, json=data)

    assert response.status_code == 200
    assert [s["total"] for s in response.json["sides"]] == [0, 60]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(
            lambda d: (
                d.update(deal=9, foo=1),
                d["sides"][0]["books"].update(wild="x"),
                d["sides"][1].update(melded={"A": 1}),
            ),
            ["foo", "deal", "sides[0].books.wild", "sides[1].melded"],
            id="an unknown field, a deal past the game, a word for a count, a block both ways",
        ),
        pytest.param(
            lambda d: (
                d["sides"][0]["melded"].update(joker=11),
                d["sides"][1].update(went_out=True),
            ),
            [
                "sides[0].melded.joker",
                "sides[1].went_out",
                "sides[1].books.clean",
                "sides[1].books.dirty",
                "sides[1].books.wild",
            ],
            id="more jokers than five decks hold, two sides out, missing books to go out",
        ),
        pytest.param(
            lambda d: d.update(players=7, sides=d["sides"][:1]),
            ["players", "sides"],
            id="seven players and a single side",
        ),
        pytest.param(
            lambda d: (
                d["sides"][0].update(red_threes=-1, went_out="yes"),
                d["sides"][0]["melded"].update({"3": 2, "9-2": 1, "4-A": 1}),
                d["sides"][1].update(left_points=2.5),
            ),
            [
                "sides[0].went_out",
                "sides[0].red_threes",
                "sides[0].melded.3",
                "sides[0].melded.9-2",
                "sides[0].melded.4-A",
                "sides[1].left_points",
            ],
            id="negative, non-boolean, fractional, threes, odd ranges",
        ),
        pytest.param(
            lambda d: d.update(rules="nope"),
            ["rules"],
            id="an unknown rule set",
        ),
    ],
)
def test_a_bad_deal_is_refused_with_every_problem_and_its_field(
    client: FlaskClient, change: Any, expected: list[str]
) -> None:
    data = copy.deepcopy(examples.SCORE_REQUEST)
    change(data)

    body = json.dumps(data)  # in the order written: problems come in the order found

    assert fields(client.post(URL, data=body, content_type="application/json")) == expected


def test_a_broken_rule_set_object_is_refused_with_paths_inside_rules(
    client: FlaskClient,
) -> None:
    broken = PRESETS["classic"].to_dict()
    broken["deals"] = 0
    del broken["card_values"]["A"]
    broken["book_bonus"]["wild"] = None

    response = client.post(URL, json={**examples.SCORE_REQUEST, "rules": broken})

    assert fields(response) == [
        "rules.deals",
        "rules.card_values.A",
        "rules.going_out_requires.wild",
    ]
    assert all(p["message"] for p in response.json["errors"])


def _nested(depth: int) -> str:
    return '{"sides": ' + "[" * depth + "]" * depth + "}"


NASTY_BODIES = [
    pytest.param(b"null", id="null"),
    pytest.param(b"[]", id="a list"),
    pytest.param(b'"x"', id="a string"),
    pytest.param(b"0", id="a number"),
    pytest.param(b"true", id="true"),
    pytest.param(b"{}", id="an empty object"),
    pytest.param(b"", id="an empty body"),
    pytest.param(b"   \n", id="only whitespace"),
    pytest.param(b'{"sides": "x"}', id="sides as a string"),
    pytest.param(b'{"rules": "classic", "deal": 2, "players": 4, "sides": "x"}', id="sides text"),
    pytest.param(b'{"rules": "classic", "deal": 2, "players": 4, "sides": [null, [], 1]}'),
    pytest.param(b'{"rules": "classic", "deal": 1e999, "players": 4, "sides": []}', id="1e999"),
    pytest.param(b'{"rules": "classic", "deal": NaN, "players": 4}', id="NaN"),
    pytest.param(b'{"rules": "classic", "deal": -Infinity, "players": 4}', id="Infinity"),
    pytest.param(b"NaN", id="NaN alone"),
    pytest.param(b"9" * 5000, id="a 5000-digit number"),
    pytest.param(
        json.dumps(
            {
                "rules": "classic",
                "deal": 10**40,
                "players": 10**40,
                "sides": [{"melded": {"joker": 10**40}, "red_threes": -(10**40)}, {}],
            }
        ).encode(),
        id="huge numbers",
    ),
    pytest.param(
        b'{"rules": "classic", "deal": 2, "players": 4, "sides": [{"melded": {"joker": 1e308},'
        b' "left_points": 1.5e300}, {"books": {"clean": 1e-300}}]}',
        id="huge and tiny floats",
    ),
    pytest.param(_nested(100_000).encode(), id="nested past the recursion limit"),
    pytest.param(_nested(500).encode(), id="nested 500 deep"),
    pytest.param(b'{"rules": ' + b'{"rules": ' * 500 + b"1" + b"}" * 501, id="nested rules"),
    pytest.param(b"{", id="truncated"),
    pytest.param(b"{} x", id="trailing text"),
    pytest.param(b"{'rules': 'classic'}", id="single quotes"),
    pytest.param(b"\xff\xfe{", id="not UTF-8"),
    pytest.param(b'{"rules": "\\u0000", "deal": "\\ud800", "\\ud800": 1}', id="NUL, surrogate"),
    pytest.param(b'{"rules": ["classic"], "deal": [2], "players": {"n": 4}, "sides": {}}'),
    pytest.param(
        json.dumps(
            {
                "rules": "classic",
                "deal": 2,
                "players": 4,
                "sides": [{"books": {"clean": -1}}] * 5000,
            }
        ).encode(),
        id="five thousand bad sides",
    ),
    pytest.param(
        json.dumps(
            {"rules": "classic", "deal": 2, "melds": [{"rank": "K", "naturals": "x"}] * 5000}
        ).encode(),
        id="five thousand bad melds",
    ),
]


@pytest.mark.parametrize("url", ["/api/v1/score", "/api/v1/meld"])
@pytest.mark.parametrize("body", NASTY_BODIES)
def test_no_body_ever_gets_a_500_only_a_422_listing_problems(
    client: FlaskClient, url: str, body: bytes
) -> None:
    response = client.post(url, data=body, content_type="application/json")

    assert response.status_code == 422, response.get_data(as_text=True)[:500]
    assert response.mimetype == "application/json"
    errors = response.json["errors"]
    assert errors
    assert all(isinstance(p["field"], str) and p["message"] for p in errors)


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"],
)
def test_a_body_not_sent_as_json_is_a_422_naming_the_request(
    client: FlaskClient, content_type: str | None
) -> None:
    body = json.dumps(examples.SCORE_REQUEST)

    response = client.post(URL, data=body, content_type=content_type)

    assert fields(response) == ["request"]
    assert "application/json" in response.json["errors"][0]["message"]


def test_a_json_content_type_with_a_charset_or_suffix_is_accepted(client: FlaskClient) -> None:
    body = json.dumps(examples.SCORE_REQUEST)

    for content_type in ("application/json; charset=utf-8", "application/vnd.score+json"):
        response = client.post(URL, data=body, content_type=content_type)
        assert response.json == examples.SCORE_RESPONSE, content_type


def test_an_empty_body_says_so(client: FlaskClient) -> None:
    response = client.post(URL, data=b"", content_type="application/json")

    assert response.json["errors"] == [
        {"field": "request", "message": "The request body is empty; send a JSON object."}
    ]


def test_a_body_larger_than_the_server_accepts_is_a_json_413(client: FlaskClient) -> None:
    response = client.post(URL, data=b" " * (300 * 1024), content_type="application/json")

    assert response.status_code == 413
    assert response.json["errors"] == [{"field": "", "message": "A request may be at most 256 KB."}]


def test_the_api_says_its_http_errors_in_the_callers_language(client: FlaskClient) -> None:
    # Werkzeug's own English ("The method is not allowed for the requested URL.") came back
    # to a Russian caller, and the 413's said no limit.
    ru = {"Accept-Language": "ru"}
    big = client.post(URL, data=b" " * (300 * 1024), content_type="application/json", headers=ru)
    assert big.json["errors"][0]["message"] == "Запрос может занимать не больше 256 КБ."
    wrong = client.get(URL, headers=ru)
    assert wrong.json["errors"][0]["message"] == "Этот адрес не принимает запрос GET."
    nothing = client.get("/api/v1/nothing-here", headers=ru)
    assert nothing.json["errors"][0]["message"] == "По этому адресу API ничего нет."
    # the app's own descriptions are kept
    unknown = client.get("/api/v1/rules/nope", headers=ru)
    assert "nope" in unknown.json["errors"][0]["message"]


def test_get_on_the_score_endpoint_is_a_json_405(client: FlaskClient) -> None:
    response = client.get(URL)

    assert response.status_code == 405
    assert response.mimetype == "application/json"
    assert response.json["errors"][0]["field"] == ""


def test_an_unknown_api_path_is_a_json_404(client: FlaskClient) -> None:
    response = client.get("/api/v1/nothing-here")

    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.json["errors"][0]["message"]


def test_scoring_saves_nothing(client: FlaskClient, app: Any) -> None:
    from scorekeeper.extensions import db
    from scorekeeper.models import Deal, Match

    client.post(URL, json=examples.SCORE_REQUEST)

    with app.app_context():
        assert db.session.query(Match).count() == 0
        assert db.session.query(Deal).count() == 0


@pytest.mark.parametrize(
    ("rules_id", "players", "sides", "message"),
    [
        ("four-books", 4, 4, "Four books is not played with 4 players alone."),
        ("four-books", 3, 2, "Four books is not played with 3 players in 2 sides."),
        ("whitnack", 4, 4, "Whitnack is not played with 4 players alone."),
    ],
)
def test_a_seating_the_rule_set_does_not_allow_is_a_422_on_sides(
    client: FlaskClient, rules_id: str, players: int, sides: int, message: str
) -> None:
    body = {"rules": rules_id, "deal": 1, "players": players, "sides": [{}] * sides}
    response = client.post(URL, json=body)
    assert fields(response) == ["sides"]
    assert response.json["errors"][0]["message"] == message


@pytest.mark.parametrize(
    ("left", "field"),
    [
        ({"left_points": 10}, "sides[0].left"),
        ({"left": {"black3": 1}}, "sides[0].left"),
        ({"red_threes_left": 1}, "sides[0].red_threes_left"),
        ({"red_threes_left_in_foot": 1}, "sides[0].red_threes_left_in_foot"),
    ],
)
def test_a_player_alone_who_went_out_with_anything_left_is_a_422(
    client: FlaskClient, left: dict[str, Any], field: str
) -> None:
    side = {"went_out": True, "books": {"clean": 2, "dirty": 2}, "melded_points": 900, **left}
    body = {"rules": "four-books", "deal": 1, "players": 3, "sides": [side, {}, {}]}
    assert fields(client.post(URL, json=body)) == [field]


def test_a_red_three_in_an_unpicked_foot_costs_100_under_classic_only_if_an_opponent_went_out(
    client: FlaskClient,
) -> None:
    """Side B of the worked example when the stock ran out: 185 + 500 - 75 = 610."""
    data = copy.deepcopy(examples.SCORE_REQUEST)
    data["sides"][0]["went_out"] = False
    response = client.post(URL, json=data)
    assert response.status_code == 200
    assert response.json["sides"][1]["red_threes_left"] == 0
    assert response.json["sides"][1]["total"] == 610


def test_the_openapi_document_describes_the_red_threes_left_in_a_foot(
    client: FlaskClient,
) -> None:
    schemas = client.get("/api/v1/openapi.json").json["components"]["schemas"]
    entry = schemas["SideEntry"]["properties"]["red_threes_left_in_foot"]
    assert "foot the side never picked up" in entry["description"]
    red = schemas["RuleSet"]["properties"]["red_three"]["properties"]
    assert {"left_in_foot", "foot_only_if_opponent_out"} <= set(red)
    assert schemas["RuleSet"]["properties"]["pile_blocked_by"]["items"]["enum"] == [
        "black3",
        "wild",
    ]
