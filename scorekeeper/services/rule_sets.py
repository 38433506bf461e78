"""House rules: save, edit, delete, find, export and import rule sets.

A saved rule set is validated by the engine (``RuleSet.from_dict``) before anything is
written: an invalid rule set is never saved. A match copies the rule set it starts with
(see ``services.matches.start_match``), so editing or deleting a saved rule set never
changes a match.

Every function takes an optional ``owner``. Until clubs exist every rule set belongs to
the installation (``owner=None``); once the model has a ``club_id`` column, an owner
(a club row) scopes reads and writes to that club's rule sets.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import ColumnElement, select, true
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.orm.exc import StaleDataError

from ..engine import PRESETS, Problem, RuleSet, RuleSetError
from ..engine.errors import EngineError
from ..extensions import db
from ..models import SavedRuleSet, is_public_id, utcnow
from . import rule_sanity

SAVED_PREFIX = "saved:"
MAX_IMPORT_BYTES = 64 * 1024


class StaleRuleSetError(EngineError):
    """Someone else changed or deleted this rule set since the form was loaded."""


class ImportProblem(EngineError):
    """A file or pasted text that is not a rule-set JSON object."""


@dataclass(frozen=True)
class RuleChoice:
    """A rule set a match can start with: its origin key, name and value."""

    origin: str  # a preset id, or "saved:<public_id>"
    name: str
    rules: RuleSet
    saved: bool


def origin_of(row: SavedRuleSet) -> str:
    """The ``rules_origin`` a match records when it starts from this saved rule set."""
    return f"{SAVED_PREFIX}{row.public_id}"


def _owned_by(owner: Any | None) -> ColumnElement[bool]:
    """The rule sets of ``owner``: the installation's (None) or, once clubs exist, a club's."""
    column = getattr(SavedRuleSet, "club_id", None)
    if column is None:
        if owner is not None:
            raise ValueError("Rule sets have no owners before clubs exist.")
        return true()
    return column.is_(None) if owner is None else column == owner.id


def saved(owner: Any | None = None) -> list[SavedRuleSet]:
    """The saved rule sets of ``owner``, by name (the API lists these beside the presets)."""
    rows = db.session.scalars(
        select(SavedRuleSet).where(_owned_by(owner)).order_by(SavedRuleSet.name)
    )
    return sorted(rows, key=lambda row: row.name.casefold())


def load(public_id: str, owner: Any | None = None) -> SavedRuleSet | None:
    """The saved rule set with this public id, or None."""
    if not is_public_id(public_id):
        return None
    return db.session.scalar(
        select(SavedRuleSet).where(SavedRuleSet.public_id == public_id, _owned_by(owner))
    )


def load_shared(public_id: str) -> SavedRuleSet | None:
    """A rule set by its share link: anyone with the link may read it, whoever owns it."""
    if not is_public_id(public_id):
        return None
    return db.session.scalar(select(SavedRuleSet).where(SavedRuleSet.public_id == public_id))


def available(owner: Any | None = None) -> list[RuleChoice]:
    """What a new match can start with: the presets, then the saved rule sets by name."""
    choices = [RuleChoice(r.id, r.name, r, saved=False) for r in PRESETS.values()]
    for row in saved(owner):
        choices.append(RuleChoice(origin_of(row), row.name, rule_set_of(row), saved=True))
    return choices


def find(origin: str | None, owner: Any | None = None) -> RuleChoice | None:
    """A preset by id or a saved rule set by ``saved:<public_id>``; None if there is none."""
    origin = origin or ""
    if origin in PRESETS:
        rules = PRESETS[origin]
        return RuleChoice(origin, rules.name, rules, saved=False)
    if not origin.startswith(SAVED_PREFIX):
        return None
    row = load(origin[len(SAVED_PREFIX) :], owner)
    if row is None:
        return None
    return RuleChoice(origin, row.name, rule_set_of(row), saved=True)


def rule_set_of(row: SavedRuleSet) -> RuleSet:
    """The engine's value of a saved rule set (it was validated when saved)."""
    return RuleSet.from_dict(row.rules)


def slug(name: str) -> str:
    """A rule-set id from its name: ``"Friday night!"`` -> ``"friday-night"``.

    Names that would give a preset's id get ``-house`` so the id never passes for a preset.
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:58].strip("-")
    text = text or "house-rules"
    return f"{text}-house" if text in PRESETS else text


def prepare(data: Any) -> RuleSet:
    """Validate a rule-set dict for saving; its ``id`` is made from its name.

    Raises RuleSetError with every problem (field paths as the engine gives them), and
    with what ``rule_sanity`` refuses of a rule set saved from now on.
    """
    problems = rule_sanity.text_problems(data)
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        data = {**data, "id": slug(data["name"])}
    try:
        rules = RuleSet.from_dict(data)
    except RuleSetError as error:
        raise RuleSetError([*error.problems, *problems]) from None
    problems += rule_sanity.play_problems(rules)
    if problems:
        raise RuleSetError(problems)
    return rules


def _check_name(rules: RuleSet, owner: Any | None, keep: SavedRuleSet | None = None) -> None:
    name = rules.name.casefold()
    if any(p.name.casefold() == name for p in PRESETS.values()):
        raise RuleSetError(
            [
                Problem(
                    "name",
                    _("%(name)s is the name of a preset; choose another name.", name=rules.name),
                )
            ]
        )
    for row in saved(owner):
        if row is not keep and row.name.casefold() == name:
            raise RuleSetError(
                [Problem("name", _("There is already a rule set called %(name)s.", name=row.name))]
            )


def create(data: Any, owner: Any | None = None, account_id: int | None = None) -> SavedRuleSet:
    """Validate and save a new rule set; raise RuleSetError and save nothing if it is invalid.

    ``account_id`` is the account that may edit and delete it (``web/authz.py``).
    """
    rules = prepare(data)
    _check_name(rules, owner)
    row = SavedRuleSet(name=rules.name, rules=rules.to_dict(), account_id=account_id)
    if owner is not None:
        row.club_id = owner.id
    db.session.add(row)
    db.session.commit()
    return row


def update(row: SavedRuleSet, data: Any, version: int | None, owner: Any | None = None) -> None:
    """Replace a saved rule set; refuse it when the row changed since ``version`` was read.

    Matches that started with the old rules keep their own copy.
    """
    rules = prepare(data)
    _check_name(rules, owner, keep=row)
    if version is not None and version != row.version:
        raise _stale()
    row.name, row.rules, row.updated_at = rules.name, rules.to_dict(), utcnow()
    try:
        db.session.commit()
    except StaleDataError:
        db.session.rollback()
        raise _stale() from None


def still_there(row: SavedRuleSet | None) -> SavedRuleSet | None:
    """The rule set as saved now, or None when it was deleted meanwhile."""
    if row is None:
        return None
    try:
        db.session.refresh(row)
    except InvalidRequestError:
        return None
    return row


def delete(row: SavedRuleSet) -> None:
    """Delete a saved rule set; matches that started with it keep their copy."""
    db.session.delete(row)
    try:
        db.session.commit()
    except StaleDataError:  # deleted on another phone meanwhile: the wish is granted
        db.session.rollback()


def _stale() -> StaleRuleSetError:
    return StaleRuleSetError(
        [
            Problem(
                "version",
                _("Someone else changed these rules meanwhile; check them and save again."),
            )
        ]
    )


def export_json(row: SavedRuleSet) -> str:
    """The rule set as a JSON file's text: the API's rule-set object, ``RuleSet.to_dict()``."""
    return json.dumps(rule_set_of(row).to_dict(), ensure_ascii=False, indent=2) + "\n"


def parse_json(text: str | bytes) -> Any:
    """Read an uploaded or pasted JSON text; raise ImportProblem when it is not a JSON object."""
    if isinstance(text, bytes):
        if len(text) > MAX_IMPORT_BYTES:
            raise ImportProblem([Problem("file", _("This file is too big for a rule set."))])
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportProblem([Problem("file", _("This file is not a text file."))]) from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        message = _("This is not valid JSON (%(why)s).", why=getattr(error, "msg", "unreadable"))
        raise ImportProblem([Problem("file", message)]) from None
    if not isinstance(data, dict):
        raise ImportProblem([Problem("file", _("A rule set is a JSON object: { ... }."))])
    return data


def import_rules(
    data: Any, name: str | None = None, owner: Any | None = None, account_id: int | None = None
) -> SavedRuleSet:
    """Save an imported rule-set dict, optionally under another name."""
    if name and isinstance(data, dict):
        data = {**data, "name": name}
    return create(data, owner, account_id)
