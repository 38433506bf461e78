"""The audit trail: an event for every change to a match's deals, and its reads.

The match service calls one writer per write (``deal_corrected``, ``deal_removed``,
``match_reopened``; ``deal_recorded`` gives the event's row, which it writes with the
deal) before it commits, so an event is stored exactly when its change is, and rolled
back with it. Nothing here commits. Who made the change
arrives as an ``Actor`` from the web layer (``web/actor.py``); services never look at the
request. Standings, totals and ratings never read these rows.

A deal brought back by "Restore" (``services/restore.py``) is recorded through the
ordinary ``record_deal`` with the submission key ``restore:<event id>``: the key makes a
double tap save it once (the deals' unique key), and tells ``deal_recorded`` to call the
event ``restored``. A form cannot send such a key (the views accept letters, digits,
``-`` and ``_`` only).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select

from ..engine import Breakdown, SideEntry
from ..extensions import db
from ..models import Account, AuditEvent, Deal, utcnow
from ..models import Match as MatchRow
from ..models.audit import (
    ACTOR_LENGTH,
    CORRECTED,
    RECORDED,
    REMOVED,
    REOPENED,
    RESTORED,
)

__all__ = [
    "CORRECTED",
    "NOBODY",
    "RECORDED",
    "REMOVED",
    "REOPENED",
    "RESTORED",
    "Actor",
    "Change",
    "deal_corrected",
    "deal_recorded",
    "deal_removed",
    "events_of",
    "history",
    "match_reopened",
    "restorable_removal",
    "restore_key",
    "restored_from",
]

RESTORE_PREFIX = "restore:"


@dataclass(frozen=True)
class Actor:
    """Who made a change, as far as the app knows: a logged-in account (its username and
    id), or a device's label ("Ann's phone", "phone 3f2a") without an account id."""

    label: str = ""
    account_id: int | None = None


#: Changes made outside a request (the demo seed, scripts, tests).
NOBODY = Actor()


def restore_key(event_id: int) -> str:
    """The submission key of a deal restored from the removal ``event_id``."""
    return f"{RESTORE_PREFIX}{event_id}"


def restored_from(submission_key: str) -> int | None:
    """The removal event a deal was restored from, or None for a deal entered by hand."""
    if not submission_key.startswith(RESTORE_PREFIX):
        return None
    number = submission_key.removeprefix(RESTORE_PREFIX)
    return int(number) if number.isdigit() else None


# Writers: one per kind of change, each adds one event to the open transaction.


def deal_recorded(
    row: MatchRow,
    number: int,
    submission_key: str,
    sides: Sequence[dict[str, Any]],
    actor: Actor,
    at: datetime,
) -> dict[str, Any]:
    """A new deal was added (typed in, or restored from its removal): ``sides`` are its
    sides' rows as written (``entry`` and ``total`` are kept). Returns the event's row,
    which the caller writes with the deal, at once (``services.matches._write_deal``: on
    PostgreSQL in the deal's own statement), not left to the session's flush."""
    kind = RESTORED if restored_from(submission_key) is not None else RECORDED
    after = _sides((side["entry"], side["total"]) for side in sides)
    event = {"match_id": row.id, "deal_number": number, "kind": kind, "at": at}
    event.update(before=None, after=after, **_who(actor))
    return event


def deal_corrected(
    row: MatchRow,
    deal: Deal,
    entries: Sequence[SideEntry],
    breakdowns: Sequence[Breakdown],
    actor: Actor,
) -> None:
    """Deal ``deal`` (still holding its old sides) is about to be replaced by ``entries``."""
    after = _sides((entry.to_dict(), b.total) for entry, b in zip(entries, breakdowns, strict=True))
    _add(row, deal.number, CORRECTED, actor, before=_stored(deal), after=after)


def deal_removed(row: MatchRow, number: int, actor: Actor) -> None:
    """Deal ``number`` (still in ``row.deals``) is about to be removed."""
    for deal in row.deals:
        if deal.number == number:
            _add(row, number, REMOVED, actor, before=_stored(deal))


def match_reopened(row: MatchRow, actor: Actor) -> None:
    """The finished match is about to be reopened (nothing is kept when it already is)."""
    if row.finished and not row.reopened:
        _add(row, None, REOPENED, actor)


def _stored(deal: Deal) -> dict[str, Any]:
    """The deal's sides as stored: each entry as entered, and its deal score."""
    return _sides((copy.deepcopy(side.entry), side.total) for side in deal.sides)


def _sides(sides: Iterable[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """An event's snapshot of a deal's sides from (entry, deal score) pairs."""
    return {"sides": [{"entry": entry, "total": total} for entry, total in sides]}


def _add(
    row: MatchRow,
    number: int | None,
    kind: str,
    actor: Actor,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    db.session.add(
        AuditEvent(
            match_id=row.id,
            deal_number=number,
            kind=kind,
            at=utcnow(),
            before=before,
            after=after,
            **_who(actor),
        )
    )


def _who(actor: Actor) -> dict[str, Any]:
    """An event's columns naming who made the change."""
    return {"actor": actor.label[:ACTOR_LENGTH], "account_id": actor.account_id}


# Reads: for the match page's history and for restoring a removed deal.


@dataclass(frozen=True)
class Change:
    """One event as the history shows it: each side's deal score before and after, and
    for a correction each side's entry before and after (what the history says changed
    besides the scores: a correction may keep them)."""

    id: int
    kind: str
    deal: int | None
    at: datetime  # aware, UTC
    actor: str
    before: tuple[int, ...] | None
    after: tuple[int, ...] | None
    entries: tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] | None = None


def events_of(row: MatchRow) -> list[AuditEvent]:
    """The match's events, oldest first."""
    query = select(AuditEvent).where(AuditEvent.match_id == row.id).order_by(AuditEvent.id)
    return list(db.session.scalars(query))


def restorable_removal(events: Sequence[AuditEvent], next_deal: int | None) -> AuditEvent | None:
    """The removal that "Restore" may undo now: the latest event of the next deal to play,
    when that event is its removal (nothing was entered in its place since)."""
    if next_deal is None:
        return None
    latest = next((e for e in reversed(events) if e.deal_number == next_deal), None)
    return latest if latest is not None and latest.kind == REMOVED else None


@dataclass(frozen=True)
class History:
    """A match's changes, newest first, and the removal that can be restored, if any."""

    changes: list[Change]
    restorable: Change | None

    @property
    def newest(self) -> int | None:
        """The id of the match's newest audit event (None: it has none)."""
        return self.changes[0].id if self.changes else None

    def changed(self, number: int) -> bool:
        """Whether deal ``number`` was corrected or restored (the deal table marks it)."""
        return any(c.deal == number and c.kind in (CORRECTED, RESTORED) for c in self.changes)


#: A match's events with their accounts' current names, in one query, the match bound
#: as ``match`` when it runs (built once: every save's answer and every match page reads
#: it; a finishing save's with a column more, ``services.matches``).
TRAIL = (
    select(AuditEvent, Account.username)
    .outerjoin(Account, Account.id == AuditEvent.account_id)
    .where(AuditEvent.match_id == bindparam("match"))
    .order_by(AuditEvent.id)
)


def history(row: MatchRow, next_deal: int | None) -> History:
    """The match's trail for its page (``next_deal``: the deal to play now, or None)."""
    return trail(db.session.execute(TRAIL, {"match": row.id}).all(), next_deal)


def trail(found: Sequence[Any], next_deal: int | None) -> History:
    """The trail of ``TRAIL``'s rows (each an event, then its account's name; columns
    after those are not read)."""
    events = [event for event, _name, *_rest in found]
    names = {event.account_id: name for event, name, *_rest in found if name is not None}
    changes = [_change(e, names) for e in events]
    removal = restorable_removal(events, next_deal)
    restorable = next((c for c in changes if removal and c.id == removal.id), None)
    return History(changes[::-1], restorable)


def _change(event: AuditEvent, names: dict[int, str]) -> Change:
    at = event.at if event.at.tzinfo else event.at.replace(tzinfo=UTC)  # SQLite: naive UTC
    # an account's change shows the account's name; a device's, the label it had then
    who = names.get(event.account_id, event.actor) if event.account_id else event.actor
    return Change(
        id=event.id,
        kind=event.kind,
        deal=event.deal_number,
        at=at.astimezone(UTC),
        actor=who,
        before=_totals(event.before),
        after=_totals(event.after),
        entries=_entries(event.before, event.after) if event.kind == CORRECTED else None,
    )


def _entries(
    before: dict[str, Any] | None, after: dict[str, Any] | None
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]] | None:
    """A correction's entries, each side's before and after (None if a snapshot lacks
    them: nothing more than the scores can be said then)."""
    if not before or not after:
        return None
    old = tuple(side.get("entry") or {} for side in before["sides"])
    new = tuple(side.get("entry") or {} for side in after["sides"])
    return (old, new) if len(old) == len(new) else None


def _totals(snapshot: dict[str, Any] | None) -> tuple[int, ...] | None:
    if not snapshot:
        return None
    return tuple(int(side["total"]) for side in snapshot["sides"])
