"""The JSON API (RULES.md section 6): scoring without saving, rule sets, matches.

Every answer is JSON. Bad input of any kind is a ``422`` listing every problem as
``{"errors": [{"field": ..., "message": ...}]}``; unknown ids are a ``404`` in the same
shape (see ``web/errors.py``). The contract is described at ``/api/v1/openapi.json``.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify
from flask_babel import gettext as _

from ...engine import EngineError, check_meld_request, score_request
from ...services.matches import load_match
from .. import authz
from ..i18n import translated_check
from . import catalog
from .body import BodyError, json_body, unprocessable
from .match_json import match_as_dict
from .openapi import openapi_document

bp = Blueprint("api", __name__, url_prefix="/api/v1")

Answer = Response | tuple[Response, int]


@bp.post("/score")
@authz.anyone  # computes, saves nothing
def score() -> Answer:
    """Score one deal without saving anything."""
    try:
        data = catalog.with_named_rules(json_body())
        return jsonify(score_request(data).as_dict())
    except BodyError as error:
        return unprocessable([error.problem])
    except EngineError as error:
        return unprocessable(error.problems)


@bp.post("/meld")
@authz.anyone  # computes, saves nothing
def meld() -> Answer:
    """Check whether a side's intended first meld is enough, without saving anything."""
    try:
        data = catalog.with_named_rules(json_body())
        return jsonify(translated_check(check_meld_request(data).as_dict()))
    except BodyError as error:
        return unprocessable([error.problem])
    except EngineError as error:
        return unprocessable(error.problems)


@bp.get("/rules")
@authz.anyone
def rule_sets() -> Response:
    """The rule sets a request may name: a summary of each and the URL of its object."""
    return jsonify({"rule_sets": [catalog.summary(r) for r in catalog.available_rule_sets()]})


@bp.get("/rules/<rule_set_id>")
@authz.anyone
def rule_set(rule_set_id: str) -> Response:
    """One rule set as the whole rule-set object (RULES.md section 4)."""
    found = catalog.find_rule_set(rule_set_id)
    if found is None:
        abort(404, description=_("There is no rule set %(id)r.", id=rule_set_id))
    return jsonify(found.rules.to_dict())


@bp.get("/matches/<public_id>")
@authz.match("read")
def match(public_id: str) -> Response:
    """A stored match: sides, frozen rules, deals with breakdowns, totals and progress."""
    loaded = load_match(public_id)
    if loaded is None:
        abort(404, description=_("There is no match with this id."))
    return jsonify(match_as_dict(loaded))


@bp.get("/openapi.json")
@authz.anyone
def openapi() -> Response:
    """The OpenAPI 3.1 description of this API."""
    return jsonify(openapi_document())
