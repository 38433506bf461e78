"""Whatever is typed (or posted by hand) into any field of a deal: a message, never a 500."""

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
from htmltree import all_errors, errors_beside

COUNT_FIELDS = [
    "sides-0-books_clean",
    "sides-1-books_wild",
    "sides-0-red_threes",
    "sides-1-red_threes_left",
    "sides-0-melded_joker",
    "sides-1-melded_8toK",
    "sides-0-left_black3",
]
POINTS_FIELDS = ["sides-0-melded_points", "sides-1-left_points"]
BAD_VALUES = ["-1", "-0.5", "abc", "1.5", "1e3", "0x1F", "5 books", "99999999999999999999999",
              "9" * 5000, "7\x00"]  # fmt: skip


@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda v: v[:12].replace("\x00", "NUL"))
@pytest.mark.parametrize(
    ("field", "bound"),
    [(f, 2000) for f in COUNT_FIELDS] + [(f, 1_000_000) for f in POINTS_FIELDS],
)
def test_anything_but_a_whole_number_in_range_gets_one_message_beside_the_field(
    app: Flask, client: FlaskClient, field: str, bound: int, value: str
) -> None:
    public_id = start_match(client)
    data = {**hidden_fields(show(client, public_id)), **deal_form_data({}, {}), field: value}
    response = client.post(f"/m/{public_id}/deals", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    side = "Ana & Boris" if field.startswith("sides-0-") else "Cecile & Dusan"
    assert errors_beside(html, field) == [f"{side}: Enter a whole number from 0 to {bound}."]
    assert len(all_errors(html)) == 1
    assert deal_count(app, public_id) == 0


@pytest.mark.parametrize("value", ["", "  ", "0", " 7 ", "007"])
def test_blank_zero_and_padded_numbers_are_accepted(client: FlaskClient, value: str) -> None:
    public_id = start_match(client)
    response = enter_deal(client, public_id, {"melded_A": value}, {})
    assert response.status_code == 303
    assert totals(show(client, public_id)) == [20 * int(value.strip() or 0), 0]


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
@pytest.mark.parametrize("value", BAD_VALUES[:4] + BAD_VALUES[-3:])
def test_the_preview_answers_every_bad_number_with_a_problem_not_an_error_page(
    client: FlaskClient, headers: dict, value: str
) -> None:
    public_id = start_match(client)
    data = deal_form_data({"melded_points": value, "books_clean": value}, {})
    response = client.post(f"/m/{public_id}/preview", data=data, headers=headers)
    assert response.status_code == 200
    assert "Enter a whole number from 0 to" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "guards",
    [
        {"expected_deal": "abc"},
        {"expected_deal": "-1"},
        {"expected_deal": "9" * 5000},
        {"version": "one"},
        {"submission_key": "k" * 500},
        {"submission_key": "key\x00"},
        {"submission_key": ""},
    ],
    ids=lambda g: next(iter(g)),
)
def test_hand_made_guard_fields_never_cause_an_error_page(
    app: Flask, client: FlaskClient, guards: dict[str, str]
) -> None:
    public_id = start_match(client)
    data = {**deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0), **guards}
    response = client.post(f"/m/{public_id}/deals", data=data)
    assert response.status_code in (303, 422)
    assert deal_count(app, public_id) == (1 if response.status_code == 303 else 0)


@pytest.mark.parametrize("value", ["abc", "9" * 5000, "1\x00", "-1", "2", "0 1"])
def test_a_went_out_choice_that_is_not_offered_is_refused(
    app: Flask, client: FlaskClient, value: str
) -> None:
    public_id = start_match(client)
    data = {**deal_form_data({}, {}), "went_out": value}
    response = client.post(f"/m/{public_id}/deals", data=data)
    assert response.status_code == 422
    assert errors_beside(response.get_data(as_text=True), "went_out") == ["Not a valid choice."]
    assert deal_count(app, public_id) == 0


def test_fields_of_sides_that_do_not_exist_are_ignored(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    data = {
        **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0),
        "sides-2-melded_points": "500",
        "sides-999999-books_clean": "1",
    }
    assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert totals(show(client, public_id)) == [3990, 510]


def test_a_post_with_only_the_second_sides_fields_scores_them_for_the_second_side(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    data = {"sides-1-melded_points": "120", "sides-1-books_clean": "1"}
    assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert totals(show(client, public_id)) == [0, 620]


@pytest.mark.parametrize("typo", ["12x", "-75"])
def test_a_typo_in_one_number_does_not_hide_what_the_game_refuses(
    app: Flask, client: FlaskClient, typo: str
) -> None:
    # The second side went out without a book; the first typed a wrong number. Only the
    # number's message showed; the game's own refusals came after it was put right.
    public_id = start_match(client)
    response = enter_deal(client, public_id, {"left_points": typo}, {"books_clean": 0}, went_out=1)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    # each said once, beside its field (after the side's name, for a screen reader)
    [typed] = errors_beside(html, "sides-0-left_points")
    assert typed.endswith(": Enter a whole number from 0 to 1000000.")
    [books] = errors_beside(html, "sides-1-books_clean")
    assert books.endswith(": Going out needs 2 clean books; this side has 0.")
    assert any("Going out needs 1 wild book" in m for _, m in all_errors(html))
    assert deal_count(app, public_id) == 0
    # the live preview says the same
    data = {**hidden_fields(html), **deal_form_data({"left_points": typo}, {}, went_out=1)}
    preview = client.post(f"/m/{public_id}/preview?deal=1", data=data, headers=HX)
    text = preview.get_data(as_text=True)
    assert "Enter a whole number from 0 to 1000000." in text
    assert "Going out needs 2 clean books; this side has 0." in text
    # a correction too
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    page = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data({"left_points": typo}, {}, went_out=1)}
    fixed = client.post(f"/m/{public_id}/deals/1", data=data)
    assert fixed.status_code == 422
    assert "Going out needs 2 clean books" in " ".join(
        errors_beside(fixed.get_data(as_text=True), "sides-1-books_clean")
    )
    assert totals(show(client, public_id)) == [3990, 510]


def test_a_typo_in_a_card_count_does_not_make_the_books_look_impossible(
    client: FlaskClient,
) -> None:
    # the count cannot be read: the books are not checked against the cards without it
    public_id = start_match(client)
    side = {**SIDE_A_COUNTS, "melded_8toK": "2o"}
    response = enter_deal(client, public_id, side, SIDE_B_POINTS, went_out=0)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    [(_field, message)] = all_errors(html)
    assert message.endswith(": Enter a whole number from 0 to 2000.")
