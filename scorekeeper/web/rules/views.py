"""The rules area."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("rules", __name__)
