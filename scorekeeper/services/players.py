"""A club player's page: record, averages, best game, rating and score over time, rivals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import select

from ..engine.rivals import best_game, head_to_head, partners
from ..engine.standings import (
    Line,
    SideRecord,
    Tally,
    line_of,
)
from ..extensions import db
from ..models import Club, Match, Player, RatingPoint
from . import charts, ratings, standings


@dataclass(frozen=True)
class Rival:
    """Another player, and the record against them or with them."""

    player: Player
    tally: Tally
    apart: Tally | None = None  # partners only: the record without this partner


def profile(club: Club, player: Player, season_id: int | None = None) -> dict[str, Any]:
    """Everything the player page shows, in a fixed number of queries."""
    records = standings.club_records(club.id, season_id)
    players = standings.club_players(club.id)
    own = [r for r in records if player.id in r.players]
    line: Line = line_of(player.id, own)
    best: SideRecord | None = best_game(records, player.id)
    best_match = db.session.get(Match, best.match) if best else None
    points = list(
        db.session.execute(
            select(RatingPoint.played_on, RatingPoint.mu, RatingPoint.sigma)
            .where(RatingPoint.player_id == player.id)
            .order_by(RatingPoint.sequence)
        )
    )
    against = [
        Rival(players[k], t) for k, t in head_to_head(records, player.id).items() if k in players
    ]
    against.sort(key=lambda r: (-r.tally.games, r.player.name.casefold()))
    mates = [
        Rival(players[k], together, apart)
        for k, (together, apart) in partners(records, player.id).items()
        if k in players
    ]
    mates.sort(key=lambda r: (-r.tally.games, r.player.name.casefold()))
    return {
        "line": line,
        "best": best,
        "best_match": best_match,
        "rating": ratings.ordinal(player.rating_mu, player.rating_sigma),
        "against": against,
        "partners": mates,
        "rating_chart": charts.line_chart(
            _("Rating after each match"),
            [p.played_on.strftime("%d %b") for p in points],
            [(player.name, [round(ratings.Standing(p.mu, p.sigma).ordinal, 1) for p in points])],
            _("Rating now: %(r)s", r=_fmt(ratings.ordinal(player.rating_mu, player.rating_sigma))),
        ),
        "score_chart": charts.line_chart(
            _("Score in each game"),
            [str(n) for n in range(1, len(own) + 1)],
            [(player.name, [r.points_for for r in own])],
            _("Average: %(avg)s points a game", avg=standings.one_decimal(line.points_per_game)),
        ),
    }


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"
