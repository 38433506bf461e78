"""OpenSkill ratings of club players: each side a team, PlackettLuce, kept from history.

A match that finishes after every rated match of its club is rated on top of the current
ratings; any other change (a finished match corrected, reopened, removed, or finished out
of date order) replays the club's whole history in order (date, then match), so the
result is always the one computed from scratch.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from openskill.models import PlackettLuce
from sqlalchemy import and_, delete, exists, or_, select, update

from ..extensions import db
from ..models import MatchPlayer, Player, RatingPoint, SideResult

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
    """Rate a finished match: incrementally when it is the newest, else replay history."""
    later = db.session.scalar(
        select(
            exists().where(
                RatingPoint.club_id == club_id,
                RatingPoint.match_id != match_id,
                or_(
                    RatingPoint.played_on > played_on,
                    and_(RatingPoint.played_on == played_on, RatingPoint.match_id > match_id),
                ),
            )
        )
    )
    if was_rated or later:
        recompute(club_id)
        return
    sequence = db.session.scalar(
        select(db.func.count(db.func.distinct(RatingPoint.match_id))).where(
            RatingPoint.club_id == club_id
        )
    )
    players = _players(club_id)
    _rate(club_id, _sides(club_id, match_id), players, int(sequence or 0))


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


def _players(club_id: int) -> dict[int, Player]:
    """The club's players as they are now (the club is locked: ``services.locks``), not as
    an earlier statement of the transaction may have read them."""
    query = select(Player).where(Player.club_id == club_id)
    rows = db.session.scalars(query.execution_options(populate_existing=True))
    return {p.id: p for p in rows}


def _side_rows(
    club_id: int, match_id: int | None
) -> Sequence[tuple[int, int, date, int, int | None]]:
    """(match, side, date, points, player) for every seat of the club's finished matches."""
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
    return [tuple(row) for row in db.session.execute(query)]  # type: ignore[misc]


def _sides(club_id: int, match_id: int) -> Sequence[tuple[int, int, date, int, int | None]]:
    return _side_rows(club_id, match_id)


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
