"""The home page: a match in progress is one tap away; finished ones show who won."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from helpers import SIDE_A_COUNTS, SIDE_B_POINTS, enter_deal, start_match
from htmltree import Node, parse

from scorekeeper.extensions import db
from scorekeeper.models import Match as MatchRow

EVEN = {"books_clean": 1, "melded_points": 120}


def _home(client: FlaskClient) -> Node:
    response = client.get("/")
    assert response.status_code == 200
    return parse(response.get_data(as_text=True))


def _play(client: FlaskClient, public_id: str, deals: list[tuple[dict, dict, int | None]]) -> None:
    for side_0, side_1, went_out in deals:
        assert enter_deal(client, public_id, side_0, side_1, went_out=went_out).status_code == 303


def test_with_no_match_yet_the_home_page_invites_to_start_one(client: FlaskClient) -> None:
    home = _home(client)
    assert [a.attrs["href"] for a in home.find_all("a", cls="primary")] == ["/matches/new"]
    assert "Keep score of Hand and Foot" in home.text
    assert not home.find_all("ul", cls="match-list")


def test_matches_in_progress_come_first_with_a_resume_link(client: FlaskClient) -> None:
    finished = start_match(client, "classic", "1+1", ["Emir", "Fatima"])
    _play(client, finished, [(SIDE_A_COUNTS, SIDE_B_POINTS, 0)] + [(EVEN, {}, None)] * 3)
    playing = start_match(client)
    _play(client, playing, [(SIDE_A_COUNTS, SIDE_B_POINTS, 0)])
    home = _home(client)
    headings = [h.attrs["id"] for h in home.iter() if h.tag in ("h1", "h2") and "id" in h.attrs]
    assert headings == ["playing", "recent"]
    resume = home.find_all("a", cls="resume")
    assert [a.attrs["href"] for a in resume] == [f"/m/{playing}"]
    assert "Resume: deal 2 of 4" in resume[0].text
    assert "Ana & Boris 3990" in resume[0].text
    assert "Cecile & Dusan 510" in resume[0].text


def test_the_match_played_last_is_the_first_to_resume(client: FlaskClient) -> None:
    older = start_match(client)
    newer = start_match(client, names=["Emir", "Fatima", "Goran", "Hana"])
    order = [a.attrs["href"] for a in _home(client).find_all("a", cls="resume")]
    assert order == [f"/m/{newer}", f"/m/{older}"]
    _play(client, older, [(EVEN, EVEN, None)])
    order = [a.attrs["href"] for a in _home(client).find_all("a", cls="resume")]
    assert order == [f"/m/{older}", f"/m/{newer}"]


def test_finished_matches_are_listed_with_their_winner_or_as_a_draw(
    client: FlaskClient,
) -> None:
    won = start_match(client)
    _play(client, won, [(SIDE_A_COUNTS, SIDE_B_POINTS, 0)] + [(EVEN, EVEN, None)] * 3)
    drawn = start_match(client, "whitnack", "2+2", ["Emir", "Fatima", "Goran", "Hana"])
    _play(client, drawn, [(EVEN, EVEN, None)] * 4)
    links = {a.attrs["href"]: a for a in _home(client).find_all("a", cls="match-link")}
    assert set(links) == {f"/m/{won}", f"/m/{drawn}"}
    assert "Won by Ana & Boris" in links[f"/m/{won}"].text
    winners = links[f"/m/{won}"].find_all("span", cls="winner")
    assert [w.text for w in winners] == ["Ana & Boris 5850"]
    assert "Draw" in links[f"/m/{drawn}"].text
    assert not links[f"/m/{drawn}"].find_all("span", cls="winner")
    assert not _home(client).find_all("a", cls="resume")


def test_a_drawn_match_is_a_draw_in_every_language_not_drawing_cards(
    client: FlaskClient,
) -> None:
    # "Draw" is also the rules card's "draw two cards a turn": one message served both, so
    # Czech, Bosnian and Russian homes said a level match was "drawing cards".
    drawn = start_match(client, "whitnack", "2+2", ["Emir", "Fatima", "Goran", "Hana"])
    _play(client, drawn, [(EVEN, EVEN, None)] * 4)
    words = {
        "cs": ("Remíza", "Líznutí"),
        "bs": ("Neriješeno", "Izvlačenje"),
        "ru": ("Ничья", "Добор"),
    }
    for lang, (level, cards) in words.items():
        home = client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
        link = {a.attrs["href"]: a for a in parse(home).find_all("a", cls="match-link")}
        assert level in link[f"/m/{drawn}"].text and cards not in link[f"/m/{drawn}"].text
        rules = client.get(f"/m/{drawn}/rules", headers={"Accept-Language": lang})
        assert cards in rules.get_data(as_text=True)  # the rules card's draw stays the cards'
    # the deals' Edit and Remove name their deal after a verb: Russian's accusative
    playing = start_match(client)
    _play(client, playing, [(EVEN, EVEN, None)])
    page = client.get(f"/m/{playing}", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert 'Изменить<span class="visually-hidden"> сдачу 1</span>' in page
    assert 'Убрать<span class="visually-hidden"> сдачу 1</span>' in page


def test_home_links_use_the_public_id_never_the_integer_one(
    app: Flask, client: FlaskClient
) -> None:
    public_ids = [start_match(client) for _ in range(3)]
    with app.app_context():
        ids = {str(r.id) for r in db.session.query(MatchRow)}
    hrefs = [a.attrs["href"] for a in _home(client).find_all("a", cls="resume")]
    assert sorted(hrefs) == sorted(f"/m/{p}" for p in public_ids)
    assert not any(href.removeprefix("/m/") in ids for href in hrefs)


def test_the_home_page_lists_at_most_twenty_matches_in_progress(client: FlaskClient) -> None:
    for _ in range(22):
        client.post(
            "/matches",
            data={
                "rules": "classic",
                "layout": "1+1",
                "side_0_player_0": "Ana",
                "side_1_player_0": "Boris",
                "first_dealer": "0",
            },
        )
    html = client.get("/").get_data(as_text=True)
    assert html.count("Resume: deal 1 of 4") == 20


def test_two_matches_in_progress_are_told_apart_by_their_last_change(
    app: Flask, client: FlaskClient
) -> None:
    first = start_match(client)
    second = start_match(client)
    _play(client, second, [(SIDE_A_COUNTS, SIDE_B_POINTS, 0)])
    with app.app_context():
        stamps = {
            row.public_id: row.updated_at.strftime("%H:%M")
            for row in db.session.query(MatchRow).filter(MatchRow.public_id.in_([first, second]))
        }
    items = _home(client).find_all("a", cls="resume")
    times = [item.find_all("time")[0] for item in items]
    assert [t.attrs["datetime"][11:16] for t in times] == [stamps[second], stamps[first]]
    assert all(
        "last change" in item.text and t.text.endswith("UTC")
        for item, t in zip(items, times, strict=True)
    )
