"""A club player's page: record, averages, best game, rating and score over time, rivals.

Nothing here reads the whole club: the record is the player's stored standing line, the
rivals and partners are counted in SQL over the player's own sides, and the charts show
the last ``CHART_POINTS`` games and rated matches, so the page stays the same size however
long the history grows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from flask_babel import format_decimal
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, case, func, select
from sqlalchemy.orm import aliased

from ..engine.standings import Line, Tally
from ..extensions import db
from ..models import Club, Match, MatchPlayer, Player, RatingPoint, SideResult
from . import aggregates, charts, ratings

CHART_POINTS = 50  # the charts show the latest games; the table of numbers says so


@dataclass(frozen=True)
class Rival:
    """Another player, and the record against them or with them."""

    player: Player
    tally: Tally
    apart: Tally | None = None  # partners only: the record without this partner


@dataclass(frozen=True)
class BestGame:
    """The player's highest score (the earliest game, on equal points) and its match."""

    points_for: int
    match: Match


def profile(club: Club, player: Player, season_id: int | None = None) -> dict[str, Any]:
    """Everything the player page shows, in a fixed number of queries."""
    scope = season_id or aggregates.ALL_TIME
    line = aggregates.read_line(db.session, club.id, scope, player.id)
    best = best_game(player.id, season_id)
    return {
        "line": line,
        "best": best,
        "best_match": best.match if best else None,
        "rating": ratings.ordinal(player.rating_mu, player.rating_sigma),
        "against": opponents(player.id, season_id),
        "partners": partners(player.id, season_id, line),
        "rating_chart": _rating_chart(player),
        "score_chart": _score_chart(player, season_id, line),
    }


mine, my = aliased(MatchPlayer), aliased(SideResult)


def _own_sides(seasonal: bool) -> Any:
    """The player's finished sides (``my``), in the season or all-time.

    The statements below are built once (``cache``) with bound parameters ``player`` and
    ``season``: building a statement costs more than running it on a small history.
    """
    query = (
        select()
        .select_from(mine)
        .join(my, my.side_id == mine.side_id)
        .where(mine.player_id == bindparam("player"))
    )
    return query.where(my.season_id == bindparam("season")) if seasonal else query


def _params(player_id: int, season_id: int | None) -> dict[str, Any]:
    return {"player": player_id, "season": season_id}


def _counts(win: Any, draw: Any, loss: Any) -> list[Any]:
    return [func.sum(case((cond, 1), else_=0)) for cond in (win, draw, loss)]


def _by_name(rivals: list[Rival]) -> list[Rival]:
    return sorted(rivals, key=lambda r: (-r.tally.games, r.player.name.casefold()))


def opponents(player_id: int, season_id: int | None) -> list[Rival]:
    """The player's record against each opponent met, most games first (one query)."""
    rows = db.session.execute(_opponents(season_id is not None), _params(player_id, season_id))
    return _by_name([Rival(p, Tally(w, d, lo)) for p, w, d, lo in rows])


@cache
def _opponents(seasonal: bool) -> Any:
    their, rival = aliased(SideResult), aliased(MatchPlayer)
    return (
        _own_sides(seasonal)
        .add_columns(
            Player,
            *_counts(
                my.points_for > their.points_for,
                my.points_for == their.points_for,
                my.points_for < their.points_for,
            ),
        )
        .join(their, and_(their.match_id == my.match_id, their.side_id != my.side_id))
        .join(rival, rival.side_id == their.side_id)
        .join(Player, Player.id == rival.player_id)
        .group_by(Player.id)
    )


def partners(player_id: int, season_id: int | None, line: Line) -> list[Rival]:
    """For each partner: the record together, and apart (the rest of the player's line)."""
    rows = db.session.execute(_partners(season_id is not None), _params(player_id, season_id))
    total = line.tally
    found = []
    for person, wins, draws, losses in rows:
        together = Tally(wins, draws, losses)
        apart = Tally(total.wins - wins, total.draws - draws, total.losses - losses)
        found.append(Rival(person, together, apart))
    return _by_name(found)


@cache
def _partners(seasonal: bool) -> Any:
    mate = aliased(MatchPlayer)
    return (
        _own_sides(seasonal)
        .add_columns(
            Player, *_counts(my.outcome == "win", my.outcome == "draw", my.outcome == "loss")
        )
        .join(mate, and_(mate.side_id == my.side_id, mate.id != mine.id))
        .join(Player, Player.id == mate.player_id)
        .group_by(Player.id)
    )


def best_game(player_id: int, season_id: int | None) -> BestGame | None:
    """The player's highest-scoring game, the earliest on equal points (one query)."""
    found = db.session.execute(_best(season_id is not None), _params(player_id, season_id)).first()
    return BestGame(found[0], found[1]) if found else None


@cache
def _best(seasonal: bool) -> Any:
    return (
        _own_sides(seasonal)
        .add_columns(my.points_for, Match)
        .join(Match, Match.id == my.match_id)
        .order_by(my.points_for.desc(), my.played_on, my.match_id)
        .limit(1)
    )


@cache
def _latest_scores(seasonal: bool) -> Any:
    return (
        _own_sides(seasonal)
        .add_columns(my.points_for)
        .order_by(my.played_on.desc(), my.match_id.desc())
    )


def _rating_chart(player: Player) -> charts.Chart | None:
    points = list(
        db.session.execute(
            select(RatingPoint.played_on, RatingPoint.mu, RatingPoint.sigma)
            .where(RatingPoint.player_id == player.id)
            .order_by(RatingPoint.played_on.desc(), RatingPoint.match_id.desc())
            .limit(CHART_POINTS + 1)
        )
    )[::-1]
    now = _("Rating now: %(r)s", r=_fmt(ratings.ordinal(player.rating_mu, player.rating_sigma)))
    title = _("Rating after each match")
    if len(points) > CHART_POINTS:
        points = points[1:]
        title = _("Rating after each of the last %(num)s matches", num=CHART_POINTS)
        now = f"{now}. " + _("Only the last %(num)s rated matches are shown.", num=CHART_POINTS)
    return charts.line_chart(
        title,
        [p.played_on.strftime("%d %b") for p in points],
        [(player.name, [round(ratings.Standing(p.mu, p.sigma).ordinal, 1) for p in points])],
        now,
    )


def _score_chart(player: Player, season_id: int | None, line: Line) -> charts.Chart | None:
    query = _latest_scores(season_id is not None).limit(CHART_POINTS)
    rows = db.session.execute(query, _params(player.id, season_id))
    scores = [points for (points,) in rows][::-1]
    average = _(
        "Average: %(avg)s points a game",
        avg=_fmt(float(line.points_per_game)),
    )
    title = _("Score in each game")
    if line.games > len(scores):
        title = _("Score in each of the last %(num)s games", num=len(scores))
        average = f"{average}. " + _(
            "Only the last %(num)s of %(games)s games are shown.",
            num=len(scores),
            games=line.games,
        )
    first = line.games - len(scores) + 1
    return charts.line_chart(
        title,
        [str(n) for n in range(first, line.games + 1)],
        [(player.name, scores)],
        average,
    )


def _fmt(value: float | None) -> str:
    return "—" if value is None else format_decimal(round(value, 1), format="#,##0.0")
