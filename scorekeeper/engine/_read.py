"""Defensive readers for JSON-like input: every malformed value becomes a Problem.

The engine accepts anything a JSON decoder (or a careless caller) can produce; these
helpers turn wrong types, fractions, booleans posing as numbers and out-of-range values
into field-path problems instead of exceptions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .errors import Problems, phrase, phrase_n

#: The largest number any count, bonus or point total may be: far above any real game,
#: far below anything that could overflow a database column.
SANE_BOUND = 1_000_000


def whole_number(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (``3`` or ``3.0``), else ``None``.

    Booleans are refused: ``true`` is not a count.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


#: The subject of a number's problem when the caller names none.
THIS = phrase("This")


def read_int(
    problems: Problems,
    value: Any,
    field: str,
    *,
    low: int = 0,
    high: int = SANE_BOUND,
    what: str = THIS,
    required: bool = False,
) -> int | None:
    """Read a whole number in ``[low, high]``; record a problem and return None otherwise.

    With ``required``, ``None`` (the key left out, or JSON's ``null``) is said to be
    missing rather than not a whole number (a field with a default is never required)."""
    if required and value is None:
        problems.add(field, phrase("%(what)s is required.", what=what))
        return None
    number = whole_number(value)
    if number is None:
        problems.add(field, phrase("%(what)s must be a whole number.", what=what))
        return None
    if number < low:
        if low == 0:
            problems.add(field, phrase("%(what)s cannot be negative.", what=what))
        else:
            problems.add(field, phrase("%(what)s must be at least %(low)s.", what=what, low=low))
        return None
    if number > high:
        problems.add(field, phrase("%(what)s must be at most %(high)s.", what=what, high=high))
        return None
    return number


def read_text(
    problems: Problems, value: Any, field: str, *, max_length: int, required: bool = True
) -> str | None:
    """Read a string without NUL characters (PostgreSQL refuses them), trimmed."""
    if not isinstance(value, str):
        problems.add(field, phrase("This must be text."))
        return None
    if "\x00" in value:
        problems.add(field, phrase("This text contains a NUL character."))
        return None
    text = value.strip()
    if required and not text:
        problems.add(field, phrase("This cannot be empty."))
        return None
    if len(text) > max_length:
        problems.add(
            field,
            phrase_n(
                "This must be at most %(num)d character.",
                "This must be at most %(num)d characters.",
                max_length,
            ),
        )
        return None
    return text


def read_mapping(problems: Problems, value: Any, field: str) -> Mapping[str, Any] | None:
    """Read an object whose keys are strings."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        problems.add(field, phrase("This must be an object with named fields."))
        return None
    return value


def read_list(problems: Problems, value: Any, field: str) -> list[Any] | None:
    """Read a list (a JSON array); tuples are accepted too."""
    if not isinstance(value, list | tuple):
        problems.add(field, phrase("This must be a list."))
        return None
    return list(value)


def unknown_keys(
    problems: Problems,
    data: Mapping[str, Any],
    allowed: tuple[str, ...] | frozenset[str],
    path: str,
) -> None:
    """Record a problem for every key of ``data`` that is not ``allowed``."""
    for key in data:
        if key not in allowed:
            problems.add(join(path, key), phrase("Unknown field %(key)s.", key=repr(key)))


def join(path: str, key: str) -> str:
    """Build a field path: ``join("sides[1]", "melded")`` -> ``"sides[1].melded"``."""
    return f"{path}.{key}" if path else key
