"""JSON Schema of a stored match (``GET /api/v1/matches/<public_id>``)."""

from __future__ import annotations

from typing import Any

from .schema_rules import closed, ref


def match_schema() -> dict[str, Any]:
    """A match: sides, frozen rules, deals with entries and breakdowns, progress."""
    nullable_int = {"type": ["integer", "null"]}
    moment = {"type": "string", "format": "date-time"}
    deal = closed(
        {
            "number": {"type": "integer", "minimum": 1},
            "dealer": {"type": "string"},
            "minimum_meld": {"type": "integer"},
            "went_out": {**nullable_int, "description": "The index of the side that went out."},
            "version": {"type": "integer", "description": "Bumped by every correction."},
            "sides": {
                "type": "array",
                "items": closed(
                    {"entry": ref("SideEntry"), "breakdown": ref("Breakdown")},
                    ["entry", "breakdown"],
                ),
            },
            "running_totals": {"type": "array", "items": {"type": "integer"}},
        },
        ["number", "dealer", "minimum_meld", "went_out", "version", "sides", "running_totals"],
    )
    side = closed(
        {
            "name": {"type": "string", "description": "The team name; may be empty."},
            "label": {"type": "string", "description": "The name, or the players joined."},
            "players": {"type": "array", "items": {"type": "string"}},
        },
        ["name", "label", "players"],
    )
    properties = {
        "id": {"type": "string", "description": "The public id of the match."},
        "url": {"type": "string", "description": "The match page."},
        "status": {"enum": ["in_progress", "finished"]},
        "rules": ref("RuleSet"),
        "rules_origin": {"type": "string", "description": "The id the rules were chosen by."},
        "sides": {"type": "array", "items": side},
        "deals_in_game": {
            "type": "integer",
            "description": "Chosen when the match started (the frozen rules' deals).",
        },
        "deals": {"type": "array", "items": deal},
        "totals": {"type": "array", "items": {"type": "integer"}},
        "current_deal": {**nullable_int, "description": "The next deal; null once finished."},
        "dealer": {"type": ["string", "null"], "description": "Who deals the current deal."},
        "minimum_meld": {
            "type": ["array", "null"],
            "items": {"type": "integer"},
            "description": "Each side's minimum first meld in the current deal.",
        },
        "winner": {
            **nullable_int,
            "description": "The winning side; null while playing or on a draw.",
        },
        "draw": {"type": "boolean", "description": "Finished with a tie for first."},
        "reopened": {"type": "boolean"},
        "created_at": moment,
        "updated_at": moment,
        "finished_at": {**moment, "type": ["string", "null"]},
    }
    return closed(properties, list(properties))
