"""One match, every phone at the table (issue 14): the share panel (the scoring link and
the onlooker link, each with its QR code), the live fragment every phone asks for every
few seconds, and the read-only onlooker page.

Live answers are conditional: the phone sends the ETag it has (``If-None-Match``) and is
answered ``304`` while the match is unchanged. Versions come from the database
(``services.live``), so any number of server processes answer alike.

The onlooker link carries the match's own random token (``Match.onlooker_token``), never
its public id: its pages hold no form, no link to the match page, and answer only GET.
"""

from __future__ import annotations

from flask import Blueprint, abort, g, make_response, render_template
from flask_babel import gettext as _
from sqlalchemy import select
from werkzeug import Response

from ...extensions import db
from ...models import Match as MatchRow
from ...services import live
from ...services import matches as service
from .. import authz
from ..links import public_url, qr_svg
from ..rendering import render
from . import stamps
from .context import match_context, saved_announcement

bp = Blueprint("live", __name__)


def _match_id(public_id: str) -> int:
    match_id = db.session.scalar(select(MatchRow.id).where(MatchRow.public_id == public_id))
    if match_id is None:
        abort(404)
    return match_id


@bp.get("/m/<public_id>/live")
@authz.match("read")
def match_live(public_id: str) -> Response:
    """The match's scoreboard and deals, for a phone already on the match page; ``304``
    while nothing changed."""
    etag = stamps.match_etag(_match_id(public_id))
    unchanged = stamps.not_modified(etag)
    if unchanged is not None:
        return unchanged
    loaded = service.load_match(public_id)
    if loaded is None:  # pragma: no cover - a match is never deleted
        abort(404)
    context = match_context(loaded)
    # said aloud where screen readers listen (the page's #announce): what changed
    number = len(loaded.game.deals)
    said = saved_announcement(loaded, number) if number else ""
    context["live_announcement"] = _("Changed on another phone. %(what)s", what=said)
    response = make_response(render_template("matches/_live.html", **context))
    return stamps.tagged(response, etag)


@bp.get("/m/<public_id>/share")
@authz.match("write")  # offered where this phone may change the match
def share(public_id: str) -> Response:
    """ "Score on another phone": the match's link and QR code, and its onlooker link."""
    loaded = service.load_match(public_id)
    if loaded is None:
        abort(404)
    row = loaded.row
    scoring = public_url("matches.show", public_id=row.public_id)
    watching = public_url("live.onlooker", token=row.onlooker_token)
    response = render(
        "matches/share.html",
        "matches/_share.html",
        match=row,
        labels=[side.label for side in loaded.game.sides],
        scoring_url=scoring,
        scoring_qr=qr_svg(scoring, _("QR code of the link to score this match"))
        if scoring
        else None,
        watching_url=watching,
        watching_qr=qr_svg(watching, _("QR code of the onlooker link")) if watching else None,
    )
    response.headers["Cache-Control"] = "private, no-store"  # the links are the keys
    return response


def _watched(token: str) -> service.LoadedMatch:
    """The match of an onlooker link, read-only for this request (404 otherwise)."""
    row = live.match_by_onlooker_token(token)
    if row is None:
        abort(404)
    g.match_writable = False  # no Edit buttons, no device cookie, nothing to change
    loaded = service.load_match(row.public_id)
    if loaded is None:  # pragma: no cover - found a moment ago; matches are never deleted
        abort(404)
    return loaded


def _onlooker_context(loaded: service.LoadedMatch, token: str) -> dict[str, object]:
    context = match_context(loaded)
    context["can_edit"] = False
    context["onlooker_token"] = token
    return context


@bp.get("/watch/<token>")
@authz.anyone  # the token is the key: whoever has the link may watch
def onlooker(token: str) -> Response:
    """A large, read-only scoreboard for a phone propped on the table or a TV."""
    context = _onlooker_context(_watched(token), token)
    response = make_response(render_template("matches/onlooker.html", **context))
    response.headers["Cache-Control"] = "private, no-cache"
    response.headers["X-Robots-Tag"] = "noindex"
    return response


@bp.get("/watch/<token>/live")
@authz.anyone
def onlooker_live(token: str) -> Response:
    """The onlooker page's scoreboard and deals; ``304`` while nothing changed."""
    row = live.match_by_onlooker_token(token)
    if row is None:
        abort(404)
    g.match_writable = False
    etag = stamps.match_etag(row.id)
    unchanged = stamps.not_modified(etag)
    if unchanged is not None:
        return unchanged
    context = _onlooker_context(_watched(token), token)
    response = make_response(render_template("matches/_onlooker_live.html", **context))
    return stamps.tagged(response, etag)
