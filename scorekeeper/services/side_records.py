"""Finished club sides as engine records, read as plain columns (never ORM objects).

A record is one side of one finished club match (``SideResult``) with its seated players
and the other sides of the match as opponents: what the engine's standings and rivals
arithmetic takes. Used to rebuild and refresh standing lines, and for head-to-head.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, Integer, bindparam, func, select, tuple_
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


#: A seat as the ratings rate it: (match, side, day, the side's points, player or None).
Seat = tuple[int, int, date, int, int | None]
#: The columns a ``Seat`` is read from, in its order.
SEAT_OF = (
    SideResult.match_id,
    SideResult.side_id,
    SideResult.played_on,
    SideResult.points_for,
    MatchPlayer.player_id,
)
#: Seats in the club's game order (date, then match), then side and seat.
SEAT_ORDER = (SideResult.played_on, SideResult.match_id, SideResult.position, MatchPlayer.position)


@dataclass(frozen=True)
class Following:
    """What follows a place in a club's game order (``following``): the seats of its
    first finished matches from the place on (the match at the place among them), each
    seat's side's season, and where the matches after those start (None when none does:
    ``seats`` is then everything from the place on)."""

    place: tuple[date, int]
    count: int  # how many matches it reads at most (and one more, to know where they end)
    seats: list[Seat]
    seasons: dict[int, int | None]  # side id -> season id
    upto: tuple[date, int] | None


def following(session: Session, club_id: int, place: tuple[date, int], count: int) -> Following:
    """The seats of the club's first ``count`` finished matches from ``place`` on, in
    the club's order (then side and seat), and where the ones after them start: one
    statement, which reads one match more than ``count`` to know. What a replay of the
    ratings from ``place`` rates (``ratings``), and all a late match's standing lines
    need to count the games after it when nothing else follows (``aggregates``)."""
    values = {"club": club_id, "count": count + 1, "day": place[0], "match": place[1]}
    seats: list[Seat] = []
    seasons: dict[int, int | None] = {}
    for match, side, day, points, player, season in session.execute(_following(), values):
        seats.append((match, side, day, points, player))
        seasons[side] = season
    places = list(dict.fromkeys((day, match) for match, _side, day, *_rest in seats))
    if len(places) <= count:
        return Following(place, count, seats, seasons, None)
    upto = places[count]
    seats = [seat for seat in seats if (seat[2], seat[0]) < upto]
    return Following(place, count, seats, seasons, upto)


@functools.lru_cache(maxsize=1)
def _following() -> Any:
    """``following``'s statement (``club``, ``day``, ``match``, ``count``). The matches
    are found along the club's order (one side result a match: its first side), then
    their seats by match, so nothing after them is read however far back the place is.
    Built once: building it cost about as much as running it."""
    first = (
        select(SideResult.match_id)
        .where(
            SideResult.club_id == bindparam("club", type_=Integer),
            SideResult.position == 0,
            at_or_after(
                SideResult,
                bindparam("day", type_=SideResult.played_on.type),
                bindparam("match", type_=Integer),
            ),
        )
        .order_by(SideResult.played_on, SideResult.match_id)
        .limit(bindparam("count", type_=Integer))
    )
    return (
        select(*SEAT_OF, SideResult.season_id)
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(SideResult.match_id.in_(first.scalar_subquery()))
        .order_by(*SEAT_ORDER)
    )


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
        .order_by(*SEAT_ORDER)
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
