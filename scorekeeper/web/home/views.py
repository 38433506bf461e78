"""The home page: matches in progress first (resume in one tap), then recent ones."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from ...services.matches import home_matches

bp = Blueprint("home", __name__)


@bp.get("/")
def index() -> str:
    """Matches in progress and recently finished."""
    in_progress, finished = home_matches(current_app.config["RECENT_MATCHES"])
    return render_template("home.html", in_progress=in_progress, finished=finished)
