"""GET /api/v1/openapi.json: a valid OpenAPI 3.1 document that matches the live API."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from scorekeeper.engine import CARD_KEYS, NATURAL_RANKS, PRESETS
from scorekeeper.engine.entries import ENTRY_KEYS
from scorekeeper.engine.meld import MELD_KEYS
from scorekeeper.engine.meld import REQUEST_KEYS as MELD_REQUEST_KEYS
from scorekeeper.engine.rules import OPTIONAL_KEYS, REQUIRED_KEYS
from scorekeeper.engine.scoring import REQUEST_KEYS as SCORE_REQUEST_KEYS
from scorekeeper.web.api import examples


@pytest.fixture
def document(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.json


def validator(document: dict[str, Any], name: str) -> jsonschema.Draft202012Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert document["servers"] == [{"url": "/api/v1"}]


def test_every_api_route_is_described_with_its_methods(
    app: Flask, document: dict[str, Any]
) -> None:
    routes = {}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            path = rule.rule.removeprefix("/api/v1").replace("<", "{").replace(">", "}")
            routes[path] = sorted(m.lower() for m in rule.methods - {"HEAD", "OPTIONS"})

    described = {path: sorted(item) for path, item in document["paths"].items()}
    assert described == routes
    assert set(routes) >= {
        "/score", "/meld", "/rules", "/rules/{rule_set_id}", "/matches/{public_id}",
        "/openapi.json",
    }  # fmt: skip


def test_every_schema_is_itself_valid_json_schema(document: dict[str, Any]) -> None:
    for name in document["components"]["schemas"]:
        jsonschema.Draft202012Validator.check_schema(validator(document, name).schema)


@pytest.mark.parametrize("rules_id", list(PRESETS))
def test_every_preset_conforms_to_the_rule_set_schema(
    document: dict[str, Any], rules_id: str
) -> None:
    validator(document, "RuleSet").validate(PRESETS[rules_id].to_dict())


def test_the_schemas_name_exactly_the_fields_the_engine_reads(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]

    def keys(name: str) -> set[str]:
        return set(schemas[name]["properties"])

    assert keys("RuleSet") == {*REQUIRED_KEYS, *OPTIONAL_KEYS}
    assert set(schemas["RuleSet"]["required"]) == set(REQUIRED_KEYS)
    assert set(schemas["RuleSet"]["properties"]["card_values"]["properties"]) == set(CARD_KEYS)
    assert keys("SideEntry") == set(ENTRY_KEYS)
    assert keys("ScoreRequest") == set(SCORE_REQUEST_KEYS)
    assert keys("Meld") == set(MELD_KEYS)
    assert keys("MeldRequest") == set(MELD_REQUEST_KEYS)
    assert schemas["Meld"]["properties"]["rank"]["enum"] == [*NATURAL_RANKS, "wild"]


@pytest.mark.parametrize(
    ("key", "block", "valid"),
    [
        ("joker", "MeldedCounts", True),
        ("2", "MeldedCounts", True),
        ("8-K", "MeldedCounts", True),
        ("10", "MeldedCounts", True),
        ("black3", "LeftCounts", True),
        ("black3", "MeldedCounts", False),
        ("3", "MeldedCounts", False),
        ("red3", "LeftCounts", False),
        ("K-8x", "MeldedCounts", False),
    ],
)
def test_the_card_count_keys_follow_the_engine_ranks(
    document: dict[str, Any], key: str, block: str, valid: bool
) -> None:
    assert validator(document, block).is_valid({key: 1}) is valid


def test_the_published_examples_conform_to_their_schemas(document: dict[str, Any]) -> None:
    score = document["paths"]["/score"]["post"]
    meld = document["paths"]["/meld"]["post"]
    score_examples = score["requestBody"]["content"]["application/json"]["examples"]

    validator(document, "ScoreRequest").validate(score_examples["worked_example"]["value"])
    validator(document, "DealScore").validate(examples.SCORE_RESPONSE)
    validator(document, "MeldRequest").validate(examples.MELD_REQUEST)
    validator(document, "MeldCheck").validate(examples.MELD_RESPONSE)
    validator(document, "Errors").validate(examples.ERRORS)
    assert score["responses"]["200"]["content"]["application/json"]["example"] == (
        examples.SCORE_RESPONSE
    )
    assert meld["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Errors"
    }


def test_the_score_example_with_impossible_entries_still_conforms_to_the_schema_shape(
    document: dict[str, Any],
) -> None:
    # A count of threes is refused by the schema too; the negative count as well.
    errors = list(validator(document, "ScoreRequest").iter_errors(examples.SCORE_ERROR_REQUEST))
    assert len(errors) == 2


def test_live_answers_conform_to_the_published_schemas(
    client: FlaskClient, document: dict[str, Any]
) -> None:
    answers = {
        "DealScore": client.post("/api/v1/score", json=examples.SCORE_REQUEST),
        "MeldCheck": client.post("/api/v1/meld", json=examples.MELD_REQUEST),
        "RuleSetList": client.get("/api/v1/rules"),
        "RuleSet": client.get("/api/v1/rules/four-books"),
        "Errors": client.post("/api/v1/score", json={"rules": "classic", "deal": 0}),
    }
    for name, response in answers.items():
        validator(document, name).validate(response.json)
    for response in (client.get("/api/v1/rules/x"), client.get("/api/v1/matches/x")):
        validator(document, "Errors").validate(response.json)


def test_an_invalid_rule_set_is_refused_by_the_schema_and_by_the_engine(
    client: FlaskClient, document: dict[str, Any]
) -> None:
    broken = {**PRESETS["classic"].to_dict(), "deals": 0, "decks": "players+2"}

    assert not validator(document, "RuleSet").is_valid(broken)
    response = client.post("/api/v1/score", json={**examples.SCORE_REQUEST, "rules": broken})
    assert [p["field"] for p in response.json["errors"]] == ["rules.decks", "rules.deals"]


def test_the_document_describes_issue_10s_fields_and_refusals(document: dict[str, Any]) -> None:
    """RULES.md 6: the wild card on top, the second meld of a rank, the seating."""
    schemas = document["components"]["schemas"]
    assert "pile_blocked_by holds wild" in schemas["Meld"]["properties"]["top_card"]["description"]
    reasons = schemas["MeldVerdict"]["properties"]["reasons"]["description"]
    assert "one_open_meld_per_rank" in reasons
    sides = schemas["ScoreRequest"]["properties"]["sides"]["description"]
    assert "seating the rule set allows" in sides and "red threes left" in sides
    rules = schemas["RuleSet"]["properties"]
    assert "minimum-meld table is then fitted" in rules["deals"]["description"]
    assert rules["one_open_meld_per_rank"]["default"] is False
    assert rules["pile_blocked_by"]["default"] == ["black3", "wild"]


def test_the_wild_card_on_top_example_is_answered_as_rules_md_says(
    client: FlaskClient, document: dict[str, Any]
) -> None:
    """3 jokers = 150 legal; kings 3 x 10 = 30 legal; the second kings meld is not."""
    meld = document["paths"]["/meld"]["post"]["requestBody"]["content"]["application/json"]
    example = meld["examples"]["wild_card_on_top"]["value"]
    validator(document, "MeldRequest").validate(example)
    answer = client.post("/api/v1/meld", json=example)
    validator(document, "MeldCheck").validate(answer.json)
    assert [m["legal"] for m in answer.json["melds"]] == [True, True, False]
    assert (answer.json["counted"], answer.json["enough"]) == (180, False)
