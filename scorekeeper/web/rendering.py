"""One URL serves the full page and its fragment; this module decides which."""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request


def wants_fragment() -> bool:
    """An htmx request that is neither boosted nor a history restore gets a fragment."""
    hx = getattr(request, "htmx", None)
    return bool(hx) and not hx.boosted and not hx.history_restore_request


def render(page: str, fragment: str, status: int = 200, **context: Any) -> Response:
    """Render ``fragment`` for htmx requests and ``page`` otherwise, with ``Vary``."""
    template = fragment if wants_fragment() else page
    response = make_response(render_template(template, **context), status)
    response.vary.add("HX-Request")
    return response


def invalid_status() -> int:
    """Status for a form re-rendered with errors: 200 for htmx (so it swaps), else 422."""
    return 200 if wants_fragment() else 422
