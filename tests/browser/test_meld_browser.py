"""The meld checker in Chromium at a phone viewport: tapping a meld together."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from scorekeeper.engine import PRESETS
from scorekeeper.services import rule_sets

pytestmark = pytest.mark.browser


def verdict(page: Any) -> Any:
    """The big answer at the top of the checker."""
    return page.locator("#meld-verdict .meld-verdict-main")


def test_tapping_a_meld_together_turns_short_by_into_enough(page: Any) -> None:
    page.goto("/meld?rules=classic&deal=1")
    expect(verdict(page)).to_have_text("Short by 50")
    page.evaluate("window.stillTheSamePage = true")

    page.get_by_role("button", name="K — add a meld of Kings").tap()
    expect(verdict(page)).to_have_text("Short by 20")
    expect(page).to_have_url("/meld?rules=classic&deal=1&m=K.3.0.0")

    page.locator("#meld-0").get_by_role("button", name="One more: Jokers").tap()
    expect(verdict(page)).to_have_text("Enough: 80 of 50")
    expect(page).to_have_url("/meld?rules=classic&deal=1&m=K.3.1.0")
    expect(page.locator("#meld-said")).to_have_text("Enough: 80 of 50")  # said aloud
    assert page.evaluate("window.stillTheSamePage") is True, "htmx swapped, no reload"

    page.go_back()
    expect(verdict(page)).to_have_text("Short by 20")
    page.go_forward()
    expect(verdict(page)).to_have_text("Enough: 80 of 50")


def test_a_tapped_button_stays_in_view_as_melds_pile_up_above_it(page: Any) -> None:
    """Each tap adds a meld above the rank buttons; the tapped one keeps the focus, and
    it stood below the screen from the first tap (the accessibility audit's finding)."""
    page.goto("/meld?rules=classic&deal=1")
    for rank, n in (("K", 1), ("Q", 2), ("J", 3), ("10", 4)):
        button = page.get_by_role("button", name=f"{rank} — add a meld of", exact=False)
        button.focus()
        page.keyboard.press("Enter")
        expect(page.locator(".meld-list > li")).to_have_count(n)
        in_view = (
            "() => { const e = document.activeElement, b = e.getBoundingClientRect();"
            " return e.id.startsWith('op-add-') && b.top >= 0 && b.bottom <= innerHeight + 1; }"
        )
        page.wait_for_function(in_view, timeout=2000)  # once the swap has settled


def test_typed_counts_are_checked_with_enter_in_place(page: Any) -> None:
    page.goto("/meld?rules=classic&deal=2&m=A.3.0.0")
    expect(verdict(page)).to_have_text("Short by 30")
    field = page.locator("input[name='melds-0-naturals']")
    field.fill("5")
    field.press("Enter")
    expect(verdict(page)).to_have_text("Enough: 100 of 90")
    expect(page).to_have_url("/meld?rules=classic&deal=2&m=A.5.0.0")


def test_the_checker_fits_a_phone_with_big_tap_targets(page: Any) -> None:
    page.goto("/meld?rules=whitnack&deal=2&m=K.3.0.1&m=Q.3.0.0.t&m=wild.0.2.1&size=8")
    expect(verdict(page)).to_have_text("Enough: 200 of 90")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width}px wide"
    small = []
    for button in page.locator("#meld-checker button:visible").all():
        box = button.bounding_box()
        if box and (box["width"] < 44 or box["height"] < 44):
            small.append((button.inner_text(), box["width"], box["height"]))
    assert not small, f"tap targets under 44px: {small}"
    size = page.locator("#meld-verdict .meld-verdict-main").evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)"
    )
    assert size >= 28, "the verdict is large"


def test_without_javascript_the_buttons_still_build_the_meld(no_js_page: Any) -> None:
    page = no_js_page
    page.goto("/meld?rules=four-books&deal=1")
    expect(verdict(page)).to_have_text("Short by 50")
    page.get_by_role("button", name="A — add a meld of Aces").click()
    expect(page).to_have_url("/meld?rules=four-books&deal=1&m=A.3.0.0")
    expect(verdict(page)).to_have_text("Enough: 60 of 50")
    expect(page.get_by_role("button", name="Add a meld of only wild cards")).to_be_disabled()


@pytest.fixture
def many_house_rules(live_server: Any) -> Iterator[list[str]]:
    """Eight saved rule sets (one with a long name), kings worth 11 to 18: their origins."""
    classic = PRESETS["classic"].to_dict()
    names = [f"Browser house {n}" for n in range(7)]
    names.append("Browser house rules with a name far too long to fit one phone row")
    with live_server.app.app_context():
        rows = [
            rule_sets.create(
                {**classic, "name": name, "card_values": {**classic["card_values"], "K": 11 + n}}
            )
            for n, name in enumerate(names)
        ]
        origins = [rule_sets.origin_of(row) for row in rows]
    yield origins
    with live_server.app.app_context():
        for origin in origins:
            row = rule_sets.load(origin.removeprefix(rule_sets.SAVED_PREFIX))
            if row is not None:
                rule_sets.delete(row)


def test_many_saved_rule_sets_fit_a_phone_and_switch_in_place(
    page: Any, many_house_rules: list[str]
) -> None:
    page.goto("/meld?rules=classic&deal=1&m=K.3.0.0")
    expect(verdict(page)).to_have_text("Short by 20")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width}px wide"
    select = page.get_by_label("Rules", exact=True)
    box = select.bounding_box()
    assert box and box["height"] >= 44 and box["x"] + box["width"] <= 390, box
    expect(page.get_by_role("button", name="Use these rules")).to_be_hidden()  # JavaScript on
    page.evaluate("window.stillTheSamePage = true")

    select.select_option(many_house_rules[5])  # kings at 16: 48 points
    expect(verdict(page)).to_have_text("Short by 2")
    expect(page).to_have_url(f"/meld?rules={many_house_rules[5]}&deal=1&m=K.3.0.0")
    expect(page.get_by_label("Rules", exact=True)).to_have_value(many_house_rules[5])
    assert page.evaluate("window.stillTheSamePage") is True, "htmx swapped, no reload"

    page.get_by_role("button", name="A — add a meld of Aces").tap()
    expect(verdict(page)).to_have_text("Enough: 108 of 50")
    expect(page).to_have_url(f"/meld?rules={many_house_rules[5]}&deal=1&m=K.3.0.0&m=A.3.0.0")
    page.go_back()
    expect(verdict(page)).to_have_text("Short by 2")


def test_without_javascript_a_saved_rule_set_is_chosen_with_a_button(
    no_js_page: Any, many_house_rules: list[str]
) -> None:
    page = no_js_page
    page.goto("/meld?rules=classic&deal=1&m=K.3.0.0")
    page.get_by_label("Rules", exact=True).select_option(many_house_rules[7])  # kings at 18
    use = page.get_by_role("button", name="Use these rules")
    box = use.bounding_box()
    assert box and box["height"] >= 44 and box["width"] >= 44
    use.click()
    expect(page).to_have_url(f"/meld?rules={many_house_rules[7]}&deal=1&m=K.3.0.0")
    expect(verdict(page)).to_have_text("Enough: 54 of 50")
