"""The JSON API (RULES.md section 6): scoring without saving, rule sets, matches."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")
