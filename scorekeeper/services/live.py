"""Live pages (issue 14): how a phone learns, cheaply, whether a match changed.

Every phone on a match asks every few seconds "still version X?" and is answered ``304``
when nothing changed. The version is read from the database, never kept in a process, so
any number of server processes answer alike: a match's version is made of its deal
count, its status and its newest audit event (every change to a match's deals adds one,
in the same transaction: ``services.audit``), plus its ``updated_at`` for changes made
by hand. A club night's version is the versions of the day's matches together.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, date, datetime

from sqlalchemy import bindparam, func, select

from ..extensions import db
from ..models import AuditEvent, Club, Match

#: What an onlooker token can look like (``secrets.token_urlsafe(24)``: 32 characters).
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,43}")


def _digest(*parts: object) -> str:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:20]


#: The match row's part of its version, in ``version_of``'s order: what any change to the
#: match or its deals moves (a save checks it too, ``services.matches._as_read``).
ROW_VERSION = (Match.deal_count, Match.finished, Match.reopened, Match.updated_at)


def match_version(match_id: int) -> str:
    """What changes whenever anything the match page shows of the match changes."""
    row = db.session.execute(_VERSION, {"match": match_id}).one_or_none()
    return version_of(*row) if row is not None else _digest("gone")


#: ``match_version``'s query, the match bound when it runs: built once, as every phone
#: on a match asks it every few seconds.
_VERSION = select(
    *ROW_VERSION,
    select(func.max(AuditEvent.id))
    .where(AuditEvent.match_id == bindparam("match"))
    .scalar_subquery(),
).where(Match.id == bindparam("match"))


def version_of(
    deal_count: int, finished: bool, reopened: bool, updated_at: datetime, newest: int | None
) -> str:
    """A match's version from its parts (``match_version`` reads them; a save has them as
    written). ``updated_at`` is taken as an instant, whatever it was read back as: SQLite
    gives it without a time zone (UTC), PostgreSQL in its session's time zone, and a save
    has it as it set it."""
    if updated_at.tzinfo is not None:
        updated_at = updated_at.astimezone(UTC).replace(tzinfo=None)
    return _digest(deal_count, finished, reopened, updated_at.isoformat(), newest)


def night_version(club: Club, day: date) -> str:
    """What changes whenever a match of the club's night starts or changes."""
    rows = db.session.execute(
        select(Match.id, Match.deal_count, Match.finished, Match.updated_at)
        .where(Match.club_id == club.id, Match.played_on == day)
        .order_by(Match.id)
    ).all()
    return _digest(day, *(tuple(r) for r in rows))


def match_by_onlooker_token(token: str) -> Match | None:
    """The match whose onlooker link carries ``token`` (None for anything else)."""
    if not TOKEN.fullmatch(token):
        return None
    return db.session.scalar(select(Match).where(Match.onlooker_token == token))
