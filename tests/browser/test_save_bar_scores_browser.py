"""Each side's deal score over Save: the live preview's last row in the sticky Save bar, so
that the score is in sight as the last number is typed (the whole preview is below the
sheet, under the bar, where nobody saw it appear)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from test_match_entry_browser import (
    SIX_SIDES,
    assert_fits_a_phone,
    start_match,
    type_a_deal_without_javascript,
)

pytestmark = pytest.mark.browser

#: The [top, bottom] of the element and the top of the Save bar, on the screen.
UNDER_BAR = """
e => { const bar = document.querySelector('.save-bar').getBoundingClientRect();
       const r = e.getBoundingClientRect(); return [r.top, r.bottom, bar.top]; }
"""


def scores(page: Any) -> Any:
    return page.locator("#deal-scores strong")


def preview_totals(page: Any) -> list[str]:
    return page.locator("#preview tfoot td").all_inner_texts()


def test_the_standard_deal_s_scores_stand_over_save_as_its_last_number_is_typed(
    page: Any,
) -> None:
    start_match(page)
    expect(page.locator("#deal-scores")).to_be_hidden()  # nothing typed, nothing shown
    bar_before = page.locator(".save-bar").bounding_box()["height"]

    def tap(selector: str) -> None:
        target = page.locator(selector)
        target.evaluate("e => e.scrollIntoView({block: 'nearest'})")
        target.click()

    tap("label.choice:has(input[name=went_out][value='0'])")
    tap("[aria-controls='sides-1-books_clean'][data-step='1']")
    tap("[aria-controls='sides-0-red_threes'][data-step='1']")
    tap("[aria-controls='sides-1-red_threes_left_in_foot'][data-step='1']")
    for field, digits in (("#sides-0-melded_points", "690"), ("#sides-1-melded_points", "185")):
        tap(field)
        page.keyboard.type(digits)
    tap("#sides-1-left_points")
    page.keyboard.type("75")

    expect(scores(page)).to_have_text(["+3990", "+510"])
    assert preview_totals(page) == ["+3990", "+510"]  # the preview's own last row
    for i in range(2):
        expect(scores(page).nth(i)).to_be_in_viewport()
    # named for a screen reader, each score by its side
    listed = page.get_by_role("list", name="This deal")
    expect(listed.get_by_role("listitem")).to_have_text(["Ann & Bob +3990", "Cy & Di +510"])
    # each under its side's column, as the totals above are
    for i in range(2):
        score, field = (
            scores(page).nth(i).bounding_box(),
            page.locator(f"#sides-{i}-left_points").bounding_box(),
        )
        assert score["x"] >= field["x"] - 1
        assert score["x"] + score["width"] <= field["x"] + field["width"] + 1
    # the field typed in last is not under the bar that grew
    top, bottom, bar_top = page.locator("#sides-1-left_points").evaluate(UNDER_BAR)
    assert bottom <= bar_top, (top, bottom, bar_top)
    assert_fits_a_phone(page)

    page.get_by_role("button", name="Save deal 1").click()
    expect(page.get_by_role("heading", name="Enter deal 2")).to_be_visible()
    expect(page.locator("#deal-scores")).to_be_hidden()  # the next deal starts empty
    assert page.locator(".save-bar").bounding_box()["height"] == pytest.approx(bar_before, abs=1)


def test_a_stepper_just_above_save_is_not_left_under_the_bar_when_the_scores_appear(
    page: Any,
) -> None:
    """The first count of a deal tapped just above the bar: the bar grows by the scores'
    line. The room the page keeps clear above the bar for what has the focus (its
    scroll-padding) is more than the bar's height with them: the stepper stays in sight."""
    start_match(page)
    plus = page.locator("[aria-controls='sides-0-red_threes'][data-step='1']")
    # the page scrolled so that the stepper's bottom is 4 px above the bar's top
    plus.evaluate(
        """e => { const bar = document.querySelector('.save-bar');
                  window.scrollBy(0, e.getBoundingClientRect().bottom + 4
                                     - bar.getBoundingClientRect().top); }"""
    )
    top, bottom, bar_top = plus.evaluate(UNDER_BAR)
    assert 0 < bar_top - bottom <= 8, (bottom, bar_top)
    plus.click()
    expect(scores(page)).to_have_text(["−100", "0"])  # a red three, no meld yet
    for control in (plus, page.locator("#sides-0-red_threes")):
        top, bottom, bar_top = control.evaluate(UNDER_BAR)
        assert bottom <= bar_top, (top, bottom, bar_top)
        assert top >= page.locator("#scoreboard").bounding_box()["height"]  # nor under the top
    plus.click()  # and the next tap still reaches it
    expect(page.locator("#sides-0-red_threes")).to_have_value("2")


def test_numbers_that_make_no_deal_show_no_score_over_save(page: Any) -> None:
    start_match(page)
    page.locator("label.choice:has(input[name=went_out][value='1'])").click()
    page.fill("#sides-1-melded_points", "600")
    expect(scores(page)).to_have_text(["0", "+3800"])
    # going out without the wild book the rules ask for: no score, the reason below
    page.locator("[aria-controls='sides-1-books_wild'][data-step='-1']").click()
    expect(page.locator("#preview .preview-problems")).to_contain_text("1 wild book")
    expect(page.locator("#deal-scores li")).to_have_count(0)
    expect(page.locator("#deal-scores")).to_be_hidden()
    page.locator("[aria-controls='sides-1-books_wild'][data-step='1']").click()
    expect(scores(page)).to_have_text(["0", "+3800"])


def test_a_preview_with_no_answer_leaves_no_score_of_the_numbers_before(page: Any) -> None:
    start_match(page)
    page.fill("#sides-0-melded_points", "120")
    expect(scores(page)).to_have_text(["+120", "0"])
    page.route("**/preview*", lambda route: route.abort("internetdisconnected"))
    page.fill("#sides-0-melded_points", "125")
    expect(page.locator("#deal-scores li")).to_have_count(0)
    expect(page.locator("#preview")).to_be_empty()
    page.unroute("**/preview*")
    page.fill("#sides-0-melded_points", "130")
    expect(scores(page)).to_have_text(["+130", "0"])


def test_three_sides_on_a_small_phone_each_score_in_its_column(page: Any) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    start_match(page, "1%2B1%2B1", ["Bartholomew", "Evangelina", "Kimberley"])
    page.fill("#sides-0-melded_points", "1235")
    page.fill("#sides-2-left_points", "1230")
    expect(scores(page)).to_have_text(["+1235", "0", "−1230"])
    assert scores(page).all_inner_texts() == [t.strip() for t in preview_totals(page)]
    for i in range(3):
        score = scores(page).nth(i).bounding_box()
        column = page.locator(f"#sides-{i}-melded_points").bounding_box()
        assert column["x"] - 1 <= score["x"]
        assert score["x"] + score["width"] <= column["x"] + column["width"] + 1
        # the names are the totals' at the top: in columns they are not repeated here
        expect(page.locator("#deal-scores .cell-side").nth(i)).not_to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_six_sides_stacked_name_each_score_and_keep_the_bar_low(page: Any) -> None:
    """Six sides do not fit as columns on a phone: each score is named, several to a
    line, and the bar stays well under half the screen."""
    start_match(page, SIX_SIDES, ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"])
    page.fill("#sides-3-melded_points", "55")
    expect(page.locator("#deal-scores li")).to_have_text(
        ["Ann 0", "Bob 0", "Cy 0", "Di +55", "Ed 0", "Flo 0"]
    )
    expect(page.locator("#deal-scores .cell-side").first).to_be_visible()
    assert page.locator(".save-bar").bounding_box()["height"] <= 0.3 * 844
    assert_fits_a_phone(page)


def test_without_javascript_preview_the_scores_shows_them_over_save(no_js_page: Any) -> None:
    page = no_js_page
    start_match(page)
    type_a_deal_without_javascript(page)
    page.get_by_role("button", name="Preview the scores").click()
    expect(scores(page)).to_have_text(["−40", "+3890"])
    assert preview_totals(page) == ["−40", "+3890"]
    expect(page.locator("#sides-1-melded_points")).to_have_value("690")  # kept to be saved
    assert_fits_a_phone(page)
