"""Helpers to build club histories through the real services (shared by club tests)."""

from __future__ import annotations

from datetime import date
from typing import Any

from scorekeeper.engine import PRESETS, Side
from scorekeeper.services import clubs, matches


def play(
    club: Any,
    sides: list[tuple[str, ...]],
    deals: list[list[int]],
    day: date = date(2024, 3, 5),
    extra: dict[int, dict[str, Any]] | None = None,
) -> matches.LoadedMatch:
    """Start a classic club match and record ``deals`` (points on the table per side).

    ``extra`` adds entry fields to a side in every deal (books, red threes...).
    """
    loaded = clubs.start_club_match(
        club, PRESETS["classic"], [Side(tuple(s)) for s in sides], 0, day
    )
    for number, points in enumerate(deals, start=1):
        entries = [{"melded_points": p, **((extra or {}).get(i, {}))} for i, p in enumerate(points)]
        loaded, _ = matches.record_deal(loaded, entries, f"k{loaded.row.id}-{number}", number)
    return loaded


def four_deals(a: int, b: int) -> list[list[int]]:
    """Four deals whose totals come to ``a`` and ``b``."""
    return [[a, b], [0, 0], [0, 0], [0, 0]]
