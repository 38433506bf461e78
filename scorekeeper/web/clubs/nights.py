"""Club matches: start one with club players, and club night (today's tables, live)."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response, redirect, request, url_for
from flask_wtf import FlaskForm

from ...engine import PRESETS, EngineError, RuleSet, Side
from ...models import Club
from ...services import clubs
from .. import authz
from ..actor import remember_match
from ..i18n import translate_problem as tr
from ..matches import forms as match_forms
from ..matches import stamps
from ..rendering import invalid_status, render, wants_fragment
from . import forms
from .views import bp, club_or_404


class WhenForm(FlaskForm):
    """The date of the match (the season follows from it)."""

    class Meta:
        csrf = False  # the names form beside it carries the token

    played_on = forms.played_on_field()


def _rules(club: Club, rules_id: str | None) -> RuleSet:
    return PRESETS.get(rules_id or "") or PRESETS.get(club.default_rules) or PRESETS["classic"]


@bp.get("/c/<club_id>/matches/new")
@authz.club("scorer")
def new_match(club_id: str) -> Response:
    """Choose rules and seating, then pick club players (or type a new one) per seat."""
    club = club_or_404(club_id)
    start = match_forms.StartForm(request.args)
    if not request.args.get("rules"):
        start.rules.data = club.default_rules
    rules = _rules(club, start.rules.data)
    start.layout.choices = match_forms.layout_choices(rules)
    layout = match_forms.choose_layout(rules, start.layout.data)
    start.layout.data = match_forms.layout_key(layout)
    form = match_forms.new_match_form(layout, deals=rules.deals)
    form.rules.data, form.layout.data = rules.id, match_forms.layout_key(layout)
    return _page(club, start, form, WhenForm(formdata=None), rules, layout)


def _page(
    club: Club, start: Any, form: Any, when: Any, rules: RuleSet, layout: Any, status: int = 200
) -> Response:
    return render(
        "clubs/new_match.html",
        "clubs/_new_match.html",
        status,
        club=club,
        start=start,
        form=form,
        when=when,
        rules=rules,
        layout=layout,
        players=clubs.search_players(club, "", limit=500),
    )


@bp.post("/c/<club_id>/matches")
@authz.club("scorer")
def create_match(club_id: str) -> Response:
    """Start the club match; names not yet in the club are added as players."""
    club = club_or_404(club_id)
    rules = _rules(club, request.form.get("rules"))
    layout = match_forms.parse_layout(request.form.get("layout"))
    if layout is None or layout not in rules.layouts:
        layout = (2, 2) if (2, 2) in rules.layouts else rules.layouts[0]
    form = match_forms.new_match_form(layout, request.form, deals=rules.deals)
    when = WhenForm()
    start = match_forms.StartForm(data={"rules": rules.id})
    start.layout.choices = match_forms.layout_choices(rules)
    start.layout.data = match_forms.layout_key(layout)
    if form.validate() & when.validate():
        sides = [
            Side(
                tuple(form[f"side_{i}_player_{j}"].data for j in range(size)),
                (form[f"side_{i}_name"].data or "") if size > 1 else "",
            )
            for i, size in enumerate(layout)
        ]
        try:
            loaded = clubs.start_club_match(
                club,
                rules,
                sides,
                form.first_dealer.data,
                when.played_on.data,
                deals=form.deals_in_game.data,
            )
        except EngineError as error:
            for problem in error.problems:
                field = _field(form, problem.field)
                field.errors = [*field.errors, tr(problem)]
        else:
            remember_match(loaded.public_id)  # the scorer resumes it from this phone's home
            return redirect(url_for("matches.show", public_id=loaded.public_id), 303)
    return _page(club, start, form, when, rules, layout, invalid_status())


def _field(form: Any, path: str) -> Any:
    """``sides[1].players[0]`` -> that seat's name field; anything else -> first dealer."""
    if path.startswith("sides[") and ".players[" in path:
        side = path[6 : path.index("]")]
        seat = path[path.index(".players[") + 9 : -1]
        return form[f"side_{side}_player_{seat}"]
    if path == "deals":
        return form.deals_in_game
    return form.first_dealer


@bp.get("/c/<club_id>/tonight")
@authz.club("read")
def tonight(club_id: str) -> Response:
    """Club night: today's matches at every table, with live totals."""
    club = club_or_404(club_id)
    day = date.today()
    # live (issue 14): the tables' fragment is answered 304 while no table changed; the
    # page itself is never (it carries flashed messages and a fresh CSRF token)
    etag = stamps.night_etag(club, day)
    unchanged = stamps.not_modified(etag) if wants_fragment() else None
    if unchanged is not None:
        return unchanged
    response = render(
        "clubs/tonight.html",
        "clubs/_tonight.html",
        club=club,
        day=day,
        matches=clubs.matches_on(club, day),
        live_etag=etag,
    )
    return stamps.tagged(response, etag) if wants_fragment() else response
