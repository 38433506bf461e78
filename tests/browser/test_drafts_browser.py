"""Nothing typed is lost (UX.md), in Chromium at 390 x 844: numbers the conflict view aims
at the next deal, and numbers typed after a deal was kept offline, come back after a
reload (offline too); the conflict view opens at its heading, under the sticky totals; a
save on a slow server shows it is under way; a swap never trips the CSP; the live preview
still follows the sheet after a save."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from test_match_entry_browser import start_match
from test_offline_browser import controlled

pytestmark = pytest.mark.browser

#: The [top, bottom] of an element on the screen.
BOX = "e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }"


@pytest.fixture
def phones(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Callable[[], Any]]:
    """Phones (each its own context: cookies, storage, service worker); no page of any of
    them may break the Content-Security-Policy."""
    contexts: list[Any] = []
    refused: list[str] = []

    def phone() -> Any:
        context = browser.new_context(**browser_context_args)
        context.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        contexts.append(context)
        return context

    try:
        yield phone
    finally:
        for context in contexts:
            context.close()
    assert refused == []


def went_out(page: Any, side: int) -> None:
    page.locator(f"label.choice:has(input[name=went_out][value='{side}'])").click()


def type_mine(page: Any) -> None:
    """This phone's deal: the second side went out with 310 on the table, 40 left over."""
    went_out(page, 1)
    page.fill("#sides-1-melded_points", "310")
    page.fill("#sides-0-left_points", "40")


def expect_mine(page: Any) -> None:
    expect(page.locator("#sides-1-melded_points")).to_have_value("310")
    expect(page.locator("#sides-0-left_points")).to_have_value("40")
    expect(page.locator("#deal-entry input[name=went_out][value='1']")).to_be_checked()


def lose_the_race_for_deal_1(phones: Callable[[], Any]) -> Any:
    """Two phones on one match; this one types deal 1, the other saves deal 1 first, then
    this one taps Save: the conflict view, this phone's numbers aimed at deal 2."""
    first = phones().new_page()
    start_match(first)
    page = phones().new_page()
    page.goto(first.url)
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()
    type_mine(page)
    went_out(first, 0)
    first.fill("#sides-0-melded_points", "690")
    first.get_by_role("button", name="Save deal 1").click()
    expect(first.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#conflict")).to_contain_text("Deal 1 was saved on another phone first")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect_mine(page)
    return page


def expect_a_fresh_sheet(page: Any, deal: int) -> None:
    """The form for ``deal``, with no number restored into it."""
    expect(page.get_by_role("heading", name=f"Enter deal {deal}")).to_be_visible()
    expect(page.locator("#sides-1-melded_points")).to_have_value("")
    expect(page.locator("#deal-entry .flash")).to_have_count(0)


def test_numbers_the_conflict_view_aims_at_the_next_deal_survive_a_reload(
    phones: Callable[[], Any],
) -> None:
    page = lose_the_race_for_deal_1(phones)
    page.reload()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(page.locator("#deal-entry .flash")).to_contain_text("Restored the numbers typed")
    expect_mine(page)
    drafts = page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('scorekeeper:draft:'))"
    )
    assert [key.rsplit(":", 1)[1] for key in drafts] == ["d2"]  # moved, not copied

    page.get_by_role("button", name="Save deal 2").click()  # saved: the draft goes
    expect(page.get_by_role("heading", name="Enter deal 3")).to_be_visible()
    page.reload()
    expect_a_fresh_sheet(page, 3)


def test_choosing_in_the_conflict_view_lets_the_numbers_typed_go(
    phones: Callable[[], Any],
) -> None:
    page = lose_the_race_for_deal_1(phones)
    page.locator("#conflict").get_by_role("link", name="Keep theirs").click()
    expect(page.locator("#conflict")).to_have_count(0)
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(page.locator("#sides-1-melded_points")).to_have_value("")
    page.reload()
    expect_a_fresh_sheet(page, 2)

    page = lose_the_race_for_deal_1(phones)
    page.locator("#conflict").get_by_role("button", name="Put mine on top").click()
    expect(page.locator("#conflict")).to_have_count(0)
    expect(page.locator(".side-total").first).to_have_text("-40")  # deal 1 is mine now
    expect_a_fresh_sheet(page, 2)


def test_putting_mine_on_top_without_a_connection_says_so_and_keeps_the_page(
    phones: Callable[[], Any],
) -> None:
    # "Put mine on top" is a plain form post: offline, the browser left the match for its
    # own error page ("No internet"), the conflict view and the numbers with it.
    page = lose_the_race_for_deal_1(phones)
    url = page.url
    page.context.set_offline(True)
    conflict = page.locator("#conflict")
    conflict.get_by_role("button", name="Put mine on top").click()
    expect(conflict.get_by_role("alert")).to_have_text(
        "No connection: nothing was changed. Try again when it returns."
    )
    assert page.url == url
    expect_mine(page)
    page.context.set_offline(False)
    conflict.get_by_role("button", name="Put mine on top").click()
    expect(page.locator("#conflict")).to_have_count(0)
    expect(page.locator(".side-total").first).to_have_text("-40")  # deal 1 is mine now


def test_the_conflict_view_opens_at_its_heading_below_the_sticky_totals(
    phones: Callable[[], Any],
) -> None:
    page = lose_the_race_for_deal_1(phones)
    expect(page.locator("#match[data-outcome]")).to_have_count(0)  # it moved
    board = page.locator("#scoreboard").evaluate(BOX)
    heading = page.locator("#conflict-title").evaluate(BOX)
    theirs = page.locator("#conflict .theirs h3").evaluate(BOX)
    assert board[1] <= heading[0] and heading[1] <= 844, (board, heading)
    assert theirs[1] <= 844, theirs  # both versions begin on the screen
    # the focus is on the heading (it went to the form below, off the screen), so the next
    # Tab reaches the choice: Keep theirs, then Put mine on top
    expect(page.locator("#conflict-title")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#conflict").get_by_role("link", name="Keep theirs")).to_be_focused()


def test_numbers_typed_after_a_deal_kept_offline_come_back_on_an_offline_reload(
    phones: Callable[[], Any],
) -> None:
    phone = phones()
    page = phone.new_page()
    start_match(page)
    controlled(page)
    phone.set_offline(True)
    went_out(page, 0)
    page.fill("#sides-0-melded_points", "690")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#scoreboard .pending-deal")).to_contain_text("waiting to be sent")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    type_mine(page)

    page.reload()  # the worker's copy of the page: deal 1 to enter, until the kept deal shows
    expect(page.locator("#scoreboard .pending-deal")).to_contain_text("waiting to be sent")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(page.locator("#deal-entry .flash")).to_contain_text("Restored the numbers typed")
    expect_mine(page)

    phone.set_offline(False)  # deal 1 is sent; what is typed for deal 2 stays
    expect(page.locator("#scoreboard .pending-deal")).to_have_count(0, timeout=30_000)
    expect(page.locator(".deal-table tbody tr")).to_have_count(1)
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect_mine(page)


def test_a_save_under_way_shows_on_its_button_until_the_answer(
    phones: Callable[[], Any],
) -> None:
    page = phones().new_page()
    start_match(page)
    held: list[Any] = []
    page.route(
        "**/m/*/deals",
        lambda route: held.append(route) if route.request.method == "POST" else route.continue_(),
    )
    went_out(page, 0)
    page.fill("#sides-0-melded_points", "690")
    save = page.get_by_role("button", name="Save deal 1")
    expect(save).to_be_enabled()
    save.click()
    expect(save).to_have_attribute("aria-busy", "true")
    expect(save).to_be_disabled()  # a second tap sends nothing more
    turning = save.evaluate("e => getComputedStyle(e, '::after').content")
    assert turning not in ("none", "normal"), turning
    page.wait_for_timeout(300)
    assert len(held) == 1

    held[0].continue_()  # the answer comes
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    save = page.get_by_role("button", name="Save deal 2")
    expect(save).to_be_enabled()
    expect(save).not_to_have_attribute("aria-busy", "true")

    page.unroute("**/m/*/deals")
    page.route(
        "**/m/*/deals",
        lambda route: (
            route.fulfill(status=500, body="boom")
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    page.fill("#sides-0-melded_points", "120")
    save.click()
    expect(page.locator("#deal-entry .send-note")).to_contain_text("The server had a problem")
    expect(save).to_be_enabled()  # tap Save again
    expect(save).not_to_have_attribute("aria-busy", "true")


def test_a_swap_carries_no_inline_style_over(phones: Callable[[], Any]) -> None:
    """A style given to an element through the CSSOM (which the CSP allows: a browser
    extension, or a screenshot hiding the caret, does it) must not be copied onto the new
    page by a swap as a style attribute, which the CSP refuses, once per element."""
    page = phones().new_page()
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "inline style" in m.text else None)
    start_match(page)
    page.evaluate(
        "document.querySelectorAll('#match [id]').forEach(e => {"
        " e.style.setProperty('caret-color', 'transparent');"
        " e.style.removeProperty('caret-color'); })"
    )
    assert page.locator("#match [style]").count() > 10
    went_out(page, 0)
    page.fill("#sides-0-melded_points", "690")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(page.locator("#match[data-outcome]")).to_have_count(0)  # settled
    page.wait_for_timeout(100)
    assert refused == []


def test_the_live_preview_follows_the_sheet_after_a_save(phones: Callable[[], Any]) -> None:
    page = phones().new_page()
    start_match(page)
    page.fill("#sides-0-melded_points", "100")
    expect(page.locator("#preview tfoot")).to_contain_text("+100")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    page.fill("#sides-0-melded_points", "200")
    expect(page.locator("#preview tfoot")).to_contain_text("+200")
