"""Saved house rules in the meld checker: offered after the presets, keyed by origin.

A rule set is named in the URL, the buttons and the form by its origin key (a preset id
or ``saved:<public_id>``), never by the rule set's own ``id``. A saved rule set that is
gone, or a key that names nothing, falls back to Classic with a notice, never a 500.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlencode

import pytest
from flask import Flask
from flask.testing import FlaskClient
from htmltree import parse
from test_meld_page_flow import HX, form_fields, query_of, tap
from test_meld_page_rules import check

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet
from scorekeeper.services import matches as match_service
from scorekeeper.services import rule_sets

PRESET_ORIGINS = ["classic", "four-books", "whitnack"]


def kings_at(value: int, name: str = "Kings high") -> dict[str, Any]:
    """Classic, except that a king is worth ``value`` (the API's rule-set object)."""
    classic = PRESETS["classic"].to_dict()
    return {**classic, "name": name, "card_values": {**classic["card_values"], "K": value}}


def save(app: Flask, data: dict[str, Any]) -> str:
    """Save a house rule set through the service; its origin key."""
    with app.app_context():
        return rule_sets.origin_of(rule_sets.create(data))


def delete(app: Flask, origin: str) -> None:
    """Delete a saved rule set through the service."""
    with app.app_context():
        row = rule_sets.load(origin.removeprefix(rule_sets.SAVED_PREFIX))
        assert row is not None
        rule_sets.delete(row)


def rule_buttons(html: str) -> list[tuple[str, str, str]]:
    """(origin, name, aria-pressed) of each rule-set button, in page order."""
    return [
        (b.attrs["value"].removeprefix("rules:"), b.text, b.attrs.get("aria-pressed", ""))
        for b in parse(html).find_all("button")
        if b.attrs.get("value", "").startswith("rules:")
    ]


def select_options(html: str) -> list[tuple[str, str, str, bool]]:
    """(group, origin, name, selected) of each option of the rule-set select."""
    selects = parse(html).find_all("select", name="rules")
    assert len(selects) == 1, "one select of rule sets"
    return [
        (group.attrs["label"], o.attrs["value"], o.text, "selected" in o.attrs)
        for group in selects[0].find_all("optgroup")
        for o in group.find_all("option")
    ]


def test_saved_rule_sets_are_offered_after_the_presets_by_origin(
    app: Flask, client: FlaskClient
) -> None:
    zebra = save(app, kings_at(15, "Zebra rules"))
    alpine = save(app, kings_at(20, "alpine rules"))
    html = client.get("/meld?rules=classic").get_data(as_text=True)
    buttons = rule_buttons(html)
    assert [origin for origin, _name, _pressed in buttons] == [*PRESET_ORIGINS, alpine, zebra]
    assert [name for _origin, name, _pressed in buttons][3:] == ["alpine rules", "Zebra rules"]
    assert [pressed for *_rest, pressed in buttons] == ["true"] + ["false"] * 4
    assert alpine.startswith("saved:") and zebra.startswith("saved:")


def test_a_saved_rule_set_checks_a_meld_with_its_own_card_values(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15))
    classic = check(client, "rules=classic&deal=2&m=K.4.0.0&m=A.3.0.0")
    house = check(client, f"rules={origin}&deal=2&m=K.4.0.0&m=A.3.0.0")
    assert [m.value for m in classic.melds] == [40, 60]
    assert (classic.counted, classic.enough, classic.short_by) == (100, True, 0)
    assert [m.value for m in house.melds] == [60, 60]  # four kings at 15
    assert (house.counted, house.minimum, house.enough) == (120, 90, True)
    short = check(client, f"rules={origin}&deal=3&m=K.4.0.0&m=Q.3.0.0")
    assert (short.counted, short.short_by) == (90, 30)
    assert "Short by 30" in short.verdict
    assert short.status == 200 and not short.notices


def test_tapping_a_saved_rule_set_keeps_the_melds_and_puts_its_origin_in_the_url(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15))
    url = tap(client, "/meld?rules=classic&deal=1&m=K.3.0.0", f"rules:{origin}")
    assert url == f"/meld?rules={origin}&deal=1&m=K.3.0.0"  # the colon stays readable
    html = client.get(url).get_data(as_text=True)
    assert check(client, url.removeprefix("/meld?")).melds[0].value == 45
    pressed = [o for o, _name, p in rule_buttons(html) if p == "true"]
    assert pressed == [origin]
    assert ("rules", origin) in form_fields(html)  # the hidden input carries the origin
    assert tap(client, url, None) == url  # checking it again keeps the saved rule set
    assert query_of(tap(client, url, "rules:whitnack"))[0] == ("rules", "whitnack")


def test_with_htmx_the_pushed_url_names_the_saved_rule_set(app: Flask, client: FlaskClient) -> None:
    origin = save(app, kings_at(15))
    fields = {"f": "1", "rules": "classic", "deal": "1", "op": f"rules:{origin}"}
    response = client.get("/meld", query_string=fields, headers=HX)
    assert response.status_code == 200
    assert response.headers["HX-Push-Url"] == f"/meld?rules={origin}&deal=1"
    html = response.get_data(as_text=True)
    assert [o for o, _name, p in rule_buttons(html) if p == "true"] == [origin]


def test_a_saved_rule_set_whose_own_id_is_a_presets_is_still_told_apart(
    app: Flask, client: FlaskClient
) -> None:
    """A stored rule set may carry ``"id": "classic"``; the origin key tells them apart."""
    with app.app_context():
        row = SavedRuleSet(
            name="Old classic", rules={**kings_at(15, "Old classic"), "id": "classic"}
        )
        db.session.add(row)
        db.session.commit()
        origin = rule_sets.origin_of(row)
    html = client.get(f"/meld?rules={origin}&m=K.3.0.0").get_data(as_text=True)
    assert [(o, p) for o, _name, p in rule_buttons(html) if p == "true"] == [(origin, "true")]
    assert check(client, f"rules={origin}&m=K.3.0.0").melds[0].value == 45
    assert check(client, "rules=classic&m=K.3.0.0").melds[0].value == 30


def test_a_deleted_saved_rule_set_falls_back_to_classic_with_a_notice(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15))
    delete(app, origin)
    shown = check(client, f"rules={origin}&deal=2&m=K.4.0.0")
    assert shown.status == 422
    assert shown.notices == [
        "These saved house rules no longer exist (they were deleted, or the link is"
        " incomplete); showing the Classic rules."
    ]
    assert (shown.minimum, shown.melds[0].value) == (90, 40)  # Classic, the meld kept
    assert [o for o, _name, p in rule_buttons(shown.html) if p == "true"] == ["classic"]
    assert origin not in [o for o, _name, _p in rule_buttons(shown.html)]


def test_tapping_the_button_of_a_rule_set_deleted_meanwhile_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15))
    html = client.get("/meld?rules=classic&deal=1&m=K.3.0.0").get_data(as_text=True)
    delete(app, origin)  # on another phone, while this page was open
    fields = [*form_fields(html), ("op", f"rules:{origin}")]
    shown = check(client, urlencode(fields))
    assert shown.status == 422
    assert shown.notices == [
        "Those rules are not saved here (they may have been deleted), so nothing changed."
    ]
    assert (shown.minimum, shown.melds[0].value) == (50, 30)


@pytest.mark.parametrize(
    "origin",
    [
        "saved:",
        "saved:%00",
        "saved:AbC%00def",
        "%00saved:x",
        "saved:" + "x" * 300,
        "saved:..%2F..%2Fetc",
        "saved:saved:x",
        "saved:%E2%80%AE%F0%9F%83%8F",
        "saved:AbC%20OR%201=1",
        "SAVED:x",
    ],
)
def test_an_origin_with_junk_falls_back_to_classic_and_never_fails(
    client: FlaskClient, origin: str
) -> None:
    shown = check(client, f"rules={origin}&deal=1&m=K.3.0.0")
    assert shown.status == 422
    assert len(shown.notices) == 1 and "showing the Classic rules" in shown.notices[0]
    assert "\x00" not in shown.html
    assert (shown.minimum, shown.counted) == (50, 30)
    fields = {"f": "1", "rules": "classic", "deal": "1", "op": f"rules:{unquote(origin)}"}
    response = client.get("/meld", query_string=fields)
    assert response.status_code == 422  # a tap on a junk origin changes nothing
    assert "Those rules are not saved here" in response.get_data(as_text=True)


def test_many_saved_rule_sets_are_offered_in_one_select(app: Flask, client: FlaskClient) -> None:
    origins = [save(app, kings_at(11 + n, f"House {n}")) for n in range(4)]
    html = client.get(f"/meld?rules={origins[2]}&m=K.3.0.0").get_data(as_text=True)
    assert not rule_buttons(html), "no row of buttons that grows with every rule set"
    options = select_options(html)
    assert [(group, origin) for group, origin, _name, _selected in options] == [
        *(("Presets", o) for o in PRESET_ORIGINS),
        *(("Saved house rules", o) for o in origins),
    ]
    assert [origin for _group, origin, _name, selected in options if selected] == [origins[2]]
    assert "rules" not in dict(form_fields(html)), "the select alone sends the rules"
    select = parse(html).find_all("select", name="rules")[0]
    assert select.attrs["hx-trigger"] == "change"
    assert select.attrs["hx-include"] == "closest form"
    assert parse(html).find_all("label", for_="meld-rules")[0].text == "Rules"
    use = parse(html).find_all("button", cls="meld-use")
    assert len(use) == 1 and "js-hidden" in use[0].classes


def test_choosing_from_the_select_without_javascript_switches_the_rules(
    app: Flask, client: FlaskClient
) -> None:
    origins = [save(app, kings_at(11 + n, f"House {n}")) for n in range(4)]
    html = client.get("/meld?rules=classic&deal=1&m=K.3.0.0").get_data(as_text=True)
    fields = [*form_fields(html), ("rules", origins[3])]  # the select, then "Use these rules"
    response = client.get("/meld", query_string=fields)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/meld?rules={origins[3]}&deal=1&m=K.3.0.0"
    assert check(client, f"rules={origins[3]}&m=K.3.0.0").melds[0].value == 42


def test_a_long_name_goes_in_the_select_so_the_page_keeps_its_width(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15, "Grandma Ruth's Thanksgiving table rules, 2019 edition"))
    html = client.get("/meld").get_data(as_text=True)
    assert not rule_buttons(html)
    assert (
        "Saved house rules",
        origin,
        "Grandma Ruth's Thanksgiving table rules, 2019 edition",
        False,
    ) in select_options(html)


def test_a_match_started_with_saved_rules_keeps_its_frozen_copy(
    app: Flask, client: FlaskClient
) -> None:
    origin = save(app, kings_at(15))
    with app.app_context():
        choice = rule_sets.find(origin)
        assert choice is not None
        sides = [Side(("Ana", "Cecile")), Side(("Boris", "Dusan"))]
        public_id = match_service.start_match(choice.rules, origin, sides, 0).public_id
        row = rule_sets.load(origin.removeprefix(rule_sets.SAVED_PREFIX))
        rule_sets.update(row, kings_at(25), None)  # type: ignore[arg-type]
    assert check(client, f"rules={origin}&m=K.3.0.0").melds[0].value == 75  # the edit
    shown = check(client, f"match={public_id}&m=K.3.0.0")
    assert shown.melds[0].value == 45  # the match's own copy, from when it started
    assert not rule_buttons(shown.html) and not parse(shown.html).find_all("select")
    delete(app, origin)
    shown = check(client, f"match={public_id}&m=K.3.0.0")
    assert (shown.status, shown.melds[0].value, shown.notices) == (200, 45, [])
    url = tap(client, f"/meld?match={public_id}", "add:K")
    assert query_of(url) == [("match", public_id), ("deal", "1"), ("m", "K.3.0.0")]


def test_house_rules_without_wild_books_whose_wild_card_does_not_block_say_so(
    app: Flask, client: FlaskClient
) -> None:
    """Four books with only a three blocking the pile: a wild card on top could only start
    a meld of only wild cards, which these rules do not allow."""
    data = {**PRESETS["four-books"].to_dict(), "name": "Threes only", "pile_blocked_by": ["black3"]}
    origin = save(app, data)
    shown = check(client, f"rules={origin}&deal=1&m=wild.0.3.0.t")
    assert "which these rules do not allow" in shown.text
    assert shown.melds[0].legal is False
    assert "no wild books" in shown.melds[0].text
