"""The home page: this browser's matches in progress first (resume in one tap), then
its recent ones. Never anyone else's: a match is listed on the devices that started or
opened it (``web/actor.py``)."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from ...services.matches import home_matches
from .. import authz
from ..actor import device_matches

bp = Blueprint("home", __name__)


@bp.get("/")
@authz.anyone
def index() -> str:
    """This device's matches in progress and recently finished."""
    in_progress, finished = home_matches(
        current_app.config["RECENT_MATCHES"], only=device_matches()
    )
    return render_template("home.html", in_progress=in_progress, finished=finished)
