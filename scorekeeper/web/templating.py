"""Template globals and filters."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, g
from jinja2 import BaseLoader, Environment, FileSystemLoader

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


class DedentedLoader(FileSystemLoader):
    """The templates as written, less the indentation of each line. Indentation is for
    reading the templates; the page a browser gets is the same without it (no template has
    a ``<pre>`` or ``<textarea>`` whose text it would change), and a match page is a
    quarter lighter before compression, a few hundred bytes after."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Any]:
        source, filename, uptodate = super().get_source(environment, template)
        return "\n".join(line.lstrip(" \t") for line in source.split("\n")), filename, uptodate


def first_problem() -> bool:
    """True the first time a response asks: the first field with a problem on a page takes
    the focus (``autofocus``; htmx does the same in what it swaps in)."""
    if g.get("problem_focused"):
        return False
    g.problem_focused = True
    return True


def register(app: Flask) -> None:
    """Install the globals and filters, and read the templates without indentation."""
    if app.template_folder is not None:
        loader: BaseLoader = DedentedLoader(os.path.join(app.root_path, app.template_folder))
        app.jinja_loader = loader  # type: ignore[assignment]
    app.jinja_env.globals["side_label"] = side_label
    app.jinja_env.globals["first_problem"] = first_problem
    app.jinja_env.filters["signed"] = signed
    app.jinja_env.globals["app_version"] = __version__
    app.jinja_env.globals["htmx_version"] = "2.0.11"
