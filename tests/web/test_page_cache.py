"""Kept page bodies (web/page_cache.py, issue 17): after any change to a club, every kept
page is what rendering it afresh gives, for a visitor and for a scorer; a form's keys
are never sent twice; nothing of one reader is kept for another."""

from __future__ import annotations

import re
from datetime import date

import pytest
from support import give_role, log_in

from scorekeeper.extensions import db
from scorekeeper.models import Account, Match, Membership, Player
from scorekeeper.services import accounts, audit, clubs, matches, memberships, ratings
from scorekeeper.services.demo import four_deals, play
from scorekeeper.web import page_cache

#: What differs between two renders of one page for one reader: the signed CSRF token
#: (it carries a timestamp; the page's header has it once the session has one) and the
#: deal form's submission key.
VOLATILE = (
    (re.compile(r'(name="csrf_token"[^>]*value=")[^"]*'), r"\1~"),
    (re.compile(r""" hx-headers='\{"X-CSRFToken": "[^"]*"\}'"""), ""),
    (re.compile(r'(name="submission_key"[^>]*value=")[^"]*'), r"\1~"),
)


@pytest.fixture
def club(app, monkeypatch):
    monkeypatch.setattr(ratings, "IN_REQUEST", 1)  # far-back changes go through catch-up
    with app.app_context():
        made = clubs.create_club("Tuesday", min_games=1)
        finished = play(made, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
        for week in range(1, 4):
            play(
                made,
                [("Ann", "Cid"), ("Bob", "Dee")],
                four_deals(300, 400 + 50 * week),
                date(2024, 3, 5 + 7 * week),
            )
        playing = play(made, [("Ann", "Dee"), ("Bob", "Cid")], [[120, 90]], date(2024, 4, 9))
        ann = db.session.query(Player).filter_by(name="Ann").one()
        ids = (made.public_id, finished.row.public_id, playing.row.public_id, ann.public_id)
    give_role(app, ids[0], "scorer", "scorer")
    return ids


def pages(club):
    public_id, finished, playing, ann = club
    return [
        f"/c/{public_id}",
        f"/c/{public_id}?view=partnerships&sort=wins",
        f"/c/{public_id}/p/{ann}",
        f"/m/{finished}",
        f"/m/{playing}",
    ]


def normal(html):
    for pattern, replacement in VOLATILE:
        html = pattern.sub(replacement, html)
    return html


def fetch(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    html = response.get_data(as_text=True)
    assert "\x1f" not in html, f"{path}: a placeholder was sent"
    return normal(html)


def assert_fresh(app, readers, club):
    """Every page, for every reader, as the cache answers it, then as rendered afresh."""
    served = {(name, p): fetch(c, p) for name, c in readers.items() for p in pages(club)}
    with app.app_context():
        page_cache.bodies().clear()
    for (name, path), html in served.items():
        assert html == fetch(readers[name], path), f"{path} for the {name} was stale"


@pytest.fixture
def readers(app, club):
    scorer = app.test_client()
    log_in(scorer, "scorer")
    return {"visitor": app.test_client(), "scorer": scorer}


def in_app(app, change):
    with app.app_context():
        change()
        db.session.commit()


def test_every_change_to_a_club_is_on_its_kept_pages_at_the_next_request(app, club, readers):
    public_id, finished, playing, _ann = club
    assert_fresh(app, readers, club)  # kept now
    with app.app_context():
        assert page_cache.bodies().hits == 0
    for path in pages(club):  # answered from what was kept
        fetch(readers["visitor"], path)
    with app.app_context():
        assert page_cache.bodies().hits >= len(pages(club))

    def club_row():
        return clubs.get_club(public_id)

    changes = [
        lambda: matches.record_deal(
            matches.load_match(playing), [{"melded_points": 200}] * 2, "new-2", 2
        ),
        lambda: matches.reopen(matches.load_match(finished)),
        lambda: matches.correct_deal(
            matches.load_match(finished), 1, [{"melded_points": 50}, {"melded_points": 900}], None
        ),
        lambda: ratings.catch_up(club_row().id),
        lambda: matches.remove_last_deal(matches.load_match(playing), 2),
        lambda: matches.record_deal(
            matches.load_match(playing),
            [{"melded_points": 10}, {"melded_points": 20}],
            audit.restore_key(1),
            2,
        ),
        lambda: clubs.update_settings(club_row(), "Wednesday", "classic", 2),
        lambda: clubs.add_season(club_row(), "Spring", date(2024, 3, 1), date(2024, 3, 31)),
        lambda: clubs.add_player(club_row(), "Zoe"),
        lambda: setattr(db.session.query(Player).filter_by(name="Ann").one(), "name", "Anna"),
        lambda: memberships.link_player(
            memberships.membership(accounts.find("scorer"), club_row()),
            db.session.query(Player).filter_by(name="Bob").one(),
        ),
        lambda: setattr(accounts.find("scorer"), "username", "scorekeeper"),
        lambda: memberships.set_role(
            db.session.query(Membership).filter_by(club_id=club_row().id).one(), "member"
        ),
    ]
    for change in changes:
        in_app(app, change)
        assert_fresh(app, readers, club)


def test_a_kept_deal_form_gets_new_keys_for_every_request(app, club, readers):
    path = f"/m/{club[2]}"
    keys = set()
    for _ in range(3):
        html = readers["scorer"].get(path).get_data(as_text=True)
        found = re.search(r'name="submission_key"[^>]*value="([^"]+)"', html)
        assert found and "\x1f" not in html
        keys.add(found.group(1))
    assert len(keys) == 3
    with app.app_context():
        assert page_cache.bodies().hits >= 2


def test_nothing_of_one_reader_is_kept_for_another(app, club, readers):
    path = f"/m/{club[2]}"
    scorer_page = readers["scorer"].get(path).get_data(as_text=True)
    visitor_page = readers["visitor"].get(path).get_data(as_text=True)
    assert 'name="submission_key"' in scorer_page
    assert 'name="submission_key"' not in visitor_page
    assert "scorer" not in visitor_page.split('id="main"')[1]
    other = app.test_client()
    log_in(other, "owner2")
    assert 'name="submission_key"' not in other.get(path).get_data(as_text=True)


def test_the_cache_can_be_turned_off(app, club, readers):
    app.config["PAGE_CACHE_SIZE"] = 0
    app.extensions.pop("scorekeeper.page_cache", None)
    for path in pages(club):
        fetch(readers["visitor"], path)
        fetch(readers["visitor"], path)
    with app.app_context():
        assert page_cache.bodies().hits == 0
        assert db.session.query(Match).count() == 5
        assert db.session.query(Account).count() >= 1


def test_a_whole_page_is_kept_and_a_message_shown_once_is_never_kept(app, club, readers):
    visitor, path = readers["visitor"], pages(club)[0]
    fetch(visitor, path)
    fetch(visitor, path)  # kept whole now
    with visitor.session_transaction() as stored:
        stored["_flashes"] = [("success", "Saved: deal 3.")]
    assert "Saved: deal 3." in fetch(visitor, path)
    assert "Saved: deal 3." not in fetch(visitor, path)
    assert "Saved: deal 3." not in fetch(app.test_client(), path)


def test_the_log_out_clean_up_reaches_that_phone_alone(app, club, readers):
    scorer, path = readers["scorer"], pages(club)[0]
    fetch(readers["visitor"], path)
    assert scorer.post("/logout").status_code in (302, 303)
    assert "data-forget-offline" in fetch(scorer, path)
    assert "data-forget-offline" not in fetch(scorer, path)
    assert "data-forget-offline" not in fetch(readers["visitor"], path)
    assert "data-forget-offline" not in fetch(app.test_client(), path)


def test_a_kept_page_has_one_new_token_in_its_frame_and_its_forms(app, club, readers):
    path = f"/m/{club[2]}"
    # kept before the session had a token, whose frame (base.html) then has none
    readers["scorer"].get(path)
    for _ in range(3):
        html = readers["scorer"].get(path).get_data(as_text=True)
        head = re.search(r"""hx-headers='\{"X-CSRFToken": "([^"]+)"\}'""", html)
        forms = set(re.findall(r'name="csrf_token"[^>]*value="([^"]+)"', html))
        assert head and forms == {head.group(1)}
    with app.app_context():
        assert page_cache.bodies().hits >= 2
