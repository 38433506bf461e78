"""The rules card cites each preset's source by title and language and shows its notes
(RULES.md section 5, notes (1) to (7)), and states the new knobs (issue 10)."""

from __future__ import annotations

import html as html_lib
import itertools
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import show, start_match

from scorekeeper.engine import PRESETS, RuleSet, Side
from scorekeeper.services import matches, rule_sets


def text(html: str) -> str:
    inline = re.sub(r"</?span[^>]*>", "", html)  # a span adds no space to the text
    return html_lib.unescape(" ".join(re.sub(r"<[^>]+>", " ", inline).split()))


def card(client: FlaskClient, preset_id: str, print_view: bool = False) -> str:
    url = f"/rules/presets/{preset_id}" + ("/print" if print_view else "")
    response = client.get(url)
    assert response.status_code == 200
    return text(response.get_data(as_text=True))


#: How the card cites each preset's source: its title, in its language.
CITED = {
    "classic": "“Pravila kartaške igre rukom i nogom - Kako igrati rukom i nogom”, in Bosnian",
    "four-books": "“Ruka a noha: varianta hry Canasta”, in Czech",
    "whitnack": "“Рука и нога (Hand and Foot), Bill Whitnack”, in Russian",
}


@pytest.mark.parametrize(("preset_id", "cited"), CITED.items())
@pytest.mark.parametrize("print_view", [False, True])
def test_a_preset_card_cites_its_source_by_title_and_language_never_a_file(
    client: FlaskClient, preset_id: str, cited: str, print_view: bool
) -> None:
    page = card(client, preset_id, print_view)
    assert f"Source {cited}" in page
    assert "seeds" not in page and ".txt" not in page


@pytest.mark.parametrize(("preset_id", "code"), [("classic", "bs"), ("four-books", "cs"),
                                                 ("whitnack", "ru")])  # fmt: skip
def test_a_source_title_is_marked_with_its_own_language(
    client: FlaskClient, preset_id: str, code: str
) -> None:
    """A screen reader reads the title with its language's sounds, not the page's."""
    html = client.get(f"/rules/presets/{preset_id}").get_data(as_text=True)
    title = CITED[preset_id].split("”")[0].lstrip("“")
    assert f'<span lang="{code}">{html_lib.escape(title, quote=False)}</span>' in html


@pytest.mark.parametrize(
    ("preset_id", "notes"),
    [
        ("classic", ["only when another side went out", "only with a (black) three on top",
                     "are the source's own"]),
        ("four-books", ["with a wild card or a three on top", "are the source's own"]),
        ("whitnack", ["gives 150 for a wild book", "names no penalty for a red three not laid",
                      "one unfinished meld per rank", "agree on the number of deals",
                      "gives no minimum meld"]),
    ],
)  # fmt: skip
def test_a_preset_card_shows_where_a_value_is_a_reading_or_a_default(
    client: FlaskClient, preset_id: str, notes: list[str]
) -> None:
    page = card(client, preset_id)
    for note in notes:
        assert note in page, note


def test_the_classic_card_tells_the_red_threes_in_a_hand_and_a_foot_apart(
    client: FlaskClient,
) -> None:
    page = card(client, "classic")
    assert "Red three left in a hand −100" in page
    assert "Red three in a foot nobody picked up −100 if another side went out, else 0" in page
    assert "blocked by a three on top; a wild card on top is taken with two wild cards" in page
    assert "Unfinished melds of one rank one at a time" in page


def test_the_whitnack_card_charges_nothing_for_red_threes_left(client: FlaskClient) -> None:
    page = card(client, "whitnack")
    assert "Red three left in hand or unpicked foot 0" in page


def test_the_four_books_card_says_a_wild_card_blocks_the_pile(client: FlaskClient) -> None:
    page = card(client, "four-books")
    assert "Top card blocked by a three or a wild card on top" in page
    assert "You are playing from your own foot." in page


def test_the_match_page_card_of_a_six_deal_match_shows_six_minimum_melds(
    client: FlaskClient,
) -> None:
    from helpers import new_match_data

    response = client.post("/matches", data={**new_match_data("whitnack"), "deals_in_game": "6"})
    public_id = response.headers["Location"].removeprefix("/m/")
    assert f'href="/m/{public_id}/rules"' in show(client, public_id)  # the match page links it
    page = text(client.get(f"/m/{public_id}/rules").get_data(as_text=True))
    assert "Rules card: Whitnack" in page
    assert "Deal 5 150 Deal 6 150" in page
    assert "Deals in a game 6" in page
    assert "gives no minimum meld" in page  # a frozen copy of a preset keeps its notes


# -- rule sets that name their source as the presets did before ------------------------

LEGACY = {
    "classic": "Bosnian rule source (shared/seeds/000_f39004b1ffcd09d7.txt)",
    "four-books": "Czech rule source (shared/seeds/002_10af36338e7c99d0.txt)",
    "whitnack": (
        "Russian rule source, Bill Whitnack's rules (shared/seeds/004_d878a51282fabc65.txt)"
    ),
}


def _frozen_before(preset_id: str) -> dict[str, Any]:
    """A preset as a match froze it before issue 10: its source a file path, no new knobs
    (and under whitnack a red three left cost 100)."""
    data = PRESETS[preset_id].to_dict()
    del data["pile_blocked_by"], data["one_open_meld_per_rank"]
    left = -100 if preset_id == "whitnack" else data["red_three"]["left"]
    data["red_three"] = {**data["red_three"], "left": left}
    del data["red_three"]["left_in_foot"], data["red_three"]["foot_only_if_opponent_out"]
    data["source"] = LEGACY[preset_id]
    return data


@pytest.mark.parametrize(("preset_id", "cited"), CITED.items())
def test_a_match_frozen_before_cites_its_source_by_title_without_todays_notes(
    app: Flask, client: FlaskClient, preset_id: str, cited: str
) -> None:
    """The frozen copy keeps its values (no note of today's preset would be true of it),
    but its card cites the source as the presets do now, not by a file path."""
    layout = ("Ana", "Ben"), ("Cleo", "Dan")
    with app.app_context():
        rules = RuleSet.from_dict(_frozen_before(preset_id))
        loaded = matches.start_match(rules, preset_id, [Side(p) for p in layout], 0)
        public_id = loaded.row.public_id
    page = text(client.get(f"/m/{public_id}/rules").get_data(as_text=True))
    assert f"Source {cited}" in page
    assert "seeds" not in page and ".txt" not in page
    assert "the source's own" not in page and "gives no minimum meld" not in page


def test_a_house_rule_made_from_a_preset_before_cites_the_source_by_title(
    app: Flask, client: FlaskClient
) -> None:
    with app.app_context():
        data = {**_frozen_before("four-books"), "name": "Grandma's"}
        public_id = rule_sets.create(data).public_id
    page = text(client.get(f"/rules/{public_id}").get_data(as_text=True))
    assert f"Source {CITED['four-books']}" in page
    assert "seeds" not in page
    assert "are the source's own" not in page  # notes belong to the preset itself


def test_a_house_rule_with_its_own_source_keeps_its_words(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        data = {**PRESETS["classic"].to_dict(), "name": "Ours", "source": "Aunt Mila's notebook"}
        public_id = rule_sets.create(data).public_id
    page = text(client.get(f"/rules/{public_id}").get_data(as_text=True))
    assert "Source Aunt Mila's notebook" in page
    assert "only when another side went out:" not in page


def test_the_card_s_headings_follow_the_page_s_without_a_gap(client: FlaskClient) -> None:
    """h1, then the card's sections as h2; in the editor, under its preview's h2, as h3.
    (They were h3 everywhere: a screen reader's outline jumped from h1 to h3.)"""
    public_id = start_match(client)
    for url in ("/rules/presets/classic", "/rules/new", f"/m/{public_id}/rules"):
        html = client.get(url).get_data(as_text=True)
        levels = [int(level) for level in re.findall(r"<h([1-6])\b", html)]
        assert levels[0] == 1 and "rc-values" in html, url
        assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), (url, levels)
