"""A club player's page: record, averages, best game, rating and score over time, rivals.

Nothing here reads the whole club nor all the player's games: the record is the player's
stored standing line, the rivals and partners their stored tallies, the best game and the
scores chart an index's first rows (``services.player_rows`` keeps both current), and the
charts show the last ``CHART_POINTS`` games and rated matches, so the page stays the same
size and cost however long the history grows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cache, lru_cache
from typing import Any

from babel.dates import format_skeleton
from flask_babel import format_decimal, get_locale
from flask_babel import gettext as _
from sqlalchemy import bindparam, func, select

from ..engine.rivals import AGAINST, WITH
from ..engine.standings import Line, Tally
from ..extensions import db
from ..models import Club, Match, Player, RatingPoint, RivalTally, SeatResult
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


def _params(player_id: int, season_id: int | None) -> dict[str, Any]:
    return {"player": player_id, "scope": season_id or aggregates.ALL_TIME}


def _by_name(rivals: list[Rival]) -> list[Rival]:
    return sorted(rivals, key=lambda r: (-r.tally.games, r.player.name.casefold()))


@cache
def _tallies(relation: str) -> Any:
    """The player's stored records against (or with) each other player, in a scope.

    The statements here are built once (``cache``) with bound parameters ``player`` and
    ``scope``: building a statement costs more than running it on a small history.
    """
    return (
        select(Player, RivalTally.wins, RivalTally.draws, RivalTally.losses)
        .join(Player, Player.id == RivalTally.other_id)
        .where(
            RivalTally.player_id == bindparam("player"),
            RivalTally.scope == bindparam("scope"),
            RivalTally.relation == relation,
        )
    )


def opponents(player_id: int, season_id: int | None) -> list[Rival]:
    """The player's record against each opponent met, most games first (one query)."""
    rows = db.session.execute(_tallies(AGAINST), _params(player_id, season_id))
    return _by_name([Rival(p, Tally(w, d, lo)) for p, w, d, lo in rows])


def partners(player_id: int, season_id: int | None, line: Line) -> list[Rival]:
    """For each partner: the record together, and apart (the rest of the player's line)."""
    rows = db.session.execute(_tallies(WITH), _params(player_id, season_id))
    total = line.tally
    found = []
    for person, wins, draws, losses in rows:
        together = Tally(wins, draws, losses)
        apart = Tally(total.wins - wins, total.draws - draws, total.losses - losses)
        found.append(Rival(person, together, apart))
    return _by_name(found)


def best_game(player_id: int, season_id: int | None) -> BestGame | None:
    """The player's highest-scoring game, the earliest on equal points (one query)."""
    found = db.session.execute(_best(), _params(player_id, season_id)).first()
    return BestGame(found[0], found[1]) if found else None


def _own_seats(query: Any) -> Any:
    return query.where(
        SeatResult.player_id == bindparam("player"), SeatResult.scope == bindparam("scope")
    )


@cache
def _best() -> Any:
    # the highest score, then its earliest game: both read from ix_seat_results_best
    top = _own_seats(select(func.max(SeatResult.points_for))).scalar_subquery()
    return (
        _own_seats(select(SeatResult.points_for, Match))
        .join(Match, Match.id == SeatResult.match_id)
        .where(SeatResult.points_for == top)
        .order_by(SeatResult.played_on, SeatResult.match_id)
        .limit(1)
    )


@cache
def _latest_scores() -> Any:
    # the newest games first, read from ix_seat_results_latest
    return _own_seats(select(SeatResult.points_for)).order_by(
        SeatResult.played_on.desc(), SeatResult.match_id.desc()
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
        [_day(p.played_on) for p in points],
        [(player.name, [round(ratings.Standing(p.mu, p.sigma).ordinal, 1) for p in points])],
        now,
    )


def _score_chart(player: Player, season_id: int | None, line: Line) -> charts.Chart | None:
    query = _latest_scores().limit(CHART_POINTS)
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


def _day(day: date) -> str:
    """A chart's date, short, as the served language writes it ("Mar 7", "7. 3.", "7 мар.")."""
    return _day_in(str(get_locale() or "en"), day)


@lru_cache(maxsize=4096)
def _day_in(language: str, day: date) -> str:
    # Babel takes some 50 µs a date (strftime 1): a chart's 50 points, most of them on a few
    # club nights, are formatted once a night.
    return str(format_skeleton("MMMd", day, locale=language))


def _fmt(value: float | None) -> str:
    return "—" if value is None else format_decimal(round(value, 1), format="#,##0.0")
