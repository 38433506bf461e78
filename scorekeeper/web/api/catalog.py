"""The rule sets a client of the API can name: the presets and the saved house rules.

Every endpoint goes through this module: the listing, the single rule set, and the
scoring and meld endpoints when ``rules`` names a saved rule set (``saved:<public_id>``,
the same key a match records as its ``rules_origin``). The rule sets listed are the
installation's own (no club owner).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import url_for

from ...engine import PRESETS, RuleSet
from ...services import rule_sets

#: What a rule-set key can look like; anything else is unknown without asking the
#: database (PostgreSQL refuses NUL characters in a query).
KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,63}|" + re.escape(rule_sets.SAVED_PREFIX) + r"[\w-]{1,64}")


@dataclass(frozen=True)
class Available:
    """A rule set a request may name: the id to name it by, its value, and its kind."""

    id: str  # a preset id, or "saved:<public_id>"
    rules: RuleSet
    preset: bool


def available_rule_sets() -> list[Available]:
    """Every rule set a request may name: the presets, then the saved ones by name."""
    return [Available(c.origin, c.rules, not c.saved) for c in rule_sets.available()]


def find_rule_set(rule_set_id: str) -> Available | None:
    """The available rule set named ``rule_set_id``, or None."""
    if not KEY.fullmatch(rule_set_id):
        return None
    choice = rule_sets.find(rule_set_id)
    return None if choice is None else Available(choice.origin, choice.rules, not choice.saved)


def summary(available: Available) -> dict[str, Any]:
    """What a client needs to offer a rule set: identity, kind and the full object's URL."""
    rules = available.rules
    return {
        "id": available.id,
        "name": rules.name,
        "description": rules.description,
        "source": rules.source,
        "preset": available.preset,
        "url": url_for("api.rule_set", rule_set_id=available.id),
    }


def with_named_rules(data: Any) -> Any:
    """The request with a named rule set that is not a preset replaced by its object.

    The engine resolves preset ids itself; saved rule sets are handed to it as whole
    rule-set objects. Anything else passes unchanged, so the engine reports unknown ids
    and malformed requests with its own field paths.
    """
    if not isinstance(data, Mapping):
        return data
    name = data.get("rules")
    if not isinstance(name, str) or name in PRESETS:
        return data
    found = find_rule_set(name)
    return data if found is None else {**data, "rules": found.rules.to_dict()}
