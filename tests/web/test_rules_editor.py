"""The rule-set editor with JavaScript off: start from a preset, change knobs, save, refuse."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from support import signed_in_client
from test_rules_support import HX, changed, error_beside, form_fields, group_error

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet
from scorekeeper.services import rule_sets


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """House rules are saved by an account: these tests run logged in (as "owner")."""
    return signed_in_client(app)


def saved(app: Flask) -> list[dict[str, Any]]:
    with app.app_context():
        return [row.rules for row in db.session.scalars(select(SavedRuleSet))]


def count(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(SavedRuleSet)) or 0


def new_form(client: FlaskClient, preset: str = "classic") -> Any:
    response = client.get(f"/rules/new?from={preset}")
    assert response.status_code == 200
    return form_fields(response.get_data(as_text=True))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_saving_a_preset_untouched_stores_exactly_its_rules_under_the_new_name(
    app: Flask, client: FlaskClient, preset: str
) -> None:
    response = client.post("/rules", data=new_form(client, preset))
    assert response.status_code == 303
    [rules] = saved(app)
    name = f"{PRESETS[preset].name} house rules"
    assert rules["name"] == name
    assert {**rules, "id": preset, "name": PRESETS[preset].name} == PRESETS[preset].to_dict()
    assert response.headers["Location"].startswith("/rules/")


def test_every_knob_can_be_changed_and_is_saved(app: Flask, client: FlaskClient) -> None:
    fields = changed(
        new_form(client, "four-books"),
        name="Grandma's",
        description="Sevens count double.",
        layouts=["2+2", "3+3"],
        decks_mode="fixed",
        decks=6,
        hand_size=11,
        foot_size=12,
        draw=3,
        deals=3,
        pickup_cards=0,
        pickup_pile_minimum=5,
        pickup_pair="natural_or_wild",
        meld_by="total",
        **{
            "meld_thresholds-0-at": 0,
            "meld_thresholds-0-minimum": 60,
            "special_books-0-name": "Sevens",
            "special_books-0-rank": "7",
            "special_books-0-bonus": 1000,
            "special_books-0-requires": 1,
            "conditions-0": "Partner agrees.",
            "conditions-1": "",
            "conditions-2": "",
        },
        value_K=15,
        value_black3=0,
        bonus_clean=550,
        allow_dirty="y",
        bonus_dirty=250,
        allow_wild="y",
        bonus_wild=2000,
        max_wilds="",
        naturals_per_wild=1,
        red_laid=200,
        red_laid_without_meld=0,
        red_left=-300,
        red_left_in_foot=-50,
        red_foot_only_if_opponent_out="y",
        pile_blocked_by=["wild"],
        one_open_meld_per_rank=None,
        going_out_bonus=150,
        requires_clean=1,
        requires_dirty=1,
        requires_wild=1,
        exact_draw_bonus=25,
    )
    response = client.post("/rules", data=fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    [rules] = saved(app)
    assert rules["players"] == {"layouts": [[2, 2], [3, 3]]}
    assert (rules["decks"], rules["hand_size"], rules["foot_size"], rules["draw"]) == (6, 11, 12, 3)
    assert rules["deals"] == 3
    assert rules["discard_pickup"] == {"cards": 0, "pile_minimum": 5, "pair": "natural_or_wild"}
    assert rules["minimum_meld"] == [[0, 60]]
    assert rules["card_values"]["K"] == 15 and rules["card_values"]["black3"] == 0
    assert rules["book_bonus"] == {"clean": 550, "dirty": 250, "wild": 2000}
    assert rules["special_books"] == [
        {"key": "sevens", "name": "Sevens", "rank": "7", "bonus": 1000, "wilds": False}
    ]
    assert rules["wild_limit"] == {"max_wilds": None, "naturals_per_wild": 1}
    assert rules["red_three"] == {
        "laid": 200,
        "laid_without_meld": 0,
        "left": -300,
        "left_in_foot": -50,
        "foot_only_if_opponent_out": True,
    }
    assert (rules["pile_blocked_by"], rules["one_open_meld_per_rank"]) == (["wild"], False)
    assert rules["going_out_bonus"] == 150
    assert rules["going_out_requires"] == {"clean": 1, "dirty": 1, "wild": 1, "sevens": 1}
    assert rules["going_out_conditions"] == ["Partner agrees."]
    assert rules["exact_draw_bonus"] == 25
    assert rules["description"] == "Sevens count double."


def test_decks_can_be_one_more_than_players(app: Flask, client: FlaskClient) -> None:
    response = client.post("/rules", data=changed(new_form(client), decks_mode="players+1"))
    assert response.status_code == 303
    assert saved(app)[0]["decks"] == "players+1"


def test_an_untick_makes_a_book_kind_not_allowed(app: Flask, client: FlaskClient) -> None:
    fields = changed(new_form(client), allow_wild=None, requires_wild="")
    assert client.post("/rules", data=fields).status_code == 303
    assert saved(app)[0]["book_bonus"]["wild"] is None


MELDS = "#group-minimum_meld-errors"
THRESHOLDS = {
    "meld_by": "total",
    "meld_thresholds-0-at": 0,
    "meld_thresholds-0-minimum": 50,
    "meld_thresholds-1-at": 0,
    "meld_thresholds-1-minimum": 90,
}
SEVENS = {"special_books-0-name": "Sevens", "special_books-0-bonus": 10}
WILD_BOOK = {"special_books-0-name": "Wild", "special_books-0-rank": "7"}

# id: (what is typed, the control whose error it is (or #error-list id), words of it)
REFUSALS: dict[str, tuple[dict[str, Any], str, str]] = {
    "going-out-needs-wild": ({"allow_wild": None}, "requires_wild", "has none"),
    "melds-fewer-than-deals": ({"deals": 5}, MELDS, "needs 5"),
    "meld-row-blank": ({"meld_per_deal-3": ""}, MELDS, "not 3"),
    "thresholds-not-increasing": (THRESHOLDS, "meld_thresholds-1-at", "increase"),
    "negative-decks": ({"decks": -1}, "decks", "at least 1"),
    "no-decks": ({"decks": ""}, "decks", "required"),
    "dirty-books-without-wilds": ({"max_wilds": 0}, "bonus_dirty", "wild"),
    "special-book-without-rank": (SEVENS, "special_books-0-rank", "natural rank"),
    "special-named-wild": ({**SEVENS, **WILD_BOOK}, "special_books-0-name", "standard"),
    "card-value-blank": ({"value_K": ""}, "value_K", "needs a value"),
    "card-value-not-a-number": ({"value_K": "ten"}, "value_K", "whole number"),
    "empty-hand": ({"hand_size": 0}, "hand_size", "at least 1"),
    "hand-size-fraction": ({"hand_size": "1.5"}, "hand_size", "whole number"),
    "nobody-can-play": ({"layouts": None}, "#layouts-errors", "at least one"),
    "no-name": ({"name": ""}, "name", "cannot be empty"),
    "a-preset-name": ({"name": "Whitnack"}, "name", "preset"),
    "allowed-without-bonus": ({"bonus_dirty": ""}, "bonus_dirty", "whole number"),
    "red-three-blank": ({"red_laid": ""}, "red_laid", "whole number"),
    "negative-going-out-bonus": ({"going_out_bonus": -5}, "going_out_bonus", "negative"),
    "negative-books-needed": ({"requires_clean": -1}, "requires_clean", "negative"),
    "condition-too-long": ({"conditions-0": "x" * 301}, "conditions-0", "300"),
    "nul-in-text": ({"description": "a\x00b"}, "description", "NUL"),
}


@pytest.mark.parametrize(("typed", "where", "words"), REFUSALS.values(), ids=REFUSALS.keys())
def test_rules_that_cannot_work_are_refused_beside_the_field_and_never_saved(
    app: Flask, client: FlaskClient, typed: dict[str, Any], where: str, words: str
) -> None:
    response = client.post("/rules", data=changed(new_form(client), **typed))
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    message = group_error(html, where[1:]) if where.startswith("#") else error_beside(html, where)
    assert words in message
    assert count(app) == 0
    # what was typed is still there to correct
    assert form_fields(html).get("name") == typed.get("name", "Classic house rules")


def test_adding_a_row_shows_the_form_again_with_one_more_row_and_saves_nothing(
    app: Flask, client: FlaskClient
) -> None:
    fields = new_form(client)
    assert "special_books-1-name" not in fields
    response = client.post("/rules", data=changed(fields, add="special_books"))
    assert response.status_code == 200
    again = form_fields(response.get_data(as_text=True))
    assert "special_books-1-name" in again
    assert again.get("meld_per_deal-0") == "50"
    assert count(app) == 0


def test_a_list_stops_growing_at_twenty_rows(client: FlaskClient) -> None:
    fields = new_form(client)
    for _ in range(25):
        fields = form_fields(
            client.post("/rules", data=changed(fields, add="conditions")).get_data(as_text=True)
        )
    assert "conditions-19" in fields and "conditions-20" not in fields


def test_the_live_preview_answers_htmx_with_the_card_alone(client: FlaskClient) -> None:
    fields = changed(new_form(client), value_A=35, going_out_bonus=275)
    response = client.post("/rules/preview", data=fields, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "HX-Request" in response.headers["Vary"]
    assert "<html" not in html and 'class="rules-card"' in html
    assert "<td>35</td>" in html and "<td>+275</td>" in html


def test_the_live_preview_names_the_field_of_each_problem(client: FlaskClient) -> None:
    response = client.post("/rules/preview", data=changed(new_form(client), decks=-4), headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert (
        "cannot work yet" in html
        and "Number of decks: The number of decks must be at least 1." in html
    )


def test_the_preview_button_without_javascript_shows_the_editor_with_the_card(
    app: Flask, client: FlaskClient
) -> None:
    response = client.post("/rules/preview", data=changed(new_form(client), value_A=35))
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<html" in html and 'id="rule-form"' in html and "<td>35</td>" in html
    assert count(app) == 0
    broken = client.post("/rules/preview", data=changed(new_form(client), decks=-4))
    assert "at least 1" in error_beside(broken.get_data(as_text=True), "decks")
    assert count(app) == 0


def test_the_editor_page_carries_the_htmx_preview_on_top_of_a_plain_form(
    client: FlaskClient,
) -> None:
    html = client.get("/rules/new").get_data(as_text=True)
    assert 'method="post" action="/rules"' in html
    assert 'hx-post="/rules/preview"' in html and 'hx-target="#rules-preview"' in html
    assert 'formaction="/rules/preview"' in html
    assert "css/rules.css" in html


def test_an_unknown_starting_point_is_not_found(client: FlaskClient) -> None:
    assert client.get("/rules/new?from=poker").status_code == 404
    assert client.get("/rules/new?from=saved:nothing").status_code == 404


def _save(client: FlaskClient, **typed: Any) -> str:
    response = client.post("/rules", data=changed(new_form(client), name="Friday", **typed))
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[-1]


def test_a_saved_rule_set_opens_in_the_editor_and_saves_changes(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _save(client, going_out_bonus=120)
    page = client.get(f"/rules/{public_id}/edit").get_data(as_text=True)
    fields = form_fields(page)
    assert (fields.get("going_out_bonus"), fields.get("version")) == ("120", "1")
    response = client.post(f"/rules/{public_id}/edit", data=changed(fields, going_out_bonus=130))
    assert response.status_code == 303
    assert response.headers["Location"] == f"/rules/{public_id}"
    [rules] = saved(app)
    assert rules["going_out_bonus"] == 130


def test_a_starting_copy_of_saved_rules_is_offered_under_a_new_name(client: FlaskClient) -> None:
    public_id = _save(client, going_out_bonus=120)
    fields = new_form(client, f"saved:{public_id}")
    assert (fields.get("name"), fields.get("going_out_bonus")) == ("Friday (copy)", "120")


def _second_tab(client: FlaskClient, first: dict[str, Any], second: dict[str, Any]) -> Any:
    """Two tabs open one saved rule set's editor; the first saves ``first``, then the
    second, still showing the old rules, saves ``second``. Its fields and the answer."""
    public_id = _save(client)
    opened = form_fields(client.get(f"/rules/{public_id}/edit").get_data(as_text=True))
    client.post(f"/rules/{public_id}/edit", data=changed(opened, **first))
    response = client.post(f"/rules/{public_id}/edit", data=changed(opened, **second))
    assert response.status_code == 422
    return public_id, opened, response.get_data(as_text=True)


def test_an_edit_from_a_stale_page_is_refused_with_a_clear_message(
    app: Flask, client: FlaskClient
) -> None:
    _public_id, _opened, html = _second_tab(
        client, {"going_out_bonus": 111}, {"going_out_bonus": 999}
    )
    assert "Someone else changed these rules" in html
    assert saved(app)[0]["going_out_bonus"] == 111
    # the form now knows the latest version: saving again is a deliberate choice
    assert form_fields(html).get("version") == "2"


def test_a_stale_save_shows_beside_each_field_what_is_saved_now(
    app: Flask, client: FlaskClient
) -> None:
    # Two tabs: the first changed the joker, the second the going-out bonus. The second,
    # refused as stale, showed its own values only, and saving again put the joker back.
    public_id, second_tab, html = _second_tab(client, {"value_joker": 75}, {"going_out_bonus": 999})
    assert error_beside(html, "value_joker") == "Saved now: 75"
    assert error_beside(html, "going_out_bonus") == f"Saved now: {second_tab['going_out_bonus']}"
    for untouched in ("value_2", "name", "decks", "requires_clean"):
        assert error_beside(html, untouched) == "", untouched
    assert "saving again keeps what you see" in html
    fields = form_fields(html)
    assert (fields["value_joker"], fields["going_out_bonus"]) == (second_tab["value_joker"], "999")
    # the table takes the other tab's joker and saves: both changes kept
    assert (
        client.post(f"/rules/{public_id}/edit", data=changed(fields, value_joker=75)).status_code
        == 303
    )
    assert (saved(app)[0]["card_values"]["joker"], saved(app)[0]["going_out_bonus"]) == (75, 999)


def test_a_save_of_rules_deleted_meanwhile_offers_to_make_them_anew(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    public_id = _save(client)
    page = form_fields(client.get(f"/rules/{public_id}/edit").get_data(as_text=True))

    def deleted_meanwhile(row: Any, data: Any, version: Any, owner: Any = None) -> None:
        rule_sets.delete(row)
        raise rule_sets.StaleRuleSetError([])

    monkeypatch.setattr(rule_sets, "update", deleted_meanwhile)
    response = client.post(f"/rules/{public_id}/edit", data=changed(page, going_out_bonus=5))
    assert response.status_code == 422 and count(app) == 0
    html = response.get_data(as_text=True)
    assert "deleted meanwhile; saving makes them anew" in html
    fields = form_fields(html)
    assert fields["going_out_bonus"] == "5" and fields.get("version", "") == ""
    assert 'action="/rules"' in html
    monkeypatch.undo()
    assert client.post("/rules", data=fields).status_code == 303
    assert saved(app)[0]["going_out_bonus"] == 5


def test_deleting_asks_first_then_removes_the_rule_set(app: Flask, client: FlaskClient) -> None:
    public_id = _save(client)
    confirm = client.get(f"/rules/{public_id}/delete")
    assert confirm.status_code == 200 and "Delete Friday?" in confirm.get_data(as_text=True)
    assert count(app) == 1
    response = client.post(f"/rules/{public_id}/delete")
    assert (response.status_code, response.headers["Location"]) == (303, "/rules")
    assert count(app) == 0
    assert client.get(f"/rules/{public_id}").status_code == 404


@pytest.mark.parametrize("url", ["/rules/nope/edit", "/rules/a%00b/edit", "/rules/nope/delete"])
def test_a_rule_set_that_does_not_exist_is_not_found(client: FlaskClient, url: str) -> None:
    assert client.get(url).status_code == 404


def test_the_list_shows_presets_and_saved_rule_sets(client: FlaskClient) -> None:
    public_id = _save(client)
    html = client.get("/rules").get_data(as_text=True)
    assert f'href="/rules/{public_id}"' in html and ">Friday<" in html
    for preset in PRESETS.values():
        assert f'href="/rules/presets/{preset.id}"' in html


def test_a_blank_red_three_in_a_foot_costs_what_one_in_a_hand_does(
    app: Flask, client: FlaskClient
) -> None:
    fields = changed(new_form(client, "four-books"), red_left=-200, red_left_in_foot="")
    assert client.post("/rules", data=fields).status_code == 303
    assert saved(app)[0]["red_three"]["left_in_foot"] == -200


def test_no_ticked_top_card_means_nothing_blocks_the_pile(app: Flask, client: FlaskClient) -> None:
    fields = changed(new_form(client, "four-books"), pile_blocked_by=None)
    assert client.post("/rules", data=fields).status_code == 303
    assert saved(app)[0]["pile_blocked_by"] == []


def test_the_editor_shows_the_new_knobs_of_a_preset(client: FlaskClient) -> None:
    fields = new_form(client, "classic")
    assert fields["red_left_in_foot"] == "-100"
    assert fields["red_foot_only_if_opponent_out"] == "y"
    assert fields.getlist("pile_blocked_by") == ["black3"]
    assert fields["one_open_meld_per_rank"] == "y"


def test_a_bad_red_three_in_a_foot_is_refused_beside_its_field(client: FlaskClient) -> None:
    fields = changed(new_form(client), red_left_in_foot="lots")
    response = client.post("/rules", data=fields)
    assert response.status_code == 422
    assert "Enter a whole number" in error_beside(
        response.get_data(as_text=True), "red_left_in_foot"
    )


def test_a_special_book_row_with_only_its_going_out_count_is_refused_for_its_name(
    app: Flask, client: FlaskClient
) -> None:
    # Only "Needed to go out" filled in: the row was dropped without a word and the rules
    # saved without the book. An empty name also showed the key's message, about a field
    # nobody sees ("The key must be lower-case letters and digits.").
    typed = changed(new_form(client), **{"special_books-0-requires": 1})
    response = client.post("/rules", data=typed)
    assert response.status_code == 422 and count(app) == 0
    html = response.get_data(as_text=True)
    beside = error_beside(html, "special_books-0-name")
    assert "cannot be empty" in beside and "key" not in beside
    assert form_fields(html).get("special_books-0-requires") == "1"


def test_control_characters_in_the_texts_of_house_rules_are_refused_beside_them(
    app: Flask, client: FlaskClient
) -> None:
    # A bell in a name and an escape in a condition were saved, and shown as boxes.
    typed = changed(
        new_form(client),
        name="Our\x07 rules",
        **{"conditions-0": "Partner\x1b agrees.", "special_books-0-name": "Se\x7fvens"},
        **{"special_books-0-rank": "7", "special_books-0-bonus": 1000},
    )
    response = client.post("/rules", data=typed)
    assert response.status_code == 422 and count(app) == 0
    html = response.get_data(as_text=True)
    for field in ("name", "conditions-0", "special_books-0-name"):
        assert "no control characters" in error_beside(html, field), field
    # what was typed comes back as typed, to be put right
    assert form_fields(html).get("conditions-0") == "Partner\x1b agrees."
    fixed = changed(
        typed,
        name="Our rules",
        **{"conditions-0": "Partner agrees.", "special_books-0-name": "Sevens"},
    )
    assert client.post("/rules", data=fixed).status_code == 303
    assert count(app) == 1


def test_going_out_that_the_cards_cannot_make_is_refused_beside_what_it_requires(
    app: Flask, client: FlaskClient
) -> None:
    # Classic's 2 clean books and a wild book, played with one deck: four cards a rank
    # make no clean book, and six wild cards no wild book (plus the two dirty books' one
    # each). Such a rule set was saved, and no side could ever go out.
    typed = changed(new_form(client), decks_mode="fixed", decks=1)
    response = client.post("/rules", data=typed)
    assert response.status_code == 422 and count(app) == 0
    html = response.get_data(as_text=True)
    assert "1 deck makes at most 0" in error_beside(html, "requires_clean")
    assert "1 deck holds 6 wild cards; these books need 9." in error_beside(html, "requires_wild")
    # the live preview says so while the table types
    preview = client.post("/rules/preview", data=typed, headers=HX)
    assert "1 deck makes at most 0" in preview.get_data(as_text=True)
    # two decks make a clean book of each rank: 2 clean, 2 dirty and no wild book fit
    fits = changed(typed, decks=2, requires_wild="", allow_wild=None)
    assert client.post("/rules", data=fits).status_code == 303
    assert saved(app)[0]["going_out_requires"] == {"clean": 2, "dirty": 2}


def test_two_special_books_alike_are_refused_beside_the_second(
    app: Flask, client: FlaskClient
) -> None:
    book = {"rank": "7", "bonus": 1000}
    typed = changed(
        new_form(client),
        add="special_books",
        **{f"special_books-0-{k}": v for k, v in {"name": "Sevens", **book}.items()},
    )
    typed = changed(
        form_fields(client.post("/rules/draft", data=typed).get_data(as_text=True)),
        **{f"special_books-1-{k}": v for k, v in {"name": "Lucky sevens", **book}.items()},
    )
    response = client.post("/rules", data=typed)
    assert response.status_code == 422 and count(app) == 0
    html = response.get_data(as_text=True)
    assert "already of this rank" in error_beside(html, "special_books-1-rank")
    assert error_beside(html, "special_books-0-rank") == ""
    # one that may hold wild cards is another book
    assert (
        client.post("/rules", data=changed(typed, **{"special_books-1-wilds": "y"})).status_code
        == 303
    )
