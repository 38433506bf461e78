"""The checker opened from a match: its frozen rules, its current deal, a side's minimum."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import SIDE_A_COUNTS, SIDE_B_POINTS, enter_deal, show, start_match
from htmltree import parse
from test_meld_page_flow import query_of, tap
from test_meld_page_rules import check

from scorekeeper.engine import PRESETS, RuleSet, Side
from scorekeeper.services import matches as service
from scorekeeper.services import rule_sets

THRESHOLDS = [[0, 50], [2500, 90], [5000, 120], [7500, 150]]


def house_rules(**changes: Any) -> RuleSet:
    """Classic with a minimum meld set by the side's running total."""
    data = {**PRESETS["classic"].to_dict(), "id": "house", "name": "House", **changes}
    return RuleSet.from_dict(data)


def threshold_match(app: Flask) -> str:
    """A 2+2 match under the house rules, saved through the service."""
    with app.app_context():
        sides = [Side(("Ana", "Cecile")), Side(("Boris", "Dusan"))]
        loaded = service.start_match(house_rules(minimum_meld=THRESHOLDS), "house", sides, 0)
        return loaded.public_id


def test_the_match_page_links_to_the_checker_for_its_current_deal(client: FlaskClient) -> None:
    public_id = start_match(client)
    links = parse(show(client, public_id)).find_all("a", cls="meld-check-link")
    assert [a.attrs["href"] for a in links] == [f"/meld?match={public_id}"]


def test_from_a_match_the_checker_uses_its_rules_and_current_deal(client: FlaskClient) -> None:
    public_id = start_match(client, rules="four-books")
    shown = check(client, f"match={public_id}")
    assert shown.minimum == 50
    assert "From the match" in shown.text and "Four books rules" in shown.text
    assert not parse(shown.html).find_all("button", value="rules:classic"), "rules are frozen"
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    shown = check(client, f"match={public_id}&m=wild.0.2.1")
    assert shown.minimum == 90  # deal 2
    assert shown.melds[0].legal is False  # four-books has no wild books


def test_from_a_match_the_state_url_keeps_the_match_and_not_the_rules(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    url = tap(client, f"/meld?match={public_id}", "add:A")
    assert query_of(url) == [("match", public_id), ("deal", "1"), ("m", "A.3.0.0")]
    response = client.get(f"/meld?match={public_id}&f=1&deal=1&op=rules:whitnack")
    assert response.status_code == 422  # a match's rules cannot be switched
    assert "That button could not be understood" in response.get_data(as_text=True)


def test_a_finished_match_opens_on_its_last_deal(client: FlaskClient) -> None:
    public_id = start_match(client)
    for _ in range(4):
        enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    assert check(client, f"match={public_id}").minimum == 150


def test_with_thresholds_the_chosen_sides_running_total_sets_the_minimum(
    app: Flask, client: FlaskClient
) -> None:
    public_id = threshold_match(app)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)  # 3990 and 510
    shown = check(client, f"match={public_id}&m=K.3.0.0&m=A.3.0.0")
    assert shown.minimum == 90  # the first side, at 3990
    assert "Ana & Cecile: 3990, minimum 90" in shown.text
    url = tap(client, f"/meld?match={public_id}&m=K.3.0.0&m=A.3.0.0", "side:1")
    assert ("side", "1") in query_of(url)
    shown = check(client, url.removeprefix("/meld?"))
    assert (shown.minimum, shown.enough) == (50, True)  # the second side, at 510


def test_with_thresholds_a_side_that_is_not_in_the_match_falls_back_to_the_first(
    app: Flask, client: FlaskClient
) -> None:
    public_id = threshold_match(app)
    shown = check(client, f"match={public_id}&side=7")
    assert shown.status == 422
    assert any("That side is not in this match" in n for n in shown.notices)


@pytest.fixture
def house_origin(app: Flask) -> str:
    """A saved house rule set with thresholds, offered beside the presets: its origin key."""
    with app.app_context():
        row = rule_sets.create(house_rules(minimum_meld=THRESHOLDS).to_dict())
        return rule_sets.origin_of(row)


@pytest.mark.parametrize(("total", "minimum"), [("0", 50), ("2600", 90), ("7500", 150)])
def test_without_a_match_the_running_total_is_typed(
    client: FlaskClient, house_origin: str, total: str, minimum: int
) -> None:
    url = tap(client, f"/meld?rules={house_origin}&deal=1", None, total=total)
    assert query_of(url)[0] == ("rules", house_origin)
    shown = check(client, url.removeprefix("/meld?"))
    assert shown.minimum == minimum
    assert parse(shown.html).find_all("input", name="total")


def test_a_running_total_that_is_not_a_number_is_refused_beside_it(
    client: FlaskClient, house_origin: str
) -> None:
    query = {"f": "1", "rules": house_origin, "total": "lots"}
    response = client.get("/meld", query_string=query)
    assert response.status_code == 422
    assert "The running total is a whole number" in response.get_data(as_text=True)


def test_per_deal_rules_ask_for_no_running_total(client: FlaskClient) -> None:
    html = client.get("/meld?rules=classic&deal=2&total=9000").get_data(as_text=True)
    assert not parse(html).find_all("input", name="total")
    assert check(client, "rules=classic&deal=2&total=9000").minimum == 90
