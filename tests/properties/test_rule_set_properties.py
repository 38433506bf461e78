"""The rule-set dict is a faithful storage format (RULES.md section 4): nothing is lost."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import event, given, settings
from strategies import rule_set_dicts

from scorekeeper.engine import RuleSet


@settings(max_examples=200, deadline=None)
@given(rule_set_dicts(wide=True))
def test_a_rule_set_dict_reads_back_exactly_and_a_rule_set_survives_its_dict(
    data: dict[str, Any],
) -> None:
    event("thresholds" if isinstance(data["minimum_meld"][0], list) else "per deal")
    event(f"decks {data['decks']!r}" if isinstance(data["decks"], str) else "fixed decks")
    sent = copy.deepcopy(data)
    rules = RuleSet.from_dict(data)
    assert data == sent, "reading a rule set must not change the caller's dict"
    assert rules.to_dict() == data
    assert RuleSet.from_dict(rules.to_dict()) == rules
    # What a match stores is the JSON text of the dict: that survives too.
    assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
