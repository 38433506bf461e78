"""One URL, two answers: the full page, or the fragment htmx swaps in (ARCHITECTURE.md)."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    HX,
    SIDE_A_COUNTS,
    SIDE_B_POINTS,
    deal_count,
    deal_form_data,
    enter_deal,
    hidden_fields,
    show,
    start_match,
    totals,
)
from htmltree import parse

FULL_PAGE_HEADERS = [
    {},
    {"HX-Request": "true", "HX-Boosted": "true"},
    {"HX-Request": "true", "HX-History-Restore-Request": "true"},
]


def _urls(client: FlaskClient) -> dict[str, tuple[str, str]]:
    """Each page's URL and the root element its fragment starts with."""
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    return {
        "match": (f"/m/{public_id}", '<div id="match"'),
        "edit": (f"/m/{public_id}/deals/1/edit", '<div id="match"'),
        "new": ("/matches/new?rules=whitnack", '<div id="new-match-page"'),
    }


@pytest.mark.parametrize("page", ["match", "edit", "new"])
def test_an_htmx_request_gets_the_fragment_without_the_page_around_it(
    client: FlaskClient, page: str
) -> None:
    url, root = _urls(client)[page]
    response = client.get(url, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    assert html.lstrip().startswith(root)
    assert "HX-Request" in response.headers["Vary"]


@pytest.mark.parametrize("headers", FULL_PAGE_HEADERS, ids=["plain", "boosted", "history"])
@pytest.mark.parametrize("page", ["match", "edit", "new"])
def test_a_plain_boosted_or_history_restore_request_gets_the_full_page(
    client: FlaskClient, page: str, headers: dict[str, str]
) -> None:
    url, root = _urls(client)[page]
    response = client.get(url, headers=headers)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.startswith("<!doctype html>")
    assert root in html
    assert "HX-Request" in response.headers["Vary"]


def test_the_deal_form_works_without_javascript_and_htmx_only_adds_to_it(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    form = parse(show(client, public_id)).find_all("form", id="deal-entry")[0]
    assert form.attrs["method"] == "post"
    assert form.attrs["action"] == form.attrs["hx-post"] == f"/m/{public_id}/deals"
    assert form.find_all("button", type="submit")


def test_a_valid_htmx_deal_answers_200_with_the_fresh_match_fragment(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    page = show(client, public_id)
    data = {**hidden_fields(page), **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    response = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="match"')
    assert "HX-Request" in response.headers["Vary"]
    assert totals(html) == [3990, 510]
    fresh = hidden_fields(html)
    assert fresh["expected_deal"] == "2"
    assert fresh["submission_key"] != data["submission_key"]
    assert "Enter deal 2" in html
    assert deal_count(app, public_id) == 1


def test_a_resent_htmx_deal_answers_the_same_fragment_and_saves_nothing_more(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    data = {
        **hidden_fields(show(client, public_id)),
        **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0),
    }
    client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    again = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    assert again.status_code == 200
    assert totals(again.get_data(as_text=True)) == [3990, 510]
    assert deal_count(app, public_id) == 1


def _preview_rows(html: str) -> dict[str, list[str]]:
    table = parse(html).find_all("table", cls="preview-table")[0]
    return {
        row.find_all("th")[0].text: [td.text for td in row.find_all("td")]
        for row in table.find_all("tr")[1:]
    }


def test_the_preview_shows_each_sides_breakdown_and_saves_nothing(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    data = deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    response = client.post(f"/m/{public_id}/preview", data=data, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" not in html and "<form" not in html
    assert _preview_rows(html) == {
        "Cards on the table": ["+690", "+185"],
        "Books": ["+3100", "+500"],
        "Red threes": ["+100", "0"],
        "Going out": ["+100", "0"],
        "Cards left": ["0", "\u221275"],
        "Red threes left": ["0", "\u2212100"],
        "Deal score": ["+3990", "+510"],
    }
    assert deal_count(app, public_id) == 0


def test_the_preview_without_javascript_shows_the_page_with_the_typed_numbers_kept(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    data = {
        **hidden_fields(show(client, public_id)),
        **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0),
    }
    response = client.post(f"/m/{public_id}/preview", data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.startswith("<!doctype html>")
    assert _preview_rows(html)["Deal score"] == ["+3990", "+510"]
    assert hidden_fields(html)["submission_key"] == data["submission_key"]
    values = {n.attrs["name"]: n.attrs.get("value", "") for n in parse(html).find_all("input")}
    assert values["sides-1-melded_points"] == "185"
    assert deal_count(app, public_id) == 0
    # the kept form still saves the deal, once
    assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert deal_count(app, public_id) == 1


def test_the_preview_lists_the_problems_of_an_impossible_entry_each_naming_its_side(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    data = deal_form_data({"melded_joker": 11}, {"left_points": 13})
    html = client.post(f"/m/{public_id}/preview", data=data, headers=HX).get_data(as_text=True)
    problems = [li.text for ul in parse(html).find_all("ul", cls="errors") for li in ul.iter()[1:]]
    assert problems == [
        "Ana & Boris: Five decks hold only 10 jokers; the sides report 11.",
        "Cecile & Dusan: Every card is worth a multiple of 5 here, so 13 cannot be right.",
    ]


def test_the_preview_refreshes_each_sides_going_out_checklist_out_of_band(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    data = deal_form_data({"books_clean": 2, "books_dirty": 1}, {})
    html = client.post(f"/m/{public_id}/preview", data=data, headers=HX).get_data(as_text=True)
    checklists = parse(html).find_all("div", cls="checklist")
    assert [c.attrs["id"] for c in checklists] == ["checklist-0", "checklist-1"]
    assert all(c.attrs["hx-swap-oob"] == "true" for c in checklists)
    side_a = [li.text for li in checklists[0].find_all("li", cls="met")]
    assert side_a == ["✓ 2 clean (has 2)"]


def _save_bar_scores(html: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The Save bar's list of deal scores: its attributes, and each side's name and score."""
    (listed,) = parse(html).find_all("ol", cls="deal-scores")
    rows = [
        (li.find_all("span")[0].text, li.find_all("strong")[0].text) for li in listed.find_all("li")
    ]
    return listed.attrs, rows


def test_the_preview_puts_each_sides_deal_score_over_save_out_of_band(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    # the page's bar holds an empty list, which the preview replaces
    attrs, rows = _save_bar_scores(show(client, public_id))
    assert (attrs["id"], rows) == ("deal-scores", [])
    data = deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    html = client.post(f"/m/{public_id}/preview", data=data, headers=HX).get_data(as_text=True)
    attrs, rows = _save_bar_scores(html)
    assert attrs["id"] == "deal-scores" and attrs["hx-swap-oob"] == "true"
    assert attrs["aria-label"] == "This deal"
    assert rows == [("Ana & Boris", "+3990"), ("Cecile & Dusan", "+510")]
    # numbers that make no deal: the list is emptied, not left with the scores before
    data = deal_form_data({"melded_joker": 11}, {})
    html = client.post(f"/m/{public_id}/preview", data=data, headers=HX).get_data(as_text=True)
    attrs, rows = _save_bar_scores(html)
    assert attrs["hx-swap-oob"] == "true" and "aria-label" not in attrs and rows == []


def test_the_preview_without_javascript_shows_the_scores_over_save_too(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    data = {
        **hidden_fields(show(client, public_id)),
        **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0),
    }
    html = client.post(f"/m/{public_id}/preview", data=data).get_data(as_text=True)
    attrs, rows = _save_bar_scores(html)
    assert "hx-swap-oob" not in attrs
    assert rows == [("Ana & Boris", "+3990"), ("Cecile & Dusan", "+510")]
    # in the Save bar, before its button
    (bar,) = parse(html).find_all("div", cls="save-bar")
    assert [child.tag for child in bar.children if not isinstance(child, str)][:2] == [
        "ol",
        "button",
    ]


def test_the_preview_of_a_correction_scores_that_deal(client: FlaskClient) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    data = deal_form_data(SIDE_B_POINTS, SIDE_A_COUNTS, went_out=1)
    response = client.post(f"/m/{public_id}/preview?deal=1", data=data)
    html = response.get_data(as_text=True)
    assert "Correct deal 1" in html
    assert _preview_rows(html)["Deal score"] == ["+510", "+3990"]


@pytest.mark.parametrize(("deal", "status"), [("0", 200), ("many", 200), ("5", 404), ("-1", 404)])
def test_a_preview_for_a_deal_the_game_does_not_have_is_not_found(
    client: FlaskClient, deal: str, status: int
) -> None:
    public_id = start_match(client)
    response = client.post(f"/m/{public_id}/preview?deal={deal}", data={}, headers=HX)
    assert response.status_code == status
