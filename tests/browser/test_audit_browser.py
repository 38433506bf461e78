"""The history on a phone: it fits 390 px, its times are the phone's own, restore and
naming work through htmx without a reload, and with JavaScript off as plain forms."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from test_match_entry_browser import assert_fits_a_phone, start_match

pytestmark = pytest.mark.browser


@pytest.fixture
def tokyo_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A phone set to Tokyo time (UTC+9, no summer time): its clock never shows UTC's."""
    context = browser.new_context(**browser_context_args, timezone_id="Asia/Tokyo")
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def enter(page: Any, a: str, b: str) -> None:
    heading = page.locator("#deal-entry h2").inner_text()
    page.fill("#sides-0-melded_points", a)
    page.fill("#sides-1-melded_points", b)
    page.locator("#deal-entry button[type=submit]").first.click()
    expect(page.locator("#deal-entry h2")).not_to_have_text(heading)


def test_a_removed_deal_comes_back_with_one_tap_and_times_are_the_phone_s(
    tokyo_page: Any,
) -> None:
    page = tokyo_page
    start_match(page)
    enter(page, "120", "90")
    enter(page, "150", "60")
    page.get_by_role("link", name="Remove deal 2").click()
    page.get_by_role("button", name="Remove deal 2").click()
    restore = page.get_by_role("button", name="Restore deal 2")
    expect(restore).to_be_visible()
    assert_fits_a_phone(page)
    time = page.locator(".restore time")
    utc = time.get_attribute("datetime")
    shown = time.inner_text()
    assert "UTC" not in shown
    hour = (int(utc[11:13]) + 9) % 24
    assert re.search(rf"\b0?{hour}:{utc[14:16]}\b", shown), (utc, shown)
    page.evaluate("window.reloaded = false")
    restore.click()
    expect(page.get_by_text("Deal 2 is back, as it was before it was removed.")).to_be_visible()
    expect(page.locator(".side-total")).to_have_text(["270", "150"])
    assert page.evaluate("window.reloaded") is False  # htmx swapped the match in place
    page.locator(".history-log summary").click()
    expect(page.locator(".history-list li").first).to_contain_text("Deal 2 restored at")
    assert_fits_a_phone(page)


def test_a_phone_names_itself_and_the_history_says_so(page: Any) -> None:
    start_match(page)
    page.get_by_text("Name this phone").first.click()
    page.fill("#device-name-input", "Ann’s phone")
    page.get_by_role("button", name="Save the name").click()
    expect(page.get_by_text("This phone is now called “Ann’s phone”.")).to_be_visible()
    enter(page, "120", "90")
    page.locator(".history-log summary").click()
    expect(page.locator(".history-list li").first).to_contain_text("by Ann’s phone:")
    assert_fits_a_phone(page)


def test_restore_works_with_javascript_off(no_js_page: Any) -> None:
    page = no_js_page
    start_match(page)
    for a, b in (("120", "90"), ("150", "60")):
        page.fill("#sides-0-melded_points", a)
        page.fill("#sides-1-melded_points", b)
        page.locator("#deal-entry button.primary").click()
    page.get_by_role("link", name="Remove deal 2").click()
    page.get_by_role("button", name="Remove deal 2").click()
    expect(page.locator(".restore time")).to_contain_text("UTC")  # no script: UTC, said so
    page.get_by_role("button", name="Restore deal 2").click()
    expect(page.get_by_text("Deal 2 is back, as it was before it was removed.")).to_be_visible()
    expect(page.locator(".side-total")).to_have_text(["270", "150"])
