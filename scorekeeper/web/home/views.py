"""The home page: this browser's matches in progress first (resume in one tap), then
its recent ones. Never anyone else's: a match is listed on the devices that started or
opened it (``web/actor.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, render_template

from ...services.matches import home_matches
from .. import authz
from ..actor import device_matches
from ..matches.history import time_element

bp = Blueprint("home", __name__)


@bp.get("/")
@authz.anyone
def index() -> str:
    """This device's matches in progress and recently finished."""
    in_progress, finished = home_matches(
        current_app.config["RECENT_MATCHES"], only=device_matches()
    )
    return render_template("home.html", in_progress=in_progress, finished=finished, when=_when)


def _when(at: datetime) -> Any:
    """When a match last changed, as the history shows times (the phone's own clock);
    SQLite hands back UTC times without their zone."""
    return time_element(at if at.tzinfo else at.replace(tzinfo=UTC), datetime.now(UTC))
