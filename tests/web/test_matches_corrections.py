"""Correcting, removing and resending deals, and two phones on one match."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    SIDE_A_COUNTS,
    SIDE_B_POINTS,
    correct_deal,
    deal_count,
    deal_form_data,
    deal_scores,
    enter_deal,
    general_errors,
    hidden_fields,
    show,
    start_match,
    totals,
)
from htmltree import parse

from scorekeeper.extensions import db
from scorekeeper.models import Deal

SMALL = ({"books_clean": 1, "melded_points": 100}, {"melded_points": 50, "left_points": 20})


def _match_with_two_deals(client: FlaskClient) -> str:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    enter_deal(client, public_id, *SMALL)
    return public_id


def _versions(app: Flask) -> list[int]:
    with app.app_context():
        return [d.version for d in db.session.query(Deal).order_by(Deal.number)]


def test_the_correction_page_shows_the_deal_as_it_was_entered(client: FlaskClient) -> None:
    public_id = _match_with_two_deals(client)
    html = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
    values = {n.attrs["name"]: n.attrs.get("value", "") for n in parse(html).find_all("input")}
    assert "Correct deal 1" in html
    assert values["sides-0-books_wild"] == "1"
    assert values["sides-0-melded_8toK"] == "20"
    assert values["sides-1-melded_points"] == "185"
    assert values["sides-1-red_threes_left"] == "1"
    assert values["version"] == "1"
    checked = [n for n in parse(html).find_all("input", name="went_out") if "checked" in n.attrs]
    assert [n.attrs["value"] for n in checked] == ["0"]


def test_correcting_deal_two_changes_the_totals_and_the_deal_row(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _match_with_two_deals(client)
    assert totals(show(client, public_id)) == [4590, 540]
    response = correct_deal(
        client, public_id, 2, {"melded_points": 60}, {"melded_points": 150}, went_out=None
    )
    assert response.status_code == 303
    html = show(client, public_id)
    assert totals(html) == [4050, 660]
    assert deal_scores(html) == [[3990, 510], [60, 150]]
    assert deal_count(app, public_id) == 2
    assert _versions(app) == [1, 2]


def test_a_correction_from_a_stale_page_is_refused_and_nothing_is_saved(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _match_with_two_deals(client)
    other_phone = client.get(f"/m/{public_id}/deals/2/edit").get_data(as_text=True)
    correct_deal(client, public_id, 2, {"melded_points": 60}, {"melded_points": 150}, went_out=None)
    stale = {**hidden_fields(other_phone), **deal_form_data({"melded_points": 995}, {})}
    response = client.post(f"/m/{public_id}/deals/2", data=stale)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert any("someone else changed this deal" in e.lower() for e in general_errors(html))
    assert totals(show(client, public_id)) == [4050, 660]
    assert _versions(app) == [1, 2]


def test_an_impossible_correction_is_refused_beside_its_field(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _match_with_two_deals(client)
    response = correct_deal(client, public_id, 2, {"melded_points": 62}, {}, went_out=None)
    assert response.status_code == 422
    assert parse(response.get_data(as_text=True)).find_all("h2")[-1].text == "Correct deal 2"
    assert totals(show(client, public_id)) == [4590, 540]
    assert _versions(app) == [1, 1]


def test_removing_the_last_deal_asks_first_then_takes_it_off_the_totals(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _match_with_two_deals(client)
    confirm = client.get(f"/m/{public_id}/deals/2/remove")
    assert confirm.status_code == 200
    page = confirm.get_data(as_text=True)
    assert "Remove deal 2?" in page
    assert "+600" in page and "+30" in page  # the scores that come off
    assert deal_count(app, public_id) == 2  # asking removes nothing
    response = client.post(f"/m/{public_id}/deals/2/remove")
    assert response.status_code == 303
    assert deal_count(app, public_id) == 1
    html = show(client, public_id)
    assert totals(html) == [3990, 510]
    assert "Enter deal 2" in html
    [said] = [p.text for p in parse(html).find_all("p", cls="flash-saved")]
    assert said == "Deal 2 removed. Ana & Boris 3990, Cecile & Dusan 510. Next: deal 2."


def test_only_the_last_deal_can_be_removed(app: Flask, client: FlaskClient) -> None:
    public_id = _match_with_two_deals(client)
    assert client.get(f"/m/{public_id}/deals/1/remove").status_code == 404
    assert client.post(f"/m/{public_id}/deals/1/remove").status_code == 404
    assert client.post(f"/m/{public_id}/deals/3/remove").status_code == 404
    assert deal_count(app, public_id) == 2


def test_a_finished_match_is_reopened_to_correct_a_deal(client: FlaskClient) -> None:
    public_id = _match_with_two_deals(client)
    enter_deal(client, public_id, *SMALL)
    enter_deal(client, public_id, *SMALL)
    closed = parse(show(client, public_id))
    assert not closed.find_all("a", href=f"/m/{public_id}/deals/2/edit")
    assert closed.find_all("form", action=f"/m/{public_id}/reopen")
    assert client.post(f"/m/{public_id}/reopen").status_code == 303
    reopened = parse(show(client, public_id))
    assert reopened.find_all("a", href=f"/m/{public_id}/deals/2/edit")
    assert not reopened.find_all("form", action=f"/m/{public_id}/reopen")
    response = correct_deal(client, public_id, 1, {"left_points": 100}, SIDE_A_COUNTS, went_out=1)
    assert response.status_code == 303
    html = show(client, public_id)
    assert totals(html) == [1700, 4080]
    assert parse(html).find_all("p", cls="result")[0].text == "Cecile & Dusan won."
    # said on the page it came back to: the totals had changed without a word
    [said] = [p.text for p in parse(html).find_all("p", cls="flash-saved")]
    assert said == "Deal 1 corrected. Ana & Boris 1700, Cecile & Dusan 4080. Cecile & Dusan won."
    # the correction closes the match again
    assert parse(html).find_all("form", action=f"/m/{public_id}/reopen")


def test_two_corrections_opened_in_one_reopening_are_both_saved(client: FlaskClient) -> None:
    # Two tabs (or two phones) opened deals 1 and 2 to correct while the match was
    # reopened; the first correction closed it again, and the second was refused with a
    # redirect: its numbers gone, though its deal had not changed.
    public_id = _match_with_two_deals(client)
    enter_deal(client, public_id, *SMALL)
    enter_deal(client, public_id, *SMALL)
    assert client.post(f"/m/{public_id}/reopen").status_code == 303
    pages = {n: client.get(f"/m/{public_id}/deals/{n}/edit").get_data(as_text=True) for n in (1, 2)}
    for number, left in ((1, 100), (2, 200)):
        data = {
            **hidden_fields(pages[number]),
            **deal_form_data({"left_points": left}, SIDE_A_COUNTS, went_out=1),
        }
        assert client.post(f"/m/{public_id}/deals/{number}", data=data).status_code == 303
    html = show(client, public_id)
    assert [scores[0] for scores in deal_scores(html)[:2]] == [-100, -200]
    # closed again after each, as after one correction
    assert parse(html).find_all("form", action=f"/m/{public_id}/reopen")


def test_the_same_submission_sent_twice_saves_one_deal(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    page = show(client, public_id)
    data = {**hidden_fields(page), **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)}
    first = client.post(f"/m/{public_id}/deals", data=data)
    again = client.post(f"/m/{public_id}/deals", data=data)
    assert first.status_code == again.status_code == 303
    assert deal_count(app, public_id) == 1
    assert totals(show(client, public_id)) == [3990, 510]


def test_a_resent_submission_after_the_next_deal_still_saves_nothing(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    data = {**hidden_fields(show(client, public_id)), **deal_form_data(*SMALL)}
    client.post(f"/m/{public_id}/deals", data=data)
    enter_deal(client, public_id, *SMALL)
    assert client.post(f"/m/{public_id}/deals", data=data).status_code == 303
    assert deal_count(app, public_id) == 2


def test_two_phones_entering_the_same_deal_save_it_once(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    phone_a = hidden_fields(show(client, public_id))
    phone_b = hidden_fields(show(client, public_id))
    assert phone_a["submission_key"] != phone_b["submission_key"]
    assert phone_a["expected_deal"] == phone_b["expected_deal"] == "1"
    client.post(f"/m/{public_id}/deals", data={**phone_a, **deal_form_data(*SMALL)})
    response = client.post(
        f"/m/{public_id}/deals",
        data={**phone_b, **deal_form_data(SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)},
    )
    assert response.status_code == 422
    assert general_errors(response.get_data(as_text=True)) == [
        "Deal 1 was already entered on another phone: see the deals below."
        " If these numbers are for deal 2, save again."
    ]
    assert deal_count(app, public_id) == 1
    assert totals(show(client, public_id)) == [600, 30]


def test_a_deal_sent_after_the_match_finished_is_refused_with_a_message(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _match_with_two_deals(client)
    enter_deal(client, public_id, *SMALL)
    late_phone = hidden_fields(show(client, public_id))
    enter_deal(client, public_id, *SMALL)
    for guards, message in [
        (late_phone, "Deal 4 was already entered on another phone: see the deals below."),
        ({}, "The match is finished; correct a deal instead."),
    ]:
        response = client.post(f"/m/{public_id}/deals", data={**guards, **deal_form_data(*SMALL)})
        assert response.status_code == 422
        assert general_errors(response.get_data(as_text=True)) == [message]
    assert deal_count(app, public_id) == 4
