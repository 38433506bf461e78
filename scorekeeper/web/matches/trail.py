"""The audit trail's two actions on the match page: restore a removed deal, name this phone.

Both are real forms (CSRF, post/redirect/get) with htmx on top, like the other match
actions: an htmx post answers with the fresh fragment, an invalid plain post with the
page and its message (422).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from werkzeug import Response
from wtforms import StringField
from wtforms.validators import DataRequired, Length

from ...engine import EngineError
from ...services import matches as service
from ...services import restore as restoring
from .. import authz
from ..actor import NAME_LENGTH, current_actor, name_device
from ..i18n import translate_problem as tr
from ..inputs import number_or_none
from ..rendering import invalid_status, render, wants_fragment
from .context import match_context
from .fields import no_control_characters

bp = Blueprint("trail", __name__)


class DeviceNameForm(FlaskForm):
    """ "Name this phone": how the history names what this device changes."""

    name = StringField(
        _l("Name this phone"),
        [
            DataRequired(_l("Type a name, such as “Ann’s phone”.")),
            Length(max=NAME_LENGTH, message=_l("At most %(max)d characters.")),
            no_control_characters,
        ],
        filters=[lambda text: text.strip() if isinstance(text, str) else text],
        render_kw={"autocomplete": "off", "maxlength": NAME_LENGTH},
    )


def device_form(data: Any = None) -> DeviceNameForm:
    """The naming form, empty, or filled from a post."""
    return DeviceNameForm(formdata=data) if data is not None else DeviceNameForm(formdata=None)


def _loaded(public_id: str) -> service.LoadedMatch:
    loaded = service.load_match(public_id)
    if loaded is None:
        abort(404)
    return loaded


@bp.post("/m/<public_id>/deals/<int:number>/restore")
@authz.match("write")
def restore(public_id: str, number: int) -> Response:
    """Bring a removed deal back (only as the next deal, with nothing entered in its place)."""
    loaded = _loaded(public_id)
    event_id = number_or_none(request.form.get("event"))
    if event_id is None:
        abort(404)
    try:
        loaded, _saved = restoring.restore_deal(loaded, number, event_id, current_actor())
    except restoring.NoSuchRemoval:
        abort(404)
    except EngineError as error:
        loaded = _loaded(public_id)
        errors = [tr(p) for p in error.problems]
        context = match_context(loaded, history_errors=errors)
        return render("matches/show.html", "matches/_match.html", invalid_status(), **context)
    message = _("Deal %(n)s is back, as it was before it was removed.", n=number)
    if wants_fragment():
        context = match_context(loaded, history_notice=message)
        return render("matches/show.html", "matches/_match.html", **context)
    flash(message, "info")
    return redirect(url_for("matches.show", public_id=public_id), 303)


@bp.post("/m/<public_id>/device")
@authz.match("write")  # offered where this phone may change the match
def name_this_phone(public_id: str) -> Response:
    """Remember this device's name (in its cookie) for the history; back to the match."""
    loaded = _loaded(public_id)
    form = device_form(request.form)
    if not form.validate():
        context = match_context(loaded, device_form=form)
        return render("matches/show.html", "matches/_device_name.html", invalid_status(), **context)
    device = name_device(form.name.data)
    message = _("This phone is now called “%(name)s”.", name=device.name)
    if wants_fragment():
        context = match_context(loaded, device_notice=message)
        return render("matches/show.html", "matches/_device_name.html", **context)
    flash(message, "info")
    return redirect(url_for("matches.show", public_id=public_id), 303)
