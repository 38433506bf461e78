"""Filling the rule-set editor: its layout choices, a rule set's values, blank rows."""

from __future__ import annotations

import re
from typing import Any

from wtforms import SelectChoice

from ...engine import RuleSet
from ...engine.cards import BOOK_KINDS, CARD_KEYS
from ...engine.rules import PLAYERS_PLUS_ONE
from ..i18n import text
from .card import layout_text
from .forms import MAX_ROWS, ROW_LISTS

#: Layouts offered as checkboxes: alone (2 to 8), teams of 2 (2 to 4 teams), teams of 3.
STANDARD_LAYOUTS: tuple[tuple[int, ...], ...] = (
    *((1,) * n for n in range(2, 9)),
    (2, 2),
    (2, 2, 2),
    (2, 2, 2, 2),
    (3, 3),
)


def layout_key(layout: tuple[int, ...] | list[int]) -> str:
    """``(2, 2)`` -> ``"2+2"``."""
    return "+".join(str(n) for n in layout)


def parse_layout(key: str) -> list[int] | None:
    """``"2+2"`` -> ``[2, 2]``; None for anything that is not sizes joined by ``+``."""
    if not re.fullmatch(r"\d(\+\d){1,7}", key or ""):
        return None
    return [int(n) for n in key.split("+")]


def set_layout_choices(form: Any, rules: RuleSet | None = None) -> None:
    """Offer the standard layouts, plus any other the rule set or the posted form has."""
    layouts = list(STANDARD_LAYOUTS)
    extra = [tuple(lay) for lay in (rules.layouts if rules else ())]
    extra += [tuple(p) for p in map(parse_layout, form.layouts.data or []) if p]
    layouts += [lay for lay in extra if lay not in layouts]
    layouts.sort(key=lambda lay: (sum(lay), -len(lay)))
    form.layouts.choices = [SelectChoice(layout_key(lay), layout_text(lay)) for lay in layouts]


def formdata_of(rules: RuleSet) -> dict[str, Any]:
    """Initial editor data for ``rules`` (plus a blank row in every list)."""
    requires = dict(rules.going_out_requires)
    data: dict[str, Any] = {
        "name": rules.name,
        "description": text(rules.description),
        "source": rules.source,
        "layouts": [layout_key(lay) for lay in rules.layouts],
        "decks_mode": "players+1" if rules.decks == PLAYERS_PLUS_ONE else "fixed",
        "decks": None if rules.decks == PLAYERS_PLUS_ONE else rules.decks,
        "hand_size": rules.hand_size,
        "foot_size": rules.foot_size,
        "draw": rules.draw,
        "deals": rules.deals,
        "pickup_cards": rules.discard_pickup.cards,
        "pickup_pile_minimum": rules.discard_pickup.pile_minimum,
        "pickup_pair": rules.discard_pickup.pair,
        "meld_by": "deal" if rules.minimum_meld.per_deal else "total",
        "meld_per_deal": list(rules.minimum_meld.per_deal),
        "meld_thresholds": [{"at": t, "minimum": m} for t, m in rules.minimum_meld.thresholds],
        "bonus_clean": rules.book_bonus["clean"],
        "special_books": [
            {
                "key": s.key,
                "name": s.name,
                "rank": s.rank,
                "bonus": s.bonus,
                "wilds": s.wilds,
                "requires": requires.get(s.key) or None,
            }
            for s in rules.special_books
        ],
        "max_wilds": rules.wild_limit.max_wilds,
        "naturals_per_wild": rules.wild_limit.naturals_per_wild,
        "red_laid": rules.red_three.laid,
        "red_laid_without_meld": rules.red_three.laid_without_meld,
        "red_left": rules.red_three.left,
        "red_left_in_foot": rules.red_three.left_in_foot,
        "red_foot_only_if_opponent_out": rules.red_three.foot_only_if_opponent_out,
        "pile_blocked_by": list(rules.pile_blocked_by),
        "one_open_meld_per_rank": rules.one_open_meld_per_rank,
        "going_out_bonus": rules.going_out_bonus,
        "conditions": [text(c) for c in rules.going_out_conditions],
        "exact_draw_bonus": rules.exact_draw_bonus,
    }
    for kind in ("dirty", "wild"):
        data[f"allow_{kind}"] = rules.book_bonus.get(kind) is not None
        data[f"bonus_{kind}"] = rules.book_bonus.get(kind)
    for kind in BOOK_KINDS:
        data[f"requires_{kind}"] = requires.get(kind) or None
    for key in CARD_KEYS:
        data[f"value_{key}"] = rules.card_values[key]
    return data


def add_blank_rows(form: Any) -> None:
    """Give every list its blank rows, so a table can add one without JavaScript."""
    for name, blanks in ROW_LISTS.items():
        for _ in range(blanks):
            add_row(form, name)


def add_row(form: Any, name: str) -> bool:
    """Append one blank row to the list ``name``; False when it is full or unknown."""
    if name not in ROW_LISTS or len(form[name]) >= MAX_ROWS:
        return False
    form[name].append_entry()
    return True
