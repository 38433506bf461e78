"""The clubs area."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("clubs", __name__)
