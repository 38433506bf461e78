"""Any JSON-like input gives a result or one of the engine's own errors, never a crash.

The web layer turns ``EngineError`` into a 422 with field paths; any other exception
would be a 500, so every entry point is fed junk and near-valid requests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import deals, json_values, meld_requests, mutated, rule_set_dicts

from scorekeeper.engine import (
    EngineError,
    EntryError,
    MeldError,
    RuleSet,
    RuleSetError,
    check_meld_request,
    score_request,
)

ENTRY_POINTS: list[tuple[Callable[[Any], Any], type[EngineError]]] = [
    (score_request, EntryError),
    (check_meld_request, MeldError),
    (RuleSet.from_dict, RuleSetError),
]
IDS = ["score_request", "check_meld_request", "rule_set_from_dict"]


def _answers_or_refuses(call: Callable[[Any], Any], error: type[EngineError], value: Any) -> None:
    try:
        call(value)
    except EngineError as refused:
        assert isinstance(refused, error)
        assert refused.problems, "a refusal names at least one problem"
        assert all(isinstance(p.field, str) and p.message for p in refused.problems)
        event("refused")
    else:
        event("answered")


def _requests() -> st.SearchStrategy[dict[str, Any]]:
    """A plausible request shape built from junk: the right keys, any values."""
    return st.fixed_dictionaries(
        {},
        optional={
            "rules": st.one_of(json_values, st.sampled_from(("classic", "whitnack"))),
            "deal": json_values,
            "players": json_values,
            "sides": st.lists(st.dictionaries(st.sampled_from(SIDE_KEYS), json_values), max_size=4),
            "melds": st.lists(st.dictionaries(st.sampled_from(MELD_KEYS), json_values), max_size=4),
            "running_total": json_values,
            "pile_size": json_values,
        },
    )


SIDE_KEYS = ("went_out", "books", "red_threes", "red_threes_left", "red_threes_left_in_foot",
             "melded", "left", "melded_points", "left_points", "exact_draws")  # fmt: skip
MELD_KEYS = ("rank", "naturals", "jokers", "twos", "top_card")


@pytest.mark.parametrize(("call", "error"), ENTRY_POINTS, ids=IDS)
@settings(max_examples=150, deadline=None)
@given(value=st.one_of(json_values, _requests()))
def test_arbitrary_json_gives_a_result_or_the_engines_error(
    call: Callable[[Any], Any], error: type[EngineError], value: Any
) -> None:
    _answers_or_refuses(call, error, value)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_score_request_gives_a_result_or_an_entry_error(data: Any) -> None:
    request = data.draw(deals()).request()
    _answers_or_refuses(score_request, EntryError, data.draw(mutated(request), label="request"))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_meld_request_gives_a_result_or_a_meld_error(data: Any) -> None:
    request = data.draw(meld_requests())
    _answers_or_refuses(check_meld_request, MeldError, data.draw(mutated(request), label="request"))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_rule_set_gives_a_rule_set_or_a_rule_set_error(data: Any) -> None:
    rules = data.draw(rule_set_dicts(wide=True))
    _answers_or_refuses(RuleSet.from_dict, RuleSetError, data.draw(mutated(rules), label="rules"))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_a_score_request_with_a_mutated_inline_rule_set_never_crashes(data: Any) -> None:
    deal = data.draw(deals())
    request = deal.request()
    request["rules"] = data.draw(mutated(deal.rules.to_dict()), label="rules")
    _answers_or_refuses(score_request, EntryError, request)
