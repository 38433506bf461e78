"""Which rule set the checker uses: a match's frozen rules, a preset, or saved house rules.

Rule sets are named by origin key (a preset id or ``saved:<public_id>``), as a match
records them, never by the rule set's own ``id``. A key that names nothing falls back to
the default preset with a notice; ``rule_sets.find`` never sends junk to the database.
"""

from __future__ import annotations

from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from ...engine import PRESETS, RuleSet
from ...services import rule_sets
from ...services.matches import LoadedMatch, load_match
from .page import DEFAULT_RULES


def choose_rules(
    args: MultiDict[str, str], notices: list[str]
) -> tuple[LoadedMatch | None, str, RuleSet]:
    """The match (if the check was opened from one), the rules' origin key, and the rules.

    Without a match the rules come from ``rules``: a preset id or ``saved:<public_id>``.
    A saved rule set that was deleted, or a key that names nothing, falls back to the
    default preset with a notice.
    """
    public_id = (args.get("match") or "").strip()
    if public_id:
        loaded = load_match(public_id)
        if loaded is not None:
            return loaded, DEFAULT_RULES, loaded.game.rules
        notices.append(_("No match has this link, so the rules are chosen here instead."))
    origin = args.get("rules") or DEFAULT_RULES
    choice = rule_sets.find(origin)
    if choice is not None:
        return None, choice.origin, choice.rules
    default = PRESETS[DEFAULT_RULES]
    if origin.startswith(rule_sets.SAVED_PREFIX):
        notices.append(
            _(
                "These saved house rules no longer exist (they were deleted, or the link is"
                " incomplete); showing the %(name)s rules.",
                name=default.name,
            )
        )
    else:
        shown = "".join(c for c in origin[:40] if c.isprintable())
        notices.append(
            _(
                "There is no rule set called “%(id)s”; showing the %(name)s rules.",
                id=shown,
                name=default.name,
            )
        )
    return None, DEFAULT_RULES, default


class Offered:
    """The rule sets a ``rules:<origin>`` tap may choose, looked up only when tapped."""

    def __contains__(self, origin: object) -> bool:
        return isinstance(origin, str) and rule_sets.find(origin) is not None
