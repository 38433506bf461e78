"""Restoring a removed deal from the audit trail ("Restore deal 3" on the match page).

A removal can be undone while its deal is again the next deal to play and nothing was
entered in its place since: the removal is the latest event of that deal number. The
entry kept in the removal event is recorded again through ``matches.record_deal``, so it
is validated under the match's frozen rules like any typed deal, the totals, club results
and standing lines follow, and the trail gets a ``restored`` event. The submission key
``restore:<event id>`` makes a double tap (or two phones tapping at once) restore it once.
"""

from __future__ import annotations

from flask_babel import gettext as _
from sqlalchemy import select

from ..engine import EngineError, MatchError, Problem
from ..extensions import db
from ..models import AuditEvent
from . import audit, matches
from .audit import Actor
from .match_reads import LoadedMatch

__all__ = ["NoSuchRemoval", "restore_deal"]

MAX_ID = 2**31 - 1


class NoSuchRemoval(LookupError):
    """The event is not a removal of this deal in this match (a made-up or stale link)."""


def restore_deal(
    loaded: LoadedMatch, number: int, event_id: int, actor: Actor
) -> tuple[LoadedMatch, bool]:
    """Bring deal ``number`` back as it was when removal ``event_id`` took it away.

    Returns the match and whether this call restored it (False: an earlier tap did).
    Raises NoSuchRemoval for an event that is not that removal, MatchError when the deal
    cannot be restored now (with the reason, in the game's words).
    """
    row = loaded.row
    if not 0 < event_id <= MAX_ID or not 0 < number <= MAX_ID:
        raise NoSuchRemoval(event_id)  # a made-up number PostgreSQL's integer cannot hold
    event = db.session.scalar(
        select(AuditEvent).where(AuditEvent.id == event_id, AuditEvent.match_id == row.id)
    )
    if event is None or event.kind != audit.REMOVED or event.deal_number != number:
        raise NoSuchRemoval(event_id)
    key = audit.restore_key(event.id)
    if any(deal.submission_key == key for deal in row.deals):
        return loaded, False  # the first tap restored it
    removal = audit.restorable_removal(audit.events_of(row), loaded.game.current_deal)
    if removal is None or removal.id != event.id:
        raise _not_now(loaded, number)
    entries = [side["entry"] for side in (event.before or {}).get("sides", [])]
    try:
        return matches.record_deal(loaded, entries, key, number, actor=actor)
    except matches.StaleError:
        # Another phone entered this deal between the check above and the save.
        raise _not_now(matches.load_match(row.public_id) or loaded, number) from None
    except EngineError as error:
        reason = " ".join(p.message for p in error.problems)
        message = _("Deal %(n)s cannot be restored as it was: %(reason)s", n=number, reason=reason)
        raise MatchError([Problem("deal", message)]) from None


def _not_now(loaded: LoadedMatch, number: int) -> MatchError:
    """Why removal of deal ``number`` cannot be undone in the match as it is now."""
    current = loaded.game.current_deal
    if current is not None and number > current:
        message = _(
            "Deal %(n)s can be restored only when it is the next deal to play (now deal %(next)s).",
            n=number,
            next=current,
        )
    else:
        message = _(
            "Deal %(n)s was entered again meanwhile; restore is only possible for the next"
            " deal, when nothing was entered in its place.",
            n=number,
        )
    return MatchError([Problem("deal", message)])
