"""What the match templates show, computed once per request (no arithmetic in templates)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import g
from flask_babel import gettext as _

from ...engine import EngineError, Match, going_out_checklist, score_deal
from ...services.charts import running_totals_chart
from ...services.matches import LoadedMatch, rematch_of
from ..actor import current_device
from ..i18n import translate_problem as tr
from . import forms
from .blank_entry import BlankEntry
from .history import history_view
from .stamps import match_etag


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
    outcome: str | None = None,
    announcement: str = "",
    **trail: Any,
) -> dict[str, Any]:
    """Everything the match page, its fragment and the edit page need.

    ``outcome`` ("saved" or "refused") tells the page's script where to move the eye after
    a deal was sent, and ``announcement`` is what screen readers hear then.
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
    deal = editing or game.current_deal
    minimums = _minimums(game, editing)
    # A finished match's page has no deal form; the next deal's, empty, is kept rendered
    # (``blank_entry``): no form is built for it, and a page that does not show it (the
    # live updates) does not render it.
    entry = None
    if form is None and editing is not None:
        form = _fresh_form(loaded, editing)
    elif form is None and not game.finished:
        entry = BlankEntry(loaded, minimums)
    return {
        "match": row,
        "game": game,
        "rules": game.rules,
        "labels": [side.label for side in game.sides],
        # a finished match's rematch once one was started (its page opens it)
        "rematch": _rematch(loaded),
        "deals": deals,
        "deal": deal,
        "dealer": game.dealer(deal) if deal else None,
        "minimums": minimums,
        # match_writable: False for a club match read by someone who is not its scorer
        "can_edit": (not game.finished or row.reopened) and g.get("match_writable", True),
        "form": form,
        "entry": entry,
        "general_errors": general_errors or [],
        "preview": preview,
        "editing": editing,
        "removing": removing,
        **(entry_rows(game, form) if form is not None else {}),
        "sheet_class": _sheet_class(len(game.sides)),
        "requires": dict(game.rules.going_out_requires),
        "chart": running_totals_chart(game),
        "history": history_view(loaded),
        # this browser's identity (its cookie is made here) only where it may change the
        # match: a visitor who only reads a club's match gets no cookie
        "device": current_device() if g.get("match_writable", True) else None,
        "outcome": outcome,
        "announcement": announcement,
        # the version the page shows: its live updates ask "still this?" (issue 14)
        "live_etag": match_etag(row.id, loaded.saved.version if loaded.saved else None),
        **trail,
    }


def _rematch(loaded: LoadedMatch) -> str | None:
    """The rematch started from the finished match (None while it is being played)."""
    if not loaded.game.finished:
        return None
    return loaded.saved.rematch if loaded.saved else rematch_of(loaded.row)


def saved_announcement(loaded: LoadedMatch, number: int) -> str:
    """ "Deal 1 saved. Ann & Bob 3990, Cy & Di 510. Next: deal 2." (or who won)."""
    totals, after = _standing(loaded)
    return _("Deal %(n)s saved. %(totals)s. %(after)s", n=number, totals=totals, after=after)


def corrected_announcement(loaded: LoadedMatch, number: int) -> str:
    """ "Deal 1 corrected. Ann & Bob 3890, Cy & Di 510. Next: deal 2." (or who won)."""
    totals, after = _standing(loaded)
    return _("Deal %(n)s corrected. %(totals)s. %(after)s", n=number, totals=totals, after=after)


def removed_announcement(loaded: LoadedMatch, number: int) -> str:
    """ "Deal 3 removed. Ann & Bob 4200, Cy & Di 900. Next: deal 3." """
    totals, after = _standing(loaded)
    return _("Deal %(n)s removed. %(totals)s. %(after)s", n=number, totals=totals, after=after)


def _standing(loaded: LoadedMatch) -> tuple[str, str]:
    """The totals as said aloud, and what comes next: the next deal, or who won."""
    game = loaded.game
    pairs = zip(game.sides, game.totals, strict=True)
    totals = ", ".join(f"{side.label} {total}" for side, total in pairs)
    if not game.finished:
        after = _("Next: deal %(n)s.", n=game.current_deal)
    elif game.is_draw:
        after = _("A draw.")
    else:
        after = _("%(side)s won.", side=game.sides[game.winner].label)
    return totals, after


def refused_announcement(context: dict[str, Any]) -> str:
    """ "Deal 1 is not saved: Cy & Di: Going out needs 2 clean books; this side has 1.";
    after a lost race, the conflict view's heading ("Deal 1 was saved on another phone
    first": the deal this phone was saving, not the next one the form now shows)."""
    conflict = context.get("conflict")
    if conflict is not None and conflict["kind"] == "entered":
        return _("Deal %(n)s was saved on another phone first", n=conflict["number"])
    first = next(iter(context["general_errors"]), None)
    if first is None:
        first = next(iter(_side_errors(context["form"], context["labels"])), "")
    return _("Deal %(n)s is not saved: %(why)s", n=context["deal"], why=first)


def _side_errors(form: Any, labels: list[str]) -> list[str]:
    """Every error of the deal form, each after the name of the side it belongs to."""
    found = [str(e) for e in form.went_out.errors]
    for label, side in zip(labels, form.sides, strict=True):
        found.extend(f"{label}: {e}" for field in side for e in field.errors)
    return found


def submission_key(context: dict[str, Any]) -> str | None:
    """The submission key the page's deal form was given (None: it has none, or it was
    not shown)."""
    if context.get("entry") is not None:
        return context["entry"].submission_key  # type: ignore[no-any-return]
    form = context.get("form")
    return form.submission_key.data if form is not None else None


def entry_rows(game: Match, form: Any) -> dict[str, Any]:
    """What the deal form's rows need besides the form: the count fields of each block,
    which blocks start open, and each side's going-out checklist."""
    return {
        "groups": _groups(game),
        "counts_open": _counts_open(game, form),
        "checklists": _checklists(game, form),
    }


def _fresh_form(loaded: LoadedMatch, editing: int) -> Any:
    """The form that corrects deal ``editing``, filled in with what was stored."""
    game = loaded.game
    stored = [ds.entry for ds in loaded.row.deals[editing - 1].sides]
    data = forms.form_data_from_entries(stored, game.rules)
    form = forms.deal_form(game.rules, len(game.sides), obj=data)
    form.version.data = str(loaded.row.deals[editing - 1].version)
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
            (forms.field_slug(key), forms.card_label(key), _value(rules, key))
            for key in forms.card_keys(rules, block)
        ]
    return result


#: From which screen width the score sheet fits its sides as columns (static/css/app.css).
COLUMNS_FROM = {2: "always", 3: "360", 4: "576", 5: "832", 6: "832"}


def _sheet_class(sides: int) -> str:
    """The match page's classes for its score sheet: the side count and from which width
    the sides stand as columns (more than 6 sides are always stacked)."""
    return f"sides-{sides} cols-{COLUMNS_FROM.get(sides, 'never')}"


def _counts_open(game: Match, form: Any) -> dict[str, bool]:
    """Whether a block's "count the cards" rows start open: some side counted, or erred."""
    result = {}
    for block in ("melded", "left"):
        names = [f"{block}_{forms.field_slug(key)}" for key in forms.card_keys(game.rules, block)]
        result[block] = any(
            side[name].data is not None or side[name].errors
            for side in form.sides
            for name in names
        )
    return result


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
    labels = context["labels"]
    if not form.validate():
        others = forms.problems_beside_errors(form, game, deal)
        context["problems"] = [
            *_side_errors(form, labels),
            *(_named(p.field, tr(p), labels) for p in others),
        ]
        return context
    entries = forms.entries_from_form(form, game.rules)
    try:
        score = score_deal(game.rules, deal, game.player_count, entries, game.side_sizes)
    except EngineError as error:
        context["problems"] = [_named(p.field, tr(p), labels) for p in error.problems]
    else:
        context["breakdowns"] = score.sides
    return context


def _named(path: str, message: str, labels: list[str]) -> str:
    """An engine problem about ``sides[i]...`` after the name of side i."""
    index, _sep, _rest = path.removeprefix("sides[").partition("]")
    if path.startswith("sides[") and index.isdigit() and int(index) < len(labels):
        return f"{labels[int(index)]}: {message}"
    return message
