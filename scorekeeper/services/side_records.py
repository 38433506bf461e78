"""Finished club sides as engine records, read as plain columns (never ORM objects).

A record is one side of one finished club match (``SideResult``) with its seated players
and the other sides of the match as opponents: what the engine's standings and rivals
arithmetic takes. Used to rebuild and refresh standing lines, and for head-to-head.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, func, select, tuple_
from sqlalchemy.orm import Session

from ..engine.standings import Opponent, SideRecord
from ..models import MatchPlayer, SideResult

ALL_TIME = 0  # the scope of all-time lines; a season's scope is its id


def at_or_after(model: Any, played_on: date, match_id: int) -> ColumnElement[bool]:
    """Rows of ``model`` (side results, rating points) at or after the match in the order
    standings and ratings count a club's games in: date, then match id.

    A row-value comparison, which SQLite and PostgreSQL both read as a range of the
    ``(club_id, played_on, match_id)`` indexes; the same condition spelled with ``OR``
    made SQLite read every row of the club (10 ms at 10,000 matches, growing with it)."""
    return tuple_(model.played_on, model.match_id) >= tuple_(played_on, match_id)


def earlier_than(model: Any, played_on: date, match_id: int) -> ColumnElement[bool]:
    """Rows of ``model`` before the match in that order (the rest of ``at_or_after``)."""
    return tuple_(model.played_on, model.match_id) < tuple_(played_on, match_id)


SEAT_COLUMNS = (
    SideResult.side_id,
    SideResult.match_id,
    SideResult.season_id,
    SideResult.outcome,
    SideResult.points_for,
    SideResult.points_against,
    SideResult.deals,
    SideResult.went_out,
    SideResult.books_clean,
    SideResult.books_dirty,
    SideResult.books_wild,
    SideResult.books_other,
    SideResult.red_threes,
    SideResult.red_threes_left,
    MatchPlayer.player_id,
)


def seats_query() -> Any:
    """Every seat of finished club sides, oldest match first: the rows records are made of."""
    return (
        select(*SEAT_COLUMNS)
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .order_by(
            SideResult.played_on, SideResult.match_id, SideResult.position, MatchPlayer.position
        )
    )


def in_scope(query: Any, scope: int) -> Any:
    """Limit a query on side results to a season (``ALL_TIME`` keeps every one)."""
    return query if scope == ALL_TIME else query.where(SideResult.season_id == scope)


def records_of(rows: Iterable[Sequence[Any]]) -> list[tuple[int | None, SideRecord]]:
    """(season, record) per side from seat rows in ``seats_query`` order, with opponents."""
    sides: dict[int, tuple[Sequence[Any], list[int]]] = {}
    for row in rows:
        entry = sides.setdefault(row[0], (row, []))
        if row[-1] is not None:
            entry[1].append(row[-1])
    by_match: dict[int, list[tuple[Sequence[Any], list[int]]]] = {}
    for row, players in sides.values():
        by_match.setdefault(row[1], []).append((row, players))
    found = []
    for match_sides in by_match.values():
        for row, players in match_sides:
            opponents = tuple(
                Opponent(tuple(p), other[4]) for other, p in match_sides if other[0] != row[0]
            )
            found.append((row[2], _record(row, tuple(players), opponents)))
    return found


def records_written(
    results: Sequence[Mapping[str, Any]], seated: Sequence[Sequence[int | None]]
) -> list[tuple[int | None, SideRecord]]:
    """(season, record) per side of a match's result rows as they were just written
    (``results``: the values inserted, in side order; ``seated``: each side's player ids
    in seat order), without reading them back: the records ``seats_query`` would give
    (a side with no seat has none, as the join gives none)."""
    names = [column.key for column in SEAT_COLUMNS[:-1]]
    rows = [
        (*(result[name] for name in names), player)
        for result, players in zip(results, seated, strict=True)
        for player in players
    ]
    return records_of(rows)


def _record(row: Sequence[Any], players: tuple[int, ...], opponents: Any) -> SideRecord:
    (_side, match, _season, outcome, points_for, against, deals, went_out, *rest) = row
    clean, dirty, wild, other, red_threes, red_threes_left, _player = rest
    return SideRecord(
        match=match,
        players=players,
        outcome=outcome,
        points_for=points_for,
        points_against=against,
        deals=deals,
        went_out=went_out,
        books={"clean": clean, "dirty": dirty, "wild": wild, "other": other},
        red_threes=red_threes,
        red_threes_left=red_threes_left,
        opponents=opponents,
    )


def records_before(
    session: Session, match_id: int
) -> tuple[date, list[tuple[int | None, SideRecord]]] | None:
    """A finished match's day and (season, record) per side as its result rows hold them
    (None: it has none), read before they are rewritten. The seats are joined from the
    side results' side (an outer join), so that None means no result row at all: the
    caller then has none to delete."""
    query = (
        select(*SEAT_COLUMNS, SideResult.played_on)
        .outerjoin(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(SideResult.match_id == match_id)
        .order_by(SideResult.position, MatchPlayer.position)
    )
    rows = session.execute(query).all()
    if not rows:
        return None
    return rows[0][-1], records_of(row[:-1] for row in rows)


def shared_records(
    session: Session, club_id: int, scope: int, players: Collection[int]
) -> list[SideRecord]:
    """Every side of the matches where two or more of ``players`` sat (head-to-head)."""
    shared = in_scope(
        select(SideResult.match_id)
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(SideResult.club_id == club_id, MatchPlayer.player_id.in_(list(players)))
        .group_by(SideResult.match_id)
        .having(func.count(func.distinct(MatchPlayer.player_id)) > 1),
        scope,
    )
    query = seats_query().where(SideResult.match_id.in_(shared))
    return [record for _season, record in records_of(session.execute(query))]
