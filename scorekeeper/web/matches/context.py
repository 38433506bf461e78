"""What the match templates show, computed once per request (no arithmetic in templates)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import g

from ...engine import EngineError, Match, going_out_checklist, score_deal
from ...engine.cards import describe_key
from ...services.charts import running_totals_chart
from ...services.matches import LoadedMatch, new_submission_key
from ..actor import current_device
from . import forms
from .history import history_view


@dataclass(frozen=True)
class DealRow:
    """One line of the deal-by-deal table."""

    number: int
    dealer: str
    scores: tuple[int, ...]
    running: tuple[int, ...]
    went_out: int | None
    version: int


def match_context(
    loaded: LoadedMatch,
    form: Any = None,
    general_errors: list[str] | None = None,
    preview: dict[str, Any] | None = None,
    editing: int | None = None,
    removing: int | None = None,
    **trail: Any,
) -> dict[str, Any]:
    """Everything the match page, its fragment and the edit page need.

    ``trail``: the history's message or errors and the naming form (``web/matches/trail.py``).
    """
    game, row = loaded.game, loaded.row
    running = game.running_totals()
    deals = [
        DealRow(
            number=n,
            dealer=game.dealer(n),
            scores=tuple(b.total for b in recorded.score.sides),
            running=running[n - 1],
            went_out=next((i for i, e in enumerate(recorded.entries) if e.went_out), None),
            version=row.deals[n - 1].version,
        )
        for n, recorded in enumerate(game.deals, start=1)
    ]
    if form is None:
        form = _fresh_form(loaded, editing)
    deal = editing or game.current_deal
    return {
        "match": row,
        "game": game,
        "rules": game.rules,
        "labels": [side.label for side in game.sides],
        "deals": deals,
        "deal": deal,
        "dealer": game.dealer(deal) if deal else None,
        "minimums": _minimums(game, editing),
        # match_writable: False for a club match read by someone who is not its scorer
        "can_edit": (not game.finished or row.reopened) and g.get("match_writable", True),
        "form": form,
        "general_errors": general_errors or [],
        "preview": preview,
        "editing": editing,
        "removing": removing,
        "groups": _groups(game),
        "checklists": _checklists(game, form),
        "requires": dict(game.rules.going_out_requires),
        "chart": running_totals_chart(game),
        "history": history_view(loaded),
        # this browser's identity (its cookie is made here) only where it may change the
        # match: a visitor who only reads a club's match gets no cookie
        "device": current_device() if g.get("match_writable", True) else None,
        **trail,
    }


def _fresh_form(loaded: LoadedMatch, editing: int | None) -> Any:
    game = loaded.game
    if editing is not None:
        stored = [ds.entry for ds in loaded.row.deals[editing - 1].sides]
        data = forms.form_data_from_entries(stored, game.rules)
        form = forms.deal_form(game.rules, len(game.sides), obj=data)
        form.version.data = str(loaded.row.deals[editing - 1].version)
        return form
    form = forms.deal_form(game.rules, len(game.sides))
    form.submission_key.data = new_submission_key()
    form.expected_deal.data = str(game.current_deal or "")
    return form


def _minimums(game: Match, editing: int | None) -> list[int] | None:
    """Each side's minimum meld for the deal being entered (they differ with thresholds)."""
    if editing is not None:
        totals = game.running_totals()[editing - 2] if editing > 1 else (0,) * len(game.sides)
        return [game.rules.minimum_meld.for_deal(editing, t) for t in totals]
    if game.current_deal is None:
        return None
    return [game.minimum_meld(i) or 0 for i in range(len(game.sides))]


def _groups(game: Match) -> dict[str, list[tuple[str, str, int]]]:
    """Count fields per block: (field slug, label, value of one card)."""
    rules = game.rules
    result = {}
    for block in ("melded", "left"):
        result[block] = [
            (forms.field_slug(key), _label(key), _value(rules, key))
            for key in forms.card_keys(rules, block)
        ]
    return result


def _label(key: str) -> str:
    return describe_key(key).replace("cards from ", "").capitalize()


def _value(rules: Any, key: str) -> int:
    from ...engine.entries import key_value

    return key_value(rules, key)


def _checklists(game: Match, form: Any) -> list[Any]:
    """The going-out checklist of each side, from the books in the form so far."""
    lists = []
    for side in form.sides:
        books = {}
        for kind in game.rules.book_kinds():
            value = side[f"books_{kind}"].data
            books[kind] = value if isinstance(value, int) and value >= 0 else 0
        lists.append(going_out_checklist(game.rules, books))
    return lists


def preview_context(game: Match, form: Any, deal: int) -> dict[str, Any]:
    """Each side's breakdown for the form's numbers, or the problems that stop it."""
    context: dict[str, Any] = {
        "labels": [side.label for side in game.sides],
        "breakdowns": None,
        "problems": [],
        "checklists": _checklists(game, form),
        "oob": True,  # the fragment also refreshes each side's going-out checklist
    }
    if not form.validate():
        context["problems"] = [
            error
            for field in _all_fields(form)
            for error in field.errors
            if field.name != "csrf_token"
        ]
        return context
    entries = forms.entries_from_form(form, game.rules)
    try:
        score = score_deal(game.rules, deal, game.player_count, entries, game.side_sizes)
    except EngineError as error:
        context["problems"] = [p.message for p in error.problems]
    else:
        context["breakdowns"] = score.sides
    return context


def _all_fields(form: Any) -> list[Any]:
    fields = []
    for field in form:
        if field.type == "FieldList":
            for sub in field:
                fields.extend(sub.form)
        else:
            fields.append(field)
    return fields
