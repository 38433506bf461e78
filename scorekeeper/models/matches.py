"""SQLAlchemy models: rows only, no scoring (the engine scores; services write rows)."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..extensions import db


def utcnow() -> datetime:
    """The current time in UTC (stored naive-free as an aware timestamp)."""
    return datetime.now(UTC)


def new_public_id() -> str:
    """An unguessable id for public URLs (never the sequential primary key)."""
    return secrets.token_urlsafe(12)


#: The width of a name's key (the name case-folded, what makes it unique whatever its
#: case): Unicode's full case folding makes as many as three characters of one ("ﬃ" is
#: "ffi"), so a name of 40 characters, the most a form takes, has a key of up to 120.
FOLDED_KEY = 120

#: What a public id can look like. Anything else is not looked up: PostgreSQL answers a
#: NUL character in a query with an error, not with "nothing found".
PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def is_public_id(text: str) -> bool:
    """Whether ``text`` could be a public id (and so is safe to look up)."""
    return bool(PUBLIC_ID.fullmatch(text))


def new_onlooker_token() -> str:
    """The secret of a match's read-only onlooker link (issue 14): random, unrelated to
    the public id, so the onlooker link cannot be turned into the scoring link."""
    return secrets.token_urlsafe(24)


class Match(db.Model):  # type: ignore[name-defined,misc]
    """A game of a fixed number of deals, with a frozen copy of its rule set."""

    __tablename__ = "matches"
    # No index holds a column that a deal's save changes (the count of deals, finished,
    # the winner, the times): PostgreSQL then writes the row's new version in place (a HOT
    # update), where it added an entry to each of the table's indexes at every deal. The
    # home page finds a phone's matches by their public ids.
    __table_args__ = (
        # A club's matches newest first (standings' recent list) and one night's tables;
        # also what a club's deletion finds its matches by.
        Index("ix_matches_club_played", "club_id", "played_on", "id"),
        # One rematch a match; the onlooker links are secrets, so one match each.
        Index("uq_matches_rematch_of_id", "rematch_of_id", unique=True),
        Index("uq_matches_onlooker_token", "onlooker_token", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    # server_default: only so a migration can add the column NOT NULL in place
    onlooker_token: Mapped[str] = mapped_column(
        String(43), default=new_onlooker_token, server_default=""
    )
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)  # frozen RuleSet.to_dict()
    rules_origin: Mapped[str] = mapped_column(String(80))  # preset id or saved rule set
    first_dealer: Mapped[int] = mapped_column(Integer, default=0)
    deal_count: Mapped[int] = mapped_column(Integer, default=0)
    finished: Mapped[bool] = mapped_column(default=False)
    reopened: Mapped[bool] = mapped_column(default=False)
    winner_position: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        db.DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
    finished_at: Mapped[datetime | None] = mapped_column(db.DateTime(timezone=True), nullable=True)
    # Club matches only (casual matches leave these empty); see models/clubs.py.
    club_id: Mapped[int | None] = mapped_column(
        ForeignKey("clubs.id", ondelete="SET NULL"), nullable=True
    )
    season_id: Mapped[int | None] = mapped_column(
        ForeignKey("seasons.id", ondelete="SET NULL"), nullable=True
    )
    played_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    # The id of the finished match this one is the rematch of (at most one rematch each: a
    # second tap on Rematch, or a second phone, lands on the same new match). A plain id,
    # not a foreign key: matches are never deleted (see the migration a7c3e9d1f2b4).
    rematch_of_id: Mapped[int | None] = mapped_column(Integer, nullable=True)

    sides: Mapped[list[MatchSide]] = relationship(
        back_populates="match", order_by="MatchSide.position", cascade="all, delete-orphan"
    )
    deals: Mapped[list[Deal]] = relationship(
        back_populates="match", order_by="Deal.number", cascade="all, delete-orphan"
    )


class MatchSide(db.Model):  # type: ignore[name-defined,misc]
    """One side of a match (a team, or a player alone) and its running total."""

    __tablename__ = "match_sides"
    __table_args__ = (UniqueConstraint("match_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80), default="")
    total: Mapped[int] = mapped_column(Integer, default=0)

    match: Mapped[Match] = relationship(back_populates="sides")
    players: Mapped[list[MatchPlayer]] = relationship(
        back_populates="side", order_by="MatchPlayer.position", cascade="all, delete-orphan"
    )


class MatchPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player of a side, in seating order within the side."""

    __tablename__ = "match_players"
    __table_args__ = (
        UniqueConstraint("side_id", "position"),
        # a player's seats; whether a player sat on a side is one lookup (aggregates)
        Index("ix_match_players_player_side", "player_id", "side_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    side_id: Mapped[int] = mapped_column(ForeignKey("match_sides.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(40))
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True
    )

    side: Mapped[MatchSide] = relationship(back_populates="players")


class Deal(db.Model):  # type: ignore[name-defined,misc]
    """One recorded deal. ``version`` guards corrections; ``submission_key`` guards resends."""

    __tablename__ = "deals"
    __table_args__ = (
        UniqueConstraint("match_id", "number"),
        UniqueConstraint("match_id", "submission_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, default=1)
    submission_key: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        db.DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )

    # SQLAlchemy checks and bumps the version on every UPDATE of the row, so two
    # corrections racing each other cannot both be applied.
    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012

    match: Mapped[Match] = relationship(back_populates="deals")
    sides: Mapped[list[DealSide]] = relationship(
        back_populates="deal", order_by="DealSide.position", cascade="all, delete-orphan"
    )


class DealSide(db.Model):  # type: ignore[name-defined,misc]
    """A side's entry for one deal (as entered) and its breakdown (as scored)."""

    __tablename__ = "deal_sides"
    __table_args__ = (UniqueConstraint("deal_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    deal_id: Mapped[int] = mapped_column(ForeignKey("deals.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)  # SideEntry.to_dict()
    went_out: Mapped[bool] = mapped_column(default=False)
    card_points: Mapped[int] = mapped_column(Integer)
    book_bonus: Mapped[int] = mapped_column(Integer)
    red_threes: Mapped[int] = mapped_column(Integer)
    going_out: Mapped[int] = mapped_column(Integer)
    exact_draws: Mapped[int] = mapped_column(Integer)
    left_points: Mapped[int] = mapped_column(Integer)
    red_threes_left: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)

    deal: Mapped[Deal] = relationship(back_populates="sides")


class KnownName(db.Model):  # type: ignore[name-defined,misc]
    """A player name typed once, offered again when the next match starts."""

    __tablename__ = "known_names"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(FOLDED_KEY), unique=True)  # casefolded
    name: Mapped[str] = mapped_column(String(40))
    last_used_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
