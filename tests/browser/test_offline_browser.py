"""At the table without a signal (issue 13), in Chromium at 390 x 844: the app is
installable (manifest fetched and parsed, service worker registered and controlling),
a deal saved offline is kept and shown as waiting, survives an offline reload, and is
stored exactly once when the connection returns; a save whose answer never comes is kept
and sent again without a second deal; a server error on Save is told in
words and the numbers stay."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import LiveServer, until
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from sqlalchemy import func, select

from scorekeeper.extensions import db
from scorekeeper.models import Deal
from scorekeeper.models import Match as MatchRow

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A fresh phone (its own service worker, caches and IndexedDB) for each test; no
    page of it may break the Content-Security-Policy."""
    context = browser.new_context(**browser_context_args)
    refused: list[str] = []
    context.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    try:
        yield context
    finally:
        context.close()
    assert refused == []


def start_match(page: Any) -> str:
    page.goto("/matches/new?rules=classic&layout=2%2B2")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        page.fill(f"#side_{i // 2}_player_{i % 2}", name)
    page.get_by_role("button", name="Start the match").click()
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()
    return page.url.rsplit("/m/", 1)[1]


def controlled(page: Any) -> None:
    """Wait until the service worker controls the page (reload once if needed)."""
    until(page, "navigator.serviceWorker.ready.then(() => true)")
    if not page.evaluate("Boolean(navigator.serviceWorker.controller)"):
        page.reload()
    until(page, "Boolean(navigator.serviceWorker.controller)")


def fill_standard_deal(page: Any) -> None:
    """RULES.md section 7: side A went out (3990), side B 510."""
    page.locator("label.choice:has(input[name=went_out][value='0'])").click()
    page.fill("#sides-0-red_threes", "1")
    page.fill("#sides-0-melded_points", "690")
    page.fill("#sides-1-books_clean", "1")
    page.fill("#sides-1-melded_points", "185")
    page.fill("#sides-1-left_points", "75")
    page.fill("#sides-1-red_threes_left", "1")


def stored_deals(live_server: LiveServer, public_id: str) -> int:
    with live_server.app.app_context():
        count = db.session.scalar(
            select(func.count(Deal.id)).join(MatchRow).where(MatchRow.public_id == public_id)
        )
        db.session.remove()
        return int(count or 0)


def test_the_browser_finds_the_manifest_and_a_service_worker_that_controls_the_page(
    phone: Any,
) -> None:
    page = phone.new_page()
    manifests: list[Any] = []
    page.on("response", lambda r: manifests.append(r) if "webmanifest" in r.url else None)
    page.goto("/")
    controlled(page)
    href = page.evaluate("document.querySelector('link[rel=manifest]').href")
    manifest = page.evaluate(f"fetch({href!r}).then(r => r.json())")
    assert manifest["display"] == "standalone"
    assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}
    assert manifests and manifests[0].ok  # the browser fetched it on its own
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope.endswith("/")
    for url in manifest["icons"]:
        assert page.request.get(url["src"]).ok


def test_a_deal_saved_offline_waits_survives_a_reload_and_is_stored_once_back_online(
    phone: Any, live_server: LiveServer
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    controlled(page)
    phone.set_offline(True)
    fill_standard_deal(page)
    key = page.locator("#deal-entry input[name=submission_key]").input_value()
    page.get_by_role("button", name="Save deal 1").click()

    waiting = page.locator("#scoreboard .pending-deal")
    expect(waiting).to_contain_text("Deal 1 · waiting to be sent")
    expect(page.locator(".send-note")).to_contain_text("No connection")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    assert stored_deals(live_server, public_id) == 0
    kept = page.evaluate(
        "ScorekeeperKept.all().then(rows => rows.map(r => ({key: r.key, deal: r.deal,"
        " version: r.version, state: r.state, page: r.page,"
        " sent: Object.fromEntries(r.data)})))"
    )
    assert len(kept) == 1
    assert kept[0]["key"] == key == kept[0]["sent"]["submission_key"]  # idempotency key
    assert kept[0]["deal"] == 1 and kept[0]["sent"]["expected_deal"] == "1"
    assert kept[0]["version"] == kept[0]["sent"]["version"] == ""  # a new deal has none yet
    assert kept[0]["state"] == "waiting" and kept[0]["page"] == f"/m/{public_id}"
    assert "csrf_token" not in kept[0]["sent"]  # a fresh one is fetched when it is sent
    assert kept[0]["sent"]["sides-0-melded_points"] == "690"
    new_key = page.locator("#deal-entry input[name=submission_key]").input_value()
    assert new_key != key  # the form for deal 2 has its own

    page.reload()  # still offline: this phone's copy of the match, and the kept deal
    expect(page.locator("#scoreboard .totals")).to_contain_text("Ann & Bob")
    expect(waiting).to_contain_text("Deal 1 · waiting to be sent")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()

    phone.set_offline(False)
    expect(page.locator(".totals")).to_contain_text("3990", timeout=30_000)
    expect(page.locator(".totals")).to_contain_text("510")
    expect(waiting).to_have_count(0)
    assert stored_deals(live_server, public_id) == 1
    page.reload()
    expect(page.locator(".totals")).to_contain_text("3990")
    assert stored_deals(live_server, public_id) == 1


def test_a_server_error_on_save_is_told_beside_the_button_and_the_numbers_stay(
    phone: Any, live_server: LiveServer
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    page.route(
        f"**/m/{public_id}/deals",
        lambda route: (
            route.fulfill(status=500, body="boom")
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    fill_standard_deal(page)
    page.get_by_role("button", name="Save deal 1").click()
    note = page.locator("#deal-entry .send-note")
    expect(note).to_contain_text("The server had a problem")
    expect(note).to_have_attribute("role", "alert")
    expect(page.locator("#sides-0-melded_points")).to_have_value("690")
    expect(page.locator("#sides-1-left_points")).to_have_value("75")
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()
    assert stored_deals(live_server, public_id) == 0

    page.unroute(f"**/m/{public_id}/deals")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator(".totals")).to_contain_text("3990")
    expect(note).to_have_count(0)
    assert stored_deals(live_server, public_id) == 1


def test_a_kept_deal_that_another_phone_entered_first_shows_both_and_is_never_dropped(
    phone: Any, browser: Any, browser_context_args: dict[str, Any], live_server: LiveServer
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    controlled(page)
    fill_standard_deal(page)
    expect(page.locator("#deal-scores strong")).to_have_text(["+3990", "+510"])
    phone.set_offline(True)
    page.fill("#sides-0-melded_points", "700")  # ours: 4000 for Ann & Bob
    # its preview gets no answer: the score of 690 is not left over Save
    expect(page.locator("#deal-scores li")).to_have_count(0)
    expect(page.locator("#deal-scores")).to_be_hidden()
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#scoreboard .pending-deal")).to_contain_text("waiting to be sent")

    other = browser.new_context(**browser_context_args)
    try:
        theirs = other.new_page()
        theirs.goto(f"/m/{public_id}")
        fill_standard_deal(theirs)  # theirs: 3990
        theirs.get_by_role("button", name="Save deal 1").click()
        expect(theirs.locator(".totals")).to_contain_text("3990")
    finally:
        other.close()

    phone.set_offline(False)
    refused = page.locator("#scoreboard .pending-deal.refused")
    expect(refused).to_contain_text("another phone entered that deal first", timeout=30_000)
    expect(refused.locator(".pending-version").first).to_contain_text("+3990")  # theirs
    expect(refused.locator(".pending-version").last).to_contain_text("+4000")  # ours
    # ours is the preview's table only: not a second copy of what the preview swaps in
    # elsewhere (the checklists, the Save bar's scores), which would share their ids
    for swapped in ("checklist-0", "checklist-1", "deal-scores"):
        expect(page.locator(f"[id={swapped}]")).to_have_count(1)
    assert stored_deals(live_server, public_id) == 1

    page.reload()  # still kept, still shown
    expect(refused).to_contain_text("another phone entered that deal first")
    refused.get_by_role("button", name="Save mine as the next deal").click()
    expect(page.locator(".deal-table tbody tr")).to_have_count(2, timeout=30_000)
    expect(page.locator("#scoreboard .pending-deal")).to_have_count(0)
    assert stored_deals(live_server, public_id) == 2


def test_the_meld_check_answers_on_this_phone_without_a_connection(phone: Any) -> None:
    page = phone.new_page()
    page.goto("/meld?rules=classic&deal=2")
    controlled(page)
    phone.set_offline(True)
    verdict = page.locator("#meld-verdict")
    page.get_by_role("button", name="K — add a meld of Kings").click()
    expect(page.locator(".meld-offline-note")).to_contain_text("checked on this phone")
    expect(verdict).to_have_attribute("data-counted", "30")
    expect(verdict).to_have_attribute("data-minimum", "90")
    page.get_by_role("button", name="One more: Twos").click()
    page.get_by_role("button", name="One more: Twos").click()  # two wilds in five cards
    expect(page.locator("#meld-0")).to_have_attribute("data-legal", "false")
    expect(page.locator("#meld-0 .meld-reasons")).to_contain_text(
        "A meld of 5 cards may hold at most 1 wild card; this one has 2."
    )
    page.get_by_role("button", name="One less: Twos").click()
    page.get_by_role("button", name="Add a meld of only wild cards").click()
    for _ in range(3):
        page.locator("#meld-1").get_by_role("button", name="One more: Jokers").click()
    expect(verdict).to_have_attribute("data-counted", "200")  # 50 + 150
    expect(verdict).to_have_attribute("data-enough", "true")
    expect(verdict).to_contain_text("Enough: 200 of 90")
    page.get_by_role("button", name="Deal 4 · 150").click()
    expect(verdict).to_have_attribute("data-minimum", "150")
    page.get_by_role("button", name="Remove meld 1").click()
    expect(verdict).to_have_attribute("data-counted", "150")
    expect(page.locator("#meld-0")).to_have_attribute("data-rank", "wild")

    phone.set_offline(False)  # the server agrees with what this phone showed
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator(".meld-offline-note")).to_have_count(0)
    expect(verdict).to_have_attribute("data-counted", "150")
    expect(verdict).to_have_attribute("data-minimum", "150")
    expect(verdict).to_have_attribute("data-enough", "true")


def test_without_a_connection_the_meld_check_gives_its_reasons_in_the_page_s_language(
    browser: Any, browser_context_args: dict[str, Any]
) -> None:
    """A Czech phone offline: the reasons this phone works out are the server's Czech."""
    phone = browser.new_context(**{**browser_context_args, "locale": "cs-CZ"})
    try:
        page = phone.new_page()
        page.goto("/meld?rules=classic&deal=2")
        expect(page.locator("html")).to_have_attribute("lang", "cs")
        controlled(page)
        phone.set_offline(True)
        page.locator("#op-add-K").click()
        expect(page.locator(".meld-offline-note")).to_be_visible()
        page.locator("#op-inc-0-twos").click()
        page.locator("#op-inc-0-twos").click()
        expect(page.locator("#meld-0")).to_have_attribute("data-legal", "false")
        expect(page.locator("#meld-0 .meld-reasons")).to_have_text(
            "Vyložení o 5 kartách smí mít nejvýše 1 divokou kartu; toto jich má 2."
        )
    finally:
        phone.close()


def test_without_a_connection_a_wild_card_on_top_and_a_second_meld_follow_the_rules(
    phone: Any,
) -> None:
    """Classic takes a wild card on top with two wild cards from hand and allows one
    unfinished meld per rank; four-books blocks the pile with a wild card on top."""
    page = phone.new_page()
    page.goto("/meld?rules=classic&deal=1")
    controlled(page)
    phone.set_offline(True)
    verdict = page.locator("#meld-verdict")
    page.get_by_role(
        "button", name="Top card: a wild card, taken with two wild cards from hand"
    ).click()
    expect(page.locator(".meld-offline-note")).to_contain_text("checked on this phone")
    expect(page.locator("#meld-0")).to_have_attribute("data-rank", "wild")
    expect(page.locator("#meld-0 .meld-top")).to_be_visible()
    expect(page.locator("#meld-0 .meld-reasons")).to_contain_text(
        "Taking the pile with a wild card on top needs two wild cards from your hand;"
        " this meld has 0."
    )
    for _ in range(3):  # the top card and two from hand
        page.locator("#meld-0").get_by_role("button", name="One more: Jokers").click()
    expect(page.locator("#meld-0")).to_have_attribute("data-legal", "true")
    expect(verdict).to_have_attribute("data-counted", "150")
    page.get_by_role("button", name="K — add a meld of Kings").click()
    page.get_by_role("button", name="K — add a meld of Kings").click()
    expect(page.locator("#meld-2")).to_have_attribute("data-legal", "false")
    expect(page.locator("#meld-2 .meld-reasons")).to_contain_text(
        "Your side already starts a meld of kings: add these cards to it."
    )
    expect(verdict).to_have_attribute("data-counted", "180")  # the second kings do not count
    expect(verdict).to_have_attribute("data-enough", "false")

    phone.set_offline(False)  # the server agrees with what this phone showed
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.locator(".meld-offline-note")).to_have_count(0)
    expect(verdict).to_have_attribute("data-counted", "180")
    expect(page.locator("#meld-0")).to_have_attribute("data-legal", "true")
    expect(page.locator("#meld-2")).to_have_attribute("data-legal", "false")

    page.goto("/meld?rules=four-books&deal=1")
    controlled(page)
    phone.set_offline(True)
    page.get_by_role("button", name="K — add a meld of Kings").click()
    page.get_by_role("button", name="Wild — top card: a wild card", exact=True).click()
    expect(page.locator(".meld-offline-note")).to_contain_text("checked on this phone")
    expect(page.locator(".meld-list > li")).to_have_count(1)  # no wild meld: the pile is blocked
    expect(
        page.get_by_role("button", name="Wild — top card: a wild card", exact=True)
    ).to_have_attribute("aria-pressed", "true")
    expect(page.locator("input[type=hidden][name=top]")).to_have_value("wild")


#: Keeps every screen lock the page takes in window.locks (the real API underneath).
COUNT_LOCKS = """
if (navigator.wakeLock) {
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  window.locks = [];
  navigator.wakeLock.request = type => request(type).then(l => (window.locks.push(l), l));
}
"""


def test_a_match_page_keeps_the_screen_on_and_takes_the_lock_again_when_shown_again(
    phone: Any,
) -> None:
    phone.add_init_script(COUNT_LOCKS)
    page = phone.new_page()
    start_match(page)
    if not page.evaluate("'wakeLock' in navigator"):
        pytest.skip("this Chromium has no Screen Wake Lock API")
    # (a locator's expectation, not wait_for_function("…"): polling an expression string
    # evaluates it, which the page's CSP refuses once it is not true at the first look)
    expect(page.locator("html")).to_have_attribute("data-wake-lock", "on")
    assert page.evaluate("window.locks.length") == 1
    # The browser drops the lock when the page is hidden; shown again, it is taken again.
    page.evaluate("window.locks[0].release()")
    expect(page.locator("html")).to_have_attribute("data-wake-lock", "off")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("html")).to_have_attribute("data-wake-lock", "on")
    assert page.evaluate("window.locks.length") == 2
    assert page.evaluate("window.locks[1].released") is False


def test_no_screen_lock_is_taken_outside_a_match(phone: Any) -> None:
    phone.add_init_script(COUNT_LOCKS)
    page = phone.new_page()
    page.goto("/rules")
    page.locator("h1").first.click()
    page.wait_for_timeout(300)
    assert page.evaluate("window.locks ? window.locks.length : 0") == 0


def test_a_deal_saved_online_is_in_this_phones_copy_of_the_match(phone: Any) -> None:
    page = phone.new_page()
    start_match(page)
    controlled(page)
    fill_standard_deal(page)
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    until(  # this phone's copy is written once the new sheet has settled
        page,
        "caches.open('pages-v1').then(c => c.match(location.pathname))"
        ".then(r => r && r.text()).then(t => Boolean(t) && t.includes('Enter deal 2'))",
    )
    phone.set_offline(True)
    page.reload()
    expect(page.locator(".totals")).to_contain_text("3990")
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    page.goto("/rules")  # kept from the start, with each preset's rules card
    page.get_by_role("link", name="Classic", exact=True).click()
    expect(page).to_have_url("/rules/presets/classic")
    expect(page.locator("main")).to_contain_text("1500")
    page.goto("/clubs")  # never opened here: the offline page
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    expect(page.locator("#kept-matches a")).to_have_count(1)


def test_the_rules_card_of_a_match_opened_here_opens_without_a_connection(phone: Any) -> None:
    """The match page links its rules card (its own page, to keep the match page light);
    this phone keeps the card in the background, so it opens at the table offline too."""
    page = phone.new_page()
    public_id = start_match(page)
    controlled(page)
    until(page, f"caches.open('pages-v1').then(c => c.match('/m/{public_id}/rules'))")
    phone.set_offline(True)
    page.get_by_role("link", name="Rules card: Classic").click()
    expect(page).to_have_url(f"/m/{public_id}/rules")
    expect(page.get_by_role("heading", name="Rules card: Classic")).to_be_visible()
    expect(page.locator(".rules-card")).to_contain_text("1500")
    page.get_by_role("link", name="Ann & Bob · Cy & Di").click()  # back to the match
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()


def test_a_kept_deal_the_server_finds_impossible_comes_back_to_the_form_to_be_put_right(
    phone: Any, live_server: LiveServer
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    controlled(page)
    phone.set_offline(True)
    fill_standard_deal(page)
    page.fill("#sides-0-books_wild", "0")  # going out needs a wild book under classic
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator("#scoreboard .pending-deal")).to_contain_text("waiting to be sent")

    phone.set_offline(False)
    refused = page.locator("#scoreboard .pending-deal.refused")
    expect(refused).to_contain_text("the server found a problem", timeout=30_000)
    expect(refused.locator(".errors li").first).to_be_visible()
    assert stored_deals(live_server, public_id) == 0
    refused.get_by_role("button", name="Put my numbers back in the form").click()
    expect(refused).to_have_count(0)
    expect(page.locator("#sides-0-melded_points")).to_have_value("690")
    expect(page.locator("#sides-0-books_wild")).to_have_value("0")
    page.fill("#sides-0-books_wild", "1")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator(".totals")).to_contain_text("3990")
    assert stored_deals(live_server, public_id) == 1


def test_a_correction_saved_without_a_connection_says_so_beside_save_and_keeps_the_numbers(
    phone: Any, live_server: LiveServer
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    controlled(page)
    fill_standard_deal(page)
    page.get_by_role("button", name="Save deal 1").click()
    expect(page.locator(".totals")).to_contain_text("3990")
    page.goto(f"/m/{public_id}/deals/1/edit")
    expect(page.get_by_role("heading", name="Correct deal 1")).to_be_visible()

    phone.set_offline(True)
    page.fill("#sides-0-melded_points", "700")
    page.get_by_role("button", name="Save the correction").click()
    note = page.locator("#deal-entry .send-note")
    expect(note).to_contain_text("No connection: the correction was not saved")
    expect(note).to_have_attribute("role", "alert")
    expect(page).to_have_url(f"/m/{public_id}/deals/1/edit")
    expect(page.locator("#sides-0-melded_points")).to_have_value("700")

    phone.set_offline(False)
    page.get_by_role("button", name="Save the correction").click()
    expect(page).to_have_url(f"/m/{public_id}")
    expect(page.locator(".totals")).to_contain_text("4000")
    assert stored_deals(live_server, public_id) == 1


def test_a_save_with_no_answer_in_time_is_kept_and_sent_again_without_a_second_deal(
    browser: Any, browser_context_args: dict[str, Any], live_server: LiveServer
) -> None:
    """The server saved the deal but its answer never came: the phone keeps the deal,
    says so beside Save, and sending it again (same idempotency key) stores nothing more.
    No service worker here, so that the test sees and holds the page's own requests."""
    context = browser.new_context(**browser_context_args, service_workers="block")
    try:
        page = context.new_page()
        public_id = start_match(page)
        page.evaluate("htmx.config.timeout = 1500")
        held: list[Any] = []

        def answer_lost(route: Any) -> None:
            if route.request.method == "POST" and not held:
                held.append(route.fetch())  # the server saves it; the phone never hears
                return
            route.continue_()

        page.route(f"**/m/{public_id}/deals", answer_lost)
        sync_requests: list[Any] = []  # held until the kept deal has been looked at
        page.route(re.compile(r"/static/js/sync\.js"), lambda route: sync_requests.append(route))
        fill_standard_deal(page)
        expect(page.locator("#deal-scores strong")).to_have_text(["+3990", "+510"])
        page.get_by_role("button", name="Save deal 1").click()

        note = page.locator("#deal-entry .send-note")
        expect(note).to_contain_text("No answer in time: deal 1 is kept on this phone")
        # the form is emptied for the next deal, and so are the Save bar's scores
        expect(page.locator("#sides-0-melded_points")).to_have_value("")
        expect(page.locator("#deal-scores li")).to_have_count(0)
        waiting = page.locator("#scoreboard .pending-deal")
        expect(waiting).to_contain_text("Deal 1 · waiting to be sent")
        expect(waiting).to_contain_text("690")
        assert held and held[0].ok  # the server did save it
        assert stored_deals(live_server, public_id) == 1

        expect(page.locator('script[src*="sync.js"]')).to_have_count(1)
        while not sync_requests:
            page.wait_for_timeout(50)
        sync_requests[0].continue_()
        expect(waiting).to_have_count(0, timeout=30_000)
        expect(page.locator(".totals")).to_contain_text("3990")
        expect(page.locator(".deal-table tbody tr")).to_have_count(1)
        assert stored_deals(live_server, public_id) == 1
    finally:
        context.close()


def test_naming_the_phone_without_a_connection_or_on_a_server_error_says_so_beside_save(
    phone: Any,
) -> None:
    page = phone.new_page()
    public_id = start_match(page)
    page.get_by_text("Name this phone").first.click()
    form = page.locator("#device-name form")
    page.fill("#device-name-input", "Ann’s phone")

    phone.set_offline(True)
    form.get_by_role("button", name="Save the name").click()
    note = form.locator(".send-note")
    expect(note).to_contain_text("No connection: nothing was changed")
    expect(note).to_have_attribute("role", "alert")
    expect(page.locator("#device-name-input")).to_have_value("Ann’s phone")

    phone.set_offline(False)
    page.route(f"**/m/{public_id}/device", lambda route: route.fulfill(status=500, body="boom"))
    form.get_by_role("button", name="Save the name").click()
    expect(note).to_contain_text("The server had a problem: nothing was changed")
    expect(note).to_have_count(1)
    expect(page.locator("#device-name-input")).to_have_value("Ann’s phone")

    page.unroute(f"**/m/{public_id}/device")
    form.get_by_role("button", name="Save the name").click()
    expect(page.locator("#device-name summary")).to_contain_text("This phone: Ann’s phone")
    expect(page.locator("#device-name .send-note")).to_have_count(0)


def test_logging_out_forgets_the_pages_kept_for_offline_use(
    phone: Any, live_server: LiveServer
) -> None:
    """On a shared phone, a members-only club page read before logging out is not there
    to read offline after it; the app shell (home, meld check, rules) still is."""
    from support import PASSWORD, give_role

    from scorekeeper.services import clubs

    with live_server.app.app_context():
        club_id = clubs.create_club("Private Tuesdays", visibility="members").public_id
    give_role(live_server.app, club_id, "keeper", "owner")
    page = phone.new_page()
    page.goto("/login")
    page.get_by_label("Username").fill("keeper")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/(?!login)[^/]*$"))
    controlled(page)
    page.goto(f"/c/{club_id}")
    expect(page.get_by_role("heading", name="Private Tuesdays")).to_be_visible()
    until(page, f"caches.open('pages-v1').then(c => c.match('/c/{club_id}'))")
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("html[data-offline-forgotten='yes']")).to_have_count(1)
    phone.set_offline(True)
    page.goto(f"/c/{club_id}")
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("Private Tuesdays")
    page.goto("/meld")  # the shell stays
    expect(page.get_by_role("heading", name="Is this enough to go down?")).to_be_visible()


def test_waiting_on_a_promise_waits_for_its_answer(phone: Any) -> None:
    """The tests above wait on cache questions with ``until``: it must wait for a promise's
    answer, never take the promise itself for true (as ``wait_for_function`` does)."""
    page = phone.new_page()
    page.goto("/meld")
    with pytest.raises(PlaywrightTimeout):
        until(page, "new Promise(r => setTimeout(() => r(false), 50))", timeout=800)
    until(page, "new Promise(r => setTimeout(() => r('kept'), 300))")


KEPT_HERE = (
    "caches.keys().then(names => Promise.all(names.map(name => caches.open(name)"
    ".then(cache => cache.match(location.pathname))))).then(found => found.some(Boolean))"
)


def test_a_match_page_opened_before_the_worker_took_over_is_kept_for_offline(
    phone: Any, live_server: LiveServer
) -> None:
    """The first visit of this phone: the match page came from the server with no worker in
    between (it was being installed), yet the page is there offline, without a reload."""
    page = phone.new_page()
    public_id = start_match(page)
    until(page, "navigator.serviceWorker.ready.then(() => true)")
    until(page, KEPT_HERE)  # the page keeps its own copy: nothing to wait for but that
    phone.set_offline(True)
    page.reload()
    expect(page.locator("#scoreboard .totals")).to_contain_text("Ann & Bob")
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()
    assert public_id in page.url
