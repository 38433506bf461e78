"""Every transaction that changes anything of a club moves the club's ``data_version`` on.

The server keeps a club's pages rendered (``web.page_cache``: standings, player pages,
its match pages), keyed by that number, so it must move whenever
anything those pages show may have changed, whoever wrote it. It is done here, once,
not by each writer:

- **ORM writes**: before every flush, each new, changed or deleted row is traced to its
  club (a row with ``club_id``; a match's rows through their match; a deal's sides
  through their deal). Rows of no club (a casual match, a log-in, an account's password)
  move nothing; a row this module cannot place (a renamed account, which any club's
  match history may name; a table added later) moves every club.
- **Club-wide writes** (side results, standing lines, player rows, ratings: Core
  ``INSERT``/``UPDATE``/``DELETE`` for speed) run under ``locks.lock_club``, whose lock
  is the ``UPDATE`` that moves the club's number on (``move``), once a transaction. A
  Core write of a table that holds club rows, in a transaction that marked no club,
  moves every club: correct, if wasteful. (A log-out's Core delete of its session row
  moves nothing.)
- At commit, one ``UPDATE clubs SET data_version = data_version + 1`` for the marked
  clubs not moved on yet, in the same transaction as the change: a page is never kept
  under a number its data has moved past. A reader reads the club row (and with it the
  number) before anything the page shows, so what it renders is at least as new as its
  key.

On PostgreSQL an update takes the club's row lock, after any match row the transaction
locked: the order of ``services.locks``, so no deadlock. (Moving every club at commit
locks them all at once: two such transactions, each already holding a club's lock,
could deadlock, and PostgreSQL would end one. Only an account's new name or an unplaced
Core write does that.)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from flask_sqlalchemy.session import Session as AppSession
from sqlalchemy import bindparam, event, inspect, update
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

from ..models import (
    Account,
    AccountSession,
    Club,
    Deal,
    KnownName,
    Match,
    MatchSide,
    PasswordReset,
    SavedRuleSet,
)
from . import upserts

#: Rows that belong to no club: writing them moves no club's pages.
CLUBLESS = (AccountSession, PasswordReset, KnownName)
KEY = "scorekeeper.club_versions"
#: Their Core writes (a log-out deletes its session row) move no club's pages either.
CLUBLESS_TABLES = frozenset(model.__tablename__ for model in CLUBLESS)


@dataclass
class Marks:
    """What the transaction changed: which clubs, or (``every``) possibly any."""

    clubs: set[int] = field(default_factory=set)
    every: bool = False
    core: bool = False  # a Core INSERT, UPDATE or DELETE of a table a club's rows are in
    moved: set[int] = field(default_factory=set)  # moved on already (``move``)


def _marks(session: Session) -> Marks:
    found = session.info.get(KEY)
    if found is None:
        found = session.info[KEY] = Marks()
    return found


def move(session: Session, club_id: int) -> None:
    """This transaction changes the club ``club_id``: move its number on now, once per
    transaction (``locks.lock_club`` calls it). The ``UPDATE`` is also the club's row
    lock, held to the end of the transaction: one statement for both, where a lock
    (``SELECT … FOR UPDATE``) and the number's ``UPDATE`` at commit were two. Nobody
    sees the number move before the commit, as at commit."""
    marks = _marks(session)
    if club_id in marks.moved:
        return  # the row is locked and its number moved by this transaction already
    marks.clubs.add(club_id)
    # inside ``upserts.together``, sent with its writes: one round trip on PostgreSQL
    upserts.execute(session, _move, {"club": club_id})
    marks.moved.add(club_id)


#: Every club's number moved on (the transaction may have changed any), and, with its
#: ``clubs`` bound, those clubs' (built once: ``move``'s runs in every club save).
_BUMP = (
    update(Club)
    .values(data_version=Club.data_version + 1)
    .execution_options(synchronize_session=False)
)


@functools.lru_cache(maxsize=8)
def _move(suffix: str) -> Any:
    """``move``'s statement, its club bound as ``club`` with ``suffix`` added."""
    return _BUMP.where(Club.id == bindparam(f"club{suffix}"))


_BUMP_SOME = _BUMP.where(Club.id.in_(bindparam("clubs", expanding=True)))


#: How a row without ``club_id`` reaches its match: (relationship, foreign key, model).
PARENTS = (("match", "match_id", Match), ("deal", "deal_id", Deal), ("side", "side_id", MatchSide))


def _club_of(session: Session, row: Any, depth: int = 0) -> tuple[bool, int | None]:
    """(placed, club id) of a written row; placed False: it could not be traced."""
    if isinstance(row, Club):
        return True, row.id
    if isinstance(row, CLUBLESS):
        return True, None
    if isinstance(row, Account):  # shown by its name alone (a match's history names it)
        renamed: bool = row.id is not None and inspect(row).attrs.username.history.has_changes()
        return not renamed, None
    club_id = getattr(row, "club_id", None)
    if club_id is not None:
        return True, club_id
    if isinstance(row, (Match, SavedRuleSet)):
        return True, None  # a casual match; house rules of no club
    for relation, key, model in PARENTS if depth < 3 else ():
        if not hasattr(row, key):
            continue
        with session.no_autoflush:
            parent = getattr(row, relation, None)
            if parent is None and getattr(row, key) is not None:
                parent = session.get(model, getattr(row, key))
        if parent is None:  # gone with its parent in this transaction
            return False, None
        return _club_of(session, parent, depth + 1)
    return False, None


def _before_flush(session: Session, _context: Any, _instances: Any) -> None:
    marks = _marks(session)
    for row in (*session.new, *session.dirty, *session.deleted):
        placed, club_id = _club_of(session, row)
        if not placed:
            marks.every = True
        elif club_id is not None:
            marks.clubs.add(club_id)


def _executed(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        if getattr(table, "name", None) not in CLUBLESS_TABLES:
            _marks(state.session).core = True


def _before_commit(session: Session) -> None:
    session.flush()  # rows still pending are traced before the number moves
    marks = session.info.pop(KEY, None)
    if marks is None:
        return
    if marks.every or (marks.core and not marks.clubs):
        session.execute(_BUMP)
    elif ids := sorted(marks.clubs - marks.moved):
        session.execute(_BUMP_SOME, {"clubs": ids})
    session.info.pop(KEY, None)  # the update above is ours: it marks nothing


def _rolled_back(session: Session, transaction: SessionTransaction) -> None:
    """A savepoint rolled back may have undone a number moved inside it: its clubs are
    moved again at commit (once more than needed, at worst)."""
    if transaction.nested and KEY in session.info:
        session.info[KEY].moved.clear()


def _ended(session: Session, transaction: SessionTransaction) -> None:
    """The marks go with the session's own transaction (committed or rolled back), not
    with a savepoint rolled back inside it: what was flushed before that stays."""
    if transaction.parent is None:
        session.info.pop(KEY, None)


def install() -> None:
    """Listen on the app's sessions (once), after ``services.standings``: its hook, run at
    commit, writes the club rows of a changed match, which must be marked before the
    number moves."""
    from . import standings  # noqa: F401 - its before_commit listener comes first

    listeners = (
        ("before_flush", _before_flush),
        ("do_orm_execute", _executed),
        ("before_commit", _before_commit),
        ("after_soft_rollback", _rolled_back),
        ("after_transaction_end", _ended),
    )
    for name, listener in listeners:  # the app's sessions, not a migration's own
        if not event.contains(AppSession, name, listener):
            event.listen(AppSession, name, listener)
