"""From the editor form to the rule-set dict, and engine problems back to its fields.

``form_to_dict`` builds the dict the engine reads and, beside it, which form field each
engine field path came from; ``apply_problems`` uses that to put every RuleSetError
message next to the field it is about. No rule is checked here.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from flask_babel import gettext as _

from ...engine import Problem
from ...engine.cards import BOOK_KINDS, CARD_KEYS
from ...engine.rules import PLAYERS_PLUS_ONE
from ...services.rule_sets import slug
from ..i18n import translate_problem as tr
from .formdata import parse_layout

#: Field groups (fieldsets) that an engine path about a whole list or object lands on.
GROUPS = (
    "players", "minimum_meld", "card_values", "book_bonus", "special_books", "wild_limit",
    "red_three", "going_out_requires", "going_out_conditions", "discard_pickup",
)  # fmt: skip


def _blank(*values: Any) -> bool:
    return all(v is None or (isinstance(v, str) and not v.strip()) for v in values)


def form_to_dict(form: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rule-set dict typed into ``form``, and ``{engine field path: form field}``."""
    where: dict[str, Any] = {}

    def take(path: str, field: Any) -> Any:
        where[path] = field
        return field.data

    data: dict[str, Any] = {
        "name": take("name", form.name) or "",
        "description": take("description", form.description) or "",
        "source": take("source", form.source) or "",
        "players": {"layouts": [p for p in map(parse_layout, form.layouts.data or []) if p]},
        "hand_size": take("hand_size", form.hand_size),
        "foot_size": take("foot_size", form.foot_size),
        "draw": take("draw", form.draw),
        "deals": take("deals", form.deals),
        "tie": "draw",
    }
    where["id"] = form.name
    where["players.layouts"] = form.layouts
    where["decks"] = form.decks
    data["decks"] = PLAYERS_PLUS_ONE if form.decks_mode.data == "players+1" else form.decks.data
    pickup = {"pair": take("discard_pickup.pair", form.pickup_pair) or "natural"}
    for key, field in (("cards", form.pickup_cards), ("pile_minimum", form.pickup_pile_minimum)):
        if take(f"discard_pickup.{key}", field) is not None:
            pickup[key] = field.data
    data["discard_pickup"] = pickup
    data["minimum_meld"] = _minimum_meld(form, where)
    data["card_values"] = {
        key: take(f"card_values.{key}", form[f"value_{key}"])
        for key in CARD_KEYS
        if form[f"value_{key}"].data is not None
    }
    for key in CARD_KEYS:
        where[f"card_values.{key}"] = form[f"value_{key}"]
    bonus = {"clean": take("book_bonus.clean", form.bonus_clean)}
    for kind in ("dirty", "wild"):
        value = take(f"book_bonus.{kind}", form[f"bonus_{kind}"])
        # Allowed but left blank is not "not allowed": the engine asks for a number.
        bonus[kind] = (value if value is not None else "") if form[f"allow_{kind}"].data else None
    data["book_bonus"] = bonus
    requires = {
        kind: take(f"going_out_requires.{kind}", form[f"requires_{kind}"])
        for kind in BOOK_KINDS
        if form[f"requires_{kind}"].data
    }
    for kind in BOOK_KINDS:
        where[f"going_out_requires.{kind}"] = form[f"requires_{kind}"]
    data["special_books"] = _special_books(form, where, requires)
    data["going_out_requires"] = requires
    limit = {"max_wilds": take("wild_limit.max_wilds", form.max_wilds)}
    limit["naturals_per_wild"] = take("wild_limit.naturals_per_wild", form.naturals_per_wild) or 0
    data["wild_limit"] = limit
    data["red_three"] = {
        "laid": take("red_three.laid", form.red_laid),
        "laid_without_meld": take("red_three.laid_without_meld", form.red_laid_without_meld),
        "left": take("red_three.left", form.red_left),
        "foot_only_if_opponent_out": take(
            "red_three.foot_only_if_opponent_out", form.red_foot_only_if_opponent_out
        ),
    }
    # Blank: a red three in an unpicked foot costs what one in a hand does (RULES.md 4).
    if take("red_three.left_in_foot", form.red_left_in_foot) is not None:
        data["red_three"]["left_in_foot"] = form.red_left_in_foot.data
    data["pile_blocked_by"] = take("pile_blocked_by", form.pile_blocked_by) or []
    data["one_open_meld_per_rank"] = take("one_open_meld_per_rank", form.one_open_meld_per_rank)
    data["going_out_bonus"] = take("going_out_bonus", form.going_out_bonus)
    texts = [f for f in form.conditions if not _blank(f.data)]
    data["going_out_conditions"] = [
        take(f"going_out_conditions[{i}]", f) for i, f in enumerate(texts)
    ]
    exact = take("exact_draw_bonus", form.exact_draw_bonus)
    data["exact_draw_bonus"] = 0 if exact is None else exact
    return data, where


def _minimum_meld(form: Any, where: dict[str, Any]) -> list[Any]:
    if form.meld_by.data == "total":
        rows = [r for r in form.meld_thresholds if not _blank(r["at"].data, r["minimum"].data)]
        for i, row in enumerate(rows):
            where[f"minimum_meld[{i}]"] = row["at"]
            where[f"minimum_meld[{i}][0]"] = row["at"]
            where[f"minimum_meld[{i}][1]"] = row["minimum"]
        return [[row["at"].data, row["minimum"].data] for row in rows]
    fields = [f for f in form.meld_per_deal if f.data is not None]
    for i, field in enumerate(fields):
        where[f"minimum_meld[{i}]"] = field
    return [f.data for f in fields]


def _special_books(form: Any, where: dict[str, Any], requires: dict[str, Any]) -> list[Any]:
    books = []
    # A row with anything typed or ticked in it is a book (its missing parts are refused
    # beside them); only "Needed to go out" filled in was dropped without a word.
    rows = [
        r
        for r in form.special_books
        if not _blank(
            r["name"].data, r["rank"].data, r["bonus"].data, r["requires"].data,
            r["wilds"].data or None,
        )
    ]  # fmt: skip
    for i, row in enumerate(rows):
        path = f"special_books[{i}]"
        name = row["name"].data or ""
        # A nameless book is refused for its name: a key made up meanwhile keeps the key's
        # own message ("lower-case letters and digits", about a field nobody sees) away.
        key = row["key"].data or (slug(name) if name.strip() else "book")
        for part, field in (("key", row["name"]), ("name", row["name"]), ("rank", row["rank"])):
            where[f"{path}.{part}"] = field
        where[path], where[f"{path}.bonus"], where[f"{path}.wilds"] = (
            row["name"],
            row["bonus"],
            row["wilds"],
        )
        books.append(
            {"key": key, "name": name, "rank": row["rank"].data or "", "bonus": row["bonus"].data,
             "wilds": bool(row["wilds"].data)}
        )  # fmt: skip
        if key:
            where[f"going_out_requires.{key}"] = row["requires"]
            if row["requires"].data:
                requires[key] = row["requires"].data
    return books


def apply_problems(form: Any, problems: Any, where: dict[str, Any]) -> list[str]:
    """Put each problem beside its field, or on its group; return the ones that fit none.

    Group messages (about a whole list, such as "3 minimum melds for 4 deals") are kept in
    ``form.group_errors[group]`` for the fieldset to show.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    general: list[str] = []
    for problem in problems:
        field = _field_for(problem.field, where)
        if field is not None:
            field.errors = [*field.errors, tr(problem)]
            continue
        head = re.split(r"[.\[]", problem.field, maxsplit=1)[0]
        if head in GROUPS:
            groups[head].append(tr(problem))
        else:
            general.append(tr(problem))
    form.group_errors = groups
    return general


def _field_for(path: str, where: dict[str, Any]) -> Any:
    """The field of ``path`` or, failing that, of its nearest parent path that has one."""
    while path:
        if path in where:
            return where[path]
        trimmed = re.sub(r"(\.[^.\[]+|\[\d+\])$", "", path)
        if trimmed == path:
            return None
        path = trimmed
    return None


_MISSING = object()


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    """``{engine field path: value}`` of every number, text, flag or blank in a rule set."""
    if isinstance(value, dict):
        pairs = [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
    elif isinstance(value, list):
        pairs = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
    else:
        return {path: value}
    leaves: dict[str, Any] = {path: "[]"} if path and not pairs else {}
    for key, item in pairs:
        leaves.update(_leaves(item, key))
    return leaves


def saved_now(typed: dict[str, Any], saved: dict[str, Any], where: dict[str, Any]) -> list[Problem]:
    """A note beside each field where the rules saved meanwhile differ from those typed:
    what is saved now, so that a table refused as stale sees what saving again replaces
    (it saved again, and put back what another phone had changed, unseen)."""
    typed_leaves, saved_leaves = _leaves(typed), _leaves(saved)
    notes: dict[int, Problem] = {}
    for path in sorted(typed_leaves.keys() | saved_leaves.keys()):
        value = saved_leaves.get(path, _MISSING)
        if path == "id" or typed_leaves.get(path, _MISSING) == value:
            continue
        field = _field_for(path, where)
        if field is None or id(field) in notes:  # one note a field
            continue
        shown = path in where and isinstance(value, int | str) and not isinstance(value, bool)
        message = _("Saved now: %(value)s", value=value) if shown else _("Saved now otherwise.")
        notes[id(field)] = Problem(path, message)
    return list(notes.values())
