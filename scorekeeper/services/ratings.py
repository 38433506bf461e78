"""OpenSkill ratings of club players: each side a team, PlackettLuce, kept from history.

A match that finishes after every rated match of its club is rated on top of the current
ratings; any other change (a finished match corrected, reopened, removed, or finished out
of date order) replays the club's history in order (date, then match) from that match on:
the ratings before it are the players' last rating points before it, so the work grows
with what follows the match (a few tables of the same night, usually), not with the
club's whole history, and the result is always the one computed from scratch
(``recompute``, which ``scorekeeper`` data rebuilds use, and the tests compare).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from openskill.models import PlackettLuce
from sqlalchemy import and_, delete, exists, func, select, update

from ..extensions import db
from ..models import MatchPlayer, Player, RatingPoint, SideResult
from .side_records import at_or_after

MODEL = PlackettLuce()  # default mu 25, sigma 25/3: deterministic, no randomness
START_MU, START_SIGMA = MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Standing:
    """A player's rating: mean skill, uncertainty, and the cautious ordinal shown."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the skill the player very likely has at least."""
        return self.mu - 3 * self.sigma


def ordinal(mu: float | None, sigma: float | None) -> float | None:
    """The ordinal of a stored rating (None when the player has no rated match)."""
    return None if mu is None or sigma is None else Standing(mu, sigma).ordinal


def team_ordinal(ratings: Iterable[float | None]) -> float | None:
    """A partnership's rating: the mean of its players' ordinals (None if any is unrated)."""
    values = list(ratings)
    if not values or any(v is None for v in values):
        return None
    return math.fsum(v for v in values if v is not None) / len(values)


def match_finished(club_id: int, match_id: int, played_on: date, was_rated: bool) -> None:
    """Rate a finished match: incrementally when it is the newest, else replay from it."""
    later = db.session.scalar(
        select(
            exists().where(
                RatingPoint.club_id == club_id,
                RatingPoint.match_id != match_id,
                at_or_after(RatingPoint, played_on, match_id),
            )
        )
    )
    if was_rated or later:
        match_changed(club_id, match_id, played_on)
        return
    players = _players(club_id)
    _rate(club_id, _side_rows(club_id, match_id), players, _sequence(club_id, played_on, match_id))


def match_changed(club_id: int, match_id: int, played_on: date) -> None:
    """A rated match changed (corrected, reopened, removed, finished out of order): replay
    the club's ratings from it (or from where it was rated, if that is earlier)."""
    rated_on = db.session.scalar(
        select(func.min(RatingPoint.played_on)).where(
            RatingPoint.club_id == club_id, RatingPoint.match_id == match_id
        )
    )
    replay_from(club_id, min(played_on, rated_on) if rated_on else played_on, match_id)


def replay_from(club_id: int, played_on: date, match_id: int) -> None:
    """Forget the club's ratings from (``played_on``, ``match_id``) on and rate those
    matches again, in order, from each player's last rating before them."""
    since = and_(RatingPoint.club_id == club_id, at_or_after(RatingPoint, played_on, match_id))
    touched = set(db.session.scalars(select(RatingPoint.player_id).where(since).distinct()))
    db.session.execute(delete(RatingPoint).where(since))
    players = _players(club_id)
    if touched:
        newest = (
            select(
                RatingPoint.player_id,
                RatingPoint.mu,
                RatingPoint.sigma,
                func.row_number()
                .over(
                    partition_by=RatingPoint.player_id,
                    order_by=(RatingPoint.played_on.desc(), RatingPoint.match_id.desc()),
                )
                .label("newest"),
            )
            .where(RatingPoint.club_id == club_id, RatingPoint.player_id.in_(touched))
            .subquery()
        )
        before = {
            player_id: (mu, sigma)
            for player_id, mu, sigma in db.session.execute(
                select(newest.c.player_id, newest.c.mu, newest.c.sigma).where(newest.c.newest == 1)
            )
        }
        for player_id in touched:
            if player_id in players:
                mu, sigma = before.get(player_id, (None, None))
                players[player_id].rating_mu, players[player_id].rating_sigma = mu, sigma
    by_match: dict[int, list[tuple[int, int, date, int, int | None]]] = {}
    for row in _side_rows(club_id, None, since=(played_on, match_id)):
        by_match.setdefault(row[0], []).append(row)
    first = _sequence(club_id, played_on, match_id)
    for offset, sides in enumerate(by_match.values()):
        _rate(club_id, sides, players, first + offset)


def recompute(club_id: int) -> None:
    """Forget the club's ratings and replay every finished match in order."""
    db.session.execute(delete(RatingPoint).where(RatingPoint.club_id == club_id))
    db.session.execute(
        update(Player).where(Player.club_id == club_id).values(rating_mu=None, rating_sigma=None)
    )
    players = _players(club_id)
    rows = _side_rows(club_id, None)
    by_match: dict[int, list[tuple[int, int, date, int, int | None]]] = {}
    for row in rows:
        by_match.setdefault(row[0], []).append(row)
    for sequence, sides in enumerate(by_match.values()):
        _rate(club_id, sides, players, sequence)


def _sequence(club_id: int, played_on: date, match_id: int) -> int:
    """The place of a match in the club's rating order: the finished matches before it
    (as ``recompute`` numbers them)."""
    before = (
        select(func.count(func.distinct(SideResult.match_id)))
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(SideResult.club_id == club_id, ~at_or_after(SideResult, played_on, match_id))
    )
    return int(db.session.scalar(before) or 0)


def _players(club_id: int) -> dict[int, Player]:
    """The club's players as they are now (the club is locked: ``services.locks``), not as
    an earlier statement of the transaction may have read them."""
    query = select(Player).where(Player.club_id == club_id)
    rows = db.session.scalars(query.execution_options(populate_existing=True))
    return {p.id: p for p in rows}


def _side_rows(
    club_id: int, match_id: int | None, since: tuple[date, int] | None = None
) -> Sequence[tuple[int, int, date, int, int | None]]:
    """(match, side, date, points, player) for every seat of the club's finished matches
    (of one match; or of those at or after ``since``)."""
    query = (
        select(
            SideResult.match_id,
            SideResult.side_id,
            SideResult.played_on,
            SideResult.points_for,
            MatchPlayer.player_id,
        )
        .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
        .where(SideResult.club_id == club_id)
        .order_by(
            SideResult.played_on,
            SideResult.match_id,
            SideResult.position,
            MatchPlayer.position,
        )
    )
    if match_id is not None:
        query = query.where(SideResult.match_id == match_id)
    if since is not None:
        query = query.where(at_or_after(SideResult, *since))
    return [tuple(row) for row in db.session.execute(query)]  # type: ignore[misc]


def _rate(
    club_id: int,
    seats: Sequence[tuple[int, int, date, int, int | None]],
    players: dict[int, Player],
    sequence: int,
) -> None:
    """Rate one match from its seats; write each player's new rating and a history point."""
    teams: dict[int, list[int | None]] = {}
    points: dict[int, int] = {}
    for _match, side, _day, side_points, player in seats:
        teams.setdefault(side, []).append(player)
        points[side] = side_points
    if len(teams) < 2:
        return
    order = list(teams)
    ranks = [1 + sum(points[o] > points[s] for o in order) for s in order]
    before = [
        [MODEL.rating(*_current(players.get(p) if p is not None else None)) for p in teams[side]]
        for side in order
    ]
    after = MODEL.rate(before, ranks=ranks)
    match_id, played_on = seats[0][0], seats[0][2]
    for side, ratings in zip(order, after, strict=True):
        for player_id, rating in zip(teams[side], ratings, strict=True):
            if player_id is None or player_id not in players:
                continue
            player = players[player_id]
            player.rating_mu, player.rating_sigma = rating.mu, rating.sigma
            db.session.add(
                RatingPoint(
                    player_id=player_id,
                    match_id=match_id,
                    club_id=club_id,
                    sequence=sequence,
                    played_on=played_on,
                    mu=rating.mu,
                    sigma=rating.sigma,
                )
            )


def _current(player: Player | None) -> tuple[float, float]:
    if player is None or player.rating_mu is None or player.rating_sigma is None:
        return (START_MU, START_SIGMA)
    return (player.rating_mu, player.rating_sigma)
