"""The home page: matches in progress first (resume in one tap), then recent ones."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, render_template

from ...services.matches import home_matches
from ..matches.history import time_element

bp = Blueprint("home", __name__)


@bp.get("/")
def index() -> str:
    """Matches in progress and recently finished."""
    in_progress, finished = home_matches(current_app.config["RECENT_MATCHES"])
    return render_template(
        "home.html",
        in_progress=in_progress,
        finished=finished,
        when=_when,
    )


def _when(at: datetime) -> Any:
    """When a match last changed, as the history shows times (the phone's own clock);
    SQLite hands back UTC times without their zone."""
    return time_element(at if at.tzinfo else at.replace(tzinfo=UTC), datetime.now(UTC))
