"""The conflict view (issue 14): when this phone's deal or correction loses a race to
another phone's, show both side by side, and let the table choose.

"Keep theirs" goes back to the match as it is; "Put mine on top" posts this phone's typed
numbers as a correction of that deal, carrying the version the view was made from (so a
third change meanwhile is a new conflict, never a silent overwrite). The typed numbers
travel in the view's own form: nothing typed is dropped until someone chooses.
"""

from __future__ import annotations

import re
from typing import Any

from flask import request

from ...services.match_reads import LoadedMatch
from . import forms
from .context import preview_context
from .history import history_view

#: The deal form's fields that hold what was typed (the guards are not carried over).
TYPED = re.compile(r"went_out|sides-\d{1,2}-[a-z0-9_]{1,40}")


def conflict_context(loaded: LoadedMatch, number: int | None, kind: str) -> dict[str, Any] | None:
    """What the conflict view shows for deal ``number`` as stored now, against the deal
    form this request posted; None when that deal is not played (nothing to compare).

    ``kind``: "entered" (a new deal lost to one saved first) or "changed" (a correction
    lost to another correction).
    """
    game = loaded.game
    if number is None or not 1 <= number <= len(game.deals):
        return None
    mine_form = forms.deal_form(game.rules, len(game.sides), request.form)
    mine = preview_context(game, mine_form, number)
    theirs = game.deals[number - 1].score.sides
    typed = [
        (name, value)
        for name, value in request.form.items(multi=True)
        if TYPED.fullmatch(name) and len(value) <= 20
    ]
    same = mine["breakdowns"] is not None and [b.total for b in mine["breakdowns"]] == [
        b.total for b in theirs
    ]
    return {
        "kind": kind,
        "number": number,
        "theirs": theirs,
        "who": history_view(loaded).by.get(number, ""),
        "mine": mine["breakdowns"],
        "mine_problems": mine["problems"],
        "same": same,
        "typed": typed,
        "version": loaded.row.deals[number - 1].version,
        "next_deal": game.current_deal if kind == "entered" else None,
    }
