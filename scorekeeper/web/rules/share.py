"""Rules cards, print views, share links with QR codes, JSON export and import."""

from __future__ import annotations

from flask import abort, flash, make_response, redirect, request, url_for
from flask_babel import gettext as _
from werkzeug import Response

from ...engine import PRESETS, EngineError, Problem, RuleSet
from ...models import SavedRuleSet
from ...services import rule_sets
from .. import authz
from ..i18n import translate_problem as tr
from ..links import public_url, qr_svg
from ..rendering import invalid_status, render
from .forms import ImportForm, ImportSharedForm
from .views import bp, loaded


def share_url(row: SavedRuleSet) -> str | None:
    """The absolute read-only link of a rule set, as another phone opens it (None when
    no trusted address is known: ``web.links``)."""
    return public_url("rules.shared", public_id=row.public_id)


def _preset(preset_id: str) -> RuleSet:
    rules = PRESETS.get(preset_id)
    if rules is None:
        abort(404)
    return rules


@bp.get("/rules/<public_id>")
@authz.anyone
def show(public_id: str) -> Response:
    """A saved rule set's card, with its share link, QR code, export and edit links."""
    row = loaded(public_id)
    url = share_url(row)
    return render(
        "rules/show.html",
        "rules/show.html",
        row=row,
        rules=rule_sets.rule_set_of(row),
        origin=rule_sets.origin_of(row),
        share_url=url,
        qr=qr_svg(url, _("QR code of the link to these rules")) if url else None,
    )


@bp.get("/rules/presets/<preset_id>")
@authz.anyone
def preset(preset_id: str) -> Response:
    """A preset's card; house rules can start from it."""
    rules = _preset(preset_id)
    return render("rules/show.html", "rules/show.html", row=None, rules=rules, origin=rules.id)


@bp.get("/rules/<public_id>/print")
@authz.anyone
def print_view(public_id: str) -> Response:
    """The card alone, laid out for one A4 or Letter page."""
    row = loaded(public_id)
    return render("rules/print.html", "rules/print.html", rules=rule_sets.rule_set_of(row))


@bp.get("/rules/presets/<preset_id>/print")
@authz.anyone
def print_preset(preset_id: str) -> Response:
    """A preset's card alone, for printing."""
    return render("rules/print.html", "rules/print.html", rules=_preset(preset_id))


@bp.get("/rules/<public_id>/export.json")
@authz.anyone
def export(public_id: str) -> Response:
    """Download the rule set as a JSON file (the API's rule-set object)."""
    row = loaded(public_id)
    response = make_response(rule_sets.export_json(row))
    response.mimetype = "application/json"
    filename = f"{rule_sets.rule_set_of(row).id}.json"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/r/<public_id>")
@authz.anyone
def shared(public_id: str) -> Response:
    """The read-only card a share link opens, with a button to import it here."""
    row = rule_sets.load_shared(public_id)
    if row is None:
        abort(404)
    form = ImportSharedForm(data={"name": row.name})
    return _shared_page(row, form)


def _shared_page(row: SavedRuleSet, form: ImportSharedForm, status: int = 200) -> Response:
    rules = rule_sets.rule_set_of(row)
    return render("rules/shared.html", "rules/shared.html", status, row=row, rules=rules, form=form)


@bp.post("/r/<public_id>/import")
@authz.signed_in
def import_shared(public_id: str) -> Response:
    """Copy a shared rule set into this installation (under the name given)."""
    row = rule_sets.load_shared(public_id)
    if row is None:
        abort(404)
    form = ImportSharedForm()
    if form.validate():
        try:
            copy = rule_sets.import_rules(
                dict(row.rules), form.name.data, account_id=authz.account().id
            )
        except EngineError as error:
            form.name.errors = [tr(p) for p in error.problems]
        else:
            flash(_("Imported %(name)s.", name=copy.name), "success")
            return redirect(url_for(".show", public_id=copy.public_id), 303)
    return _shared_page(row, form, invalid_status())


@bp.route("/rules/import", methods=["GET", "POST"])
@authz.signed_in
def import_file() -> Response:
    """Import a rule set from a JSON file or pasted JSON; nothing is saved if it is invalid."""
    form = ImportForm()
    general: list[str] = []
    if request.method == "POST" and form.validate():
        upload = form.file.data
        raw = upload.read(rule_sets.MAX_IMPORT_BYTES + 1) if upload and upload.filename else b""
        try:
            if raw:
                data = rule_sets.parse_json(raw)
            elif (form.text.data or "").strip():
                data = rule_sets.parse_json(form.text.data)
            else:
                raise rule_sets.ImportProblem(
                    [Problem("file", _("Choose a file or paste a rule set."))]
                )
            name = (form.name.data or "").strip() or None
            row = rule_sets.import_rules(data, name, account_id=authz.account().id)
        except rule_sets.ImportProblem as error:
            target = form.file if raw else form.text
            target.errors = [tr(p) for p in error.problems]
        except EngineError as error:
            for problem in error.problems:
                if problem.field == "name":
                    form.name.errors = [*form.name.errors, tr(problem)]
                else:
                    general.append(f"{problem.field}: {tr(problem)}")
        else:
            flash(_("Imported %(name)s.", name=row.name), "success")
            return redirect(url_for(".show", public_id=row.public_id), 303)
    elif request.method == "POST":
        general = list(form.csrf_token.errors) if "csrf_token" in form else []
    status = invalid_status() if request.method == "POST" else 200
    return render("rules/import.html", "rules/import.html", status, form=form, general=general)
