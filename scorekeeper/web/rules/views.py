"""The rules area: house rules listed, edited with a live rules-card preview, and saved.

Cards, print views, share links, QR codes, export and import live in ``share.py`` on the
same blueprint.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext as _
from werkzeug import Response

from ...database import reading_only
from ...engine import PRESETS, EngineError, RuleSet
from ...models import SavedRuleSet
from ...services import rule_sets
from .. import authz
from ..errors import KEEPS_TYPED
from ..i18n import translate_problem as tr
from ..inputs import number_or_none
from ..rendering import invalid_status, render, wants_fragment
from .card import rules_card
from .formdata import add_blank_rows, add_row, formdata_of, set_layout_choices
from .forms import RuleSetForm
from .mapping import apply_problems, form_to_dict, saved_now

bp = Blueprint("rules", __name__)
bp.add_app_template_global(rules_card, "rules_card")


def loaded(public_id: str) -> SavedRuleSet:
    """The saved rule set of a URL, or 404."""
    row = rule_sets.load(public_id)
    if row is None:
        abort(404)
    return row


@bp.get("/rules")
@authz.anyone
def index() -> Response:
    """The presets and the saved house rules, each with its card; start a new rule set."""
    return render(
        "rules/index.html",
        "rules/index.html",
        presets=list(PRESETS.values()),
        saved=rule_sets.saved(),
    )


@bp.get("/rules/new")
@authz.anyone
def new() -> Response:
    """The editor, filled from a preset or a saved rule set (``?from=<origin>``)."""
    choice = rule_sets.find(request.args.get("from") or "classic")
    if choice is None:
        abort(404)
    form = RuleSetForm(data=formdata_of(choice.rules))
    name = choice.name
    form.name.data = (
        _("%(name)s (copy)", name=name) if choice.saved else _("%(name)s house rules", name=name)
    )
    set_layout_choices(form, choice.rules)
    add_blank_rows(form)
    return _editor(form, preview=choice.rules)


@bp.post("/rules")
@authz.signed_in
def create() -> Response:
    """Save a new rule set (or add a row to one of its lists and show the form again)."""
    return _save(None)


@bp.post("/rules/draft")
@authz.anyone  # saves nothing
def draft() -> Response:
    """The editor of a visitor not logged in, posted: a row added, or, on Save, what was
    typed shown again with what to do (log in elsewhere, then save here again). Before,
    both went to log in and everything typed was lost."""
    reading_only()
    form, added = _posted()
    if added:
        return _editor(form, preview=_preview(form)[0])
    rules, general = _checked(form)
    if authz.account() is None:
        needs = _(
            "Saving house rules needs an account: log in (or sign up) in another tab, then"
            " save here again. Nothing typed here is lost."
        )
        return _editor(form, preview=rules, general=[needs, *general], status=401)
    return _editor(form, preview=rules, general=general)


def typed_again() -> Response | None:
    """The editor again with what was typed, when the form's token no longer holds (the
    visitor logged in or out in another tab, as the editor itself advises): its next save
    carries a token that does. None for rules the visitor may not change."""
    row = None
    if request.endpoint == "rules.edit":
        row = rule_sets.load((request.view_args or {}).get("public_id", ""))
        if row is None or not authz.may_edit_rule_set(row):
            return None
    form, _added = _posted()
    again = _(
        "This page was open too long, or you logged in or out meanwhile: nothing typed here"
        " is lost. Check it and save again."
    )
    return _editor(form, row=row, preview=_preview(form)[0], general=[again], status=400)


for _endpoint in ("rules.create", "rules.draft", "rules.edit"):
    KEEPS_TYPED[_endpoint] = typed_again


@bp.route("/rules/<public_id>/edit", methods=["GET", "POST"])
@authz.rule_set_owner
def edit(public_id: str) -> Response:
    """Change a saved rule set; matches that started with it keep their copy."""
    row = loaded(public_id)
    if request.method == "POST":
        return _save(row)
    rules = rule_sets.rule_set_of(row)
    form = RuleSetForm(data=formdata_of(rules))
    form.version.data = str(row.version)
    set_layout_choices(form, rules)
    add_blank_rows(form)
    return _editor(form, row=row, preview=rules)


def _posted() -> tuple[RuleSetForm, bool]:
    """The editor's form as posted, with a row added when that is what was asked (and
    whether it was)."""
    form = RuleSetForm()
    set_layout_choices(form)
    adding = request.form.get("add")
    if adding:
        add_row(form, adding)
    return form, bool(adding)


def _checked(form: RuleSetForm) -> tuple[RuleSet | None, list[str]]:
    """The rule set typed (or None) and its problems, put beside their fields; those that
    fit no field are returned."""
    rules, problems, where = _preview(form)
    form.validate()
    return rules, apply_problems(form, problems, where)


def _save(row: SavedRuleSet | None) -> Response:
    form, added = _posted()
    if added:
        return _editor(form, row=row, preview=_preview(form)[0])
    general: list[str] = []
    if form.validate():
        data, where = form_to_dict(form)
        try:
            if row is None:
                row = rule_sets.create(data, account_id=authz.account().id)
            else:
                rule_sets.update(row, data, number_or_none(form.version.data))
        except rule_sets.StaleRuleSetError as error:
            general = [tr(p) for p in error.problems]
            row = rule_sets.still_there(row)
            if row is None:  # deleted meanwhile: saving again makes them anew
                form.version.data = ""
                general = [_("These rules were deleted meanwhile; saving makes them anew.")]
            else:
                form.version.data = str(row.version)
                typed = rule_sets.prepare(data).to_dict()  # it passed, or it was not stale
                general += apply_problems(form, saved_now(typed, row.rules, where), where)
                general.append(
                    _(
                        "Beside each field that differs is what is saved now;"
                        " saving again keeps what you see."
                    )
                )
        except EngineError as error:
            general = apply_problems(form, error.problems, where)
        else:
            flash(_("Saved %(name)s.", name=row.name), "success")
            return redirect(url_for(".show", public_id=row.public_id), 303)
    else:
        general = list(form.csrf_token.errors) if "csrf_token" in form else []
    return _editor(form, row=row, general=general, status=invalid_status())


def _editor(
    form: RuleSetForm,
    *,
    row: SavedRuleSet | None = None,
    preview: RuleSet | None = None,
    general: list[str] | None = None,
    status: int = 200,
) -> Response:
    if not hasattr(form, "group_errors"):
        form.group_errors = {}
    return render(
        "rules/edit.html",
        "rules/edit.html",
        status,
        form=form,
        row=row,
        preview=preview,
        problems=[],
        general=general or [],
    )


def _preview(form: RuleSetForm) -> tuple[RuleSet | None, list[Any], dict[str, Any]]:
    """The rule set typed so far, or the engine's problems with it and the field map."""
    data, where = form_to_dict(form)
    try:
        return rule_sets.prepare(data), [], where
    except EngineError as error:
        return None, list(error.problems), where


def _labelled(problems: list[Any], where: dict[str, Any]) -> list[str]:
    """Problems as sentences that name their field (the preview sits apart from the form)."""
    lines = []
    for problem in problems:
        field = where.get(problem.field)
        label = field.label.text if field is not None else ""
        lines.append(f"{label}: {tr(problem)}" if label else tr(problem))
    return lines


@bp.post("/rules/preview")
@authz.anyone  # saves nothing
def preview() -> Response:
    """The rules card of what the editor holds; saves nothing.

    htmx posts here on every change and gets the card alone; the Preview button (no
    JavaScript) posts here too and gets the editor back with the card and field errors.
    """
    reading_only()
    form = RuleSetForm()
    set_layout_choices(form)
    if wants_fragment():
        rules, problems, where = _preview(form)
        lines = _labelled(problems, where)
        return render("rules/_preview.html", "rules/_preview.html", preview=rules, problems=lines)
    public_id = request.args.get("rule_set")
    row = rule_sets.load(public_id) if public_id else None
    rules, general = _checked(form)
    return _editor(form, row=row, preview=rules, general=general)


@bp.route("/rules/<public_id>/delete", methods=["GET", "POST"])
@authz.rule_set_owner
def delete(public_id: str) -> Response:
    """Confirm, then delete a saved rule set (matches keep their own copy)."""
    row = loaded(public_id)
    if request.method == "POST":
        name = row.name
        rule_sets.delete(row)
        flash(_("Deleted %(name)s. Matches played with it keep their rules.", name=name), "success")
        return redirect(url_for(".index"), 303)
    return render("rules/delete.html", "rules/delete.html", row=row)


from . import share  # noqa: E402, F401  (its routes live on this blueprint)
