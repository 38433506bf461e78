"""Accounts, their server-side sessions, club memberships, invitations and reset links.

Casual play needs none of this: a casual match belongs to whoever holds its link. Clubs
and house rules have owners, so changing them needs an account (see ``web/authz.py``).
Tokens that travel in links or cookies are stored only as SHA-256 hashes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..extensions import db
from .matches import FOLDED_KEY, new_public_id, utcnow

#: Club roles, weakest first: a role may do everything the roles before it may.
ROLES = ("member", "scorer", "owner")


class Account(db.Model):  # type: ignore[name-defined,misc]
    """Someone who logs in. Players (people in the standings) are not accounts."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    username: Mapped[str] = mapped_column(String(40))  # as typed
    username_key: Mapped[str] = mapped_column(String(FOLDED_KEY), unique=True)  # casefolded
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    password_changed_at: Mapped[datetime] = mapped_column(
        db.DateTime(timezone=True), default=utcnow
    )
    #: The language the account chose (``en``, ``cs``, ``bs``, ``ru``), or None: the
    #: browser's then. A switcher's cookie on one browser still overrides it there.
    language: Mapped[str | None] = mapped_column(String(8), nullable=True, default=None)

    memberships: Mapped[list[Membership]] = relationship(
        back_populates="account", cascade="all, delete-orphan"
    )

    # Flask-Login: the id kept in the cookie is the session's token, never the account id,
    # so deleting the session row on the server ends the log-in (and its "remember me").
    session_token = None  # set by the user loader; not a column
    is_active = True
    is_authenticated = True
    is_anonymous = False

    def get_id(self) -> str | None:
        return self.session_token


class RetiredUsername(db.Model):  # type: ignore[name-defined,misc]
    """The username of a closed account (its casefolded key), which no one may sign up
    with again: the match trails and club logs keep the name an account had (their
    ``actor``), and a newcomer taking it would read there as the one who did it."""

    __tablename__ = "retired_usernames"

    username_key: Mapped[str] = mapped_column(String(FOLDED_KEY), primary_key=True)
    retired_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)


class AccountSession(db.Model):  # type: ignore[name-defined,misc]
    """One log-in on one browser; the cookie holds the token, this row its hash."""

    __tablename__ = "account_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    remember: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True))

    account: Mapped[Account] = relationship()


class Membership(db.Model):  # type: ignore[name-defined,misc]
    """An account's role in a club, and the club player it is (if any)."""

    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("account_id", "club_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(10))  # one of ROLES
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)

    account: Mapped[Account] = relationship(back_populates="memberships")


class Invitation(db.Model):  # type: ignore[name-defined,misc]
    """A link that lets whoever opens it join a club, until it expires or is used up."""

    __tablename__ = "invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(10))  # member or scorer
    uses_left: Mapped[int] = mapped_column(Integer)
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True))


class PasswordReset(db.Model):  # type: ignore[name-defined,misc]
    """A one-time link a club owner hands to a member who forgot their password."""

    __tablename__ = "password_resets"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(db.DateTime(timezone=True), nullable=True)

    account: Mapped[Account] = relationship(foreign_keys=[account_id])


class RateLimitCount(db.Model):  # type: ignore[name-defined,misc]
    """How many tries one address made of one rate-limited form in the current window
    (``rate_limits.DatabaseStorage``): kept in the database, every server process counts
    the same tries."""

    __tablename__ = "rate_limit_counts"

    key: Mapped[str] = mapped_column(String, primary_key=True)  # Flask-Limiter's key
    count: Mapped[int] = mapped_column(Integer)
    #: When the window ends, in seconds since the epoch (``time.time()``).
    expires_at: Mapped[float] = mapped_column(Float, index=True)
