"""Template globals and filters."""

from __future__ import annotations

from typing import Any

from flask import Flask

from .. import __version__


def signed(value: int) -> str:
    """``100`` -> ``"+100"``, ``-100`` -> ``"−100"`` (a real minus sign), ``0`` -> ``"0"``."""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"\u2212{-value}"
    return "0"


def side_label(side: Any) -> str:
    """A stored side's name, or its players' names joined (as the engine's Side.label)."""
    return str(side.name) if side.name else " & ".join(p.name for p in side.players)


def register(app: Flask) -> None:
    """Install the globals and filters."""
    app.jinja_env.globals["side_label"] = side_label
    app.jinja_env.filters["signed"] = signed
    app.jinja_env.globals["app_version"] = __version__
    app.jinja_env.globals["htmx_version"] = "2.0.11"
