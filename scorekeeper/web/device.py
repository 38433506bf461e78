"""This browser's own matches: the public ids it started or opened, in a signed cookie.

The home page lists these, never everyone's matches. The cookie is long-lived, HttpOnly,
SameSite=Lax and signed with the app's secret (a hand-made list is ignored); it holds no
account and is not the session cookie, so casual play stays account-free.
"""

from __future__ import annotations

from flask import current_app, request
from itsdangerous import BadSignature, URLSafeSerializer
from werkzeug import Response

from ..models import is_public_id

COOKIE = "scorekeeper_matches"
KEEP = 50  # the newest ids this browser keeps
MAX_AGE = 400 * 24 * 3600  # browsers cap cookies at 400 days


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="device-matches")


def device_matches() -> list[str]:
    """The public ids of this browser's matches, most recently opened first."""
    raw = request.cookies.get(COOKIE)
    if not raw:
        return []
    try:
        ids = _serializer().loads(raw)
    except BadSignature:
        return []
    if not isinstance(ids, list):
        return []
    return [i for i in ids if isinstance(i, str) and is_public_id(i)][:KEEP]


def remember_match(response: Response, public_id: str) -> Response:
    """Put this match first in the browser's list (a new cookie only when it changes)."""
    ids = device_matches()
    if ids[:1] == [public_id]:
        return response
    ids = [public_id, *(i for i in ids if i != public_id)][:KEEP]
    response.set_cookie(
        COOKIE,
        _serializer().dumps(ids),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure,
    )
    return response
