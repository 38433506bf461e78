"""Which tables and columns are source data (exported) and which are derived (rebuilt).

Every table of ``db.metadata`` must be named here, in ``EXPORTED``, ``DERIVED`` or
``NOT_EXPORTED``: an export that silently left out a new table would lose data the day it
is restored, so the export refuses to run (and a test fails) until a new table is
classified. Within an
exported table every column is exported except the derived ones listed beside it, which
the import recomputes from the deals (``services.data_import``).

Values travel as JSON: timestamps as ISO 8601 strings in UTC, dates as ISO dates, JSON
columns as they are. ``decode`` checks a value read from a file against its column, so a
damaged or hand-edited file is refused with a message naming the table, row and column.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, Integer, MetaData, String, Table

from ..engine.errors import phrase, phrase_n

FORMAT = "scorekeeper-export"
VERSION = 1

#: Source tables, each with its derived columns (not exported, rebuilt on import).
EXPORTED: dict[str, frozenset[str]] = {
    # where the club's ratings are still being brought up to date (services.ratings), and
    # the number its kept pages are keyed by (services.club_versions: starts anew)
    "clubs": frozenset({"ratings_stale_on", "ratings_stale_match", "data_version"}),
    "players": frozenset({"rating_mu", "rating_sigma"}),  # services.ratings
    "seasons": frozenset(),
    "saved_rule_sets": frozenset(),
    # A match's progress and winner follow from its deals (the engine's Match).
    "matches": frozenset({"deal_count", "finished", "winner_position"}),
    "match_sides": frozenset({"total"}),  # the sum of its deal sides
    "match_players": frozenset(),
    "deals": frozenset(),
    # A deal side keeps its entry as typed; the breakdown is the engine's score of it.
    "deal_sides": frozenset(
        {
            "went_out",
            "card_points",
            "book_bonus",
            "red_threes",
            "going_out",
            "exact_draws",
            "left_points",
            "red_threes_left",
            "total",
        }
    ),
    "known_names": frozenset(),
    "audit_events": frozenset(),  # the audit trail is history: kept as it is
    "club_events": frozenset(),  # and so is each club's log
    # Accounts travel with their Argon2id password hashes: a restore without them would
    # leave every club without a working owner. The hashes are made to withstand being
    # read (salted, memory-hard), but an export file is as private as the database itself.
    "accounts": frozenset(),
    # the names of closed accounts, which the logs above keep and no one may sign up with
    "retired_usernames": frozenset(),
    "memberships": frozenset(),  # who owns, scores and reads each club
}

#: Columns of the above that an import starts anew rather than rebuilds from the deals:
#: the number a club's kept pages are keyed by (a random start, so that a restored club
#: never meets a page kept for the one it replaces).
STARTS_ANEW: dict[str, frozenset[str]] = {"clubs": frozenset({"data_version"})}

#: Tables never exported, and why: short-lived credentials that let someone in, and the
#: sign-in tries counted against guessing them. After an import everyone logs in again,
#: and owners make new invitation and reset links; a file that travels (a USB stick, a
#: mail) never carries a key to an account or a club.
NOT_EXPORTED: dict[str, str] = {
    "account_sessions": phrase("log-ins end with an import: everyone logs in again"),
    "password_resets": phrase("a reset link works once within a day: an owner makes a new one"),
    "invitations": phrase("an invitation link works for a week: an owner makes a new one"),
    "rate_limit_counts": phrase("sign-in tries are counted afresh after an import"),
}

#: Of those, the tables whose rows are nobody's data: a try at logging in on a new
#: server, before its backup is imported, must not make the database "not empty". An
#: import loads into a database holding none but these, and empties them.
TRANSIENT = frozenset({"rate_limit_counts"})

#: Derived tables, rebuilt on import by the service named beside each.
DERIVED: dict[str, str] = {
    "side_results": "services.standings.side_results",
    "standing_lines": "services.aggregates.rebuild",
    "seat_results": "services.player_rows.rebuild",
    "rival_tallies": "services.player_rows.rebuild",
    "rating_points": "services.ratings.recompute",
}

INT32 = 2**31


class Refused(Exception):
    """A backup, export or import that cannot be done, with a message for the operator.

    ``str()`` is the English message, as it always was; ``message`` is that message, an
    engine :class:`~scorekeeper.engine.errors.Phrase` when a service raised it (its msgid
    and parameters, for the command line to say it in the user's language: ``cli_i18n.say``).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnclassifiedTableError(RuntimeError):
    """A table of the models is neither exported nor derived: classify it above."""


class BadValueError(ValueError):
    """A value in an export file that its column cannot hold; ``message`` is the English
    :class:`~scorekeeper.engine.errors.Phrase` (what ``str()`` gives), for translating."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def unclassified(metadata: MetaData) -> list[str]:
    """Tables of ``metadata`` named in none of ``EXPORTED``, ``DERIVED``, ``NOT_EXPORTED``."""
    known = EXPORTED.keys() | DERIVED.keys() | NOT_EXPORTED.keys()
    return sorted(name for name in metadata.tables if name not in known)


def check_classified(metadata: MetaData) -> None:
    """Raise ``UnclassifiedTableError`` when a table is not classified."""
    missing = unclassified(metadata)
    if missing:
        raise UnclassifiedTableError(
            f"table(s) {', '.join(missing)} neither exported, derived nor left out: classify"
            " them in scorekeeper/services/data_tables.py (and rebuild derived ones on import)"
        )


def exported_tables(metadata: MetaData) -> list[Table]:
    """The exported tables that exist in the models, parents before children."""
    check_classified(metadata)
    return [table for table in metadata.sorted_tables if table.name in EXPORTED]


def exported_columns(table: Table) -> list[Any]:
    """The table's columns that are exported, in the table's order."""
    derived = EXPORTED[table.name]
    return [column for column in table.columns if column.name not in derived]


def encode(column: Any, value: Any) -> Any:
    """A column's value as JSON: timestamps in UTC ISO 8601, dates ISO, the rest as is."""
    if value is None:
        return None
    if isinstance(column.type, DateTime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite keeps UTC naive
        return aware.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(column.type, Date):
        return value.isoformat()
    return value


def decode(column: Any, value: Any) -> Any:
    """A JSON value made the column's value; ``BadValueError`` says what is wrong."""
    if value is None:
        if not column.nullable or column.primary_key:
            raise BadValueError(phrase("must not be empty (null)"))
        return None
    kind = column.type
    if isinstance(kind, DateTime):
        return _timestamp(value)
    if isinstance(kind, Date):
        return _date(value)
    if isinstance(kind, Boolean):
        if not isinstance(value, bool):
            raise BadValueError(phrase("must be true or false"))
    elif isinstance(kind, Integer):
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadValueError(phrase("must be a whole number"))
        if not -INT32 <= value < INT32:
            raise BadValueError(phrase("is too large"))
    elif isinstance(kind, Float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadValueError(phrase("must be a number"))
    elif isinstance(kind, String):
        _text(value, kind.length)
    elif isinstance(kind, JSON):
        _no_nul(value)
    return value


def _timestamp(value: Any) -> datetime:
    try:
        found = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        found = None
    if found is None:
        raise BadValueError(phrase("must be a timestamp like 2024-03-05T20:15:00+00:00"))
    return (found if found.tzinfo else found.replace(tzinfo=UTC)).astimezone(UTC)


def _date(value: Any) -> date:
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise BadValueError(phrase("must be a date like 2024-03-05"))


def _text(value: Any, length: int | None) -> None:
    if not isinstance(value, str):
        raise BadValueError(phrase("must be text"))
    if length is not None and len(value) > length:
        raise BadValueError(
            phrase_n(
                "must be at most %(num)d character", "must be at most %(num)d characters", length
            )
        )
    _no_nul(value)


def _no_nul(value: Any) -> None:
    """PostgreSQL refuses a NUL character in text: refuse it on every database."""
    if isinstance(value, str):
        if "\x00" in value:
            raise BadValueError(phrase("must not contain a NUL character"))
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(key)
            _no_nul(item)
    elif isinstance(value, list):
        for item in value:
            _no_nul(item)
