"""Error pages: friendly HTML, or JSON under /api/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, jsonify, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from sqlalchemy import select
from werkzeug.exceptions import HTTPException, NotFound, SecurityError

from ..extensions import db
from ..models import Match

#: Forms shown again with what was typed when their token no longer holds, by endpoint:
#: a function answering the request, or None for the usual refusal (``rules.views``).
KEEPS_TYPED: dict[str, Callable[[], Any]] = {}


def register(app: Flask) -> None:
    """Install the handlers."""

    @app.errorhandler(CSRFError)
    def _csrf(error: CSRFError) -> object:
        # A post to no route (404, 405 for a page that takes no post) or to a match that is
        # not there (an onlooker's token in a scoring URL...): said as a GET would be, before
        # any question of the form's token.
        if isinstance(request.routing_exception, HTTPException):
            return _http(request.routing_exception)
        if _no_such_match():
            return _http(NotFound())
        again = KEEPS_TYPED.get(request.endpoint or "")
        answer = again() if again is not None else None
        if answer is not None:
            return answer
        message = _("This page was open too long or came from elsewhere. Reload it and try again.")
        return render_template("error.html", code=400, message=message), 400

    @app.errorhandler(SecurityError)
    def _untrusted_host(error: SecurityError) -> tuple[str, int, dict[str, str]]:
        # A Host outside TRUSTED_HOSTS: no URL can be built for it, and it is not echoed.
        message = _("This server does not answer to that name.")
        return f"<!doctype html><title>400</title><p>{message}</p>", 400, {"Vary": "Host"}

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> object:
        code = error.code or 500
        # Keep the exception's own headers (Allow on a 405), not its content type.
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
        if request.path.startswith("/api/"):
            body = {"errors": [{"field": "", "message": _api_message(error)}]}
            return jsonify(body), code, headers
        messages = {
            401: _("Log in first: this belongs to a club or to someone's account."),
            403: _(
                "Your account may not do this. Ask the club's owner for the right role,"
                " or copy what you want to change and make it your own."
            ),
            404: _("There is nothing here. The link may be mistyped or the match removed."),
            405: _("That action is not available here."),
            413: _("That is far more than a score sheet needs."),
            429: _("Too many tries from here. Wait a few minutes, then try again."),
        }
        message = messages.get(code, error.description)
        if getattr(getattr(error, "limit", None), "error_message", None):
            message = error.description  # a limit that says what it counts (per account)
        page = render_template("error.html", code=code, message=message)
        return page, code, headers


def _api_message(error: HTTPException) -> str:
    """The API's sentence for an HTTP error: the app's own description where it gave one,
    else one in the caller's language (Werkzeug's are English, and say no limit)."""
    if error.description != type(error).description:
        return str(error.description)
    code = error.code or 500
    if code == 404:
        return _("There is nothing at this address of the API.")
    if code == 405:
        return _("This address does not take a %(method)s request.", method=request.method)
    if code == 413:
        limit = (current_app.config.get("MAX_CONTENT_LENGTH") or 0) // 1024
        return _("A request may be at most %(kb)d KB.", kb=limit)
    if code == 429:
        return _("Too many tries from here. Wait a few minutes, then try again.")
    return str(error.description)


def _no_such_match() -> bool:
    """Whether the request names a match (``/m/<public_id>/...``) that does not exist."""
    public_id = (request.view_args or {}).get("public_id")
    if not isinstance(public_id, str) or not request.path.startswith("/m/"):
        return False
    return db.session.scalar(select(Match.id).where(Match.public_id == public_id)) is None
