"""The JSON view of a stored match (``GET /api/v1/matches/<public_id>``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import url_for

from ...services.matches import LoadedMatch


def match_as_dict(loaded: LoadedMatch) -> dict[str, Any]:
    """A match as a client needs it: sides, frozen rules, every deal, totals, progress.

    Deals list each side's entry (as entered) and breakdown (as scored) in side order,
    with the running totals after the deal. ``current_deal`` and ``dealer`` are null
    once the match is finished; ``winner`` is a side index, null while playing or on a
    draw (then ``draw`` is true).
    """
    game, row = loaded.game, loaded.row
    running = game.running_totals()
    deals = []
    for number, recorded in enumerate(game.deals, start=1):
        deals.append(
            {
                "number": number,
                "dealer": game.dealer(number),
                "minimum_meld": recorded.score.minimum_meld,
                "went_out": next((i for i, e in enumerate(recorded.entries) if e.went_out), None),
                "version": row.deals[number - 1].version,
                "sides": [
                    {"entry": entry.to_dict(), "breakdown": breakdown.as_dict()}
                    for entry, breakdown in zip(recorded.entries, recorded.score.sides, strict=True)
                ],
                "running_totals": list(running[number - 1]),
            }
        )
    current = game.current_deal
    return {
        "id": row.public_id,
        "url": url_for("matches.show", public_id=row.public_id, _external=False),
        "status": "finished" if game.finished else "in_progress",
        "rules": game.rules.to_dict(),
        "rules_origin": row.rules_origin,
        "sides": [
            {"name": side.name, "label": side.label, "players": list(side.players)}
            for side in game.sides
        ],
        "deals_in_game": game.rules.deals,
        "deals": deals,
        "totals": list(game.totals),
        "current_deal": current,
        "dealer": game.dealer(current) if current else None,
        "minimum_meld": (
            [game.minimum_meld(i) for i in range(len(game.sides))] if current else None
        ),
        "winner": game.winner,
        "draw": game.is_draw,
        "reopened": row.reopened,
        "created_at": _iso(row.created_at),
        "updated_at": _iso(row.updated_at),
        "finished_at": _iso(row.finished_at),
    }


def _iso(moment: datetime | None) -> str | None:
    """ISO 8601 with its offset; SQLite hands back naive datetimes, which are stored UTC."""
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()
