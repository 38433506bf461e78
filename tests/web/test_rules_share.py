"""Rules cards, the print view, share links with QR codes, and JSON export and import."""

from __future__ import annotations

import io
import json
import re
from types import SimpleNamespace
from typing import Any

import pytest
import segno
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from support import account_id, signed_in_client
from test_rules_support import error_beside, preset_dict

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet
from scorekeeper.services import rule_sets


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """House rules are saved by an account: these tests run logged in (as "owner")."""
    return signed_in_client(app)


def _plain(row: SavedRuleSet) -> SimpleNamespace:
    return SimpleNamespace(public_id=row.public_id, name=row.name, rules=dict(row.rules))


def save(app: Flask, **changes: Any) -> SimpleNamespace:
    owner = account_id(app)  # the logged-in test client's account
    with app.app_context():
        return _plain(rule_sets.create({**preset_dict("classic"), **changes}, account_id=owner))


def rows(app: Flask) -> list[SimpleNamespace]:
    with app.app_context():
        found = db.session.scalars(select(SavedRuleSet).order_by(SavedRuleSet.id))
        return [_plain(row) for row in found]


def count(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(SavedRuleSet)) or 0


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


SPECIALS = [{"key": "sevens", "name": "Sevens", "rank": "7", "bonus": 1000, "wilds": False}]


def test_the_rules_card_is_the_tables_reference_sheet(app: Flask, client: FlaskClient) -> None:
    row = save(
        app,
        special_books=SPECIALS,
        book_bonus={"clean": 500, "dirty": 300, "wild": None},
        going_out_requires={"clean": 2, "dirty": 1, "sevens": 1},
        red_three={"laid": 100, "laid_without_meld": -100, "left": -300},
    )
    page = text(client.get(f"/rules/{row.public_id}").get_data(as_text=True))
    for words in (
        "Card values Joker 50 Two 20 A 20 8 to K 10 4 to 7 5 Black three 5",
        "Minimum meld Deal 1 50 Deal 2 90 Deal 3 120 Deal 4 150",
        "Clean book 500 Dirty book 300 Wild book not allowed Sevens (7, no wild cards) 1000",
        "3 to 5 cards at most 1 wild card 6 to 7 cards at most 2 wild cards",
        "Red three left in hand or unpicked foot −300",
        "Black three left in hand −5",
        "Going-out bonus +100 Books needed 2 × Clean book, 1 × Dirty book, 1 × Sevens",
        "Ask your partner for permission to go out.",
        "Decks (54 cards each) 5",
    ):
        assert words in page, words


def test_a_card_by_running_total_shows_each_range(app: Flask, client: FlaskClient) -> None:
    row = save(app, minimum_meld=[[0, 50], [2500, 90], [5000, 120]])
    page = text(client.get(f"/rules/{row.public_id}").get_data(as_text=True))
    assert "Below 2500 50 2500 to 4999 90 5000 and more 120" in page


def test_the_print_view_is_the_card_alone_with_a_print_stylesheet(
    app: Flask, client: FlaskClient
) -> None:
    row = save(app)
    html = client.get(f"/rules/{row.public_id}/print").get_data(as_text=True)
    assert 'class="rules-card"' in html and "Hand and Foot: Our Classic" in html
    assert 'action="' not in html  # no forms, nothing to press on paper
    stylesheet = re.search(r'href="([^"]*rules\.css(?:\?v=[0-9a-f]+)?)"', html)
    assert stylesheet
    css = client.get(stylesheet.group(1)).get_data(as_text=True)
    printed = css[css.index("@media print") :].replace(" ", "")  # the stylesheet is minified
    assert ".topbar" in printed and ".no-print" in printed and "break-inside:avoid" in printed


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_has_a_card_and_a_print_view(client: FlaskClient, preset: str) -> None:
    card = client.get(f"/rules/presets/{preset}")
    assert card.status_code == 200 and PRESETS[preset].name in card.get_data(as_text=True)
    assert f'href="/matches/new?rules={preset}"' in card.get_data(as_text=True)
    assert client.get(f"/rules/presets/{preset}/print").status_code == 200


def test_an_unknown_preset_card_is_not_found(client: FlaskClient) -> None:
    assert client.get("/rules/presets/poker").status_code == 404
    assert client.get("/rules/presets/poker/print").status_code == 404


def dark_cells(svg: str) -> set[tuple[int, int]]:
    """The dark modules drawn by segno's SVG path (``M x y`` then ``h``/``m`` steps)."""
    path = re.search(r'<path[^>]*\bd="([^"]+)"[^>]*stroke="#000"', svg) or re.search(
        r'<path[^>]*stroke="#000"[^>]*\bd="([^"]+)"', svg
    )
    assert path, svg[:300]
    cells: set[tuple[int, int]] = set()
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path.group(1)):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            cells.update((int(x + i), int(y)) for i in range(int(float(a))))
            x += float(a)
    return cells


def matrix_cells(url: str, border: int = 4) -> set[tuple[int, int]]:
    matrix = segno.make(url, error="m").matrix
    return {
        (col + border, row + border)
        for row, line in enumerate(matrix)
        for col, dark in enumerate(line)
        if dark
    }


def test_the_card_page_shares_a_link_and_a_qr_code_of_that_link(
    app: Flask, client: FlaskClient
) -> None:
    row = save(app)
    html = client.get(f"/rules/{row.public_id}").get_data(as_text=True)
    link = f"http://localhost/r/{row.public_id}"
    assert f'value="{link}"' in html
    svg = re.search(r"<svg.*?</svg>", html, re.S)
    assert svg, "no inline QR code"
    assert "style=" not in svg.group(0)  # the CSP forbids inline styles
    assert dark_cells(svg.group(0)) == matrix_cells(link)
    assert dark_cells(svg.group(0)) != matrix_cells(link + "x")


def test_the_shared_link_opens_the_card_read_only_with_an_import_button(
    app: Flask, client: FlaskClient
) -> None:
    row = save(app)
    html = client.get(f"/r/{row.public_id}").get_data(as_text=True)
    assert "Shared house rules" in html and 'class="rules-card"' in html
    assert f"/rules/{row.public_id}/edit" not in html and "/delete" not in html
    assert f'action="/r/{row.public_id}/import"' in html


def test_importing_a_shared_rule_set_copies_it_under_the_name_given(
    app: Flask, client: FlaskClient
) -> None:
    original = save(app, going_out_bonus=175)
    taken = client.post(f"/r/{original.public_id}/import", data={"name": "Our Classic"})
    assert taken.status_code == 422
    assert "already a rule set called" in error_beside(taken.get_data(as_text=True), "name")
    assert count(app) == 1

    response = client.post(f"/r/{original.public_id}/import", data={"name": "From Ana"})
    assert response.status_code == 303
    first, copy = rows(app)
    assert response.headers["Location"] == f"/rules/{copy.public_id}"
    assert copy.public_id != first.public_id
    assert {**copy.rules, "name": first.name, "id": first.rules["id"]} == first.rules


@pytest.mark.parametrize("url", ["/r/nothing", "/r/a%00b"])
def test_a_share_link_to_nothing_is_not_found(client: FlaskClient, url: str) -> None:
    assert client.get(url).status_code == 404
    assert client.post(url + "/import", data={"name": "x"}).status_code == 404


def test_export_downloads_the_api_rule_set_object_as_a_file(
    app: Flask, client: FlaskClient
) -> None:
    row = save(app, special_books=SPECIALS)
    response = client.get(f"/rules/{row.public_id}/export.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="our-classic.json"'
    assert json.loads(response.get_data(as_text=True)) == row.rules


def test_an_exported_file_imports_back_identically(app: Flask, client: FlaskClient) -> None:
    row = save(app, special_books=SPECIALS, exact_draw_bonus=40)
    exported = client.get(f"/rules/{row.public_id}/export.json").get_data()
    client.post(f"/rules/{row.public_id}/delete")
    assert count(app) == 0

    upload = {"file": (io.BytesIO(exported), "our-classic.json"), "text": "", "name": ""}
    response = client.post("/rules/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 303
    [imported] = rows(app)
    assert imported.rules == json.loads(exported)
    again = client.get(f"/rules/{imported.public_id}/export.json").get_data()
    assert again == exported


def test_pasted_json_imports_too_and_may_be_renamed(app: Flask, client: FlaskClient) -> None:
    pasted = json.dumps(preset_dict("four-books"))
    response = client.post("/rules/import", data={"text": pasted, "name": "Czech nights"})
    assert response.status_code == 303
    [row] = rows(app)
    assert (row.name, row.rules["id"], row.rules["decks"]) == (
        "Czech nights",
        "czech-nights",
        "players+1",
    )


IMPORT_REFUSALS = [
    pytest.param({"text": "{oops"}, "text", "not valid JSON", id="pasted-not-json"),
    pytest.param({"text": "[]"}, "text", "JSON object", id="pasted-list"),
    pytest.param({"text": ""}, "text", "Choose a file or paste", id="nothing-given"),
    pytest.param(
        {"file": (io.BytesIO(b"\xff\xfe"), "rules.json")}, "file", "not a text file", id="binary"
    ),
    pytest.param(
        {"text": json.dumps({**preset_dict(), "name": "Classic"})},
        "name",
        "preset",
        id="preset-name",
    ),
    pytest.param(
        {"text": json.dumps({**preset_dict(), "name": "Tab\tle\u0085"})},
        "name",
        "no control characters",
        id="control-in-name",
    ),
]


@pytest.mark.parametrize(("data", "field", "words"), IMPORT_REFUSALS)
def test_an_import_that_cannot_be_read_says_why_beside_the_field(
    app: Flask, client: FlaskClient, data: dict[str, Any], field: str, words: str
) -> None:
    response = client.post("/rules/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 422
    assert words in error_beside(response.get_data(as_text=True), field)
    assert count(app) == 0


def test_an_imported_rule_set_that_cannot_work_lists_every_problem(
    app: Flask, client: FlaskClient
) -> None:
    broken = {**preset_dict("four-books"), "decks": -3, "going_out_requires": {"wild": 1}}
    response = client.post("/rules/import", data={"text": json.dumps(broken)})
    assert response.status_code == 422
    page = text(response.get_data(as_text=True))
    assert "nothing was saved" in page
    assert "decks: The number of decks must be at least 1." in page
    assert "going_out_requires.wild: Going out requires wild books" in page
    assert count(app) == 0
    # a control character is listed with the engine's problems, not after they are put right
    broken["description"] = "Line one\nline two\x08"
    response = client.post("/rules/import", data={"text": json.dumps(broken)})
    page = text(response.get_data(as_text=True))
    assert "decks: The number of decks must be at least 1." in page
    assert "description: Use letters, digits, punctuation and spaces only" in page
    assert count(app) == 0
    # a description keeps its line breaks and tabs
    fine = {**preset_dict("four-books"), "name": "Lines", "description": "One\n\ttwo\r\n"}
    assert client.post("/rules/import", data={"text": json.dumps(fine)}).status_code == 303


def test_the_match_page_still_shows_its_rules_card(client: FlaskClient) -> None:
    names = {"side_0_player_0": "Ana", "side_0_player_1": "Cecile"}
    names |= {"side_1_player_0": "Boris", "side_1_player_1": "Dusan"}
    data = {"rules": "classic", "layout": "2+2", "first_dealer": "0", **names}
    response = client.post("/matches", data=data)
    assert response.status_code == 303
    location = response.headers["Location"]
    html = client.get(location).get_data(as_text=True)
    assert "Rules card: Classic" in html and f'href="{location}/rules"' in html
    html = client.get(f"{location}/rules").get_data(as_text=True)
    assert "Card values" in text(html) and "Going-out bonus +100" in text(html)
