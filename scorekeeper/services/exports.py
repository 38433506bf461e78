"""CSV exports of club standings and match history, safe to open in a spreadsheet.

A text cell that a spreadsheet would run as a formula (starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return) gets a leading apostrophe; numbers are
written as numbers, so a negative score stays a negative number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from flask import Response
from sqlalchemy import select

from ..engine.cards import CARD_KEYS
from ..extensions import db
from ..models import Deal, DealSide, Match, MatchPlayer, MatchSide
from .standings import Standings, one_decimal, percent

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """A cell that cannot run as a formula; numbers and booleans pass unchanged."""
    if isinstance(value, bool | int | float):
        return int(value) if isinstance(value, bool) else value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def to_csv(rows: Iterable[Sequence[Any]]) -> str:
    """The rows as CSV text, every cell made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def csv_response(rows: Iterable[Sequence[Any]], filename: str) -> Response:
    """A download of the rows as UTF-8 CSV (with a byte-order mark for spreadsheets)."""
    response = Response("\ufeff" + to_csv(rows), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


STANDINGS_HEADER = [
    "place", "name", "games", "wins", "draws", "losses", "win %", "points for",
    "points against", "points per game", "points per deal", "went out", "clean books",
    "dirty books", "wild books", "other books", "red threes", "red threes left",
    "streak", "rating",
]  # fmt: skip


def standings_rows(table: Standings) -> list[list[Any]]:
    """The standings table as rows: ranked first, then unranked (place left empty)."""
    rows: list[list[Any]] = [STANDINGS_HEADER]
    for row in [*table.ranked, *table.unranked]:
        line = row.line
        kind, length = line.streak
        rows.append(
            [
                row.place if row.place is not None else "",
                row.name,
                line.games,
                line.tally.wins,
                line.tally.draws,
                line.tally.losses,
                percent(line.win_rate),
                line.points_for,
                line.points_against,
                float(one_decimal(line.points_per_game)),
                float(one_decimal(line.points_per_deal)),
                line.went_out,
                line.books["clean"],
                line.books["dirty"],
                line.books["wild"],
                line.books["other"],
                line.red_threes,
                line.red_threes_left,
                f"{kind[:1].upper()}{length}" if length else "",
                round(row.rating, 2) if row.rating is not None else "",
            ]
        )
    return rows


ENTRY_FIELDS = [
    "went_out",
    "red_threes",
    "red_threes_left",
    "red_threes_left_in_foot",
    "exact_draws",
]
BREAKDOWN = [
    "card_points", "book_bonus", "red_threes", "going_out", "exact_draws", "left_points",
    "red_threes_left", "total",
]  # fmt: skip


def history_rows(club_id: int, season_id: int | None) -> list[list[Any]]:
    """A row per side per deal: who, every entered count, and the scored breakdown."""
    query = (
        select(Match, Deal, DealSide)
        .join(Deal, Deal.match_id == Match.id)
        .join(DealSide, DealSide.deal_id == Deal.id)
        .where(Match.club_id == club_id)
        .order_by(Match.played_on, Match.id, Deal.number, DealSide.position)
    )
    if season_id is not None:
        query = query.where(Match.season_id == season_id)
    found = list(db.session.execute(query))
    labels = _side_labels(club_id)
    books = sorted({k for _m, _d, s in found for k in s.entry.get("books", {})})
    melded_keys = _keys(s.entry.get("melded", {}) for _m, _d, s in found)
    left_keys = _keys(s.entry.get("left", {}) for _m, _d, s in found)
    header = [
        "date", "match", "deal", "side", "players", *[f"books {k}" for k in books],
        *ENTRY_FIELDS, "melded points",
        *[f"melded {k}" for k in melded_keys],
        "left points", *[f"left {k}" for k in left_keys],
        *[f"score {k}" for k in BREAKDOWN],
    ]  # fmt: skip
    rows: list[list[Any]] = [header]
    for match, deal, side in found:
        entry = side.entry
        melded, left = entry.get("melded", {}), entry.get("left", {})
        rows.append(
            [
                (match.played_on or match.created_at.date()).isoformat(),
                match.public_id,
                deal.number,
                side.position + 1,
                labels.get((match.id, side.position), ""),
                *[entry.get("books", {}).get(k, 0) for k in books],
                *[int(entry.get(f, 0)) for f in ENTRY_FIELDS],
                entry.get("melded_points", ""),
                *[melded.get(k, "") for k in melded_keys],
                entry.get("left_points", ""),
                *[left.get(k, "") for k in left_keys],
                *[getattr(side, k) for k in BREAKDOWN],
            ]
        )
    return rows


def _keys(blocks: Iterable[dict[str, int]]) -> list[str]:
    """The count keys used in any entry, in card order (ranges after, as written)."""
    used = {key for block in blocks for key in block}
    order = {key: i for i, key in enumerate(CARD_KEYS)}
    return sorted(used, key=lambda key: (order.get(key, len(order)), key))


def _side_labels(club_id: int) -> dict[tuple[int, int], str]:
    """(match id, side position) -> the players' names, in one query."""
    query = (
        select(MatchSide.match_id, MatchSide.position, MatchPlayer.name)
        .join(MatchPlayer, MatchPlayer.side_id == MatchSide.id)
        .join(Match, Match.id == MatchSide.match_id)
        .where(Match.club_id == club_id)
        .order_by(MatchSide.match_id, MatchSide.position, MatchPlayer.position)
    )
    labels: dict[tuple[int, int], list[str]] = {}
    for match_id, position, name in db.session.execute(query):
        labels.setdefault((match_id, position), []).append(name)
    return {key: " & ".join(names) for key, names in labels.items()}
