"""The match area: start a match, enter deals, correct them, see the score."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug import Response

from ...database import reading_only, reads_before_writing
from ...engine import EngineError, RuleSet, Side
from ...extensions import db
from ...models import Club
from ...services import clubs, rule_sets
from ...services import matches as service
from .. import authz, page_cache, storage
from ..actor import current_actor, current_device, remember_match
from ..i18n import translate_problem as tr
from ..inputs import number_or_none
from ..rendering import invalid_status, render, wants_fragment
from . import forms
from .conflict import conflict_context
from .context import (
    corrected_announcement,
    match_context,
    preview_context,
    refused_announcement,
    removed_announcement,
    saved_announcement,
    submission_key,
)

bp = Blueprint("matches", __name__)


#: What a submission key the deal form was given can look like (it fits its column).
SUBMISSION_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A kept match page's deal form gets a submission key of its own for every request.
SUBMISSION: page_cache.Fresh = (
    "\x1fsubmission-key\x1f",
    submission_key,
    service.new_submission_key,
)


def _loaded(public_id: str, *, lock: bool = False) -> service.LoadedMatch:
    """The match of the URL, or 404; ``lock``: for a request that changes it, read under
    the match's row lock (held until the request's transaction ends)."""
    loaded = service.load_match(public_id, for_update=lock)
    if loaded is None:
        abort(404)
    return loaded


def _choice(origin: str | None) -> rule_sets.RuleChoice:
    """A preset by id or saved house rules by ``saved:<public_id>``; classic otherwise."""
    return rule_sets.find(origin) or rule_sets.find("classic")  # type: ignore[return-value]


@bp.get("/matches/new")
@authz.anyone
def new() -> Response | str:
    """Choose the rules and the seating, then type the names (one page, two steps)."""
    start = forms.StartForm(request.args)
    choice = _choice(start.rules.data)
    rules = choice.rules
    start.layout.choices = forms.layout_choices(rules)
    layout = forms.choose_layout(rules, start.layout.data)
    start.layout.data = forms.layout_key(layout)
    form = forms.new_match_form(layout, deals=rules.deals)
    form.rules.data, form.layout.data = choice.origin, forms.layout_key(layout)
    return _new_page(start, form, rules, layout)


def _new_page(
    start: Any, form: Any, rules: RuleSet, layout: tuple[int, ...], status: int = 200
) -> Response:
    return render(
        "matches/new.html",
        "matches/_new.html",
        status,
        start=start,
        form=form,
        rules=rules,
        layout=layout,
        known_names=service.known_names(),
    )


@bp.post("/matches")
@authz.anyone  # casual play needs no account
def create() -> Response:
    """Save a new match and open it."""
    chosen = rule_sets.find(request.form.get("rules"))
    choice = chosen or _choice(None)
    rules = choice.rules
    layout = forms.parse_layout(request.form.get("layout"))
    if layout is None:
        abort(400)
    form = forms.new_match_form(layout, request.form, deals=rules.deals)
    start = forms.StartForm(data={"rules": choice.origin, "layout": forms.layout_key(layout)})
    start.layout.choices = forms.layout_choices(rules)
    if chosen is None:
        # The saved rules were deleted (or the form was made by hand) meanwhile.
        start.rules.errors = [_("These rules are not available any more: choose again.")]
        form.validate()
    elif form.validate():
        sides = [
            Side(
                tuple(form[f"side_{i}_player_{j}"].data for j in range(size)),
                form[f"side_{i}_name"].data or "" if size > 1 else "",
            )
            for i, size in enumerate(layout)
        ]
        try:
            loaded = service.start_match(
                rules, choice.origin, sides, form.first_dealer.data, deals=form.deals_in_game.data
            )
        except EngineError as error:
            for problem in error.problems:
                field = _new_match_field(form, start, problem.field)
                field.errors = [*field.errors, tr(problem)]
        else:
            remember_match(loaded.public_id)  # listed on this browser's home page
            return redirect(url_for(".show", public_id=loaded.public_id), 303)
    return _new_page(start, form, rules, layout, invalid_status())


def _new_match_field(form: Any, start: Any, path: str) -> Any:
    """``sides[1].players[0]`` -> the name field; ``sides`` (a layout the rules do not
    allow) -> the players select; anything else -> the first dealer."""
    if path.startswith("sides[") and ".players[" in path:
        side = path[6 : path.index("]")]
        player = path[path.index(".players[") + 9 : -1]
        return form[f"side_{side}_player_{player}"]
    if path == "sides":
        return start.layout
    if path == "deals":
        return form.deals_in_game
    return form.first_dealer


@bp.get("/m/<public_id>")
@authz.match("read")
def show(public_id: str) -> Response:
    """The match page: totals, deals, current deal, its entry form, the rules card."""
    club = g.get("match_club")
    if club is not None and not wants_fragment():
        # A club's match: kept until the club changes (web/page_cache.py), per account.
        # Its scorers are logged in: their history names the account, not this phone,
        # whose cookie is still made here; the form's keys are new for every request.
        if g.get("match_writable", True):
            current_device()
        return page_cache.page(
            ("match", public_id),
            club.data_version,
            "matches/_match.html",
            lambda: match_context(_loaded(public_id)),
            lambda title, body: render(
                "matches/show.html", "matches/_match.html", title=title, body=body
            ),
            title=lambda context: " · ".join(context["labels"]),
            fresh=(SUBMISSION,),
        )
    loaded = _loaded(public_id)
    if loaded.row.club_id is None:
        remember_match(public_id)  # a casual match joins this browser's home page
    return render("matches/show.html", "matches/_match.html", **match_context(loaded))


@bp.get("/m/<public_id>/rules")
@authz.match("read")
def rules(public_id: str) -> str:
    """The rules card of the match: its rules as they were frozen when it started (a rule
    set edited later does not change it). Its own page, so the match page stays light on
    the wire; the service worker keeps it with the match page for use offline."""
    loaded = _loaded(public_id)
    game = loaded.game
    return render_template(
        "matches/rules.html",
        match=loaded.row,
        rules=game.rules,
        labels=[side.label for side in game.sides],
    )


@authz.match("write")  # checked again, reading only: the failure may have come first
def _typed_again(message: str, public_id: str, number: int | None = None) -> Response:
    """The deal form again with what was typed, when the server could not store it."""
    loaded = _loaded(public_id)
    game = loaded.game
    form = forms.deal_form(game.rules, len(game.sides), request.form)
    context = match_context(loaded, form=form, general_errors=[message], editing=number)
    if number is not None:
        return render("matches/edit.html", "matches/_edit.html", storage.status(), **context)
    return render("matches/show.html", "matches/_match.html", storage.status(), **context)


@bp.post("/m/<public_id>/deals")
@reads_before_writing  # the save checks the match it read when its turn comes
@storage.keeps_typed(_typed_again)  # the authorization check reads too
@authz.match("write")
def record(public_id: str) -> Response:
    """Save the next deal (once, even if the form is sent twice)."""
    loaded = _loaded(public_id, lock=True)
    game = loaded.game
    form = forms.deal_form(game.rules, len(game.sides), request.form)
    general: list[str] = []
    conflict = None
    if form.validate():
        entries = forms.entries_from_form(form, game.rules)
        expected = number_or_none(form.expected_deal.data)
        key = form.submission_key.data or ""
        if not SUBMISSION_KEY.fullmatch(key):  # only a hand-made post has another key
            key = service.new_submission_key()
        try:
            loaded, _saved = service.record_deal(
                loaded, entries, key, expected, actor=current_actor()
            )
        except service.StaleError as error:
            # Show the deals as they are now; the typed numbers stay, aimed at the next deal,
            # and beside the deal that was entered first (the conflict view, issue 14).
            loaded = _loaded(public_id)
            form.expected_deal.data = str(loaded.game.current_deal or "")
            general = forms.apply_problems(form, error.problems)
            conflict = conflict_context(loaded, expected, "entered")
        except EngineError as error:
            general = forms.apply_problems(form, error.problems)
        else:
            # Saved: the answer only reads from here on (on SQLite a plain BEGIN, not a
            # second turn at the write lock behind every phone saving meanwhile).
            reading_only()
            announcement = saved_announcement(loaded, expected or len(loaded.game.deals))
            if wants_fragment():
                context = match_context(loaded, outcome="saved", announcement=announcement)
                return render("matches/show.html", "matches/_match.html", **context)
            flash(announcement, "saved")
            return redirect(url_for(".show", public_id=public_id), 303)
    elif game.current_deal is not None:
        general = forms.apply_problems(
            form, forms.problems_beside_errors(form, game, game.current_deal)
        )
    context = match_context(
        loaded, form=form, general_errors=general, outcome="refused", conflict=conflict
    )
    context["announcement"] = refused_announcement(context)
    return render("matches/show.html", "matches/_match.html", invalid_status(), **context)


@bp.post("/m/<public_id>/preview")
@authz.match("write")
def preview(public_id: str) -> Response:
    """Each side's deal score for the numbers typed so far; saves nothing."""
    reading_only()
    loaded = _loaded(public_id)
    game = loaded.game
    deal = number_or_none(request.args.get("deal")) or game.current_deal or game.rules.deals
    if not 1 <= deal <= game.rules.deals:
        abort(404)
    form = forms.deal_form(game.rules, len(game.sides), request.form)
    preview = preview_context(game, form, deal)
    if wants_fragment():
        return render("matches/_preview.html", "matches/_preview.html", **preview)
    editing = deal <= len(game.deals)
    context = match_context(loaded, form=form, preview=preview, editing=deal if editing else None)
    page = "matches/edit.html" if editing else "matches/show.html"
    return render(page, page, **context)


@bp.get("/m/<public_id>/deals/<int:number>/edit")
@authz.match("write")
def edit(public_id: str, number: int) -> Response:
    """Correct an earlier deal."""
    loaded = _deal_to_correct(public_id, number)
    context = match_context(loaded, editing=number)
    return render("matches/edit.html", "matches/_edit.html", **context)


@bp.post("/m/<public_id>/deals/<int:number>")
@storage.keeps_typed(_typed_again)  # outermost: the authorization check reads too
@authz.match("write")
def correct(public_id: str, number: int) -> Response:
    """Save a corrected deal; the totals follow. ``reopen=1`` (the conflict view's "put
    mine on top" after the other phone's deal finished the match) reopens it first."""
    if request.form.get("reopen") == "1":
        found = _loaded(public_id, lock=True)
        if _closed(found):
            service.reopen(found, actor=current_actor())
    loaded = _deal_to_correct(public_id, number, lock=True)
    game = loaded.game
    form = forms.deal_form(game.rules, len(game.sides), request.form)
    general: list[str] = []
    if form.validate():
        entries = forms.entries_from_form(form, game.rules)
        try:
            loaded = service.correct_deal(
                loaded, number, entries, number_or_none(form.version.data), actor=current_actor()
            )
        except service.StaleError as error:
            # Someone else's correction won: theirs beside this phone's (issue 14); the form
            # keeps what was typed, with the fresh version, so saving it puts it on top.
            loaded = _loaded(public_id)
            conflict = conflict_context(loaded, number, "changed")
            form.version.data = str(loaded.row.deals[number - 1].version)
            general = [tr(p) for p in error.problems]
            context = match_context(
                loaded, form=form, general_errors=general, editing=number, conflict=conflict
            )
            return render("matches/edit.html", "matches/_edit.html", invalid_status(), **context)
        except EngineError as error:
            general = forms.apply_problems(form, error.problems)
        else:
            # said on the match page it goes back to (it said nothing: the totals changed
            # without a word, for a screen reader)
            flash(corrected_announcement(loaded, number), "saved")
            return redirect(url_for(".show", public_id=public_id), 303)
    else:
        general = forms.apply_problems(form, forms.problems_beside_errors(form, game, number))
    # refused: the page's script moves the eye and the focus to the first problem
    context = match_context(
        loaded, form=form, general_errors=general, editing=number, outcome="refused"
    )
    return render("matches/edit.html", "matches/_edit.html", invalid_status(), **context)


@bp.route("/m/<public_id>/deals/<int:number>/remove", methods=["GET", "POST"])
@authz.match("write")
def remove(public_id: str, number: int) -> Response:
    """Confirm, then remove the last deal."""
    loaded = _loaded(public_id, lock=request.method == "POST")
    if number != len(loaded.row.deals):
        abort(404)
    if _closed(loaded):
        return _back_to_match(public_id)
    if request.method == "POST":
        loaded = service.remove_last_deal(loaded, number, actor=current_actor())
        flash(removed_announcement(loaded, number), "saved")
        return redirect(url_for(".show", public_id=public_id), 303)
    context = match_context(loaded, removing=number)
    return render("matches/remove.html", "matches/remove.html", **context)


@bp.post("/m/<public_id>/rematch")
@authz.match("write")
def rematch(public_id: str) -> Response:
    """A finished match's rematch: the same players in the same seats, the same rules (the
    match's frozen copy, its number of deals too), dealt first by whoever would deal next;
    a club match's rematch is a club match played today. One rematch a match: a second
    tap, or another phone, opens the rematch already started (the match's row lock
    makes two at once take turns)."""
    loaded = _loaded(public_id, lock=True)
    game, row = loaded.game, loaded.row
    if not game.finished:
        return redirect(url_for(".show", public_id=public_id), 303)
    started = service.rematch_of(row)
    if started is None:
        first_dealer = (game.first_dealer + len(game.deals)) % game.player_count
        club = db.session.get(Club, row.club_id) if row.club_id is not None else None
        deals = game.rules.deals
        if club is not None:
            new = clubs.start_club_match(
                club, game.rules, game.sides, first_dealer, date.today(), deals, row.id
            )
        else:
            new = service.start_match(
                game.rules,
                row.rules_origin,
                game.sides,
                first_dealer,
                deals=deals,
                rematch_of=row.id,
            )
        started = new.public_id
    remember_match(started)  # on this browser's home page, like the match it follows
    return redirect(url_for(".show", public_id=started), 303)


@bp.post("/m/<public_id>/reopen")
@authz.match("write")
def reopen(public_id: str) -> Response:
    """Let a finished match's deals be corrected."""
    service.reopen(_loaded(public_id, lock=True), actor=current_actor())
    return redirect(url_for(".show", public_id=public_id), 303)


def _deal_to_correct(public_id: str, number: int, *, lock: bool = False) -> service.LoadedMatch:
    """The match of a played deal that may be corrected now (404, or back to a finished
    match that has not been reopened)."""
    loaded = _loaded(public_id, lock=lock)
    if not 1 <= number <= len(loaded.row.deals):
        abort(404)
    if _closed(loaded):
        abort(_back_to_match(public_id))
    return loaded


def _closed(loaded: service.LoadedMatch) -> bool:
    """A finished match is corrected only after a deliberate "Correct a deal"."""
    return loaded.row.finished and not loaded.row.reopened


def _back_to_match(public_id: str) -> Response:
    flash(_("This match is finished: tap “Correct a deal” to reopen it first."), "info")
    return redirect(url_for(".show", public_id=public_id), 303)
