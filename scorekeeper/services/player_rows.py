"""The player page's rows kept current: each player's seats, and each pair's record.

A player page shows the player's best game, their latest scores, and their record against
and with each other player. Read from side results, those sort or count every game of
the player, so the page grew with the club's history. Two derived tables answer them in
a bounded read instead, kept current in the transaction of every changed club match (from
``services.standings.write_results``, beside the standing lines), all-time and per season
(``scope`` as standing lines):

- ``SeatResult``: one row per seated player of a finished club match and scope (its date
  and points), indexed for the best game and the latest scores;
- ``RivalTally``: per player, other player, "against" or "with" and scope, the wins, draws
  and losses (the engine's ``rivals.meetings``).

A change of a match costs that match only, wherever it is in the history: its seats are
rewritten, and its old records (read before its side results are rewritten) are taken
from its players' tallies and its new ones added, which touches the pairs of its players
only. ``rebuild`` recomputes a club from its side results: after its seasons change, after
an import, in the migration that adds the tables, and as the tests' reference.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date
from typing import Any

from sqlalchemy import and_, delete, insert, literal, select, union_all
from sqlalchemy.orm import Session

from ..engine.rivals import AGAINST, WITH, meetings, pair_tallies
from ..engine.standings import OUTCOMES, Key, SideRecord
from ..models import MatchPlayer, Player, RivalTally, SeatResult, SideResult
from . import upserts
from .side_records import ALL_TIME, records_of, seats_query

Seasoned = Sequence[tuple[int | None, SideRecord]]
PairKey = tuple[Key, int, str, Key]  # (player, scope, relation, other)


def _scopes(season: int | None) -> tuple[int, ...]:
    return (ALL_TIME,) if season is None else (ALL_TIME, season)


def refresh(session: Session, match_id: int, played_on: date, old: Seasoned, new: Seasoned) -> None:
    """Replace a match's ``old`` records (as they were before this write; empty when it
    had none) with its ``new`` ones (empty when it is no longer finished)."""
    if old:
        session.execute(delete(SeatResult).where(SeatResult.match_id == match_id))
    seats = [
        {
            "player_id": player,
            "scope": scope,
            "match_id": match_id,
            "played_on": played_on,
            "points_for": record.points_for,
        }
        for season, record in new
        for player in record.players
        for scope in _scopes(season)
    ]
    upserts.insert_rows(session, SeatResult.__table__, seats)
    _change_tallies(session, _changes(old, new))


def _changes(old: Seasoned, new: Seasoned) -> dict[PairKey, list[int]]:
    """The wins, draws and losses each pair gains (or loses, negative) from old to new."""
    change: dict[PairKey, list[int]] = {}
    for sign, records in ((-1, old), (1, new)):
        for season, record in records:
            for player, relation, other, outcome in meetings(record):
                for scope in _scopes(season):
                    counts = change.setdefault((player, scope, relation, other), [0, 0, 0])
                    counts[OUTCOMES.index(outcome)] += sign
    return {key: counts for key, counts in change.items() if any(counts)}


def _change_tallies(session: Session, change: dict[PairKey, list[int]]) -> None:
    """Add ``change`` to the stored tallies: the rows of those pairs, nothing else. One
    upsert adds it (a pair met for the first time is inserted); when a change takes games
    away (a correction, a removal), the pairs it leaves with none are deleted."""
    if not change:
        return
    values = [_row(key, *counts) for key, counts in change.items()]
    upserts.upsert(session, RivalTally.__table__, values, TALLY_KEY, _added)
    emptied = [key for key, counts in change.items() if min(counts) < 0]
    if emptied:
        players = list({p for key in emptied for p in (key[0], key[3])})
        session.execute(
            delete(RivalTally).where(
                RivalTally.player_id.in_(players),
                RivalTally.scope.in_(sorted({key[1] for key in emptied})),
                # every relation: sought by the whole key, not all of a player's tallies
                RivalTally.relation.in_((AGAINST, WITH)),
                RivalTally.other_id.in_(players),
                RivalTally.wins == 0,
                RivalTally.draws == 0,
                RivalTally.losses == 0,
            )
        )


TALLY_KEY = ("player_id", "scope", "relation", "other_id")


def _added(excluded: Any) -> dict[str, Any]:
    """A stored tally with a change added (the change is the row that was to be inserted)."""
    table = RivalTally.__table__.c
    return {column: table[column] + excluded[column] for column in ("wins", "draws", "losses")}


def _row(key: PairKey, wins: int, draws: int, losses: int) -> dict[str, Any]:
    player, scope, relation, other = key
    return {
        "player_id": player,
        "scope": scope,
        "relation": relation,
        "other_id": other,
        "wins": wins,
        "draws": draws,
        "losses": losses,
    }


def rebuild(session: Session, club_id: int, seasons: Collection[int] | None = None) -> None:
    """Recompute the club's seats and tallies, all-time and per season, from side results;
    or, with ``seasons`` (their ids), only those seasons' rows, from their side results
    alone (as ``aggregates.rebuild``)."""
    session.flush()
    club_players = select(Player.id).where(Player.club_id == club_id)
    results = SideResult.club_id == club_id
    for model in (SeatResult, RivalTally):
        gone = delete(model).where(model.player_id.in_(club_players))
        session.execute(gone if seasons is None else gone.where(model.scope.in_(seasons)))
    if seasons is not None:
        results = and_(results, SideResult.season_id.in_(seasons))
    seats = [
        select(
            MatchPlayer.player_id,
            scope,
            SideResult.match_id,
            SideResult.played_on,
            SideResult.points_for,
        )
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(results, MatchPlayer.player_id.is_not(None))
        for scope in (literal(ALL_TIME), SideResult.season_id)
    ]
    seats[1] = seats[1].where(SideResult.season_id.is_not(None))
    columns = ["player_id", "scope", "match_id", "played_on", "points_for"]
    chosen = union_all(*seats) if seasons is None else seats[1]
    session.execute(insert(SeatResult).from_select(columns, chosen))
    seasoned = records_of(session.execute(seats_query().where(results)))
    by_scope: dict[int, list[SideRecord]] = {}
    for season, record in seasoned:
        # with ``seasons``, every result read has one of them: its season's scope alone
        for scope in _scopes(season)[0 if seasons is None else 1 :]:
            by_scope.setdefault(scope, []).append(record)
    values = [
        _row((player, scope, relation, other), tally.wins, tally.draws, tally.losses)
        for scope, records in by_scope.items()
        for (player, relation, other), tally in pair_tallies(records).items()
    ]
    if values:
        session.execute(insert(RivalTally.__table__), values)
