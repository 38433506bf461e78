"""The minimum-meld checker: "is this enough to go down?", card by card."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("meld", __name__)
