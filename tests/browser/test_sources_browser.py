"""Issue 10 at the table, in Chromium at a phone viewport: what the sources say, tapped.

The number of deals agreed before the first deal; a red three in a foot nobody picked up
told apart from one in a hand (and free when nobody went out, under classic); a wild card
on top of the pile taken with two wild cards from hand in the meld checker, and a second
meld of kings refused beside the first.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from test_match_entry_browser import assert_fits_a_phone

pytestmark = pytest.mark.browser


def start(page: Any, rules: str, deals: str | None = None) -> None:
    page.goto(f"/matches/new?rules={rules}&layout=2%2B2")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        page.fill(f"#side_{i // 2}_player_{i % 2}", name)
    if deals is not None:
        field = page.get_by_label("Number of deals")
        expect(field).to_have_value("4")
        assert field.get_attribute("inputmode") == "numeric"
        field.fill(deals)
    page.get_by_role("button", name="Start the match").click()
    expect(page.get_by_role("heading", name="Enter deal 1")).to_be_visible()


def test_the_table_agrees_on_six_deals_before_the_first(page: Any) -> None:
    """Russian: "О количестве игр игроки договариваются перед первой игрой" (the players
    agree on the number of games before the first one)."""
    start(page, "whitnack", deals="6")
    expect(page.locator(".scoreboard")).to_contain_text("Deal 1 of 6")
    assert_fits_a_phone(page)


def test_a_number_of_deals_out_of_range_is_not_sent(page: Any) -> None:
    """The field says 1 to 20 itself, so the phone points at it before anything is sent
    (the server's refusal beside the field is tested without a browser)."""
    page.goto("/matches/new?rules=classic&layout=2%2B2")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        page.fill(f"#side_{i // 2}_player_{i % 2}", name)
    field = page.get_by_label("Number of deals")
    field.fill("21")
    page.get_by_role("button", name="Start the match").click()
    assert field.evaluate("e => e.validity.rangeOverflow") is True
    expect(page).to_have_url("/matches/new?rules=classic&layout=2%2B2")
    field.fill("3")
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator(".scoreboard")).to_contain_text("Deal 1 of 3")


def test_a_red_three_in_the_foot_costs_100_only_when_the_other_side_went_out(
    page: Any,
) -> None:
    """Bosnian: a red three in the foot counts against you "ako vaši protivnici 'izađu'"
    (if your opponents go out). Side B: 185 + 500 - 75 - 100 = 510 with side A out; the
    stock ran out instead: 185 + 500 - 75 = 610, and its preview says so before saving."""
    start(page, "classic")
    expect(page.locator("#deal-entry")).to_contain_text("In a foot nobody picked up")
    expect(page.locator("#deal-entry")).to_contain_text("if another side went out")
    page.locator("[aria-controls='sides-1-books_clean'][data-step='1']").click()
    page.fill("#sides-1-melded_points", "185")
    page.fill("#sides-1-left_points", "75")
    page.locator("[aria-controls='sides-1-red_threes_left_in_foot'][data-step='1']").click()
    expect(page.locator("#preview tfoot")).to_contain_text("+610")
    page.locator("label.choice:has(input[name=went_out][value='0'])").click()
    page.locator("[aria-controls='sides-0-red_threes'][data-step='1']").click()
    page.fill("#sides-0-melded_points", "690")
    expect(page.locator("#preview tfoot")).to_contain_text("+510")
    expect(page.locator("#preview tfoot")).to_contain_text("+3990")
    assert_fits_a_phone(page)


def test_whitnack_keeps_one_stepper_for_red_threes_left(page: Any) -> None:
    start(page, "whitnack")
    expect(page.locator("#deal-entry")).to_contain_text("Not laid (left in hand or foot)")
    expect(page.locator("#sides-0-red_threes_left_in_foot")).to_have_count(0)


def verdict(page: Any) -> Any:
    return page.locator("#meld-verdict .meld-verdict-main")


def test_a_wild_card_on_top_is_taken_with_two_wild_cards_from_hand_under_classic(
    page: Any,
) -> None:
    """Bosnian: "Gornja karta odbačene ne može biti (crna) trojka" (the top card cannot be a
    (black) three): the joker on top and two from hand, 3 x 50 = 150, enough in deal 2."""
    page.goto("/meld?rules=classic&deal=2")
    expect(page.locator("#meld-checker")).to_contain_text(
        "A wild card on top is taken with two wild cards from your hand"
    )
    page.get_by_role(
        "button", name="Top card: a wild card, taken with two wild cards from hand"
    ).tap()
    meld = page.locator("#meld-0")
    expect(meld).to_contain_text("needs two wild cards from your hand")
    for jokers in (1, 2, 3):  # each tap once the last one's answer is in
        meld.get_by_role("button", name="One more: Jokers").tap()
        expect(page).to_have_url(f"/meld?rules=classic&deal=2&m=wild.0.{jokers}.0.t")
    expect(verdict(page)).to_have_text("Enough: 150 of 90")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_four_books_blocks_the_pile_with_a_wild_card_on_top(page: Any) -> None:
    """Czech: "nikdy, když je navrchu divoká karta nebo trojka" (never with a wild card or
    a three on top)."""
    page.goto("/meld?rules=four-books&deal=1&m=A.3.0.0")
    page.get_by_role("button", name="Top card: a wild card").tap()
    expect(page.locator(".meld-blocked")).to_contain_text("wild card on top")
    expect(verdict(page)).to_have_text("Enough: 60 of 50")  # from hand, the pile left


def test_a_second_meld_of_kings_is_refused_beside_it_and_the_first_still_counts(
    page: Any,
) -> None:
    """Bosnian: "Partnerima nije dozvoljeno da imaju dvije nepotpune kombinacije jednakog
    ranga." (Partners may not have two unfinished melds of equal rank.) 30, short by 20."""
    page.goto("/meld?rules=classic&deal=1&m=K.3.0.0&m=K.3.0.0")
    expect(page.locator("#meld-1")).to_contain_text("already starts a meld of kings")
    expect(verdict(page)).to_have_text("Short by 20")
