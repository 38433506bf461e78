"""The rule-set dict is a faithful storage format (RULES.md section 4): nothing is lost."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import rule_set_dicts, slugs

from scorekeeper.engine import RuleSet, RuleSetError


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


SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
near_slugs = st.one_of(
    st.text(max_size=70),
    st.tuples(slugs, st.sampled_from(("", "\n", " ", "\t", "A", "_", "é", "\x00"))).map("".join),
)


@settings(max_examples=150, deadline=None)
@given(rule_set_dicts(wide=False), near_slugs, st.booleans())
def test_an_accepted_id_or_special_book_key_is_only_lower_case_letters_digits_and_dashes(
    data: dict[str, Any], candidate: str, as_book_key: bool
) -> None:
    if as_book_key:
        data["special_books"] = [
            {"key": candidate, "name": "Sevens", "rank": "7", "bonus": 1000, "wilds": False}
        ]
        data["going_out_requires"] = {}
    else:
        data["id"] = candidate
    try:
        rules = RuleSet.from_dict(data)
    except RuleSetError:
        event("refused")
        return
    event("accepted")
    assert SLUG.fullmatch(rules.id)
    assert all(SLUG.fullmatch(s.key) for s in rules.special_books)
