"""The minimum-meld checker: "is this enough to go down?", card by card."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, redirect, request, url_for
from werkzeug import Response

from .. import authz
from ..rendering import invalid_status, render, wants_fragment
from .context import resolve
from .page import RANK_LABELS
from .state import BLOCKING_TOPS, RANKS

bp = Blueprint("meld", __name__)


@bp.get("/meld")
@authz.anyone
def check() -> Response:
    """The checker: one GET URL holds the whole state; every tap is a GET of the next.

    A sent form or a tapped button is answered with the canonical state URL: a redirect
    without JavaScript, an ``HX-Push-Url`` with htmx, so back, forward and a shared link
    all show the same check.
    """
    page = resolve(request.args)
    # ":" stays readable in a shared link: ?rules=saved:AbC and not ?rules=saved%3AAbC
    url = f"{url_for('.check')}?{urlencode(page.state.query(), safe=':')}"
    settled = page.changed and not page.invalid
    if settled and not wants_fragment():
        return redirect(url, 303)
    status = invalid_status() if page.invalid else 200
    response = render(
        "meld/check.html",
        "meld/_checker.html",
        status,
        checker=page,
        rules=page.rules,
        rank_labels=RANK_LABELS,
        ranks=RANKS,
        blocking_tops=BLOCKING_TOPS,
    )
    if wants_fragment():
        response.headers["HX-Push-Url"] = url if settled else "false"
    return response
