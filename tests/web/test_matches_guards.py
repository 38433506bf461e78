"""Guards that keep a deal from being lost or applied twice when phones race."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    deal_count,
    deal_form_data,
    enter_deal,
    general_errors,
    hidden_fields,
    parse,
    show,
    start_match,
    totals,
)

from scorekeeper.services import matches as service

SMALL = ({"books_clean": 1, "melded_points": 100}, {"melded_points": 50, "left_points": 20})
OTHER = ({"melded_points": 40}, {"books_clean": 1, "melded_points": 80})


def test_after_another_phone_entered_the_deal_saving_again_enters_the_next_one(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    phone_b = hidden_fields(show(client, public_id))
    enter_deal(client, public_id, *SMALL)  # phone A enters deal 1 meanwhile
    refused = client.post(f"/m/{public_id}/deals", data={**phone_b, **deal_form_data(*OTHER)})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "If these numbers are for deal 2, save again." in general_errors(html)[0]
    assert deal_count(app, public_id) == 1
    again = hidden_fields(html)
    assert again["expected_deal"] == "2"
    assert 'value="40"' in html  # the typed numbers are still there
    saved = client.post(f"/m/{public_id}/deals", data={**again, **deal_form_data(*OTHER)})
    assert saved.status_code == 303
    assert deal_count(app, public_id) == 2
    assert totals(show(client, public_id)) == [640, 610]


def test_a_resent_form_whose_first_copy_won_a_race_is_saved_once(
    app: Flask, client: FlaskClient
) -> None:
    """Two copies of one form race: the loser reads the match before the winner saves,
    hits the database's unique key, and answers with the saved deal instead of an error."""
    public_id = start_match(client)
    guards = hidden_fields(show(client, public_id))
    with app.app_context():
        loaded = service.load_match(public_id)  # read before the other copy is saved
        assert loaded is not None
        winner = client.post(f"/m/{public_id}/deals", data={**guards, **deal_form_data(*SMALL)})
        assert winner.status_code == 303
        entries = [{"books": {"clean": 1}, "melded_points": 100}, {"melded_points": 50}]
        again, saved = service.record_deal(loaded, entries, guards["submission_key"], 1)
        assert not saved
        assert again.game.totals == (600, 30)
    assert deal_count(app, public_id) == 1


def test_a_fresh_deal_form_never_shows_the_numbers_just_saved(client: FlaskClient) -> None:
    public_id = start_match(client)
    guards = hidden_fields(show(client, public_id))
    response = client.post(
        f"/m/{public_id}/deals",
        data={**guards, **deal_form_data(*SMALL)},
        headers={"HX-Request": "true"},
    )
    html = response.get_data(as_text=True)
    assert "Enter deal 2" in html
    assert 'value="100"' not in html and 'value="50"' not in html
    assert hidden_fields(html)["submission_key"] != guards["submission_key"]


def test_a_correction_that_lost_a_race_shows_the_winners_numbers_and_keeps_the_typed_ones(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, *SMALL)
    url = f"/m/{public_id}/deals/1"
    phone_a = hidden_fields(client.get(url + "/edit").get_data(as_text=True))
    phone_b = dict(phone_a)
    assert client.post(url, data={**phone_a, **deal_form_data(*OTHER)}).status_code == 303
    refused = client.post(url, data={**phone_b, **deal_form_data(*SMALL)})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "theirs and yours are shown side by side" in general_errors(html)[0]
    assert hidden_fields(html)["version"] == "2"  # saving the form now puts B's on top
    page = parse(html)
    theirs = page.find_all("div", cls="theirs")[0].find_all("tfoot")[0].text
    assert theirs.split()[-2:] == ["+40", "+580"]  # phone A's correction (OTHER)
    typed = page.find_all("input", name="sides-0-melded_points", id="sides-0-melded_points")
    assert typed[0].attrs["value"] == "100"  # phone B's typed numbers stay in the form
    assert totals(show(client, public_id)) == [40, 580]


def test_a_finished_match_is_not_corrected_before_it_is_reopened(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    for _ in range(4):
        enter_deal(client, public_id, *SMALL)
    before = totals(show(client, public_id))
    for response in (
        client.get(f"/m/{public_id}/deals/2/edit"),
        client.post(f"/m/{public_id}/deals/2", data=deal_form_data(*OTHER)),
        client.post(f"/m/{public_id}/deals/4/remove"),
    ):
        assert response.status_code == 303
        assert response.headers["Location"] == f"/m/{public_id}"
    page = show(client, public_id)
    assert "tap “Correct a deal” to reopen it first" in page
    assert totals(page) == before
    assert deal_count(app, public_id) == 4


def test_starting_a_match_with_rules_that_no_longer_exist_is_refused_beside_the_rules(
    app: Flask, client: FlaskClient
) -> None:
    data = {
        "rules": "saved:gone-away",
        "layout": "1+1",
        "side_0_player_0": "Ana",
        "side_1_player_0": "Boris",
        "first_dealer": "0",
    }
    response = client.post("/matches", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="rules-errors"' in html
    assert "These rules are not available any more" in html
    assert "<strong>" not in html or "Ana" in html  # the typed names stay in the form
