"""Finding the rule set a request names: a preset id or a whole rule-set object."""

from __future__ import annotations

from typing import Any

from .errors import Problems, RuleSetError, phrase
from .presets import PRESETS
from .rules import RuleSet


def resolve_rules(problems: Problems, value: Any, field: str = "rules") -> RuleSet | None:
    """A preset by id, or a rule-set dict read and validated; problems are prefixed."""
    if isinstance(value, str):
        rules = PRESETS.get(value)
        if rules is None:
            known = ", ".join(PRESETS)
            problems.add(
                field,
                phrase(
                    "Unknown rule set %(value)s; the presets are %(known)s.",
                    value=repr(value),
                    known=known,
                ),
            )
        return rules
    if value is None:
        problems.add(field, phrase("Name a preset or give a whole rule set."))
        return None
    try:
        return RuleSet.from_dict(value)
    except RuleSetError as error:
        for problem in error.problems:
            problems.add(
                f"{field}.{problem.field}" if problem.field != "rules" else field,
                problem.phrase or problem.message,
            )
        return None
