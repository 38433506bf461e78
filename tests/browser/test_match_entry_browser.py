"""The standard deal at the table (UX.md): right score, 16 taps or fewer, on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

#: Visible controls smaller than 44 x 44 px; a radio or checkbox counts by its label.
SMALL_TARGETS = """
() => Array.from(document.querySelectorAll(
    'button, a, input:not([type=hidden]), select, summary, textarea'))
  .filter(e => e.offsetParent !== null && !e.classList.contains('skip'))
  .map(e => ['radio', 'checkbox'].includes(e.type) && e.closest('label')
             ? e.closest('label') : e)
  .map(e => { const r = e.getBoundingClientRect();
              return [e.tagName, e.id || e.name || e.textContent.trim().slice(0, 30),
                      Math.round(r.width), Math.round(r.height)]; })
  .filter(([, , w, h]) => w < 44 || h < 44)
"""


def start_match(page: Any) -> None:
    page.goto("/matches/new?rules=classic&layout=2%2B2")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        page.fill(f"#side_{i // 2}_player_{i % 2}", name)
    page.get_by_role("button", name="Start the match").click()
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()


def assert_fits_a_phone(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(SMALL_TARGETS) == []


def test_the_standard_deal_scores_3990_and_510_in_sixteen_taps(page: Any) -> None:
    start_match(page)
    assert_fits_a_phone(page)
    taps = 0

    def tap(selector: str) -> None:
        nonlocal taps
        page.locator(selector).click()
        taps += 1

    def type_number(selector: str, digits: str) -> None:
        nonlocal taps
        tap(selector)
        page.keyboard.type(digits)
        taps += len(digits)

    tap("label.choice:has(input[name=went_out][value='0'])")  # fills 2 clean, 2 dirty, 1 wild
    expect(page.locator("#sides-0-books_wild")).to_have_value("1")
    tap("[aria-controls='sides-0-red_threes'][data-step='1']")
    type_number("#sides-0-melded_points", "690")
    tap("[aria-controls='sides-1-books_clean'][data-step='1']")
    type_number("#sides-1-melded_points", "185")
    type_number("#sides-1-left_points", "75")
    # side B's red three is in its unpicked foot: -100 under classic, as side A went out
    tap("[aria-controls='sides-1-red_threes_left_in_foot'][data-step='1']")
    expect(page.locator("#preview tfoot")).to_contain_text("+3990")
    expect(page.locator("#preview tfoot")).to_contain_text("+510")
    tap("button:has-text('Save deal 1')")

    expect(page.locator(".totals")).to_contain_text("3990")
    expect(page.locator(".totals")).to_contain_text("510")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    assert taps <= 16
    assert_fits_a_phone(page)


def test_a_deal_is_saved_with_javascript_off(no_js_page: Any) -> None:
    page = no_js_page
    start_match(page)
    page.check("input[name=went_out][value='1']")
    for kind, count in (("clean", "2"), ("dirty", "2"), ("wild", "1")):
        page.fill(f"#sides-1-books_{kind}", count)
    page.fill("#sides-1-melded_points", "690")
    page.fill("#sides-0-left_points", "40")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator(".totals")).to_contain_text("3890")
    expect(page.locator(".totals")).to_contain_text("-40")
    assert_fits_a_phone(page)


def test_numbers_typed_survive_a_reload_until_the_deal_is_saved(page: Any) -> None:
    start_match(page)
    page.locator("label.choice:has(input[name=went_out][value='1'])").click()
    page.fill("#sides-0-melded_points", "120")
    page.fill("#sides-1-melded_points", "690")
    page.reload()
    expect(page.locator("#deal-entry .flash")).to_contain_text("Restored the numbers")
    expect(page.locator("#sides-0-melded_points")).to_have_value("120")
    expect(page.locator("#sides-1-books_wild")).to_have_value("1")
    expect(page.locator("input[name=went_out][value='1']")).to_be_checked()
    expect(page.locator("#preview tfoot")).to_contain_text("+120")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    page.reload()
    expect(page.locator("#sides-0-melded_points")).to_have_value("")
    expect(page.locator("#deal-entry .flash")).to_have_count(0)
