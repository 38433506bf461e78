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
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
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


#: Column headers in the served language (a spreadsheet is read by people).
STANDINGS_HEADER = [
    _l("place"), _l("name"), _l("games"), _l("wins"), _l("draws"), _l("losses"), _l("win %"),
    _l("points for"), _l("points against"), _l("points per game"), _l("points per deal"),
    _l("went out"), _l("clean books"), _l("dirty books"), _l("wild books"), _l("other books"),
    _l("red threes"), _l("red threes left"), _l("streak"), _l("rating"),
]  # fmt: skip


def standings_rows(table: Standings) -> list[list[Any]]:
    """The standings table as rows: ranked first, then unranked (place left empty)."""
    rows: list[list[Any]] = [[str(h) for h in STANDINGS_HEADER]]
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
#: The headers of the entry's fields and the score's parts, in the served language (in
#: English they stay the keys they always were, so scripts reading the file keep working).
LABELS = {
    "went_out": _l("went_out"), "red_threes": _l("red_threes"),
    "red_threes_left": _l("red_threes_left"),
    "red_threes_left_in_foot": _l("red_threes_left_in_foot"),
    "exact_draws": _l("exact_draws"), "card_points": _l("card_points"),
    "book_bonus": _l("book_bonus"), "going_out": _l("going_out"),
    "left_points": _l("left_points"), "total": _l("total"),
}  # fmt: skip


def _label(key: str) -> str:
    return str(LABELS[key])


def history_rows(club_id: int, season_id: int | None) -> list[list[Any]]:
    """A row per side per deal: who, every entered count, and the scored breakdown.

    Read as plain columns, not ORM objects: a club's whole history is tens of thousands of
    deal sides, and the file needs none of what the ORM would build for each."""
    query = (
        select(
            Match.played_on,
            Match.created_at,
            Match.public_id,
            Match.id,
            Deal.number,
            DealSide.position,
            DealSide.entry,
            *[getattr(DealSide, k) for k in BREAKDOWN],
        )
        .join(Deal, Deal.match_id == Match.id)
        .join(DealSide, DealSide.deal_id == Deal.id)
        .where(Match.club_id == club_id)
        .order_by(Match.played_on, Match.id, Deal.number, DealSide.position)
    )
    if season_id is not None:
        query = query.where(Match.season_id == season_id)
    found = db.session.execute(query).all()
    labels = _side_labels(club_id)
    books = sorted({k for row in found for k in row.entry.get("books", {})})
    melded_keys = _keys(row.entry.get("melded", {}) for row in found)
    left_keys = _keys(row.entry.get("left", {}) for row in found)
    header = [
        _("date"), _("match"), _("deal"), _("side"), _("players"),
        *[_("books %(kind)s", kind=k) for k in books],
        *[_label(f) for f in ENTRY_FIELDS], _("melded points"),
        *[_("melded %(cards)s", cards=k) for k in melded_keys],
        _("left points"), *[_("left %(cards)s", cards=k) for k in left_keys],
        *[_("score %(part)s", part=_label(k)) for k in BREAKDOWN],
    ]  # fmt: skip
    rows: list[list[Any]] = [header]
    for row in found:
        entry = row.entry
        melded, left = entry.get("melded", {}), entry.get("left", {})
        rows.append(
            [
                (row.played_on or row.created_at.date()).isoformat(),
                row.public_id,
                row.number,
                row.position + 1,
                labels.get((row.id, row.position), ""),
                *[entry.get("books", {}).get(k, 0) for k in books],
                *[int(entry.get(f, 0)) for f in ENTRY_FIELDS],
                entry.get("melded_points", ""),
                *[melded.get(k, "") for k in melded_keys],
                entry.get("left_points", ""),
                *[left.get(k, "") for k in left_keys],
                *[getattr(row, k) for k in BREAKDOWN],
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
