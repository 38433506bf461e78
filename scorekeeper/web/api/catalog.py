"""The rule sets a client of the API can name: the seam where saved house rules join.

Today the catalog is the presets. Saved rule sets join by extending
``available_rule_sets`` alone (e.g. with ``services.rule_sets.available()``, keyed by
each choice's origin such as ``saved:<public_id>``): the listing, the single rule set
and the scoring and meld endpoints all go through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import url_for

from ...engine import PRESETS, RuleSet


@dataclass(frozen=True)
class Available:
    """A rule set a request may name: the id to name it by, its value, and its kind."""

    id: str  # a preset id, or the key of a saved rule set
    rules: RuleSet
    preset: bool


def available_rule_sets() -> list[Available]:
    """Every rule set a request may name, presets first."""
    return [Available(rules.id, rules, preset=True) for rules in PRESETS.values()]


def find_rule_set(rule_set_id: str) -> Available | None:
    """The available rule set named ``rule_set_id``, or None."""
    return next((a for a in available_rule_sets() if a.id == rule_set_id), None)


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

    The engine resolves preset ids itself; other available rule sets (saved house rules)
    are handed to it as whole rule-set objects. Anything else passes unchanged, so the
    engine reports unknown ids and malformed requests with its own field paths.
    """
    if not isinstance(data, Mapping):
        return data
    name = data.get("rules")
    if not isinstance(name, str) or name in PRESETS:
        return data
    found = find_rule_set(name)
    return data if found is None else {**data, "rules": found.rules.to_dict()}
