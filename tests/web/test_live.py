"""One match, every phone at the table (issue 14), through the test client: the share
panel, the live fragment and its 304s, the onlooker link, the conflict view, and who
entered each deal."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from helpers import (
    HX,
    SIDE_A_COUNTS,
    SIDE_B_POINTS,
    deal_count,
    deal_form_data,
    enter_deal,
    hidden_fields,
    parse,
    show,
    start_match,
    totals,
)
from sqlalchemy import select
from support import make_app

from scorekeeper.extensions import db
from scorekeeper.models import Match as MatchRow

FIRST = ({"melded_points": 100}, {"melded_points": 50})
SECOND = ({"melded_points": 300}, {"melded_points": 200})


def onlooker_token(app: Flask, public_id: str) -> str:
    with app.app_context():
        row = db.session.scalar(select(MatchRow).where(MatchRow.public_id == public_id))
        assert row is not None
        return row.onlooker_token


def live(client: FlaskClient, url: str, etag: str | None = None):  # type: ignore[no-untyped-def]
    headers = {**HX, **({"If-None-Match": etag} if etag else {})}
    return client.get(url, headers=headers)


def test_the_live_fragment_is_304_while_nothing_changed_and_the_new_deal_after(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    page = parse(show(client, public_id))
    match = page.find_all("div", id="match")[0]
    assert match.attrs["data-live"] == f"/m/{public_id}/live"
    shown = f'W/"{match.attrs["data-live-etag"]}"'
    # the version the page was rendered at: the first question is already answered 304
    first = live(client, f"/m/{public_id}/live", shown)
    assert first.status_code == 304 and first.data == b""
    other_phone = app.test_client()
    enter_deal(other_phone, public_id, *FIRST)
    changed = live(client, f"/m/{public_id}/live", shown)
    assert changed.status_code == 200
    assert changed.headers["ETag"] != shown
    assert "no-cache" in changed.headers["Cache-Control"]
    html = changed.get_data(as_text=True)
    assert totals(html) == [100, 50]
    assert "<form" not in html  # never the deal form
    fragment = parse(html)
    assert fragment.find_all("section", id="scoreboard") and fragment.find_all(
        "section", id="deals"
    )
    # said aloud on this phone (its #announce takes the words): what the other phone did
    said = fragment.find_all("div", id="announce")[0].text
    assert said.startswith("Changed on another phone. Deal 1 saved.") and "Next: deal 2." in said
    again = live(client, f"/m/{public_id}/live", changed.headers["ETag"])
    assert again.status_code == 304


def test_a_correction_a_removal_and_a_reopening_each_change_the_version(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, *FIRST)
    seen = {live(client, f"/m/{public_id}/live").headers["ETag"]}
    edit = client.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True)
    data = {**hidden_fields(edit), **deal_form_data(*SECOND)}
    assert client.post(f"/m/{public_id}/deals/1", data=data).status_code == 303
    seen.add(live(client, f"/m/{public_id}/live").headers["ETag"])
    assert client.post(f"/m/{public_id}/deals/1/remove").status_code == 303
    seen.add(live(client, f"/m/{public_id}/live").headers["ETag"])
    assert len(seen) == 3


def test_two_server_processes_on_one_database_answer_alike(tmp_path: Path) -> None:
    """No state in a process: a deal saved through one app is seen through the other."""
    uri = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    one = make_app(uri)
    two = make_app(uri.replace("shared", "shared"))  # the same file, tables kept below
    phone_one, phone_two = one.test_client(), two.test_client()
    public_id = start_match(phone_one)
    etag = live(phone_two, f"/m/{public_id}/live").headers["ETag"]
    assert live(phone_one, f"/m/{public_id}/live", etag).status_code == 304
    enter_deal(phone_one, public_id, *FIRST)
    changed = live(phone_two, f"/m/{public_id}/live", etag)
    assert changed.status_code == 200 and totals(changed.get_data(as_text=True)) == [100, 50]
    for app in (one, two):
        with app.app_context():
            db.engine.dispose()


def test_the_share_panel_is_fetched_on_demand_with_both_links_and_their_qr_codes(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    page = show(client, public_id)
    assert 'class="qr"' not in page  # the match page stays light: no QR code in it
    button = parse(page).find_all("a", id="share")[0]
    assert button.attrs["hx-get"] == f"/m/{public_id}/share" == button.attrs["href"]
    panel = client.get(f"/m/{public_id}/share", headers=HX)
    assert panel.status_code == 200 and panel.headers["Cache-Control"] == "private, no-store"
    html = panel.get_data(as_text=True)
    token = onlooker_token(app, public_id)
    assert html.count('class="qr"') == 2 and html.count("<svg") == 2
    assert f'value="http://localhost/m/{public_id}"' in html
    assert f'value="http://localhost/watch/{token}"' in html
    assert public_id not in token and len(token) >= 32
    assert "<!doctype" not in html.lower()  # a fragment; without htmx, a whole page:
    assert "<!doctype" in client.get(f"/m/{public_id}/share").get_data(as_text=True).lower()


def test_the_share_panel_shows_no_link_for_a_host_nobody_vouched_for(client: FlaskClient) -> None:
    public_id = start_match(client)
    html = client.get(f"/m/{public_id}/share", headers={**HX, "Host": "evil.example"}).get_data(
        as_text=True
    )
    assert "evil.example" not in html and "<svg" not in html
    assert "SCOREKEEPER_PUBLIC_BASE_URL" in html


def test_the_onlooker_page_is_read_only_large_and_never_leads_to_the_scoring_link(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, *FIRST)
    token = onlooker_token(app, public_id)
    watcher = app.test_client()
    response = watcher.get(f"/watch/{token}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert totals(html) == [100, 50]
    assert "<form" not in html and "csrf" not in html.lower()
    assert public_id not in html  # nothing to turn into the scoring link
    assert "Set-Cookie" not in response.headers  # no device made for a watcher
    assert 'data-live="/watch/' in html and "onlooker-board" in html
    assert watcher.get(f"/m/{token}").status_code == 404


def test_every_form_post_to_the_onlooker_link_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    token = onlooker_token(app, public_id)
    page = show(client, public_id)
    actions = {n.attrs["action"] for n in parse(page).find_all("form") if n.attrs.get("action")}
    assert f"/m/{public_id}/deals" in actions
    watcher = app.test_client()
    urls = [a.replace(public_id, token) for a in actions]
    urls += [f"/watch/{token}", f"/watch/{token}/live", f"/watch/{token}/deals", "/watch/x"]
    urls += [a.replace(f"/m/{public_id}", f"/watch/{token}") for a in actions]
    for url in urls:
        answer = watcher.post(url, data=deal_form_data(*FIRST, expected_deal="1"))
        assert answer.status_code in (403, 404, 405), (url, answer.status_code)
    assert deal_count(app, public_id) == 0


def test_the_onlooker_page_follows_the_match_with_304s_in_between(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    token = onlooker_token(app, public_id)
    watcher = app.test_client()
    html = watcher.get(f"/watch/{token}").get_data(as_text=True)
    etag = 'W/"{}"'.format(re.search(r'data-live-etag="([0-9a-f]+)"', html).group(1))  # type: ignore[union-attr]
    assert live(watcher, f"/watch/{token}/live", etag).status_code == 304
    enter_deal(client, public_id, *FIRST)
    changed = live(watcher, f"/watch/{token}/live", etag)
    assert changed.status_code == 200
    body = changed.get_data(as_text=True)
    assert totals(body) == [100, 50] and public_id not in body and "Edit" not in body


def test_the_deal_list_names_the_phone_that_entered_each_deal(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    assert client.post(f"/m/{public_id}/device", data={"name": "Ann’s phone"}).status_code == 303
    enter_deal(client, public_id, *FIRST)
    other = app.test_client()
    enter_deal(other, public_id, *SECOND)
    rows = parse(show(client, public_id)).find_all("table", cls="deal-table")[0].find_all("tr")
    assert "entered by Ann’s phone" in rows[1].find_all("th")[0].text
    assert re.search(r"entered by phone [0-9a-f]{4}", rows[2].find_all("th")[0].text)
    watching = app.test_client().get(f"/watch/{onlooker_token(app, public_id)}")
    assert "Ann’s phone" in watching.get_data(as_text=True)


def test_an_unnamed_phone_is_named_in_the_readers_language(app: Flask, client: FlaskClient) -> None:
    # The trail stored "phone 3818" in the language of the phone that saved, so a Russian
    # table read "phone 3818" among Russian words (and an English one "телефон 3818").
    from scorekeeper.models import AuditEvent

    public_id = start_match(client)
    russian = app.test_client()
    russian.set_cookie("lang", "ru")
    enter_deal(russian, public_id, *FIRST)
    enter_deal(client, public_id, *SECOND)
    with app.app_context():
        stored = db.session.scalars(select(AuditEvent.actor).order_by(AuditEvent.id)).all()
        assert all(re.fullmatch(r"phone [0-9a-f]{4}", actor) for actor in stored), stored
        # one stored in Russian before: read in each reader's language too
        first = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id)).first()
        first.actor = "телефон ab12"  # type: ignore[union-attr]
        db.session.commit()

    def entered_by(reader: FlaskClient) -> list[str]:
        rows = parse(show(reader, public_id)).find_all("table", cls="deal-table")[0]
        return [" ".join(r.find_all("th")[0].text.split()) for r in rows.find_all("tr")[1:]]

    english, in_russian = entered_by(client), entered_by(russian)
    assert "entered by phone ab12" in english[0]
    assert re.search(r"entered by phone [0-9a-f]{4}", english[1])
    assert "телефон ab12" in in_russian[0] and "phone" not in " ".join(in_russian)
    assert re.search(r"телефон [0-9a-f]{4}", in_russian[1])


def _two_phones(app: Flask, public_id: str) -> tuple[FlaskClient, FlaskClient, dict, dict]:
    one, two = app.test_client(), app.test_client()
    guards_one = hidden_fields(show(one, public_id))
    guards_two = hidden_fields(show(two, public_id))
    return one, two, guards_one, guards_two


def test_a_deal_that_lost_the_race_shows_both_side_by_side_and_keeps_the_typed_numbers(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    one, two, g1, g2 = _two_phones(app, public_id)
    assert one.post(f"/m/{public_id}/deals", data={**g1, **deal_form_data(*FIRST)}).status_code
    lost = two.post(f"/m/{public_id}/deals", data={**g2, **deal_form_data(*SECOND)})
    assert lost.status_code == 422
    page = parse(lost.get_data(as_text=True))
    conflict = page.find_all("section", id="conflict")[0]
    assert "Deal 1 was saved on another phone first" in conflict.text
    theirs = conflict.find_all("div", cls="theirs")[0].find_all("tfoot")[0].text
    mine = conflict.find_all("div", cls="mine")[0].find_all("tfoot")[0].text
    assert theirs.split()[-2:] == ["+100", "+50"] and mine.split()[-2:] == ["+300", "+200"]
    captions = [c.text for c in conflict.find_all("caption")]  # each table says whose it is
    assert captions == ["Deal 1 as saved on the other phone", "Deal 1 as typed on this phone"]
    keep = [a for a in conflict.find_all("a") if a.text == "Keep theirs"]
    assert keep and keep[0].attrs["href"] == f"/m/{public_id}"
    put = conflict.find_all("form", cls="put-mine")[0]
    assert put.attrs["action"] == f"/m/{public_id}/deals/1"
    carried = {n.attrs["name"]: n.attrs.get("value") for n in put.find_all("input")}
    assert carried["sides-0-melded_points"] == "300" and carried["version"] == "1"
    # the form below keeps them too, aimed at deal 2 (if they were for deal 2)
    assert hidden_fields(lost.get_data(as_text=True))["expected_deal"] == "2"
    assert 'value="300"' in str(lost.get_data(as_text=True))
    assert deal_count(app, public_id) == 1
    # said once, for the deal this phone was saving (it said "Deal 2 is not saved", and the
    # whole section, both tables, was an alert); the heading takes the focus
    assert "role" not in conflict.attrs
    assert conflict.find_all("h2")[0].attrs["tabindex"] == "-1"
    [announce] = page.find_all("div", id="announce")
    assert announce.text.strip() == "Deal 1 was saved on another phone first"
    # the form's own note of it ("Deal 1 was entered on another phone meanwhile…") is
    # shown, not announced a second time as an alert
    assert page.find_all("ul", cls="general")
    assert not [node for node in page.iter() if node.attrs.get("role") == "alert"]


def test_put_mine_on_top_saves_a_correction_and_keep_theirs_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    public_id = start_match(client)
    one, two, g1, g2 = _two_phones(app, public_id)
    one.post(f"/m/{public_id}/deals", data={**g1, **deal_form_data(*FIRST)})
    lost = two.post(f"/m/{public_id}/deals", data={**g2, **deal_form_data(*SECOND)}, headers=HX)
    assert lost.status_code == 200  # htmx swaps the fragment with the conflict view
    put = parse(lost.get_data(as_text=True)).find_all("form", cls="put-mine")[0]
    carried = {n.attrs["name"]: n.attrs.get("value", "") for n in put.find_all("input")}
    # keep theirs is a plain link back: nothing is posted, deal 1 stays as phone one saved it
    assert totals(show(two, public_id)) == [100, 50]
    saved = two.post(put.attrs["action"], data=carried)
    assert saved.status_code == 303
    assert totals(show(one, public_id)) == [300, 200] and deal_count(app, public_id) == 1
    history = show(one, public_id)
    assert re.search(r"Deal 1 corrected at .* by phone [0-9a-f]{4}", history)
    # sent again (the version moved on): a new conflict, never a silent overwrite
    again = two.post(put.attrs["action"], data={**carried, "sides-0-melded_points": "900"})
    assert again.status_code == 422 and 'id="conflict"' in again.get_data(as_text=True)
    assert totals(show(one, public_id)) == [300, 200]


def test_a_correction_that_lost_the_race_offers_both(app: Flask, client: FlaskClient) -> None:
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    one, two = app.test_client(), app.test_client()
    edit_one = hidden_fields(one.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True))
    edit_two = hidden_fields(two.get(f"/m/{public_id}/deals/1/edit").get_data(as_text=True))
    one.post(f"/m/{public_id}/deals/1", data={**edit_one, **deal_form_data(*FIRST)})
    lost = two.post(f"/m/{public_id}/deals/1", data={**edit_two, **deal_form_data(*SECOND)})
    html = lost.get_data(as_text=True)
    assert lost.status_code == 422
    assert "Deal 1 was changed on another phone meanwhile" in html
    assert hidden_fields(html)["version"] == "2"  # saving the form puts mine on top
    put = parse(html).find_all("form", cls="put-mine")[0]
    carried = {n.attrs["name"]: n.attrs.get("value", "") for n in put.find_all("input")}
    assert two.post(put.attrs["action"], data=carried).status_code == 303
    assert totals(show(one, public_id)) == [300, 200]


def test_the_live_part_rides_in_app_js_on_every_live_page(client: FlaskClient) -> None:
    """No extra request for it: the match page and the onlooker page load app.js, which
    asks the data-live URL again (the weight is test_wire_weight.py's)."""
    public_id = start_match(client)
    script = client.get("/static/js/app.js").get_data(as_text=True)
    assert "[data-live]" in script and "If-None-Match" in script
    page = show(client, public_id)
    assert "/static/js/app.js" in page and "/static/js/live.js" not in page
