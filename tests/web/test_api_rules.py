"""GET /api/v1/rules and /api/v1/rules/<id>, and the seam where saved rule sets join."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.engine import PRESETS, RuleSet
from scorekeeper.services import rule_sets
from scorekeeper.web.api import examples


def test_the_listing_names_every_preset_with_the_url_of_its_object(
    client: FlaskClient,
) -> None:
    response = client.get("/api/v1/rules")

    assert response.status_code == 200
    listed = response.json["rule_sets"]
    assert [r["id"] for r in listed] == list(PRESETS)
    for summary in listed:
        rules = PRESETS[summary["id"]]
        assert summary == {
            "id": rules.id,
            "name": rules.name,
            "description": rules.description,
            "source": rules.source,
            "preset": True,
            "url": f"/api/v1/rules/{rules.id}",
        }
        assert client.get(summary["url"]).status_code == 200


@pytest.mark.parametrize("rules_id", list(PRESETS))
def test_a_preset_is_served_as_the_whole_rule_set_object(
    client: FlaskClient, rules_id: str
) -> None:
    response = client.get(f"/api/v1/rules/{rules_id}")

    assert response.status_code == 200
    assert response.json == PRESETS[rules_id].to_dict()
    assert RuleSet.from_dict(response.json) == PRESETS[rules_id]


def test_an_unknown_rule_set_is_a_json_404(client: FlaskClient) -> None:
    response = client.get("/api/v1/rules/no-such-rules")

    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.json["errors"] == [
        {"field": "", "message": "There is no rule set 'no-such-rules'."}
    ]


def save_house_rules(app: Flask) -> str:
    """Save a house rule set (classic with a going-out bonus of 250); return its key."""
    data = {**PRESETS["classic"].to_dict(), "name": "House", "going_out_bonus": 250}
    with app.app_context():
        return rule_sets.origin_of(rule_sets.create(data))


def test_a_saved_rule_set_is_listed_after_the_presets_with_its_key(
    app: Flask, client: FlaskClient
) -> None:
    key = save_house_rules(app)

    listed = client.get("/api/v1/rules").json["rule_sets"]

    assert key.startswith("saved:")
    assert [r["id"] for r in listed] == [*PRESETS, key]
    assert (listed[-1]["name"], listed[-1]["preset"]) == ("House", False)
    served = client.get(listed[-1]["url"])
    assert served.status_code == 200
    assert served.json["going_out_bonus"] == 250
    assert RuleSet.from_dict(served.json).name == "House"


def test_a_saved_rule_set_can_be_named_when_scoring_and_checking_a_meld(
    app: Flask, client: FlaskClient
) -> None:
    key = save_house_rules(app)

    scored = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": key})
    meld = client.post("/api/v1/meld", json={**examples.MELD_REQUEST, "rules": key})

    assert scored.status_code == 200
    assert scored.json["sides"][0]["going_out"] == 250
    assert scored.json["sides"][0]["total"] == 4140
    assert meld.json == examples.MELD_RESPONSE


def test_a_saved_rule_set_object_scores_the_same_as_its_key(
    app: Flask, client: FlaskClient
) -> None:
    key = save_house_rules(app)
    house = client.get(f"/api/v1/rules/{key}").json

    by_key = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": key})
    by_object = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": house})

    assert by_object.json == by_key.json


@pytest.mark.parametrize(
    "key", ["saved:nothing", "saved:%00", "saved:", "saved:" + "a" * 80, "CLASSIC", "%00"]
)
def test_an_unknown_or_malformed_key_is_a_json_404_and_a_422_when_scoring(
    client: FlaskClient, key: str
) -> None:
    from urllib.parse import unquote

    response = client.get(f"/api/v1/rules/{key}")
    scored = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": unquote(key)})

    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert scored.status_code == 422
    assert [p["field"] for p in scored.json["errors"]] == ["rules"]


def test_naming_an_unknown_rule_set_lists_the_presets(client: FlaskClient) -> None:
    response = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": "house"})

    assert response.status_code == 422
    [problem] = response.json["errors"]
    assert problem["field"] == "rules"
    assert all(rules_id in problem["message"] for rules_id in PRESETS)
