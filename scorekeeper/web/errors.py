"""Error pages: friendly HTML, or JSON under /api/."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError


def register(app: Flask) -> None:
    """Install the handlers."""

    @app.errorhandler(CSRFError)
    def _csrf(error: CSRFError) -> tuple[str, int]:
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
            body = {"errors": [{"field": "", "message": error.description}]}
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
        page = render_template("error.html", code=code, message=message)
        return page, code, headers
