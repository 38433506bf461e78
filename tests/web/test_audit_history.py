"""The match page's history, "Restore deal N" and "Name this phone", with no JavaScript
and through htmx: what the table sees, and that bad input never gives a 500."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    HX,
    SIDE_A_POINTS,
    SIDE_B_POINTS,
    assert_refused_beside,
    correct_deal,
    deal_count,
    deal_scores,
    enter_deal,
    new_match_data,
    show,
    start_match,
    totals,
)
from htmltree import parse
from sqlalchemy import func, select
from support import csrf_token_of, make_app

from scorekeeper.extensions import db
from scorekeeper.models import AuditEvent
from scorekeeper.web.actor import COOKIE
from scorekeeper.web.matches.history import scores_text, time_element

SMALL_A = {"books_clean": 1, "melded_points": 100}  # 600 under classic
SMALL_B = {"melded_points": 150}  # 150


def _history(html: str) -> list[str]:
    """The history's sentences, newest first."""
    return [li.text for li in parse(html).find_all("li") if "history-" in li.attrs.get("class", "")]


def _restore_form(html: str) -> dict[str, str]:
    """The action and hidden fields of the "Restore deal N" form on the page."""
    forms = parse(html).find_all("form", cls="restore")
    assert forms, "the page offers no restore"
    fields = {n.attrs["name"]: n.attrs["value"] for n in forms[0].find_all("input")}
    return {"action": forms[0].attrs["action"], **fields}


def _two_deals_then_remove(client: FlaskClient) -> str:
    public_id = start_match(client)
    assert (
        enter_deal(client, public_id, SIDE_A_POINTS, SIDE_B_POINTS, went_out=0).status_code == 303
    )
    assert enter_deal(client, public_id, SMALL_A, SMALL_B).status_code == 303
    assert client.post(f"/m/{public_id}/deals/2/remove").status_code == 303
    return public_id


def _events(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(AuditEvent.id)))


def _device(client: FlaskClient) -> str:
    """This client's device label as the naming form states it ("phone 3f2a")."""
    hint = parse(show(client, start_match(client))).find_all("details", id="device-name")[0].text
    found = re.search(r"now “([^”]+)”", hint)
    assert found, hint
    return found.group(1)


def test_every_change_is_told_in_the_game_s_words_with_when_and_by_which_phone(
    client: FlaskClient,
) -> None:
    label = _device(client)
    assert re.fullmatch(r"phone [0-9a-f]{4}", label)
    public_id = _two_deals_then_remove(client)
    correct_deal(client, public_id, 1, SMALL_A, SMALL_B, went_out=None)
    html = show(client, public_id)
    when = r"at \d\d:\d\d UTC"
    history = _history(html)
    assert len(history) == 4
    assert re.fullmatch(
        rf"Deal 1 corrected {when} by {label}: Ana & Boris 3990 → 600, Cecile & Dusan 510 → 150"
        r"\. Changed: .+\.",
        history[0],
    )
    assert re.fullmatch(
        rf"Deal 2 removed {when} by {label}: Ana & Boris 600, Cecile & Dusan 150", history[1]
    )
    assert history[3].startswith("Deal 1 entered at")
    times = parse(html).find_all("time")
    assert times and all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t.attrs["datetime"]) for t in times
    )
    assert "History: 4 changes" in html


def test_a_correction_that_keeps_the_scores_says_which_counts_changed(
    client: FlaskClient,
) -> None:
    """The same 600 and 150, typed another way: the history line said only the scores,
    so nobody could tell what had been corrected."""
    public_id = start_match(client)
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    by_cards = {"books_clean": 1, "melded_8toK": 10}  # ten cards of 10: the same 100
    assert correct_deal(client, public_id, 1, by_cards, SMALL_B, went_out=None).status_code == 303
    line = _history(show(client, public_id))[0]
    assert line.endswith(
        ": Ana & Boris 600, Cecile & Dusan 150. Changed: Ana & Boris: Points on the table"
        " 100 → —, 8 to K (on the table) 0 → 10."
    ), line
    # who went out, and a side's books, in the sheet's words too
    out = SIDE_A_POINTS
    assert correct_deal(client, public_id, 1, out, SMALL_B, went_out=0).status_code == 303
    line = _history(show(client, public_id))[0]
    assert "Changed: Who went out? nobody → Ana & Boris; Ana & Boris: Clean (books) 1 → 2," in line
    assert "Dirty (books) 0 → 2, Wild (books) 0 → 1, Red threes laid 0 → 1," in line
    # a correction that changes nothing says nothing more than its scores
    assert correct_deal(client, public_id, 1, out, SMALL_B, went_out=0).status_code == 303
    assert "Changed" not in _history(show(client, public_id))[0]


def test_a_corrected_deal_is_marked_in_the_deal_table(client: FlaskClient) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_POINTS, SIDE_B_POINTS, went_out=0)
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    assert "changed-mark" not in show(client, public_id)
    correct_deal(client, public_id, 1, SMALL_A, SMALL_B, went_out=None)
    rows = parse(show(client, public_id)).find_all("table", cls="deal-table")[0].find_all("tr")
    marked = [bool(r.find_all("span", cls="changed-mark")) for r in rows[1:]]
    assert marked == [True, False]


def test_reopening_a_finished_match_is_in_the_history(client: FlaskClient) -> None:
    public_id = start_match(client)
    for _ in range(4):
        enter_deal(client, public_id, SMALL_A, SMALL_B)
    client.post(f"/m/{public_id}/reopen")
    client.post(f"/m/{public_id}/reopen")  # a second tap changes nothing
    history = _history(show(client, public_id))
    assert history[0].startswith("Match reopened for corrections at")
    assert sum(line.startswith("Match reopened") for line in history) == 1


def test_a_removed_deal_is_restored_with_a_plain_form(app: Flask, client: FlaskClient) -> None:
    public_id = _two_deals_then_remove(client)
    html = show(client, public_id)
    assert "Restore deal 2" in html
    form = _restore_form(html)
    response = client.post(form.pop("action"), data=form)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/m/{public_id}"
    html = show(client, public_id)
    assert "Deal 2 is back, as it was before it was removed." in html
    assert deal_scores(html) == [[3990, 510], [600, 150]]
    assert totals(html) == [4590, 660]
    assert _history(html)[0].startswith("Deal 2 restored at")
    assert "Restore deal 2" not in html


def test_a_removed_deal_is_restored_through_htmx_with_the_fresh_match(
    client: FlaskClient,
) -> None:
    public_id = _two_deals_then_remove(client)
    form = _restore_form(show(client, public_id))
    response = client.post(form.pop("action"), data=form, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="match"')
    assert "Deal 2 is back" in html
    assert totals(html) == [4590, 660]
    assert "HX-Request" in response.headers["Vary"]


def test_a_double_tap_on_restore_restores_the_deal_once(app: Flask, client: FlaskClient) -> None:
    public_id = _two_deals_then_remove(client)
    form = _restore_form(show(client, public_id))
    action = form.pop("action")
    assert client.post(action, data=form).status_code == 303
    assert client.post(action, data=form, headers=HX).status_code == 200
    assert deal_count(app, public_id) == 2
    assert _history(show(client, public_id))[0].startswith("Deal 2 restored")
    assert (
        sum(line.startswith("Deal 2 restored") for line in _history(show(client, public_id))) == 1
    )


@pytest.mark.parametrize("headers, status", [({}, 422), (HX, 200)])
def test_restore_is_refused_with_a_clear_message_once_the_deal_was_entered_again(
    app: Flask, client: FlaskClient, headers: dict[str, str], status: int
) -> None:
    public_id = _two_deals_then_remove(client)
    form = _restore_form(show(client, public_id))  # a page left open on another phone
    enter_deal(client, public_id, SMALL_B, SMALL_A)
    assert "Restore deal" not in show(client, public_id)
    events = _events(app)
    response = client.post(form.pop("action"), data=form, headers=headers)
    html = response.get_data(as_text=True)
    assert response.status_code == status
    assert "Deal 2 was entered again meanwhile; restore is only possible for the next deal" in html
    assert deal_scores(html)[1] == [150, 600]
    assert _events(app) == events


@pytest.mark.parametrize(
    "path, event",
    [
        ("/deals/2/restore", "999999"),  # no such event
        ("/deals/2/restore", "1"),  # an event that is no removal
        ("/deals/2/restore", "not a number"),
        ("/deals/2/restore", ""),
        ("/deals/2/restore", "9" * 40),  # more than any database integer
        ("/deals/1/restore", "{removal}"),  # the removal, but of another deal
        ("/deals/99999999999999999999/restore", "{removal}"),
    ],
)
def test_a_made_up_restore_answers_not_found_and_changes_nothing(
    app: Flask, client: FlaskClient, path: str, event: str
) -> None:
    public_id = _two_deals_then_remove(client)
    removal = _restore_form(show(client, public_id))["event"]
    response = client.post(f"/m/{public_id}{path}", data={"event": event.format(removal=removal)})
    assert response.status_code == 404
    assert deal_count(app, public_id) == 1


def test_a_removal_in_another_match_cannot_be_restored_here(
    app: Flask, client: FlaskClient
) -> None:
    other = _two_deals_then_remove(client)
    removal = _restore_form(show(client, other))["event"]
    public_id = start_match(client)
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    response = client.post(f"/m/{public_id}/deals/2/restore", data={"event": removal})
    assert response.status_code == 404
    assert client.post("/m/nope/deals/2/restore", data={"event": removal}).status_code == 404
    assert client.get(f"/m/{other}/deals/2/restore").status_code == 405
    assert deal_count(app, public_id) == 1 and deal_count(app, other) == 1


def test_a_named_phone_signs_its_changes_with_its_name(client: FlaskClient) -> None:
    public_id = start_match(client)
    response = client.post(f"/m/{public_id}/device", data={"name": "  Ann’s phone  "})
    assert response.status_code == 303
    html = show(client, public_id)
    assert "This phone is now called “Ann’s phone”." in html
    assert "This phone: Ann’s phone" in html
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    assert " by Ann’s phone: " in _history(show(client, public_id))[0]


def test_two_phones_on_one_match_are_told_apart(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    other = app.test_client()
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    enter_deal(other, public_id, SMALL_A, SMALL_B)
    second, first = (
        re.search(r"by (phone \w+):", line).group(1) for line in _history(show(client, public_id))
    )
    assert first != second


def test_naming_a_phone_through_htmx_answers_with_the_naming_fragment(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    response = client.post(f"/m/{public_id}/device", data={"name": "Table 2"}, headers=HX)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.lstrip().startswith('<details class="device-name" id="device-name" open>')
    assert "This phone is now called “Table 2”." in html
    assert COOKIE in response.headers["Set-Cookie"]


@pytest.mark.parametrize(
    "name, message",
    [
        ("", "Type a name, such as “Ann’s phone”."),
        ("   ", "Type a name, such as “Ann’s phone”."),
        ("x" * 31, "At most 30 characters."),
        ("Ann\x00", "Use letters, digits and spaces only."),
    ],
)
@pytest.mark.parametrize("headers, status", [({}, 422), (HX, 200)])
def test_a_bad_phone_name_is_refused_beside_the_field(
    client: FlaskClient, name: str, message: str, headers: dict[str, str], status: int
) -> None:
    public_id = start_match(client)
    label = _device(client)
    response = client.post(f"/m/{public_id}/device", data={"name": name}, headers=headers)
    assert_refused_beside(response, "name", message, status)
    assert _device(client) == label


def test_a_name_with_markup_is_shown_as_text(client: FlaskClient) -> None:
    public_id = start_match(client)
    client.post(f"/m/{public_id}/device", data={"name": "<b>Ann</b>"})
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    html = show(client, public_id)
    assert "<b>Ann</b>" not in html
    assert "by &lt;b&gt;Ann&lt;/b&gt;:" in html


@pytest.mark.parametrize("cookie", ["forged", "e30.abc", "x" * 4000])
def test_a_tampered_device_cookie_is_replaced_not_trusted(client: FlaskClient, cookie: str) -> None:
    public_id = start_match(client)
    client.set_cookie(COOKIE, cookie)
    response = client.get(f"/m/{public_id}")
    assert response.status_code == 200
    assert COOKIE in response.headers["Set-Cookie"]
    enter_deal(client, public_id, SMALL_A, SMALL_B)
    assert re.search(r"by phone [0-9a-f]{4}:", _history(show(client, public_id))[0])


def test_the_device_cookie_lasts_for_years_and_scripts_cannot_read_it(
    client: FlaskClient,
) -> None:
    public_id = start_match(client)
    other = client.application.test_client()  # a second phone opens the match's link
    headers = other.get(f"/m/{public_id}").headers.getlist("Set-Cookie")
    header = next(c for c in headers if c.startswith(f"{COOKIE}="))
    assert "HttpOnly" in header and "SameSite=Lax" in header
    max_age = int(re.search(r"Max-Age=(\d+)", header).group(1))
    assert max_age >= 365 * 24 * 60 * 60
    again = other.get(f"/m/{public_id}").headers.getlist("Set-Cookie")
    assert not any(c.startswith(f"{COOKIE}=") for c in again)  # sent once, then kept


def test_restore_and_naming_need_the_page_s_csrf_token(tmp_path: Path, dburi: str | None) -> None:
    app = make_app(dburi or f"sqlite:///{tmp_path / 'csrf.sqlite3'}", WTF_CSRF_ENABLED=True)
    try:
        client = app.test_client()
        page = client.get("/matches/new").get_data(as_text=True)
        data = {**new_match_data(), "csrf_token": csrf_token_of(page)}
        public_id = client.post("/matches", data=data).headers["Location"].removeprefix("/m/")
        enter_deal(client, public_id, SMALL_A, SMALL_B)
        html = show(client, public_id)
        remove = client.post(
            f"/m/{public_id}/deals/1/remove", data={"csrf_token": csrf_token_of(html)}
        )
        assert remove.status_code == 303
        form = _restore_form(show(client, public_id))
        action = form.pop("action")
        assert client.post(action, data={"event": form["event"]}).status_code == 400
        assert client.post(f"/m/{public_id}/device", data={"name": "Ann"}).status_code == 400
        assert deal_count(app, public_id) == 0
        assert client.post(action, data=form).status_code == 303
        token = {"csrf_token": form["csrf_token"]}
        assert (
            client.post(f"/m/{public_id}/device", data={"name": "Ann", **token}).status_code == 303
        )
        assert deal_count(app, public_id) == 1
        assert "This phone: Ann" in show(client, public_id)
    finally:
        with app.app_context():
            db.session.remove()
            db.drop_all()
            db.engine.dispose()


def test_times_are_utc_with_the_day_when_not_today_and_the_year_when_not_this_year(
    app: Flask,
) -> None:
    app.config["BABEL_DEFAULT_TIMEZONE"] = "Europe/Paris"  # the text says UTC: it must be
    now = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)
    with app.test_request_context():
        assert time_element(datetime(2026, 12, 1, 21, 14, 5, tzinfo=UTC), now) == (
            '<time datetime="2026-12-01T21:14:05Z" data-local>21:14 UTC</time>'
        )
        paris = timezone(timedelta(hours=1))
        assert time_element(datetime(2026, 11, 30, 22, 14, tzinfo=paris), now) == (
            '<time datetime="2026-11-30T21:14:00Z" data-local>30 Nov, 21:14 UTC</time>'
        )
        assert ">30 Nov 2025, 21:14 UTC<" in time_element(
            datetime(2025, 11, 30, 21, 14, tzinfo=UTC), now
        )


def test_scores_name_each_side_with_a_real_minus_and_one_number_when_unchanged() -> None:
    labels = ["Ann & Bob", "Cy & Di"]
    assert scores_text(labels, (690, -75), (720, -75)) == "Ann & Bob 690 → 720, Cy & Di −75"
    assert scores_text(labels, None, (0, 510)) == "Ann & Bob 0, Cy & Di 510"
    assert scores_text(labels, (0, 510), None) == "Ann & Bob 0, Cy & Di 510"
    assert scores_text(labels, None, None) == ""
