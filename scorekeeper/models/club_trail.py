"""The club's log: who changed the club itself, and when.

The match trail (``models/audit.py``) keeps every change to a match's deals; this one
keeps the changes to the club itself, by its owners, the people joining it, or the person
who runs the server: its settings, seasons, members and their roles, the invitation and
reset links made for it, and each finished match a scorer reopened to correct (what was
corrected is in the match's own trail). Written by ``services.club_trail`` in the same
transaction as the change, read only by the club's log page and the export. Standings
never read it.

- ``club_id`` cascades: deleting a club deletes its whole history on purpose, this log
  with it (``services.clubs.delete_club``).
- ``account_id`` is the account that made the change (NULL for the command line, or once
  the account is closed, ``ON DELETE SET NULL``); ``actor`` keeps its name at the time.
- ``details`` holds what changed as plain values (names, roles, dates as ISO text, never
  sentences): the page says them in the reader's language. Names are kept as they were,
  so the log still reads right after a member leaves or a season is renamed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from ..extensions import db
from .audit import ACTOR_LENGTH
from .matches import utcnow

CREATED = "created"
SETTINGS = "settings"
SEASON_ADDED = "season_added"
INVITED = "invited"
INVITATION_REVOKED = "invitation_revoked"
JOINED = "joined"
ROLE_CHANGED = "role_changed"
MEMBER_REMOVED = "member_removed"
PLAYER_LINKED = "player_linked"
RESET_LINK = "reset_link"
OWNER_ASSIGNED = "owner_assigned"
MATCH_REOPENED = "match_reopened"
KINDS = (
    CREATED,
    SETTINGS,
    SEASON_ADDED,
    INVITED,
    INVITATION_REVOKED,
    JOINED,
    ROLE_CHANGED,
    MEMBER_REMOVED,
    PLAYER_LINKED,
    RESET_LINK,
    OWNER_ASSIGNED,
    MATCH_REOPENED,
)
KIND_LENGTH = 20


class ClubEvent(db.Model):  # type: ignore[name-defined,misc]
    """One change to a club (not to its matches' deals: those are ``AuditEvent``)."""

    __tablename__ = "club_events"
    __table_args__ = (
        # A club's events in the order they happened (the id grows with each commit).
        Index("ix_club_events_club", "club_id", "id"),
        CheckConstraint(
            "kind IN (" + ", ".join(f"'{kind}'" for kind in KINDS) + ")",
            name="ck_club_events_kind",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(KIND_LENGTH))
    at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    actor: Mapped[str] = mapped_column(String(ACTOR_LENGTH), default="")
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
