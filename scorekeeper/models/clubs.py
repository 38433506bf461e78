"""Clubs, their players and seasons, and the aggregates kept current for standings."""

from __future__ import annotations

import secrets
from datetime import date, datetime

from sqlalchemy import Date, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..extensions import db
from .matches import FOLDED_KEY, new_public_id, utcnow


class Club(db.Model):  # type: ignore[name-defined,misc]
    """A card club or a family: the same people, week after week."""

    __tablename__ = "clubs"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    name: Mapped[str] = mapped_column(String(80))
    default_rules: Mapped[str] = mapped_column(String(80), default="classic")
    min_games: Mapped[int] = mapped_column(Integer, default=3)  # to be ranked
    # "public": standings, player pages and club night readable without logging in;
    # "members": only the club's accounts read them. Clubs made before accounts stay public.
    visibility: Mapped[str] = mapped_column(String(10), default="public", server_default="public")
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    # Ratings from this match on (date, then match) are being brought up to date after a
    # change far back in the history (services.ratings.catch_up); None: they are current.
    ratings_stale_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    ratings_stale_match: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Moves on in every transaction that changes anything of the club its pages show
    # (services.club_versions): a rendered page is kept under it (web.page_cache). It
    # starts anywhere, so a club deleted and made again, or restored from an older
    # export, never meets a page kept for the one before.
    data_version: Mapped[int] = mapped_column(
        Integer, default=lambda: secrets.randbelow(2**30), server_default="0"
    )

    @property
    def ratings_updating(self) -> bool:
        """Whether the ratings shown are still being brought up to date."""
        return self.ratings_stale_on is not None

    players: Mapped[list[Player]] = relationship(
        back_populates="club", order_by="Player.name", cascade="all, delete-orphan"
    )
    seasons: Mapped[list[Season]] = relationship(
        back_populates="club", order_by="Season.starts_on.desc()", cascade="all, delete-orphan"
    )


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A person in a club; their record follows them from partner to partner."""

    __tablename__ = "players"
    # a name once in a club; also the index a club's players are found by
    __table_args__ = (UniqueConstraint("club_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(FOLDED_KEY))  # casefolded name, unique in the club
    rating_mu: Mapped[float | None] = mapped_column(Float, nullable=True)
    rating_sigma: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)

    club: Mapped[Club] = relationship(back_populates="players")


class Season(db.Model):  # type: ignore[name-defined,misc]
    """A named stretch of dates; a club match belongs to the season its date falls into."""

    __tablename__ = "seasons"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)

    club: Mapped[Club] = relationship(back_populates="seasons")


class Tallies:
    """What one side scored and laid down, summed over one match or over many.

    Shared by a match side's result and a standings line, so both count the same things.
    """

    points_for: Mapped[int] = mapped_column(Integer)
    points_against: Mapped[int] = mapped_column(Integer)
    deals: Mapped[int] = mapped_column(Integer)
    went_out: Mapped[int] = mapped_column(Integer)
    books_clean: Mapped[int] = mapped_column(Integer)
    books_dirty: Mapped[int] = mapped_column(Integer)
    books_wild: Mapped[int] = mapped_column(Integer)
    books_other: Mapped[int] = mapped_column(Integer)  # special books (sevens, ...)
    red_threes: Mapped[int] = mapped_column(Integer)  # laid
    red_threes_left: Mapped[int] = mapped_column(Integer)


class SideResult(Tallies, db.Model):  # type: ignore[name-defined,misc]
    """A finished club match's side, summed over its deals: the row standings read.

    Kept current by ``services.standings.match_changed`` whenever a deal is recorded,
    corrected or removed, so no page ever loads deals to draw standings.
    """

    __tablename__ = "side_results"
    __table_args__ = (
        Index("ix_side_results_club_order", "club_id", "played_on", "match_id"),
        Index("ix_side_results_match", "match_id"),  # a match's other sides (rivals)
        # a season's games in the club's order: a line's games in a season after a place
        Index("ix_side_results_season_order", "season_id", "played_on", "match_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    side_id: Mapped[int] = mapped_column(
        ForeignKey("match_sides.id", ondelete="CASCADE"), unique=True
    )
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    season_id: Mapped[int | None] = mapped_column(
        ForeignKey("seasons.id", ondelete="SET NULL"), nullable=True
    )
    played_on: Mapped[date] = mapped_column(Date)
    position: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(5))  # win, draw, loss


class RatingPoint(db.Model):  # type: ignore[name-defined,misc]
    """A player's OpenSkill rating after one finished club match (rating over time)."""

    __tablename__ = "rating_points"
    __table_args__ = (
        UniqueConstraint("player_id", "match_id"),
        # the rating order: what follows a match (services.ratings.replay_from); also
        # the index a club's points are found by
        Index("ix_rating_points_club_order", "club_id", "played_on", "match_id"),
        # a player's points in that order: the last one before a match, the chart's latest
        Index("ix_rating_points_player_order", "player_id", "played_on", "match_id"),
        # a match's points: where it was rated (a change of it), its removal's cascade
        Index("ix_rating_points_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    played_on: Mapped[date] = mapped_column(Date)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)


class StandingLine(Tallies, db.Model):  # type: ignore[name-defined,misc]
    """A player's or a partnership's record over a season or all-time: one standings row.

    Kept current by ``services.aggregates``: rewritten from side results for the players
    of a match whenever it changes, rebuilt for the club when its seasons change. ``scope``
    is 0 for all-time, else the season's id; ``members`` the player ids joined by commas
    (a partnership's in the engine's order).
    """

    __tablename__ = "standing_lines"
    __table_args__ = (UniqueConstraint("club_id", "scope", "kind", "members"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    scope: Mapped[int] = mapped_column(Integer)  # 0: all-time; else a season id
    kind: Mapped[str] = mapped_column(String(12))  # "player" or "partnership"
    members: Mapped[str] = mapped_column(String(200))
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    streak_outcome: Mapped[str] = mapped_column(String(5))  # "" when no game
    streak_length: Mapped[int] = mapped_column(Integer)


class SeatResult(db.Model):  # type: ignore[name-defined,misc]
    """A player's score in one finished club match, once all-time and once in its season.

    The player page's best game and latest scores read these through their indexes (a
    bounded read however many games the player has). Kept current by
    ``services.player_rows`` beside the match's side results; ``scope`` as standing lines.
    """

    __tablename__ = "seat_results"
    __table_args__ = (
        Index("ix_seat_results_best", "player_id", "scope", "points_for", "played_on", "match_id"),
        Index("ix_seat_results_latest", "player_id", "scope", "played_on", "match_id"),
        Index("ix_seat_results_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    scope: Mapped[int] = mapped_column(Integer)  # 0: all-time; else a season id
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    played_on: Mapped[date] = mapped_column(Date)
    points_for: Mapped[int] = mapped_column(Integer)


class RivalTally(db.Model):  # type: ignore[name-defined,misc]
    """A player's record against another player, or with them as partner, in a scope.

    ``relation`` is "against" (their sides met: each side's points against the other's)
    or "with" (same side: the side's outcome). Kept current by ``services.player_rows`` in
    the transaction of every changed club match, for the pairs of its players only.
    """

    __tablename__ = "rival_tallies"
    __table_args__ = (UniqueConstraint("player_id", "scope", "relation", "other_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    scope: Mapped[int] = mapped_column(Integer)  # 0: all-time; else a season id
    relation: Mapped[str] = mapped_column(String(7))  # "against" or "with"
    other_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
