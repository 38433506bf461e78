"""What a request carries that the app reads by hand: a number in a hidden field or the
query (``number_or_none``), and text no database can store.

Text with a NUL character that got past the forms' own checks: fields say what is wrong
with the text typed in them (names refuse control characters, the rules editor and the API
name a NUL), and ids are checked before they are looked up. Whatever else carries a NUL
down to the database (a search, a field without such a check, one added later) is stopped
there, on every database (``database.refuse_nul``: PostgreSQL answered it with an error, a
500; SQLite would have stored it), and answered here with 400 and a page naming the part
of the request that held it (JSON under ``/api/``).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask_babel import gettext as _

from ..database import UnstorableText
from ..extensions import db

NUL = "\x00"


def number_or_none(value: Any) -> int | None:
    """``value`` (a hidden field's, a query's) as an int, or None when it is none: such
    fields are filled in by the page, so anything else was made by hand and is treated as
    missing."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def nul_field() -> str | None:
    """The name of the first part of the request holding a NUL character, or None."""
    for source in (request.args, request.form):
        for key, values in source.lists():
            if NUL in key or any(NUL in value for value in values):
                return key.replace(NUL, "")
    return "path" if NUL in request.path else None


def register(app: Flask) -> None:
    """Answer a request that carried a NUL to the database."""

    @app.errorhandler(UnstorableText)
    def _refused(error: UnstorableText) -> tuple[Response | str, int]:
        db.session.rollback()
        field = nul_field()
        if field is None:
            message = _("The request holds a character that cannot be stored (NUL).")
        else:
            message = _(
                "“%(field)s” holds a character that cannot be stored (NUL)."
                " Remove it and try again.",
                field=field,
            )
        if request.path.startswith("/api/"):
            return jsonify({"errors": [{"field": field or "", "message": message}]}), 400
        return render_template("error.html", code=400, message=message), 400
