"""GET /api/v1/rules and /api/v1/rules/<id>, and the seam where saved rule sets join."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from scorekeeper.engine import PRESETS, RuleSet
from scorekeeper.web.api import catalog, examples


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


def test_a_saved_rule_set_joins_the_listing_and_can_be_named_when_scoring(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    house = RuleSet.from_dict(
        {**PRESETS["classic"].to_dict(), "id": "house", "name": "House", "going_out_bonus": 250}
    )
    presets = catalog.available_rule_sets()
    saved = catalog.Available("saved:abc123", house, preset=False)
    monkeypatch.setattr(catalog, "available_rule_sets", lambda: [*presets, saved])

    listed = client.get("/api/v1/rules").json["rule_sets"]
    served = client.get("/api/v1/rules/saved:abc123").json
    scored = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": "saved:abc123"})
    meld = client.post("/api/v1/meld", json={**examples.MELD_REQUEST, "rules": "saved:abc123"})

    assert [r["id"] for r in listed] == [*PRESETS, "saved:abc123"]
    assert listed[-1]["preset"] is False
    assert listed[-1]["name"] == "House"
    assert client.get(listed[-1]["url"]).json == served == house.to_dict()
    assert scored.status_code == 200
    assert scored.json["sides"][0]["going_out"] == 250
    assert scored.json["sides"][0]["total"] == 4140
    assert meld.json == examples.MELD_RESPONSE


def test_naming_an_unknown_rule_set_lists_the_presets(client: FlaskClient) -> None:
    response = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": "house"})

    assert response.status_code == 422
    [problem] = response.json["errors"]
    assert problem["field"] == "rules"
    assert all(rules_id in problem["message"] for rules_id in PRESETS)
