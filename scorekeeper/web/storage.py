"""When the database cannot store what was sent: disk full, read-only, or out of reach.

SQLAlchemy raises ``OperationalError`` for all of these (SQLite: "database or disk is
full", "attempt to write a readonly database", "disk I/O error"; PostgreSQL: a lost
connection, "could not extend file"), and PostgreSQL's read-only transactions raise
SQLSTATE 25006. Everything about them is here, in one place:

- ``not_stored`` logs the cause, rolls the transaction back and lets the rest of the
  request only read (so the page can still be drawn from a read-only database); it
  returns what to tell the person;
- ``keeps_typed`` wraps a view that saves a form (a deal): on such a failure the form is
  shown again with what was typed and that message, and a resend once the fault clears
  saves it (the form keeps its submission key);
- every other request that meets such a failure gets a page, an htmx fragment or JSON
  saying the server could not store it (503), never a bare 500.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_babel import gettext as _
from sqlalchemy.exc import DBAPIError, OperationalError

from ..database import reading_only
from ..extensions import db
from .rendering import wants_fragment

View = TypeVar("View", bound=Callable[..., Any])

#: PostgreSQL SQLSTATE classes and codes that mean "cannot store now", not a bug:
#: 08 connection exceptions, 53 insufficient resources (disk full), 57P0x the server
#: shutting down, 58 system errors (I/O), 25006 a read-only transaction.
STORAGE_SQLSTATES = ("08", "53", "57P0", "58", "25006")


def is_storage_failure(error: BaseException) -> bool:
    """Whether ``error`` means the database could not store (or reach) data just now."""
    if isinstance(error, OperationalError):
        return True
    if isinstance(error, DBAPIError):
        state = getattr(error.orig, "sqlstate", None) or ""
        return state.startswith(STORAGE_SQLSTATES)
    return False


def not_stored(error: DBAPIError, kept: bool = True) -> str:
    """Log why, roll back, read only for the rest of the request; the message to show
    (``kept``: the form is shown again with what was typed)."""
    current_app.logger.error(
        "Could not store %s %s: %s", request.method, request.path, error.orig, exc_info=error
    )
    try:
        db.session.rollback()
    except DBAPIError:  # the connection itself is gone; the pool replaces it
        db.session.close()
    reading_only()
    if kept:
        return _(
            "The server could not store this: its disk may be full or its database cannot"
            " be written just now. Nothing was saved, and what you typed is still here: save"
            " again in a moment, and tell whoever runs the server if it goes on."
        )
    return _(
        "The server could not store or read this just now: its disk may be full or its"
        " database cannot be reached. Nothing was changed. Go back and try again in a"
        " moment, and tell whoever runs the server if it goes on."
    )


def status() -> int:
    """The status of a form shown again after a failure: 200 for htmx (so it swaps)."""
    return 200 if wants_fragment() else 503


def keeps_typed(render_again: Callable[..., Response]) -> Callable[[View], View]:
    """Decorate a view that saves a form: ``render_again(message, **view_args)`` shows
    the form again, with what was typed, when the database cannot store it."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(**kwargs: Any) -> Any:
            try:
                return view(**kwargs)
            except DBAPIError as error:
                if not is_storage_failure(error):
                    raise
                return render_again(not_stored(error), **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def register(app: Flask) -> None:
    """Answer any other request that meets a storage failure with a clear 503."""

    @app.errorhandler(DBAPIError)
    def _storage(error: DBAPIError) -> Any:
        if not is_storage_failure(error):
            raise error
        message = not_stored(error, kept=False)
        if request.path.startswith("/api/"):
            return jsonify({"errors": [{"field": "", "message": message}]}), 503
        if wants_fragment():  # above the page, which stays as it is
            headers = {"HX-Retarget": "#main", "HX-Reswap": "afterbegin"}
            return render_template("_storage_failure.html", message=message), 200, headers
        return render_template("error.html", code=503, message=message), 503
