"""Reading matches back: a match with its engine value, names offered again, the home list.

No transaction is begun here for writing; see ``services.matches`` for the writes.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import joinedload, selectinload
from sqlalchemy.orm.attributes import set_committed_value

from ..database import reading_first
from ..engine import Match, MatchError, RuleSet, Side, SideEntry
from ..engine.entries import read_side
from ..engine.errors import Problems
from ..extensions import db
from ..models import Club, Deal, KnownName, MatchSide, Player, is_public_id
from ..models import Match as MatchRow
from . import locks
from .audit import History


@dataclass(frozen=True)
class AsSaved:
    """What the page answering a save shows of the match beyond its rows, read in the
    save's transaction after its writes: its audit trail, its live version
    (``services.live``: the match row as written with the trail's newest event), and (a
    finished match) the rematch already started from it. Read after the
    commit, the version could be another phone's next change, which a page showing this
    one would then never fetch; and reading nothing after the commit, the answer takes no
    second connection and transaction (on PostgreSQL a pool ping, BEGIN and ROLLBACK)."""

    version: str
    history: History
    rematch: str | None = None


@dataclass(frozen=True)
class LoadedMatch:
    """A match row and the engine's value of it, read together.

    ``locked_in`` is the transaction that read it under the match lock (None: read
    without the lock); see ``services.locks``. ``saved``: what the save that wrote the
    row read of it as it committed (``AsSaved``; None: read it from the database).
    """

    row: MatchRow
    game: Match
    locked_in: Any = field(default=None, compare=False, repr=False)
    saved: AsSaved | None = field(default=None, compare=False, repr=False)

    @property
    def public_id(self) -> str:
        """The id used in URLs."""
        return self.row.public_id


def known_names(limit: int = 50) -> list[str]:
    """Names typed before for casual matches, most recently used first; never the name of a
    player of a members-only club (the new-match page is open to anyone: it listed them to
    visitors the club's own pages refuse)."""
    private = (
        select(Player.key).join(Club, Club.id == Player.club_id).where(Club.visibility == "members")
    )
    rows = db.session.scalars(
        select(KnownName.name)
        .where(KnownName.key.not_in(private))
        .order_by(KnownName.last_used_at.desc())
        .limit(limit)
    )
    return list(rows)


#: ``load_match``'s queries, their values bound when they run: built once, as building
#: them (their loader options above all) cost a save about as much as running them.
#: The match, its sides and their players joined to it (a side has two or three players:
#: a few rows, read with it).
_MATCH = (
    select(MatchRow)
    .where(MatchRow.public_id == bindparam("public_id"))
    .options(joinedload(MatchRow.sides).joinedload(MatchSide.players))
)
#: The same under the match's row lock (``locks.locked``), the match's row alone: the
#: lock of a join reaches every table in it, and PostgreSQL refuses it on the outer side.
_MATCH_LOCKED = locks.locked(_MATCH, of=MatchRow)
#: Its deals with their sides, which grow with the match, by the match's id: a query of
#: their own, not the relationship's ``selectin`` loader, which built its query again at
#: every load (a third of a match's load; three queries, one a level, were a sixth of a
#: finishing save's CPU before).
_DEALS = (
    select(Deal)
    .where(Deal.match_id == bindparam("match"))
    .options(joinedload(Deal.sides))
    .order_by(Deal.number)
)
#: The same read again under the match's lock: the deals the session holds are
#: refreshed (the match's lock keeps them; they need no lock of their own).
_DEALS_AGAIN = _DEALS.execution_options(populate_existing=True)


def load_match(public_id: str, *, for_update: bool = False) -> LoadedMatch | None:
    """The match with this public id, with its sides and deals, or None.

    ``for_update`` locks the match row first, until the transaction ends, and reads it,
    its sides and deals afresh under that lock: what a transaction that changes the match
    must do before it reads what it rewrites (``services.locks``).
    """
    if not is_public_id(public_id):
        return None
    session = db.session()
    found = session.execute(_MATCH_LOCKED if for_update else _MATCH, {"public_id": public_id})
    row = found.unique().scalar_one_or_none()
    if row is None:
        return None
    deals = session.execute(_DEALS_AGAIN if for_update else _DEALS, {"match": row.id})
    set_committed_value(row, "deals", list(deals.unique().scalars()))
    # Read in a transaction that reads first (SQLite), the row is not locked until the
    # save's ``begin_writing`` (``services.matches``).
    locked = for_update and not reading_first(session)
    return LoadedMatch(row, game_of(row), session.get_transaction() if locked else None)


def is_locked(loaded: LoadedMatch) -> bool:
    """Whether ``loaded`` was read under the match lock in the transaction under way."""
    current = db.session().get_transaction()
    return current is not None and current.is_active and loaded.locked_in is current


def game_of(row: MatchRow) -> Match:
    """The engine's Match for a stored row (entries were validated when saved)."""
    rules = stored_rules(row.rules)
    sides = [Side(tuple(p.name for p in s.players), s.name) for s in row.sides]
    deals = [[stored_entry(rules, ds.entry) for ds in deal.sides] for deal in row.deals]
    return Match.restore(rules, sides, row.first_dealer, deals)


def stored_rules(data: dict[str, Any]) -> RuleSet:
    """The RuleSet of a match's stored rules: read once for each text of them (a match's
    every load read and checked them again, a fortieth of a save). A RuleSet is a value
    that nothing changes, so one serves every match with the same rules."""
    return _rules_of(json.dumps(data, sort_keys=True, separators=(",", ":")))


@functools.lru_cache(maxsize=128)
def _rules_of(text: str) -> RuleSet:
    return RuleSet.from_dict(json.loads(text))


def stored_entry(rules: RuleSet, data: dict[str, Any]) -> SideEntry:
    """Read back an entry saved by this service (it was valid under ``rules``)."""
    problems = Problems()
    entry = read_side(problems, data, "entry", rules)
    if entry is None:
        raise MatchError(problems.items)
    return entry


def home_matches(
    recent: int, playing: int = 20, only: list[str] | None = None
) -> tuple[list[MatchRow], list[MatchRow]]:
    """Matches in progress (newest activity first) and the most recent finished ones.

    ``only``: the public ids one browser knows (the home page passes its own, so a device
    never lists someone else's matches); None lists every match. Both lists are bounded,
    so abandoned matches never make the home page grow.
    """
    ids = [i for i in only if is_public_id(i)] if only is not None else None

    def query(finished: bool) -> Any:
        chosen = select(MatchRow)
        if ids is not None:
            chosen = chosen.where(MatchRow.public_id.in_(ids))
        return (
            chosen.where(MatchRow.finished.is_(finished))
            .options(selectinload(MatchRow.sides).selectinload(MatchSide.players))
            .order_by(MatchRow.updated_at.desc())
        )

    in_progress = list(db.session.scalars(query(False).limit(playing)))
    finished = list(db.session.scalars(query(True).limit(recent)))
    return in_progress, finished
