"""Row locks that make the writers of one match, and of one club, take turns.

PostgreSQL runs each transaction in READ COMMITTED: two requests correcting two deals of
one match would both read the same deals, each compute the totals from its own view, and
the later commit would overwrite the earlier one's totals, side results and standings.
So every transaction that changes a match locks rows, then reads what it rewrites:

1. **the match row first**: ``match_reads.load_match(public_id, for_update=True)``, which
   the services' write functions make sure of (``services.matches``); a transaction that
   needs several matches locks them in ascending id order (``lock_club_matches``);
2. **then the club row** (``lock_club``), before anything club-wide is read: side results,
   standing lines and ratings span the club's matches.

Always in this order, so two writers never wait for each other in a circle (no
deadlock). A transaction that creates a club match or adds a player locks only the club:
the row it inserts is invisible to everyone else until it commits, so nobody can hold it.
Rows are read again under the lock (``populate_existing``), never taken from the
session's identity map as an earlier statement of the transaction saw them.

The lock is ``FOR NO KEY UPDATE``, the row lock an ``UPDATE`` takes: writers exclude one
another, readers never wait, and other transactions may still insert rows that refer to
the locked one (a foreign key check takes ``FOR KEY SHARE``, which it does not block).
SQLite renders no row lock: every transaction that may write begins with ``BEGIN
IMMEDIATE`` (``scorekeeper.database``), a lock on the whole database taken at its start.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..models import Club, Match
from . import club_versions

Query = TypeVar("Query", bound=Any)


def locked(query: Query, of: Any = None) -> Query:
    """``query`` locking the rows it reads (``of``: those of this table only, for a query
    that joins others), and reading them again under the lock."""
    locking = query.with_for_update(key_share=True, of=of)
    return locking.execution_options(populate_existing=True)


def lock_club_matches(session: Session, club_id: int) -> None:
    """Lock every match row of a club, in id order (before the club: see the module)."""
    session.execute(locked(select(Match.id).where(Match.club_id == club_id).order_by(Match.id)))


def lock_club(session: Session, club_id: int) -> None:
    """Lock the club row (after any match: see the module). The lock is the ``UPDATE``
    that moves the club's data version on (``club_versions.move``: what is written under
    this lock moves its kept pages on). The club's version and seasons, if the session
    holds the club, are read again when next used. Inside ``upserts.together`` (on
    PostgreSQL) the lock is taken when the block's writes are sent, at its end: nothing
    in the block may read what the lock guards."""
    club_versions.move(session, club_id)
    club = session.identity_map.get(session.identity_key(Club, club_id))
    if club is not None:
        session.expire(club, ["data_version", "seasons"])
