"""Club standings: aggregates kept current when a club match changes, and the tables.

``match_changed`` is called by the match service whenever a deal is recorded, corrected
or removed; the work happens just before that transaction commits (so a clash on the
deal still surfaces from ``commit``): one ``SideResult`` per side of a finished club match,
the standing lines of that match's players and partnerships (``services.aggregates``),
and ratings. Pages read one standing line per entry, never deals nor every side result,
in a fixed number of queries whatever the length of the history.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, event, select
from sqlalchemy.orm import Session

from ..engine import Match
from ..engine.standings import Line, Table, outcome_of, rank
from ..extensions import db
from ..models import Match as MatchRow
from ..models import Player, SideResult
from . import aggregates, locks, player_rows, ratings, side_records, upserts

PENDING = "club_matches_changed"
BOOK_COLUMNS = {"clean": "books_clean", "dirty": "books_dirty", "wild": "books_wild"}


def match_changed(row: MatchRow, game: Match, *, was_finished: bool = True) -> None:
    """Note that a club match changed; its aggregates are rewritten before commit.

    ``was_finished``: whether the match was finished as stored when the transaction began
    (the first call of the transaction says). Only a finished match has side results, so
    a match that was not has none to read back and delete: a deal of a match being played
    skips that read. When in doubt, say True (the read then finds what there is)."""
    if row.club_id is None:
        return
    pending = db.session.info.setdefault(PENDING, {})
    earlier = pending.get(id(row))
    pending[id(row)] = (row, game, earlier[2] if earlier else was_finished)


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    pending = session.info.pop(PENDING, None)
    for row, game, was_finished in (pending or {}).values():
        write_results(session, row, game, was_finished=was_finished)


def write_results(
    session: Session, row: MatchRow, game: Match, *, was_finished: bool = True
) -> None:
    """Rewrite the match's side results from the engine's match, its lines, its ratings
    (``was_finished``: as ``match_changed``'s)."""
    session.flush()
    # The match's own side results first: the match is locked already, and nobody else
    # reads them as this transaction leaves them until it commits.
    # what the rows count of it (none for a match that was not finished)
    before = side_records.records_before(session, row.id) if was_finished else None
    if before is not None:  # a deal of a match being played has no rows to delete
        session.execute(delete(SideResult).where(SideResult.match_id == row.id))
    results = side_results(row, game) if game.finished else []
    # On PostgreSQL the rows go with the club's lock below, one statement and one round
    # trip (``upserts.together``: a lock is an ``UPDATE``); no ids read back.
    with upserts.together(session):
        upserts.insert_rows(session, SideResult.__table__, results)
        # One writer per club at a time: the lines and ratings below are read-then-write
        # over the club's players (the match, then the club: locks). A deal of a match
        # being played takes it too, for the club's version it moves on (its kept pages).
        locks.lock_club(session, row.club_id)
    if not results and before is None:
        return
    # what was just written, as records and as seats to rate, taken from the rows written
    seated = (
        [[player.player_id for player in side.players] for side in row.sides] if results else []
    )
    now = side_records.records_written(results, seated)
    day = played_of(row)
    seats = [
        (row.id, result["side_id"], result["played_on"], result["points_for"], player)
        for result, players in zip(results, seated, strict=True)
        for player in players
    ]
    if before is None:
        # Just finished: its records added to the lines and rows, and it is rated. On
        # PostgreSQL their writes (lines, tallies, seats, rating points, ratings) go
        # together at the end, one round trip under the lock: none of it reads what
        # another part writes (``upserts.together``).
        with upserts.together(session):
            records = [record for _season, record in now]
            after = aggregates.refresh(session, row.club_id, row.id, row.season_id, day, records)
            player_rows.refresh(session, row.id, day, [], now)
            ratings.match_finished(row.club_id, row.id, day, False, seats, after)
        return
    old_day, old = before
    aggregates.replace_match(
        session,
        row.club_id,
        row.id,
        row.season_id,
        (old_day, [record for _season, record in old]),
        day,
        [record for _season, record in now],
    )
    # its players' rivals, partners and seats: the old records out, the new ones in
    player_rows.refresh(session, row.id, day, old, now)
    if game.finished:
        ratings.match_finished(row.club_id, row.id, day, True, seats)
    else:
        ratings.match_changed(row.club_id, row.id, day)


def played_of(row: MatchRow) -> date:
    """The day a club match counts for (its date; the day it started if it has none)."""
    return row.played_on or row.created_at.date()


def side_results(row: MatchRow, game: Match) -> list[dict[str, Any]]:
    """The result rows of a finished club match, one per side, summed from its deals (the
    values of an ``INSERT`` into ``side_results``)."""
    totals = game.totals
    found = []
    for index, side in enumerate(row.sides):
        entries = [deal.entries[index] for deal in game.deals]
        books = {kind: 0 for kind in (*BOOK_COLUMNS, "other")}
        for entry in entries:
            for kind, count in entry.books.items():
                books[kind if kind in BOOK_COLUMNS else "other"] += count
        found.append(
            dict(
                side_id=side.id,
                match_id=row.id,
                club_id=row.club_id,
                season_id=row.season_id,
                played_on=played_of(row),
                position=index,
                outcome=outcome_of(totals[index], totals),
                points_for=totals[index],
                points_against=max(t for i, t in enumerate(totals) if i != index),
                deals=len(game.deals),
                went_out=sum(entry.went_out for entry in entries),
                books_clean=books["clean"],
                books_dirty=books["dirty"],
                books_wild=books["wild"],
                books_other=books["other"],
                red_threes=sum(entry.red_threes for entry in entries),
                # red threes left anywhere: in hands and in feet nobody picked up
                red_threes_left=sum(entry.all_red_threes_left for entry in entries),
            )
        )
    return found


@dataclass(frozen=True)
class Row:
    """A line of a standings table, with names, links and rating."""

    place: int | None  # None: below the minimum number of games
    members: tuple[Player, ...]
    line: Line
    rating: float | None
    decided_by: str

    @property
    def name(self) -> str:
        """The player's name, or the partners' names joined."""
        return " & ".join(p.name for p in self.members)


def _num(get: Callable[[Line], Any]) -> Callable[[Row], Any]:
    return lambda row: get(row.line)


COLUMNS: dict[str, Callable[[Row], Any]] = {
    "games": _num(lambda line: line.games),
    "wins": _num(lambda line: line.tally.wins),
    "draws": _num(lambda line: line.tally.draws),
    "losses": _num(lambda line: line.tally.losses),
    "win_rate": _num(lambda line: line.win_rate),
    "points_for": _num(lambda line: line.points_for),
    "points_against": _num(lambda line: line.points_against),
    "per_game": _num(lambda line: line.points_per_game),
    "per_deal": _num(lambda line: line.points_per_deal),
    "went_out": _num(lambda line: line.went_out),
    "clean": _num(lambda line: line.books["clean"]),
    "dirty": _num(lambda line: line.books["dirty"]),
    "wild": _num(lambda line: line.books["wild"]),
    "red_threes": _num(lambda line: line.red_threes),
    "rating": lambda row: row.rating if row.rating is not None else float("-inf"),
}


@dataclass(frozen=True)
class Standings:
    """Ranked rows, then unranked rows, for players or partnerships."""

    ranked: list[Row]
    unranked: list[Row]
    sort: str


def standings(
    club_id: int,
    min_games: int,
    season_id: int | None = None,
    partnerships: bool = False,
    sort: str = "",
) -> Standings:
    """The club's (or season's) table in ranking order, or sorted by one column.

    Reads one stored line per entry; head-to-head, needed only between entries level on
    both averages, reads the matches those entries shared.
    """
    scope = season_id or aggregates.ALL_TIME
    kind = aggregates.PARTNERSHIP if partnerships else aggregates.PLAYER
    found = aggregates.read_lines(db.session, club_id, scope, kind)
    players = club_players(club_id)
    found.sort(key=lambda line: _name_of(line.key, players).casefold())

    def meetings(keys: frozenset[Any]) -> list[Any]:
        ids = {p for key in keys for p in _members(key)}
        return side_records.shared_records(db.session, club_id, scope, ids)

    table: Table = rank(found, meetings, min_games, by_partnership=partnerships)
    ranked = [_row(p.place, p.line, players, p.decided_by) for p in table.ranked]
    unranked = [_row(None, line, players, "") for line in table.unranked]
    if sort in COLUMNS:
        ranked.sort(key=COLUMNS[sort], reverse=True)
        unranked.sort(key=COLUMNS[sort], reverse=True)
    return Standings(ranked, unranked, sort if sort in COLUMNS else "")


def club_players(club_id: int) -> dict[int, Player]:
    """The club's players by id (one query)."""
    return {p.id: p for p in db.session.scalars(select(Player).where(Player.club_id == club_id))}


def _members(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def _name_of(key: Any, players: dict[int, Player]) -> str:
    return " & ".join(players[k].name for k in _members(key) if k in players)


def _row(place: int | None, line: Line, players: dict[int, Player], decided_by: str) -> Row:
    members = tuple(players[k] for k in _members(line.key) if k in players)
    rating = ratings.team_ordinal(ratings.ordinal(p.rating_mu, p.rating_sigma) for p in members)
    return Row(place, members, line, rating, decided_by)


def _rounded(value: Fraction | float, places: int) -> Decimal:
    """``value`` to ``places`` decimals, a half away from zero, as a calculator or a
    spreadsheet rounds it (Python's ``round`` and ``format`` round a half to even: 5 wins of
    8 showed as 62%, 3 of 8 as 38%). A float is taken as it is written (0.15, not the binary
    0.1499…)."""
    step = Decimal(1).scaleb(-places)
    if isinstance(value, float):
        rounded = Decimal(repr(value)).quantize(step, ROUND_HALF_UP)
    else:
        whole = math.floor(abs(value) * 10**places + Fraction(1, 2))
        rounded = Decimal(whole if value >= 0 else -whole).scaleb(-places).quantize(step)
    return abs(rounded) if rounded.is_zero() else rounded  # never "-0.0"


def percent(value: Fraction) -> str:
    """A win rate as a whole percentage: ``Fraction(5, 6)`` -> ``"83%"``, 5/8 -> ``"63%"``."""
    return f"{_rounded(value * 100, 0)}%"


def one_decimal(value: Fraction | float) -> str:
    """An average with one decimal: ``Fraction(11000, 3)`` -> ``"3666.7"``, 100.25 ->
    ``"100.3"``."""
    return f"{_rounded(value, 1)}"


def season_of(day: date, seasons: Sequence[Any]) -> Any:
    """The season whose dates hold ``day`` (the latest starting, if they overlap)."""
    holding = [s for s in seasons if s.starts_on <= day <= s.ends_on]
    return max(holding, key=lambda s: s.starts_on, default=None)
