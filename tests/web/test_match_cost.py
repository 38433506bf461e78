"""What the match page and a deal's save cost (issue 17), by what they do, never by time:
the SQL statements a save runs, the version its answer carries, the forms a page builds
(``bench/cpu.py`` measures the time)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import HX, deal_form_data, enter_deal, hidden_fields, show, start_match
from sqlalchemy import event
from support import give_role, log_in

from scorekeeper.extensions import db
from scorekeeper.services import clubs
from scorekeeper.web.matches import forms

DEAL = ({"melded_points": 300}, {"melded_points": 200})
#: Tables the match page reads its match from (the row, sides, players, deals, entries).
MATCH_TABLES = ("matches", "match_sides", "match_players", "deals", "deal_sides")


COMMITTED = "<commit>"


@contextmanager
def statements(app: Flask) -> Iterator[list[str]]:
    """The SQL statements run meanwhile, with ``<commit>`` where a transaction committed
    (a ``COMMIT`` statement, ending a save's reads at its turn to write on SQLite, ends no
    transaction of the session)."""
    seen: list[str] = []
    with app.app_context():
        engine = db.engine

    def executed(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(" ".join(statement.split()))

    def committed(_conn: Any) -> None:
        seen.append(COMMITTED)

    event.listen(engine, "before_cursor_execute", executed)
    event.listen(engine, "commit", committed)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", executed)
        event.remove(engine, "commit", committed)


def live_etag(html: str) -> str:
    found = re.search(r'<div id="match"[^>]* data-live-etag="([0-9a-f]+)"', html)
    assert found, "the page carries no live version"
    return f'W/"{found.group(1)}"'


def save(client: FlaskClient, public_id: str, *sides: dict[str, Any]) -> str:
    """Send the next deal as the page's script does (htmx) and return the fragment."""
    page = show(client, public_id)
    data = {**hidden_fields(page), **deal_form_data(*sides)}
    response = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'data-outcome="saved"' in html
    return html


@pytest.mark.parametrize("deals", [2, 4], ids=["playing", "finishing"])
def test_a_saved_deal_is_answered_without_reading_the_match_again(
    app: Flask, client: FlaskClient, deals: int
) -> None:
    public_id = start_match(client)
    for _ in range(deals - 1):
        enter_deal(client, public_id, *DEAL)
    page = show(client, public_id)
    data = {**hidden_fields(page), **deal_form_data(*DEAL)}
    with statements(app) as seen:
        response = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    saved = f"Deal {deals} saved."
    assert response.status_code == 200 and saved in response.get_data(as_text=True)
    assert seen.count(COMMITTED) == 1, seen
    after = seen[seen.index(COMMITTED) + 1 :]
    # the match was written in this request: what the answer shows of it is what was
    # written, and its version and history were read before the commit, in the save's
    # transaction: nothing is read after it (no second connection or transaction)
    assert after == [], after
    before = seen[: seen.index(COMMITTED)]
    assert sum(" FROM audit_events " in f"{s} " for s in before) >= 1, before


def history_section(html: str) -> str:
    found = re.search(r'<section class="history".*?</section>', html, re.S)
    assert found, "no history shown"
    return found.group(0)


@pytest.mark.parametrize("deals", [1, 4], ids=["playing", "finishing"])
def test_the_history_a_save_answers_with_is_the_one_the_page_shows(
    app: Flask, client: FlaskClient, deals: int
) -> None:
    """The answer's history, read in the save's transaction, names the deal just saved
    and equals the match page's afterwards (with a correction's line too)."""
    public_id = start_match(client)
    for _ in range(deals - 1):
        enter_deal(client, public_id, *DEAL)
    if deals > 1:
        edit = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
        fixed = {**hidden_fields(edit), **deal_form_data({"melded_points": 310}, DEAL[1])}
        assert client.post(f"/m/{public_id}/deals/1", data=fixed).status_code == 303
    answered = history_section(save(client, public_id, *DEAL))
    assert f"Deal {deals} entered" in answered
    assert answered == history_section(show(client, public_id))


@pytest.mark.parametrize("deals", [1, 4], ids=["playing", "finishing"])
def test_the_answer_to_a_save_carries_the_version_it_saved(
    app: Flask, client: FlaskClient, deals: int
) -> None:
    """The live fragment answers the version of the page a save answered with ``304``:
    nothing changed since; and the page shows the same version."""
    public_id = start_match(client)
    for _ in range(deals - 1):
        enter_deal(client, public_id, *DEAL)
    shown = live_etag(save(client, public_id, *DEAL))
    again = client.get(f"/m/{public_id}/live", headers={**HX, "If-None-Match": shown})
    assert again.status_code == 304
    assert live_etag(show(client, public_id)) == shown


def test_a_club_match_save_carries_the_version_after_its_standings_were_written(
    app: Flask, client: FlaskClient
) -> None:
    """A club match's commit also writes its standings (``services.standings``): the
    version the answer carries is still the one the live fragment answers."""
    with app.app_context():
        club = clubs.create_club("Tuesday").public_id
    give_role(app, club, "owner", "owner")
    log_in(client, "owner")
    data = {
        "rules": "classic",
        "layout": "2+2",
        "side_0_player_0": "Ann",
        "side_0_player_1": "Bob",
        "side_1_player_0": "Cid",
        "side_1_player_1": "Dee",
        "first_dealer": "0",
        "played_on": "2024-03-20",
    }
    started = client.post(f"/c/{club}/matches", data=data)
    assert started.status_code == 303
    public_id = started.headers["Location"].removeprefix("/m/")
    for _ in range(3):
        enter_deal(client, public_id, *DEAL)
    html = save(client, public_id, *DEAL)
    assert "won." in html  # finished: the side results and lines were written
    shown = live_etag(html)
    again = client.get(f"/m/{public_id}/live", headers={**HX, "If-None-Match": shown})
    assert again.status_code == 304


def test_a_finished_match_page_builds_no_deal_form(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    deal_form = forms.deal_form

    def counted(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return deal_form(*args, **kwargs)

    monkeypatch.setattr(forms, "deal_form", counted)
    public_id = start_match(client)
    show(client, public_id)
    assert len(built) == 1  # the page being played shows its form
    for _ in range(4):
        enter_deal(client, public_id, *DEAL)
    built.clear()
    page = show(client, public_id)
    assert "Correct a deal" in page and 'id="deal-entry"' not in page
    assert built == []


def test_a_match_is_read_in_two_queries_whatever_its_deals(app: Flask, client: FlaskClient) -> None:
    """The row with its sides and their players, then its deals with their sides: two
    queries, with or without the lock, at any number of deals (a query per level was
    five, a query each for the row, the sides and the deals three). Locked, the lock is
    the match row's alone (on PostgreSQL a lock of the whole join is refused)."""
    from scorekeeper.services.match_reads import load_match

    public_id = start_match(client)
    for deals in range(3):
        with app.app_context(), statements(app) as seen:
            loaded = load_match(public_id)
            assert loaded is not None and len(loaded.game.deals) == deals
            assert [len(side.players) for side in loaded.row.sides] == [2, 2]
            db.session.rollback()
        reads = [s for s in seen if s.startswith("SELECT")]
        assert len(reads) == 2, reads
        with app.app_context(), statements(app) as seen:
            assert load_match(public_id, for_update=True) is not None
            postgresql = db.engine.dialect.name == "postgresql"
            db.session.rollback()
        reads = [s for s in seen if s.startswith("SELECT")]
        assert len(reads) == 2, seen
        if postgresql:
            assert reads[0].endswith("FOR NO KEY UPDATE OF matches"), reads[0]
            assert "FOR" not in reads[1]  # the deals: read under the match's lock
        enter_deal(client, public_id, *DEAL)
