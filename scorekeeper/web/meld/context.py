"""From a request to what the checker shows: the rule set, the state, the engine's verdict.

Nothing here judges a meld. Bad URL state never fails: each bad part is left out or
replaced by a sensible default, with a notice saying so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from ...engine import MeldCheck, RuleSet, check_meld
from ...engine.errors import Problems
from ...engine.meld import WILD, read_melds
from ...services.matches import LoadedMatch
from ..i18n import say
from ..i18n import translate_problem as tr
from .choice import Offered, choose_rules
from .forms import CheckerForm, form_of_state, meld_dicts
from .page import (
    PILE_BOUND,
    TOTAL_BOUND,
    Page,
    Row,
    add_error,
    totals_before,
)
from .state import BLOCKING_TOPS, MAX_MELDS, CheckerState, apply_op, token_dict, whole


def resolve(args: MultiDict[str, str], changed: bool = False) -> Page:
    """Read the request's state (URL or form), apply a tapped button, ask the engine."""
    notices: list[str] = []
    submitted = "f" in args
    form = CheckerForm(args) if submitted else CheckerForm()
    loaded, origin, rules = choose_rules(args, notices)
    deal = _deal(args, rules, loaded, notices)
    side, total = _side_and_total(args, rules, loaded, deal, form, submitted, notices)
    top = args.get("top") or None
    wild_blocks = "wild" in rules.pile_blocked_by
    if top is not None and top not in BLOCKING_TOPS:
        notices.append(_("Only a three or a wild card blocks the pile; that top card was ignored."))
        top = None
    elif top == WILD and not wild_blocks:
        notices.append(
            _(
                "Under %(rules)s a wild card on top does not block the pile: it is taken with"
                " two wild cards from hand, so mark a wild meld with the top card instead.",
                rules=rules.name,
            )
        )
        top = None
    size = _size(args, form, submitted, notices)
    numbers: list[int] | None = None
    if submitted:
        dicts = meld_dicts(form)
    else:
        dicts, numbers = _token_dicts(args.getlist("m"), notices)
    problems = Problems()
    melds = read_melds(problems, dicts)
    bad_rows = _place_problems(problems, form, submitted, notices, numbers)
    state = CheckerState(
        rules=origin,
        deal=deal,
        total=total,
        melds=tuple(melds),
        top=top,
        size=size,
        match=loaded.public_id if loaded else None,
        side=side,
    )
    if form.size.errors and not (
        rules.discard_pickup.pile_minimum and any(m.top_card for m in melds)
    ):
        notices.extend(form.size.errors)  # the pile-size field is not on the page
    has_errors = bool(notices or bad_rows or form.size.errors or form.total.errors)
    op = args.get("op")
    if op and not has_errors:
        try:
            state = apply_op(state, op, Offered(), rules.deals, wild_blocks)
        except ValueError:
            notices.append(_tap_problem(op, state))
        else:
            return resolve(MultiDict(state.query()), changed=True)
    if not submitted or not has_errors:
        form = form_of_state(state)
        bad_rows = {}
    check = check_meld(rules, deal, melds, total, size)
    rows = _rows(form, bad_rows, check)
    invalid = has_errors or bool(notices)
    return Page(state, rules, loaded, check, form, rows, notices, invalid, changed or submitted)


def _deal(
    args: MultiDict[str, str], rules: RuleSet, loaded: LoadedMatch | None, notices: list[str]
) -> int:
    default = 1
    if loaded is not None:
        default = loaded.game.current_deal or rules.deals
    if not args.get("deal"):
        return default
    deal = whole(args.get("deal"), 1, rules.deals)
    if deal is None:
        notices.append(
            _("A game has deals 1 to %(n)s; showing deal %(deal)s.", n=rules.deals, deal=default)
        )
        return default
    return deal


def _side_and_total(
    args: MultiDict[str, str],
    rules: RuleSet,
    loaded: LoadedMatch | None,
    deal: int,
    form: CheckerForm,
    submitted: bool,
    notices: list[str],
) -> tuple[int, int]:
    """The side (of a match) and running total that set a threshold minimum."""
    if not rules.minimum_meld.thresholds:
        return 0, 0
    if loaded is not None:
        totals = totals_before(loaded, deal)
        side = whole(args.get("side") or "0", 0, len(totals) - 1)
        if side is None:
            notices.append(_("That side is not in this match; showing the first side."))
            side = 0
        return side, totals[side]
    text = (form.total.data if submitted else args.get("total")) or "0"
    total = whole(text.replace(",", "").replace(" ", ""), -TOTAL_BOUND, TOTAL_BOUND)
    if total is None:
        message = _("The running total is a whole number, like 2600 or -150.")
        add_error(form.total, message) if submitted else notices.append(message)
        return 0, 0
    return 0, total


def _size(
    args: MultiDict[str, str], form: CheckerForm, submitted: bool, notices: list[str]
) -> int | None:
    text = (form.size.data if submitted else args.get("size")) or ""
    if not text.strip():
        return None
    size = whole(text, 0, PILE_BOUND)
    if size is None:
        message = _("Count the cards in the discard pile: a whole number from 0 up.")
        add_error(form.size, message) if submitted else notices.append(message)
    return size


def _token_dicts(tokens: list[str], notices: list[str]) -> tuple[list[dict[str, Any]], list[int]]:
    """The readable tokens as meld dicts, with the number of each meld in the URL."""
    if len(tokens) > MAX_MELDS:
        notices.append(
            _("At most %(n)s melds are checked at once; the rest were left out.", n=MAX_MELDS)
        )
    dicts, numbers = [], []
    for number, token in enumerate(tokens[:MAX_MELDS], start=1):
        data = token_dict(token)
        if data is None:
            notices.append(
                _(
                    "Meld %(n)s could not be read (“%(token)s”), so it was left out.",
                    n=number,
                    token=token[:40],
                )
            )
        else:
            dicts.append(data)
            numbers.append(number)
    return dicts, numbers


def _place_problems(
    problems: Problems,
    form: CheckerForm,
    submitted: bool,
    notices: list[str],
    numbers: list[int] | None = None,
) -> dict[int, list[str]]:
    """Put each engine problem beside its field (typed form) or in the notices (URL).

    Returns the rows that could not be read, with the problems not tied to one count.
    """
    bad: dict[int, list[str]] = {}
    for problem in problems.items:
        index, _sep, key = problem.field.removeprefix("melds[").partition("].")
        if not problem.field.startswith("melds[") or not index.isdigit():
            notices.append(tr(problem))
            continue
        row = int(index)
        bad.setdefault(row, [])
        if submitted and key in ("naturals", "jokers", "twos"):
            add_error(form.melds[row][key], tr(problem))
        elif submitted:
            bad[row].append(tr(problem))
        else:
            number = numbers[row] if numbers and row < len(numbers) else row + 1
            notices.append(_("Meld %(n)s was left out: %(why)s", n=number, why=tr(problem)))
    return bad


def _rows(form: CheckerForm, bad_rows: dict[int, list[str]], check: MeldCheck) -> list[Row]:
    """Pair each form row with its verdict; rows that could not be read have none."""
    verdicts = iter(check.melds)
    rows = []
    for index, entry in enumerate(form.melds):
        verdict = None if index in bad_rows else next(verdicts, None)
        rank = str(entry.rank.data or "")
        if verdict is not None:  # its reasons in the served language
            verdict = replace(verdict, reasons=tuple(say(r) for r in verdict.reasons))
        rows.append(Row(index, entry.form, rank, verdict, bad_rows.get(index, [])))
    return rows


def _tap_problem(op: str, state: CheckerState) -> str:
    if op.startswith(("add:", "top:")) and len(state.melds) >= MAX_MELDS:
        return _("At most %(n)s melds are checked at once.", n=MAX_MELDS)
    if op.startswith("rules:") and not state.match:
        return _("Those rules are not saved here (they may have been deleted), so nothing changed.")
    return _("That button could not be understood, so nothing changed.")
