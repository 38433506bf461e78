"""Reading a JSON request body defensively, and the 422 answer of the API.

Anything a client can send becomes either a decoded JSON value or a list of problems in
the contract's error shape; never an exception that would surface as a 500 or an HTML
page. Only strict JSON is accepted: ``NaN`` and ``Infinity`` are not JSON, whatever
Python's decoder allows by default.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, jsonify, request
from flask_babel import gettext as _

from ...engine import Problem
from ..i18n import problem_dicts

#: The field path of a problem with the request as a whole (RULES.md 6 uses "request").
REQUEST_FIELD = "request"


class BodyError(Exception):
    """The request body cannot be read as JSON; carries the problem to report."""

    def __init__(self, message: str, field: str = REQUEST_FIELD) -> None:
        super().__init__(message)
        self.problem = Problem(field, message)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_body() -> Any:
    """The decoded JSON body of the current request; raise BodyError when it has none.

    The Content-Type must be ``application/json`` (or a ``+json`` type), the body must be
    UTF-8 JSON, and neither ``NaN``/``Infinity``, numbers of thousands of digits,
    nesting deeper than Python's recursion limit nor a NUL character in any text (no
    database stores it) get past as anything but a problem.
    """
    if not request.is_json:
        raise BodyError(_("Send the request as JSON, with Content-Type: application/json."))
    raw = request.get_data(cache=True)  # raises 413 beyond MAX_CONTENT_LENGTH
    if not raw.strip():
        raise BodyError(_("The request body is empty; send a JSON object."))
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text, parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise BodyError(_("The request body is not UTF-8 text.")) from None
    except RecursionError:
        raise BodyError(_("The JSON is nested too deeply.")) from None
    except ValueError as error:  # JSONDecodeError, NaN, and ints past the digit limit
        raise BodyError(
            _("The request body is not valid JSON: %(why)s.", why=_why(error))
        ) from None
    field = _nul_path(data, "")
    if field is not None:
        raise BodyError(_("This text holds a character that cannot be stored (NUL)."), field)
    return data


def _nul_path(value: Any, path: str) -> str | None:
    """The field path of the first string (or key) holding NUL, as the engine names fields
    (``sides[0].books``), or None. Iterative: nesting is as deep as the decoder allowed."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            return where or REQUEST_FIELD
        if isinstance(item, dict):
            for key, inner in reversed(item.items()):
                name = f"{where}.{key}" if where else key
                if "\x00" in key:
                    return where or REQUEST_FIELD
                stack.append((inner, name))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in reversed(list(enumerate(item))))
    return None


def _why(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at line {error.lineno}, column {error.colno}"
    return str(error).split(";")[0].rstrip(".")


def unprocessable(problems: list[Problem] | tuple[Problem, ...]) -> tuple[Response, int]:
    """The ``422`` answer listing every problem: ``{"errors": [{"field", "message"}]}``."""
    return jsonify({"errors": problem_dicts(problems)}), 422
