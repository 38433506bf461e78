"""Issue 11's first paragraph, replayed as an anonymous visitor and as the owner of
another club: every attack is refused and nothing changes."""

from __future__ import annotations

import pytest
from authz_world import build, client_as, club_row, snapshot
from flask import Flask
from support import PASSWORD, log_in
from test_rules_support import preset_dict


def deal(points: int) -> dict[str, str]:
    return {"went_out": "0", "sides-0-books_clean": "2", "sides-0-melded_points": str(points),
            "sides-1-books_clean": "0", "sides-1-melded_points": "0"}  # fmt: skip


@pytest.mark.parametrize("who", [None, "stranger"])
@pytest.mark.parametrize("visibility", ["public", "members"])
def test_every_attack_of_the_issue_is_refused_and_changes_nothing(
    app: Flask, who: str | None, visibility: str
) -> None:
    world = build(app, visibility=visibility)
    before = snapshot(app)
    client = client_as(app, who)
    club, match, rules = world.club, world.match, world.rules
    attacks = [
        (
            f"/c/{club}/settings",
            {
                "name": "Pwned",
                "default_rules": "classic",
                "min_games": "100",
                "visibility": "public",
            },
        ),
        (f"/m/{match}/reopen", {}),
        *[(f"/m/{match}/deals/{n}", deal(8000 if n == 1 else 0)) for n in range(1, 5)],
        *[(f"/m/{match}/deals/{n}/remove", {}) for n in (4, 3, 2, 1)],
        (f"/rules/{rules}/edit", {**preset_dict("classic"), "name": "Ours", "joker": "1000"}),
        (f"/rules/{rules}/delete", {}),
        (f"/c/{club}/players", {"name": "Mallory"}),
        (
            f"/c/{club}/seasons",
            {"name": "Mine", "starts_on": "2024-01-01", "ends_on": "2024-12-31"},
        ),
        (f"/c/{club}/delete", {"confirm_name": "Tuesday"}),
        (f"/c/{club}/invitations", {"role": "scorer", "uses": "5"}),
    ]
    for url, data in attacks:
        response = client.post(url, data=data)
        assert response.status_code in (302, 303, 401, 403), (url, response.status_code)
        if response.status_code in (302, 303):
            assert "/login" in response.headers["Location"], url
    assert snapshot(app) == before
    assert club_row(app, club) == ("Tuesday", 2, visibility)


@pytest.mark.parametrize("who", [None, "stranger"])
def test_no_list_shows_the_ids_of_a_members_only_club_or_of_other_peoples_matches(
    app: Flask, who: str | None
) -> None:
    world = build(app, visibility="members")
    client = client_as(app, who)
    for page in ("/clubs", "/", "/rules"):
        html = client.get(page).get_data(as_text=True)
        assert world.club not in html and world.match not in html, page


def test_the_clubs_own_scorer_may_still_correct_a_finished_match(app: Flask) -> None:
    world = build(app)
    client = app.test_client()
    log_in(client, "scorer", PASSWORD)
    assert client.post(f"/m/{world.match}/reopen").status_code == 303
    page = client.get(f"/m/{world.match}/deals/1/edit")
    assert page.status_code == 200
