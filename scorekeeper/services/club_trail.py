"""The club's log (``models/club_trail.py``): one writer, called by the services that
change a club, and the log's reads.

``record`` adds the event to the session of the change it describes; the caller commits
both together (or rolls both back). Nothing here commits. Who made the change arrives as
an ``audit.Actor`` from the web layer, or is ``audit.NOBODY`` (the command line, scripts).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ..extensions import db
from ..models import Club, ClubEvent, utcnow
from ..models.club_trail import (
    CREATED,
    INVITATION_REVOKED,
    INVITED,
    JOINED,
    KINDS,
    MATCH_REOPENED,
    MEMBER_REMOVED,
    OWNER_ASSIGNED,
    PLAYER_LINKED,
    RESET_LINK,
    ROLE_CHANGED,
    SEASON_ADDED,
    SETTINGS,
)
from .accounts import _aware
from .audit import NOBODY, Actor

__all__ = [
    "CREATED",
    "INVITATION_REVOKED",
    "INVITED",
    "JOINED",
    "KINDS",
    "MATCH_REOPENED",
    "MEMBER_REMOVED",
    "OWNER_ASSIGNED",
    "PLAYER_LINKED",
    "RESET_LINK",
    "ROLE_CHANGED",
    "SEASON_ADDED",
    "SETTINGS",
    "Entry",
    "LogPage",
    "changes",
    "log_of",
    "record",
]

#: A page of the log: the newest events first, this many at a time.
PAGE = 100


def record(club_id: int, kind: str, actor: Actor = NOBODY, **details: Any) -> ClubEvent:
    """Add a ``kind`` event of the club to the current transaction (not committed)."""
    assert kind in KINDS, kind
    event = ClubEvent(
        club_id=club_id,
        kind=kind,
        at=utcnow(),
        actor=actor.label,
        account_id=actor.account_id,
        details=details,
    )
    db.session.add(event)
    return event


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[list[Any]]:
    """``[[field, old, new], ...]`` for each field whose value differs, in ``after``'s
    order (a settings event's details)."""
    return [
        [key, before.get(key), value] for key, value in after.items() if before.get(key) != value
    ]


@dataclass(frozen=True)
class Entry:
    """One event as the log page reads it."""

    id: int
    kind: str
    at: datetime
    actor: str
    details: dict[str, Any]


@dataclass(frozen=True)
class LogPage:
    """Events newest first; ``older``: the id to ask for the next page with, or None."""

    entries: list[Entry]
    older: int | None


def log_of(club: Club, before: int | None = None, limit: int | None = None) -> LogPage:
    """The club's events newest first, ``limit`` of them (``PAGE``), older than the event
    ``before`` when it is given (the next page)."""
    limit = limit or PAGE
    query = select(ClubEvent).where(ClubEvent.club_id == club.id)
    if before is not None:
        query = query.where(ClubEvent.id < before)
    rows = list(db.session.scalars(query.order_by(ClubEvent.id.desc()).limit(limit + 1)))
    entries = [
        Entry(row.id, row.kind, _aware(row.at), row.actor, dict(row.details or {}))
        for row in rows[:limit]
    ]
    return LogPage(entries, entries[-1].id if len(rows) > limit else None)
