"""Starting matches, recording, correcting and removing deals (reads: ``match_reads``).

Every function here that changes a match first makes sure it holds the match's row lock
and reads the match under it (``_locked``; lock order and why: ``services.locks``), so
two phones writing to one match at the same moment take turns on every database.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import bindparam, cast, insert, select, true, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.sql.expression import Grouping

from ..database import begin_writing
from ..engine import Breakdown, Match, MatchError, Problem, RuleSet, Side, SideEntry
from ..engine.errors import EngineError
from ..extensions import db
from ..models import AuditEvent, Deal, DealSide, KnownName, MatchPlayer, MatchSide, utcnow
from ..models import Match as MatchRow
from . import audit, club_trail, live, standings, upserts
from .audit import NOBODY, Actor
from .match_reads import (  # the reads are part of this service's interface too
    AsSaved,
    LoadedMatch,
    game_of,
    home_matches,
    is_locked,
    known_names,
    load_match,
    stored_entry,
)

__all__ = [
    "ClubMatch",
    "LoadedMatch",
    "StaleError",
    "correct_deal",
    "game_of",
    "home_matches",
    "known_names",
    "load_match",
    "new_submission_key",
    "record_deal",
    "remove_last_deal",
    "reopen",
    "start_match",
    "stored_entry",
]


@dataclass(frozen=True)
class ClubMatch:
    """Where a club match belongs: club, season, date, and each seat's player id."""

    club_id: int
    season_id: int | None
    played_on: date
    player_ids: Sequence[Sequence[int | None]]


class StaleError(EngineError):
    """Someone else changed the match or the deal since this form was loaded."""


def new_submission_key() -> str:
    """A fresh idempotency key for a deal form."""
    return uuid.uuid4().hex


def start_match(
    rules: RuleSet,
    origin: str,
    sides: Sequence[Side],
    first_dealer: int,
    *,
    club: ClubMatch | None = None,
    deals: int | None = None,
    rematch_of: int | None = None,
) -> LoadedMatch:
    """Validate and save a new match; the rule set is frozen into the match row.

    ``club`` records it in a club (and season) with each seat's club player id.
    ``deals`` is the number of deals the table agreed on (None: the rule set's); the
    frozen copy keeps it, with its minimum-meld table fitted. ``rematch_of``: the id of
    the finished match this one is the rematch of (see :func:`rematch_of`).
    """
    game = Match.start(rules, sides, first_dealer, deals)
    row = MatchRow(
        rules=game.rules.to_dict(),
        rules_origin=origin,
        first_dealer=game.first_dealer,
        rematch_of_id=rematch_of,
    )
    if club is not None:
        row.club_id, row.season_id, row.played_on = club.club_id, club.season_id, club.played_on
    for position, side in enumerate(game.sides):
        side_row = MatchSide(position=position, name=side.name)
        ids = club.player_ids[position] if club else (None,) * len(side.players)
        side_row.players = [
            MatchPlayer(position=i, name=n, player_id=ids[i]) for i, n in enumerate(side.players)
        ]
        row.sides.append(side_row)
    db.session.add(row)
    if club is None:  # a club's players are offered by its own search, to its scorers
        _remember_names(name for side in game.sides for name in side.players)
    db.session.commit()
    return LoadedMatch(row, game)


def rematch_of(row: MatchRow) -> str | None:
    """The public id of the rematch already started from the finished match ``row``."""
    found: str | None = db.session.scalar(_REMATCH, {"match": row.id})
    return found


#: ``rematch_of``'s query (built once).
_REMATCH = select(MatchRow.public_id).where(MatchRow.rematch_of_id == bindparam("match"))
#: The match's trail (``audit.TRAIL``) with, on each row, the rematch started from it:
#: what a finishing save's answer reads after its writes, in one round trip, not two
#: (the subquery does not depend on the row: both databases run it once).
_TRAIL_AND_REMATCH = audit.TRAIL.add_columns(_REMATCH.scalar_subquery().label("rematch"))


def _remember_names(names: Any) -> None:
    """Offer the names again. Rows are written in key order, so two matches starting at
    once with the same people lock them in the same order (PostgreSQL found a deadlock
    otherwise); a new name another match has just inserted is updated instead."""
    typed: dict[str, str] = {}
    for name in names:
        typed.setdefault(name.casefold(), name)
    for key, name in sorted(typed.items()):
        known = db.session.scalar(select(KnownName).where(KnownName.key == key))
        if known is None:
            try:
                with db.session.begin_nested():
                    db.session.add(KnownName(key=key, name=name))
                continue
            except IntegrityError:  # inserted by another match meanwhile (now committed)
                known = db.session.scalar(select(KnownName).where(KnownName.key == key))
        if known is not None:
            known.name, known.last_used_at = name, utcnow()


def record_deal(
    loaded: LoadedMatch,
    entries: Sequence[Any],
    submission_key: str,
    expected_deal: int | None,
    *,
    actor: Actor = NOBODY,
) -> tuple[LoadedMatch, bool]:
    """Record the next deal once: a resent form (same key) returns the saved deal.

    Returns the match and whether this call saved a new deal. Raises EntryError for an
    impossible entry, StaleError when another phone entered this deal first.
    """
    # scored on the match as read, before the writers' turn on SQLite (the turn is held
    # for no engine work); kept if the match is found unchanged at the turn, and a
    # refusal only once the checks below, which come first, have passed
    early = _scored(loaded.game, entries)
    locked = _locked(loaded)
    row = locked.row
    if any(d.submission_key == submission_key for d in row.deals):
        return LoadedMatch(row, game_of(row)), False
    current = locked.game.current_deal
    if expected_deal is not None and current != expected_deal:
        raise _already_entered(expected_deal, current)
    if locked.game is not loaded.game:  # read again under the lock: it changed
        early = _scored(locked.game, entries)
    if isinstance(early, EngineError):
        raise early
    game = early
    recorded = game.deals[-1]
    try:
        _write_deal(row, game, submission_key, actor)
        saved = _commit_as_written(row, game)
    except IntegrityError:
        # Another request saved this deal number first: the same form sent twice at once
        # (then it is saved, once) or another phone's entry (then this one is stale).
        db.session.rollback()
        fresh = load_match(row.public_id)
        if fresh is not None and any(d.submission_key == submission_key for d in fresh.row.deals):
            return fresh, False
        current = fresh.game.current_deal if fresh else None
        raise _already_entered(recorded.score.deal, current) from None
    return LoadedMatch(row, game, saved=saved), True


def _scored(game: Match, entries: Sequence[Any]) -> Match | EngineError:
    """The match with the next deal recorded (the engine's scoring), or why it cannot be."""
    try:
        return game.record(entries)
    except EngineError as error:
        return error


def _write_deal(row: MatchRow, game: Match, submission_key: str, actor: Actor) -> None:
    """Write the deal ``game`` just recorded (its last), its sides, its audit event and
    the match's new totals and status, statement by statement on SQLite and as one
    statement on PostgreSQL (``_write_deal_at_once``), and keep the session's objects as
    written: the deal is added to ``row.deals`` as stored, the match's and its sides'
    columns hold what was written, nothing is left for a flush.

    The ORM's flush of the same rows (six statements) cost a deal POST a sixth of its CPU,
    most of it the unit of work's bookkeeping, whatever the rows. A deal number or key
    stored meanwhile fails the deal's ``INSERT`` (``IntegrityError``), before anything else
    is written (on PostgreSQL, the whole statement). The club's version is moved by the
    club's lock at commit (``standings``); a casual match moves none (these statements
    are not the session's, so ``club_versions`` does not see them as writes nobody
    placed)."""
    recorded = game.deals[-1]
    number, now = recorded.score.deal, utcnow()
    connection = db.session.connection()
    new = {"match_id": row.id, "number": number, "version": 1, "submission_key": submission_key}
    new.update(created_at=now, updated_at=now)
    sides = _side_rows(recorded.entries, recorded.score.sides)
    event = audit.deal_recorded(row, number, submission_key, sides, actor, now)
    totals = list(zip(row.sides, game.totals, strict=True))
    was_finished = row.finished
    values = _match_values(row, game, now)
    written = {"match": row.id, **{f"new_{column}": value for column, value in values.items()}}
    if connection.dialect.name == "postgresql":
        deal_id = _write_deal_at_once(connection, new, sides, event, game.totals, written)
    else:
        deal_id = connection.execute(_NEW_DEAL, new).scalar_one()
        connection.execute(insert(DealSide.__table__), [{"deal_id": deal_id, **s} for s in sides])
        connection.execute(insert(AuditEvent.__table__), event)
        connection.execute(_SIDE_TOTAL, [{"side": side.id, "total": t} for side, t in totals])
        connection.execute(_MATCH_WRITE, written)
    # the objects as written: the page that answers shows them
    for side, total in totals:
        set_committed_value(side, "total", total)
    for column, value in values.items():
        set_committed_value(row, column, value)
    deal = Deal(id=deal_id, **new)
    make_transient_to_detached(deal)  # stored: its sides load if asked for
    db.session.add(deal)
    set_committed_value(row, "deals", [*row.deals, deal])
    standings.match_changed(row, game, was_finished=was_finished)


#: ``_write_deal``'s statements that are the same every time (built once).
_NEW_DEAL = insert(Deal.__table__).returning(Deal.__table__.c.id)
#: SQLite's, sent once a side. (PostgreSQL sets the totals in the deal's one statement,
#: ``_deal_at_once``, from an array by the sides' positions: as an ``UPDATE ... FROM``
#: the sides' rows, ``upserts.update_rows``', it planned the join again at every run.)
_SIDE_TOTAL = (
    update(MatchSide.__table__)
    .where(MatchSide.__table__.c.id == bindparam("side"))
    .values(total=bindparam("total"))
)
#: The match row's columns a change to its deals sets (``_match_values``), each bound as
#: ``new_<column>`` (a column's own name is SQLAlchemy's in a SET clause).
_MATCH_COLUMNS = (
    "deal_count",
    "finished",
    "winner_position",
    "finished_at",
    "updated_at",
    "reopened",
)
_MATCH_WRITE = (
    update(MatchRow.__table__)
    .where(MatchRow.__table__.c.id == bindparam("match"))
    .values({column: bindparam(f"new_{column}") for column in _MATCH_COLUMNS})
)


def _write_deal_at_once(
    connection: Any,
    new: dict[str, Any],
    sides: list[dict[str, Any]],
    event: dict[str, Any],
    totals: Sequence[int],
    written: dict[str, Any],
) -> int:
    """``_write_deal``'s writes on PostgreSQL, as one statement (``_deal_at_once``):
    the deal, its sides, its event, the sides' totals (``totals``, the game's, by the
    sides' positions) and the match's row. Returns the new deal's id. A deal number or
    key stored meanwhile fails it whole."""
    values: dict[str, Any] = {f"deal_{name}": value for name, value in new.items()}
    values.update({f"event_{name}": value for name, value in event.items()})
    columns = (tuple(new), tuple(event), tuple(sides[0]))
    values[upserts.ROWS + "_side"] = upserts.rows_json(sides)
    values["totals"] = list(totals)
    values.update(written)
    deal_id: int = connection.execute(_deal_at_once(*columns), values).scalar_one()
    return deal_id


@functools.lru_cache(maxsize=4)
def _deal_at_once(
    deal_columns: tuple[str, ...], event_columns: tuple[str, ...], side_columns: tuple[str, ...]
) -> Any:
    """``_write_deal_at_once``'s statement: the deal's ``INSERT`` (its values bound as
    ``deal_<column>``) returning its id, with the others as data-modifying ``WITH``
    parts: its sides from one JSON text (``rows_side``, the deal's id taken from the
    deal's part), its event (``event_<column>``), the sides' totals from an array in
    their order (``totals``) and ``_MATCH_WRITE``. The columns are those of the rows
    ``_write_deal`` makes (the same every time): built once. Five round trips and six
    executions were one a write; PostgreSQL checks the sides' key to the deal at the
    statement's end, when the deal is there."""
    deals, sides, events = Deal.__table__, DealSide.__table__, AuditEvent.__table__

    def bound(table: Any, prefix: str, names: Sequence[str]) -> dict[str, Any]:
        return {name: bindparam(f"{prefix}_{name}", type_=table.c[name].type) for name in names}

    deal = insert(deals).values(bound(deals, "deal", deal_columns)).returning(deals.c.id)
    new_deal = deal.cte("new_deal")
    rows = upserts.rows_from_json(sides, side_columns, "_side")
    from_rows = select(new_deal.c.id, *(rows.c[name] for name in side_columns)).select_from(
        new_deal.join(rows, true())  # the one deal, with each side
    )
    new_sides = insert(sides).from_select(["deal_id", *side_columns], from_rows)
    new_event = insert(events).values(bound(events, "event", event_columns))
    # each side's total from an array in the sides' order: no join, which PostgreSQL
    # would plan again at every run (as ``upserts.update_rows``')
    table = MatchSide.__table__
    # (parenthesised: PostgreSQL subscripts a cast only so)
    totals = Grouping(cast(bindparam("totals"), postgresql.ARRAY(table.c.total.type)))
    new_totals = (
        update(table)
        .where(table.c.match_id == bindparam("match"))
        .values(total=totals[table.c.position + 1])
    )
    return select(new_deal.c.id).add_cte(
        new_sides.cte("sides"),
        new_event.cte("event"),
        new_totals.cte("totals"),
        _MATCH_WRITE.cte("match"),
    )


def _history_and_rematch(row: MatchRow, game: Match) -> tuple[audit.History, str | None]:
    """The match's trail, and for a finished match the rematch started from it (None:
    none, or the match is not finished), read together. A match with no event yet (no
    save leaves one so: it records an event) has its rematch read on its own."""
    if not game.finished:
        return audit.history(row, game.current_deal), None
    found = db.session.execute(_TRAIL_AND_REMATCH, {"match": row.id}).all()
    rematch = found[0].rematch if found else rematch_of(row)
    return audit.trail(found, game.current_deal), rematch


def _commit_as_written(row: MatchRow, game: Match) -> AsSaved:
    """Commit, keeping the objects of the session as they were written (the page that
    answers a save shows them: read again, row by row, they cost more than the save), and
    return what else that page shows of the match (``AsSaved``), read in the transaction
    after the writes."""
    session = db.session()
    history, rematch = _history_and_rematch(row, game)
    # the version of the match: its row as written (``_write_deal``), its newest event read
    version = live.version_of(
        row.deal_count, row.finished, row.reopened, row.updated_at, history.newest
    )
    saved = AsSaved(version, history, rematch)
    keep = session.expire_on_commit
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = keep
    return saved


def _already_entered(deal: int | None, current: int | None) -> StaleError:
    message = _("Deal %(n)s was already entered on another phone: see the deals below.", n=deal)
    if current is not None:
        message += " " + _("If these numbers are for deal %(n)s, save again.", n=current)
    return StaleError([Problem("deal", message)])


def correct_deal(
    loaded: LoadedMatch,
    number: int,
    entries: Sequence[Any],
    version: int | None,
    *,
    actor: Actor = NOBODY,
) -> LoadedMatch:
    """Replace deal ``number``'s entry; refuse it when the deal changed since it was read.

    The version is checked twice: against the form (a page loaded before someone else's
    correction) and by the database at commit (two corrections at the same moment).
    """
    loaded = _locked(loaded)
    row = loaded.row
    _check_open(row)
    deal = _deal_row(row, number)
    if version is not None and deal.version != version:
        raise _changed_meanwhile()
    game = loaded.game.correct(number, entries)
    recorded = game.deals[number - 1]
    audit.deal_corrected(row, deal, recorded.entries, recorded.score.sides, actor)
    deal.sides.clear()
    db.session.flush()
    _fill_deal(deal, recorded.entries, recorded.score.sides)
    deal.updated_at = utcnow()  # an UPDATE of the deal row bumps its version
    _update_match(row, game)
    try:
        db.session.commit()
    except StaleDataError:
        db.session.rollback()
        raise _changed_meanwhile() from None
    return LoadedMatch(row, game)


def _changed_meanwhile() -> StaleError:
    return StaleError(
        [
            Problem(
                "deal",
                _(
                    "Someone else changed this deal meanwhile: theirs and yours are shown"
                    " side by side. Keep theirs, or put yours on top."
                ),
            )
        ]
    )


def remove_last_deal(loaded: LoadedMatch, number: int, *, actor: Actor = NOBODY) -> LoadedMatch:
    """Remove the last deal; ``number`` must be it (a stale page cannot remove another)."""
    loaded = _locked(loaded)
    row = loaded.row
    _check_open(row)
    if number != len(row.deals):
        raise StaleError(
            [Problem("deal", _("Deal %(n)s is not the last deal any more.", n=number))]
        )
    game = loaded.game.remove_last()
    audit.deal_removed(row, number, actor)
    row.deals.remove(_deal_row(row, number))
    _update_match(row, game)
    db.session.commit()
    return LoadedMatch(row, game)


def _locked(loaded: LoadedMatch) -> LoadedMatch:
    """The match read under its row lock in this transaction: ``loaded`` if it was (a
    write view loads it so), or if this transaction read it before its turn to write
    (SQLite, ``database.begin_writing``) and it is unchanged since; else read again
    under the lock, since whatever was read before may have changed meanwhile."""
    if is_locked(loaded):
        return loaded
    session = db.session()
    if begin_writing(session) and _as_read(loaded.row):
        # every change to a match's deals or to the match moves its row's version
        return LoadedMatch(loaded.row, loaded.game, session.get_transaction())
    fresh = load_match(loaded.public_id, for_update=True)
    if fresh is None:  # matches are never deleted; a row deleted by hand is not found
        raise MatchError([Problem("deal", _("This match is not in the database any more."))])
    return fresh


def _as_read(row: MatchRow) -> bool:
    """Whether the match's row is stored as ``row`` holds it (read earlier): its part of
    the match's live version (``live.ROW_VERSION``)."""
    stored = db.session.execute(_ROW_VERSION, {"match": row.id}).one_or_none()
    return stored is not None and tuple(stored) == tuple(
        getattr(row, column.key) for column in live.ROW_VERSION
    )


#: ``_as_read``'s query (built once: every deal saved by a server of several processes
#: on SQLite asks it at its turn).
_ROW_VERSION = select(*live.ROW_VERSION).where(MatchRow.id == bindparam("match"))


def _check_open(row: MatchRow) -> None:
    """A finished match changes only after it is reopened (a deliberate tap)."""
    if row.finished and not row.reopened:
        raise MatchError(
            [Problem("deal", _("This match is finished: tap “Correct a deal” to reopen it."))]
        )


def reopen(loaded: LoadedMatch, *, actor: Actor = NOBODY) -> LoadedMatch:
    """Let a finished match's deals be corrected again; a club's log keeps that its
    result is open to change (the match's own trail keeps what changes)."""
    loaded = _locked(loaded)
    row = loaded.row
    if row.club_id is not None and row.finished and not row.reopened:
        club_trail.record(
            row.club_id,
            club_trail.MATCH_REOPENED,
            actor,
            match=row.public_id,
            sides=[side.label for side in loaded.game.sides],
            played_on=row.played_on.isoformat() if row.played_on else None,
        )
    audit.match_reopened(row, actor)
    row.reopened = True
    db.session.commit()
    return loaded


def _deal_row(row: MatchRow, number: int) -> Deal:
    for deal in row.deals:
        if deal.number == number:
            return deal
    raise MatchError([Problem("deal", _("Deal %(n)s has not been played.", n=number))])


def _fill_deal(deal: Deal, entries: Sequence[SideEntry], breakdowns: Sequence[Breakdown]) -> None:
    deal.sides.extend(DealSide(**side) for side in _side_rows(entries, breakdowns))


def _side_rows(
    entries: Sequence[SideEntry], breakdowns: Sequence[Breakdown]
) -> list[dict[str, Any]]:
    """A deal's sides as stored: each entry as entered, its breakdown as scored."""
    return [
        {"position": position, "entry": entry.to_dict(), "went_out": entry.went_out, **b.as_dict()}
        for position, (entry, b) in enumerate(zip(entries, breakdowns, strict=True))
    ]


def _update_match(row: MatchRow, game: Match) -> None:
    """Keep the stored aggregates (totals, status, winner) equal to the engine's."""
    for side, total in zip(row.sides, game.totals, strict=True):
        side.total = total
    was_finished = row.finished
    for column, value in _match_values(row, game, utcnow()).items():
        setattr(row, column, value)
    standings.match_changed(row, game, was_finished=was_finished)


def _match_values(row: MatchRow, game: Match, now: datetime) -> dict[str, Any]:
    """The match row's columns after a change to its deals (``game``), made at ``now``."""
    finished_at = row.finished_at if row.finished else now
    return {
        "deal_count": len(game.deals),
        "finished": game.finished,
        "winner_position": game.winner,
        "finished_at": finished_at if game.finished else None,
        "updated_at": now,
        # A change to its deals ends a reopening: the match is finished (closed again, as
        # after a correction, also when its last deal was removed and entered again) or
        # playing again.
        "reopened": False,
    }
