"""Issue 14's "done when", on two phone-sized pages (390 x 844) and an onlooker: the second
phone joins through the link the QR code holds; a deal saved on the first shows on the
second within 5 s while the second has numbers typed, which stay; both phones enter deal
3 at once, the loser sees the conflict view and resolves it (each way once), and exactly
one deal of each number is stored; the onlooker page follows live and refuses posts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import segno
from conftest import LiveServer
from playwright.sync_api import expect
from sqlalchemy import func, select
from test_match_entry_browser import assert_fits_a_phone, start_match

from scorekeeper.extensions import db
from scorekeeper.models import Deal
from scorekeeper.models import Match as MatchRow

pytestmark = pytest.mark.browser

LIVE = 5000  # ms: issue 14 asks for a saved deal on every phone within 5 seconds
ROWS = "#deals .deal-table tbody tr"


@pytest.fixture
def other_phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A second phone: its own browser context (its own cookies, its own device)."""
    context = browser.new_context(**browser_context_args)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def onlooker(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A phone propped on the table, only watching."""
    context = browser.new_context(**browser_context_args)
    try:
        yield context.new_page()
    finally:
        context.close()


def qr_paths(svg: str) -> list[str]:
    """The drawing of a QR code: its paths' shapes."""
    found = re.findall(r'<path[^>]* d="([^"]+)"', svg)
    assert found, svg[:200]
    return found


def type_deal(page: Any, a: str, b: str) -> None:
    page.fill("#sides-0-melded_points", a)
    page.fill("#sides-1-melded_points", b)


def save(page: Any) -> None:
    page.locator("#deal-entry button[type=submit]").first.click()


def stored(live_server: LiveServer, public_id: str) -> list[int]:
    """The deal numbers the database holds for the match."""
    with live_server.app.app_context():
        query = (
            select(Deal.number)
            .join(MatchRow)
            .where(MatchRow.public_id == public_id)
            .order_by(Deal.number)
        )
        numbers = list(db.session.scalars(query))
        db.session.remove()
        return numbers


def test_one_match_on_two_phones_and_an_onlooker(
    page: Any, other_phone: Any, onlooker: Any, live_server: LiveServer
) -> None:
    start_match(page)
    public_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    type_deal(page, "100", "50")
    save(page)
    expect(page.locator(ROWS)).to_have_count(1)
    # the save's answer settles before its focus moves to the next sheet (app.js, react());
    # under load that came after the focus below and took it back (CI, once)
    expect(page.locator("#match[data-outcome]")).to_have_count(0)

    # "Score on another phone": the panel arrives on demand, with the link its QR code holds
    share = page.get_by_role("link", name="Score on another phone")
    share.focus()
    expect(share).to_be_focused()
    page.keyboard.press("Enter")  # from the keyboard: the focus goes with the swap
    panel = page.locator("#share-panel")
    # a bound, not a measure: the panel (its QR code drawn on the server) took over the
    # default 5 s once while both full suites ran beside it on two cores
    expect(panel).to_be_visible(timeout=20_000)
    expect(page.locator("#share-title")).to_be_focused()  # the links follow it in order
    link = page.locator("#scoring-link").input_value()
    watch = page.locator("#watching-link").input_value()
    assert link == live_server.url(f"/m/{public_id}")
    qr = panel.locator("svg.qr").first.evaluate("e => e.outerHTML")
    made = segno.make(link, error="m").svg_inline(scale=4, border=4, dark="#000", light="#fff")
    assert qr_paths(qr) == qr_paths(made)  # the code drawn is the link's, module for module
    assert public_id not in watch
    assert_fits_a_phone(page)

    other_phone.goto(link)
    expect(other_phone.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    onlooker.goto(watch)
    expect(onlooker.locator(ROWS)).to_have_count(1)
    assert onlooker.locator("form").count() == 0

    # the second phone is typing deal 2 when the first saves it
    other_phone.fill("#sides-0-melded_points", "70")
    type_deal(page, "200", "150")
    save(page)
    expect(other_phone.locator(ROWS)).to_have_count(2, timeout=LIVE)
    expect(onlooker.locator(ROWS)).to_have_count(2, timeout=LIVE)
    expect(other_phone.locator(".side-total").first).to_have_text("300")
    expect(other_phone.locator("#sides-0-melded_points")).to_have_value("70")  # kept
    # and said aloud there: the live region takes the words (it is not replaced)
    expect(other_phone.locator("#announce[aria-live='polite']")).to_contain_text(
        "Changed on another phone. Deal 2 saved."
    )

    # both enter deal 3 at once: the first wins, the second sees both and puts its on top
    other_phone.goto(link)
    expect(other_phone.get_by_role("heading", name="Enter deal 3")).to_be_visible()
    type_deal(page, "300", "10")
    type_deal(other_phone, "310", "20")
    save(page)
    expect(page.get_by_role("heading", name="Enter deal 4")).to_be_visible()
    save(other_phone)
    conflict = other_phone.locator("#conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("Deal 3 was saved on another phone first")
    expect(conflict.locator(".theirs tfoot")).to_contain_text("+300")
    expect(conflict.locator(".mine tfoot")).to_contain_text("+310")
    assert_fits_a_phone(other_phone)
    conflict.get_by_role("button", name="Put mine on top").click()
    expect(other_phone.locator(ROWS)).to_have_count(3)
    expect(other_phone.locator(ROWS).nth(2)).to_contain_text("310")
    assert stored(live_server, public_id) == [1, 2, 3]
    expect(page.locator(ROWS).nth(2)).to_contain_text("310", timeout=LIVE)
    expect(onlooker.locator(ROWS).nth(2)).to_contain_text("310", timeout=LIVE)

    # and deal 4 the other way: the loser keeps theirs
    expect(other_phone.get_by_role("heading", name="Enter deal 4")).to_be_visible()
    type_deal(other_phone, "400", "30")
    type_deal(page, "410", "40")
    save(other_phone)
    expect(other_phone.locator(ROWS)).to_have_count(4)
    save(page)
    conflict = page.locator("#conflict")
    expect(conflict).to_contain_text("Deal 4 was saved on another phone first")
    conflict.get_by_role("link", name="Keep theirs").click()
    expect(page.locator("#conflict")).to_have_count(0)
    expect(page.locator(ROWS).nth(3)).to_contain_text("400")
    assert stored(live_server, public_id) == [1, 2, 3, 4]
    expect(onlooker.locator(ROWS)).to_have_count(4, timeout=LIVE)

    # the onlooker link changes nothing: every form post is refused
    for path in ("", "/live", "/deals", "/deals/1", "/device", "/deals/4/remove"):
        answer = onlooker.request.post(watch + path, form={"went_out": ""})
        assert answer.status in (403, 404, 405), (path, answer.status)
    # and its token is no match's public id: the scoring URLs made from it lead nowhere
    # (a post there is refused first for its missing CSRF token: 400)
    scoring = live_server.url("/m/" + watch.rsplit("/", 1)[-1])
    assert onlooker.request.get(scoring).status == 404
    assert onlooker.request.post(scoring + "/deals", form={"went_out": ""}).status in (400, 404)
    assert stored(live_server, public_id) == [1, 2, 3, 4]
    with live_server.app.app_context():
        assert db.session.scalar(select(func.count(Deal.id))) >= 4
        db.session.remove()


@pytest.fixture
def other_no_js_phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A second phone with JavaScript off."""
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_conflict_view_works_with_javascript_off(
    no_js_page: Any, other_no_js_phone: Any, live_server: LiveServer
) -> None:
    """Plain forms: the loser gets the conflict view as a page, and either choice works."""
    page, other = no_js_page, other_no_js_phone
    start_match(page)
    link = page.url
    public_id = link.rstrip("/").rsplit("/", 1)[-1]
    other.goto(link)
    type_deal(page, "120", "60")
    type_deal(other, "130", "70")
    save(page)
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    save(other)
    conflict = other.locator("#conflict")
    expect(conflict).to_contain_text("Deal 1 was saved on another phone first")
    expect(conflict.locator(".theirs tfoot")).to_contain_text("+120")
    expect(conflict.locator(".mine tfoot")).to_contain_text("+130")
    expect(other.locator("#sides-0-melded_points")).to_have_value("130")  # kept in the form
    conflict.get_by_role("button", name="Put mine on top").click()
    expect(other.locator(".side-total").first).to_have_text("130")
    page.goto(link)
    expect(page.locator(ROWS)).to_have_count(1)
    expect(page.locator(".side-total").first).to_have_text("130")
    assert stored(live_server, public_id) == [1]


def test_an_untouched_form_moves_on_to_the_next_deal_by_itself(page: Any, other_phone: Any) -> None:
    start_match(page)
    other_phone.goto(page.url)
    expect(other_phone.get_by_role("heading", name="Enter deal 1")).to_be_visible()
    type_deal(page, "100", "50")
    save(page)
    # nothing typed on the other phone: its form follows the match to deal 2
    expect(other_phone.get_by_role("heading", name="Enter deal 2")).to_be_visible(timeout=LIVE)
    expect(other_phone.locator(ROWS)).to_have_count(1)
    # something typed: the form stays on what is being typed (saving it shows the conflict)
    other_phone.fill("#sides-1-melded_points", "5")
    other_phone.locator("#sides-1-melded_points").blur()
    type_deal(page, "200", "60")
    save(page)
    expect(other_phone.locator(ROWS)).to_have_count(2, timeout=LIVE)
    expect(other_phone.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(other_phone.locator("#sides-1-melded_points")).to_have_value("5")


def test_a_live_answer_older_than_a_save_on_this_phone_is_dropped(
    page: Any, other_phone: Any
) -> None:
    """A live answer asked before this phone's save and answered after it must not put the
    older scoreboard and deals back (they would stay until the next ask, 4 s later)."""
    start_match(page)
    type_deal(page, "100", "50")
    save(page)
    expect(page.locator(ROWS)).to_have_count(1)

    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:  # answer later what the server says now
        held.append((route, route.fetch()))

    page.route(re.compile(r"/m/[^/]+/live$"), hold)
    # another phone corrects deal 1: this phone's next ask finds a change, and is held
    other_phone.goto(page.url.rstrip("/") + "/deals/1/edit")
    other_phone.fill("#sides-0-melded_points", "120")
    save(other_phone)
    expect(other_phone.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    for _ in range(50):  # the page asks every 4 s
        if held:
            break
        page.wait_for_timeout(200)
    assert held, "the page did not ask whether the match changed"
    route, answer = held[0]
    assert answer.status == 200  # the answer holds deal 1 corrected, and no deal 2

    # this phone saves deal 2 meanwhile: its page shows both deals
    type_deal(page, "200", "60")
    save(page)
    expect(page.locator(ROWS)).to_have_count(2)
    route.fulfill(response=answer)  # the older answer arrives last
    page.unroute(re.compile(r"/m/[^/]+/live$"))
    page.wait_for_timeout(500)
    expect(page.locator(ROWS)).to_have_count(2, timeout=1)
    expect(page.locator(".side-total").first).to_have_text("320")
