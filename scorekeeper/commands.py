"""``flask`` commands of the app (``flask --app scorekeeper.app db upgrade`` and friends)."""

from __future__ import annotations

from flask import Flask


def register(app: Flask) -> None:
    """Install the commands (Flask-Migrate adds ``flask db``)."""
