"""The ETags of the live pages (issue 14): a match's or a club night's version from the
database (``services.live``), with what else changes the rendered fragment for this
visitor: whether they may change the match (its Edit buttons) and their language."""

from __future__ import annotations

import hashlib

from flask import Response, g, request
from flask_babel import get_locale

from ...services import live

#: Every few seconds a phone asks; nothing may keep the answer but the browser itself.
CACHE_CONTROL = "private, no-cache"


def _etag(version: str) -> str:
    who = "w" if g.get("match_writable", True) else "r"
    text = f"{version}|{who}|{get_locale() or 'en'}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def match_etag(match_id: int, version: str | None = None) -> str:
    """The ETag of the match's live fragment (and the page's starting point); ``version``:
    the match's version when it is known already (a save just committed it)."""
    return _etag(version or live.match_version(match_id))


def night_etag(club: object, day: object) -> str:
    """The ETag of a club night's tables."""
    return _etag(live.night_version(club, day))  # type: ignore[arg-type]


def not_modified(etag: str) -> Response | None:
    """``304 Not Modified`` when the browser already has this version, else None."""
    if not request.if_none_match.contains_weak(etag):
        return None
    response = Response(status=304)
    return tagged(response, etag)


def tagged(response: Response, etag: str) -> Response:
    """Mark a live answer with its ETag; it may be kept only to be revalidated."""
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = CACHE_CONTROL
    response.vary.update(("Cookie", "HX-Request", "Accept-Language"))
    return response
