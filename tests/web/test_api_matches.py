"""GET /api/v1/matches/<public_id>: a match started and scored through the web forms."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from flask.testing import FlaskClient

from scorekeeper.engine import PRESETS
from scorekeeper.web.api import examples

#: The worked example (RULES.md section 7) as the deal form sends it.
WORKED_DEAL = {
    "went_out": "0",
    "sides-0-books_clean": "2",
    "sides-0-books_dirty": "2",
    "sides-0-books_wild": "1",
    "sides-0-red_threes": "1",
    "sides-0-melded_joker": "4",
    "sides-0-melded_2": "6",
    "sides-0-melded_A": "6",
    "sides-0-melded_8toK": "20",
    "sides-0-melded_4to7": "10",
    "sides-1-books_clean": "1",
    "sides-1-red_threes_left": "1",
    "sides-1-melded_points": "185",
    "sides-1-left_points": "75",
}
#: A deal where the stock ran out and both sides laid down the same.
EVEN_DEAL = {"sides-0-melded_points": "120", "sides-1-melded_points": "120"}


def start(client: FlaskClient, first_dealer: int = 0) -> str:
    """Start a classic match of two teams of two through the form; return its public id."""
    names = {"side_0_player_0": "Ana", "side_0_player_1": "Bo",
             "side_1_player_0": "Cy", "side_1_player_1": "Di"}  # fmt: skip
    form = {"rules": "classic", "layout": "2+2", "first_dealer": str(first_dealer), **names}
    form["side_0_name"] = "Hands"
    response = client.post("/matches", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return response.headers["Location"].rsplit("/", 1)[-1]


def record(client: FlaskClient, public_id: str, deal: dict[str, str]) -> None:
    response = client.post(f"/m/{public_id}/deals", data=deal)
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]


def conforms(client: FlaskClient, name: str, instance: Any) -> None:
    """Assert that ``instance`` is valid under the published schema ``name``."""
    document = client.get("/api/v1/openapi.json").json
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(instance)


def test_a_new_match_has_its_sides_frozen_rules_and_first_dealer(client: FlaskClient) -> None:
    public_id = start(client, first_dealer=1)

    response = client.get(f"/api/v1/matches/{public_id}")

    assert response.status_code == 200
    body = response.json
    assert body["id"] == public_id
    assert body["url"] == f"/m/{public_id}"
    assert body["sides"] == [
        {"name": "Hands", "label": "Hands", "players": ["Ana", "Bo"]},
        {"name": "", "label": "Cy & Di", "players": ["Cy", "Di"]},
    ]
    assert body["rules"] == PRESETS["classic"].to_dict()
    assert body["rules_origin"] == "classic"
    assert (body["status"], body["deals"], body["totals"]) == ("in_progress", [], [0, 0])
    assert (body["current_deal"], body["deals_in_game"]) == (1, 4)
    assert body["dealer"] == "Cy"  # seats go Ana, Cy, Bo, Di; the second seat deals first
    assert body["minimum_meld"] == [50, 50]
    assert (body["winner"], body["draw"], body["finished_at"]) == (None, False, None)
    conforms(client, "Match", body)


def test_a_recorded_deal_shows_every_entry_breakdown_and_running_total(
    client: FlaskClient,
) -> None:
    public_id = start(client)
    record(client, public_id, WORKED_DEAL)

    body = client.get(f"/api/v1/matches/{public_id}").json

    [deal] = body["deals"]
    assert deal["number"] == 1
    assert deal["dealer"] == "Ana"
    assert (deal["minimum_meld"], deal["went_out"], deal["version"]) == (50, 0, 1)
    assert [s["breakdown"] for s in deal["sides"]] == examples.SCORE_RESPONSE["sides"]
    assert deal["sides"][0]["entry"] == {
        "went_out": True,
        "books": {"clean": 2, "dirty": 2, "wild": 1},
        "red_threes": 1,
        "red_threes_left": 0,
        "melded": {"joker": 4, "2": 6, "A": 6, "8-K": 20, "4-7": 10},
        "left": {},
    }
    assert deal["sides"][1]["entry"] == {
        "went_out": False,
        "books": {"clean": 1, "dirty": 0, "wild": 0},
        "red_threes": 0,
        "red_threes_left": 1,
        "melded_points": 185,
        "left_points": 75,
    }
    assert deal["running_totals"] == [3990, 510]
    assert body["totals"] == [3990, 510]
    assert (body["current_deal"], body["dealer"]) == (2, "Cy")
    assert body["minimum_meld"] == [90, 90]
    conforms(client, "Match", body)


def test_running_totals_add_up_deal_after_deal(client: FlaskClient) -> None:
    public_id = start(client)
    for deal in (WORKED_DEAL, EVEN_DEAL, WORKED_DEAL):
        record(client, public_id, deal)

    body = client.get(f"/api/v1/matches/{public_id}").json

    assert [d["running_totals"] for d in body["deals"]] == [
        [3990, 510],
        [4110, 630],
        [8100, 1140],
    ]
    assert [d["dealer"] for d in body["deals"]] == ["Ana", "Cy", "Bo"]
    assert [d["went_out"] for d in body["deals"]] == [0, None, 0]
    assert (body["status"], body["current_deal"], body["dealer"]) == ("in_progress", 4, "Di")


def test_a_finished_match_names_its_winner(client: FlaskClient) -> None:
    public_id = start(client)
    for deal in (WORKED_DEAL, EVEN_DEAL, EVEN_DEAL, EVEN_DEAL):
        record(client, public_id, deal)

    body = client.get(f"/api/v1/matches/{public_id}").json

    assert body["status"] == "finished"
    assert body["totals"] == [3990 + 360, 510 + 360]
    assert (body["winner"], body["draw"]) == (0, False)
    assert (body["current_deal"], body["dealer"], body["minimum_meld"]) == (None, None, None)
    assert body["finished_at"] is not None
    conforms(client, "Match", body)


def test_a_tie_for_first_is_a_draw_with_no_winner(client: FlaskClient) -> None:
    public_id = start(client)
    for _ in range(4):
        record(client, public_id, EVEN_DEAL)

    body = client.get(f"/api/v1/matches/{public_id}").json

    assert body["status"] == "finished"
    assert body["totals"] == [480, 480]
    assert (body["winner"], body["draw"]) == (None, True)


def test_a_corrected_deal_shows_its_new_score_and_version(client: FlaskClient) -> None:
    public_id = start(client)
    record(client, public_id, EVEN_DEAL)
    response = client.post(f"/m/{public_id}/deals/1", data={**WORKED_DEAL, "version": "1"})
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]

    body = client.get(f"/api/v1/matches/{public_id}").json

    assert body["deals"][0]["version"] == 2
    assert body["totals"] == [3990, 510]


@pytest.mark.parametrize(
    "public_id", ["no-such-match", "%00", "a" * 300, "..%2F..%2Fetc", "%F0%9F%83%8F"]
)
def test_an_unknown_match_is_a_json_404(client: FlaskClient, public_id: str) -> None:
    response = client.get(f"/api/v1/matches/{public_id}")

    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.json["errors"][0]["message"]
