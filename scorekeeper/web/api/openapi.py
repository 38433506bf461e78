"""The OpenAPI 3.1 document of the API, as data (served at ``/api/v1/openapi.json``)."""

from __future__ import annotations

from typing import Any

from ... import __version__
from . import examples
from .schemas import component_schemas

ERRORS_DESCRIPTION = "Every problem with the request, each with its field path."


def _json(schema: str, description: str, example: Any = None) -> dict[str, Any]:
    content: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{schema}"}}
    if example is not None:
        content["example"] = example
    return {"description": description, "content": {"application/json": content}}


def _errors(*codes: int) -> dict[str, Any]:
    descriptions = {
        404: "Nothing has this id.",
        413: "The body is larger than the server accepts.",
        422: ERRORS_DESCRIPTION,
    }
    answers = {}
    for code in codes:
        example = examples.ERRORS if code == 422 else None
        answers[str(code)] = _json("Errors", descriptions[code], example)
    return answers


def _post(
    summary: str, request: str, response: str, req_ex: dict[str, Any], res_ex: Any
) -> dict[str, Any]:
    return {
        "post": {
            "summary": summary,
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {"$ref": f"#/components/schemas/{request}"},
                        "examples": req_ex,
                    }
                },
            },
            "responses": {"200": _json(response, summary, res_ex), **_errors(413, 422)},
        }
    }


def _id_parameter(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string"},
    }


def _paths() -> dict[str, Any]:
    return {
        "/score": _post(
            "Score one deal without saving anything.",
            "ScoreRequest",
            "DealScore",
            {
                "worked_example": {
                    "summary": "The worked example of the rules (3990 and 510).",
                    "value": examples.SCORE_REQUEST,
                },
                "impossible_entries": {
                    "summary": "Two impossible entries: answered 422 listing both.",
                    "value": examples.SCORE_ERROR_REQUEST,
                },
            },
            examples.SCORE_RESPONSE,
        ),
        "/meld": _post(
            "Check whether a side's first meld reaches the minimum, without saving anything.",
            "MeldRequest",
            "MeldCheck",
            {
                "first_meld": {
                    "summary": "A first meld of 200 in deal 2.",
                    "value": examples.MELD_REQUEST,
                },
                "wild_card_on_top": {
                    "summary": (
                        "classic: a wild card on top taken with two from hand (150), and a"
                        " second meld of kings, not legal while the first is unfinished."
                    ),
                    "value": examples.MELD_WILD_TOP_REQUEST,
                },
            },
            examples.MELD_RESPONSE,
        ),
        "/rules": {
            "get": {
                "summary": "List the rule sets a request may name.",
                "description": (
                    "A summary of each rule set, the presets first and then the saved house"
                    " rules by name, with the URL of its whole object. Any listed id may be"
                    " given as `rules` to /score and /meld."
                ),
                "responses": {"200": _json("RuleSetList", "The rule sets.")},
            }
        },
        "/rules/{rule_set_id}": {
            "get": {
                "summary": "One rule set as the whole rule-set object.",
                "description": (
                    "The object may be sent back as `rules` (edited, for house rules) to"
                    " /score and /meld."
                ),
                "parameters": [_id_parameter("rule_set_id", "The rule set's id.")],
                "responses": {"200": _json("RuleSet", "The rule set."), **_errors(404)},
            }
        },
        "/matches/{public_id}": {
            "get": {
                "summary": "A match: sides, rule set, every deal, totals and progress.",
                "parameters": [_id_parameter("public_id", "The id in the match's link.")],
                "responses": {"200": _json("Match", "The match."), **_errors(404)},
            }
        },
        "/openapi.json": {
            "get": {
                "summary": "This document.",
                "responses": {
                    "200": {
                        "description": "The OpenAPI document.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
    }


def openapi_document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document; paths are relative to the server ``/api/v1``."""
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "Hand and Foot scorekeeper",
            "version": __version__,
            "summary": "Score Hand and Foot deals, check first melds, read rule sets and matches.",
            "description": (
                "Every answer is JSON. Bad input of any kind, including a body that is not"
                " JSON or not sent as application/json, is a 422 listing every problem with"
                ' its field path; the path "request" names the body as a whole. Nothing is'
                " saved by /score or /meld."
            ),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": "/api/v1"}],
        "paths": _paths(),
        "components": {"schemas": component_schemas()},
    }
