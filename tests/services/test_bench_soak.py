"""bench/soak.py keeps working: its checks find what they claim to find, and it runs.

The checks are tried on a database with a small club history (on SQLite or on the
PostgreSQL of ``TEST_DATABASE_URL``): clean, they count nothing; each kind of damage the
soak looks for (a lost save, a wrong total, a wrong result row or standing line, a wrong
rating, a gap, a deal nobody sent) is made by hand and must be counted. One end-to-end run
starts the real server for a few seconds on a temporary SQLite file; the soak's numbers
on PostgreSQL are measured by ``.ci/run`` and reported in bench/README.md.
"""

from __future__ import annotations

import base64
import json
import os
import time

import pytest
from sqlalchemy import delete, select, update
from support import bench_module, make_app

from scorekeeper.app import create_app
from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import (
    AccountSession,
    Deal,
    MatchSide,
    Player,
    RivalTally,
    SideResult,
    StandingLine,
)
from scorekeeper.models import Match as MatchRow
from scorekeeper.services import data_export, data_import, matches


@pytest.fixture
def history(app):
    """A club with three finished matches and tonight's two tables, and the saves that
    made its deals, as acknowledged writes of the soak's ledger."""
    build_club = bench_module("history").build_club
    client = bench_module("soak_client")
    with app.app_context():
        build_club("Checked club", 3, seed=3)
        writes = [
            client.Write(
                "record",
                deal.match.public_id,
                deal.number,
                [side.entry for side in deal.sides],
                key=deal.submission_key,
                outcome="acked",
            )
            for deal in db.session.scalars(select(Deal))
        ]
        db.session.remove()
    return writes


def check(app, writes, baseline=frozenset()):
    with app.app_context():
        findings = bench_module("soak_check").check(writes, set(baseline))
        db.session.remove()
    return findings


def damage(app, statement) -> None:
    with app.app_context():
        db.session.execute(statement)
        db.session.commit()


def a_finished_match(app) -> MatchRow:
    with app.app_context():
        row = db.session.scalar(select(MatchRow).where(MatchRow.finished).limit(1))
        db.session.expunge(row)
    return row


def test_a_database_that_holds_every_acknowledged_save_passes_every_check(app, history):
    findings = check(app, history)
    assert sum(findings.counts.values()) == 0, findings.examples
    assert findings.integrity == "ok"
    assert findings.matches == 5 and findings.deals == len(history) == 4 * 4 + 3


def test_a_deal_nobody_sent_is_counted_unless_it_was_there_before(app, history):
    assert check(app, history[1:]).counts["phantom"] == 1
    assert check(app, history[1:], {history[0].key}).counts["phantom"] == 0


def test_an_acknowledged_save_missing_or_with_other_numbers_is_lost(app, history):
    gone = history[-1]  # the last deal of the last match: removing it leaves no gap
    with app.app_context():
        deal = db.session.scalar(select(Deal).where(Deal.submission_key == gone.key))
        db.session.delete(deal)
        db.session.commit()
    assert check(app, history).counts["lost"] == 1
    assert check(app, history[:-1]).counts["lost"] == 0
    changed = history[0]
    changed.entries = [dict(changed.entries[0], melded_points=5), changed.entries[1]]
    assert check(app, history[:-1]).counts["lost"] == 1


def test_an_acknowledged_correction_the_deal_never_reached_is_lost(app, history):
    first = history[0]
    client = bench_module("soak_client")
    correction = client.Write("correct", first.match, first.deal, first.entries, base=1)
    correction.outcome = "acked"  # the server said it saved version 2; the deal is at 1
    assert check(app, [*history, correction]).counts["lost"] == 1
    correction.outcome = "stale"
    assert check(app, [*history, correction]).counts["lost"] == 0


def test_a_stored_total_that_is_not_the_sum_of_the_deals_is_a_wrong_total(app, history):
    row = a_finished_match(app)
    damage(app, update(MatchSide).where(MatchSide.match_id == row.id).values(total=1))
    assert check(app, history).counts["wrong_totals"] == 1


def test_a_gap_in_the_deal_numbers_is_counted(app, history):
    row = a_finished_match(app)
    damage(app, update(Deal).where(Deal.match_id == row.id, Deal.number == 4).values(number=7))
    assert check(app, history).counts["gaps"] == 1


def test_a_result_row_a_standing_line_or_a_rating_unlike_the_deals_is_counted(app, history):
    row = a_finished_match(app)
    damage(app, update(SideResult).where(SideResult.match_id == row.id).values(points_for=1))
    assert check(app, history).counts["wrong_side_results"] == 1
    assert check(app, history).counts["wrong_side_results"] == 1  # the rebuild rolled back
    damage(app, update(SideResult).where(SideResult.match_id == row.id).values(points_for=0))
    damage(app, update(StandingLine).values(wins=99))
    damage(app, update(Player).values(rating_mu=1.0))
    findings = check(app, history)
    assert findings.counts["wrong_lines"] > 0 and findings.counts["wrong_ratings"] > 0


def test_a_player_page_row_unlike_the_deals_is_a_wrong_line(app, history):
    a_finished_match(app)
    assert check(app, history).counts["wrong_lines"] == 0
    damage(app, update(RivalTally).values(wins=99))
    assert check(app, history).counts["wrong_lines"] > 0


def test_the_session_cookie_s_flashed_message_and_the_hidden_fields_are_read():
    client = bench_module("soak_client")
    page = (
        '<form action="/m/x/deals"><input type="hidden" name="csrf_token" value="t">'
        '<input type="hidden" name="expected_deal" value="2"><input name="a" value="b"></form>'
        '<form action="/m/x/reopen"><input type="hidden" name="csrf_token" value="u"></form>'
    )
    assert client.forms_of(page) == {
        "/m/x/deals": {"csrf_token": "t", "expected_deal": "2"},
        "/m/x/reopen": {"csrf_token": "u"},
    }

    def cookie(*flashes: tuple[str, str]) -> str:
        session = {"_flashes": [{" t": list(f)} for f in flashes]}
        return base64.urlsafe_b64encode(json.dumps(session).encode()).decode() + ".aw45Zg.sig"

    closed = cookie(("info", "This match is finished: tap “Correct a deal” to reopen it."))
    assert client.flashed(closed) and not client.flashed("eyJjc3JmX3Rva2VuIjoiYSJ9.x.y")
    # "Deal 2 saved", told after every save, is no sign the match was closed meanwhile
    assert not client.flashed(cookie(("saved", "Deal 2 saved."))) and not client.flashed(cookie())
    assert not client.flashed("") and not client.flashed("not a cookie")


def test_every_cookie_a_page_sets_is_kept_as_a_browser_keeps_it(tmp_path):
    """A match page opened by a new phone sets the session (CSRF token) and the device
    label of the audit trail at once: both are kept. Read from the two headers joined by
    commas (as ``getheader`` gives them), the session was lost whenever it came second, and
    the phone's next save was refused as a forged form (400)."""
    client = bench_module("soak_client")
    app = make_app(f"sqlite:///{tmp_path / 'cookies.sqlite3'}", WTF_CSRF_ENABLED=True)
    with app.app_context():
        sides = [Side(("Ann", "Bob")), Side(("Cid", "Dee"))]
        public_id = matches.start_match(PRESETS["classic"], "classic", sides, 0).public_id
        db.session.remove()
    page = app.test_client().get(f"/m/{public_id}")
    headers = page.headers.getlist("Set-Cookie")
    found = client.set_cookies(headers)
    assert set(found) == {"session", "scorekeeper_device"} and all(found.values())
    assert client.set_cookies(list(reversed(headers))) == found
    cleared = "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"
    assert client.set_cookies([cleared]) == {"session": ""}
    with app.app_context():
        db.engine.dispose()


def test_a_refused_save_says_why():
    client = bench_module("soak_client")
    page = (
        "<title>400</title><main><section class=card><h1>Something is not right</h1>"
        "<p>This page was open too long &amp; came from elsewhere.</p></section></main>"
    )
    assert client.message_of(page) == "This page was open too long & came from elsewhere."
    assert client.message_of("<!doctype html><title>400</title><p>x</p>") == "x"
    assert client.message_of("no page at all") == ""


def test_the_soak_runs_the_real_server_and_ends_with_a_clean_json_line(tmp_path, capsys):
    soak = bench_module("soak")
    code = soak.main(
        [
            "--database-url",
            f"sqlite:///{tmp_path / 'soak.sqlite3'}",
            "--scorers",
            "2",
            "--seconds",
            "4",
            "--history",
            "2",
            "--read-seconds",
            "2",
            "--connections",
            "2",
        ]
    )
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert code == 0, out
    assert result["acknowledged"] > 0 and result["reads"] > 0 and result["kills"] == 1
    # both kinds of save were made and checked (a save taken for "closed" is not checked)
    assert result["records_acknowledged"] > 0 and result["corrections_acknowledged"] > 0
    # the two scorers logged in to score the club's matches, and one reader as its owner
    assert result["logins"] >= 3
    names = ("lost", "duplicated", "wrong_totals", "wrong_standings", "errors_5xx", "refused")
    for name in (*names, "login_failures"):
        assert result[name] == 0
    assert result["integrity"] == "ok"


def test_a_scorer_stays_logged_in_across_a_kill_and_logs_in_again_when_logged_out(tmp_path):
    """The soak's scorer accounts, on the real server: a scorer logs in once through the
    form; its session (a database row) outlives ``kill -9`` and a restart; when the server
    has ended it (deleted here, as a password reset does), a page logs in again by
    itself, and a form sent meanwhile comes back as the redirect to log in."""
    phases, client, served = (
        bench_module("soak_phases"),
        bench_module("soak_client"),
        bench_module("soak_server"),
    )
    uri = f"sqlite:///{tmp_path / 'logins.sqlite3'}"
    app = create_app({"SQLALCHEMY_DATABASE_URI": uri, "SECRET_KEY": "soak-test"})
    prepared = phases.prepare(app, 0, shared=2, scorers=1)
    env = {**os.environ, "DATABASE_URL": uri, "SCOREKEEPER_SECRET_KEY": "soak-test"}
    server = served.Server(served.free_port(), env, tmp_path / "server.log", 2)
    traffic = client.Traffic(1000)
    phone = client.Member(server.port, traffic, *prepared.scorers[0])
    visitor = client.Browser(server.port, traffic)
    new, create = f"/c/{prepared.club_id}/matches/new", f"/c/{prepared.club_id}/matches"

    def end_every_session() -> None:
        with app.app_context():
            db.session.execute(delete(AccountSession))
            db.session.commit()
            db.session.remove()

    server.start()
    try:
        assert client.logged_out(visitor.get(new))  # a club's new match needs a scorer
        with pytest.raises(client.LoginFailed, match="soak-scorer-0 -> 422"):
            client.Member(server.port, traffic, "soak-scorer-0", "not the password").log_in()
        phone.log_in()
        assert phone.get(new).status == 200
        server.watch()
        server.kill_at = time.monotonic()
        while server.kills == 0 or not server.restart_seconds:
            time.sleep(0.05)
        assert phone.get(new).status == 200 and (phone.logins, phone.relogins) == (1, 0)
        end_every_session()
        page = phone.get(new)
        assert page.status == 200 and (phone.logins, phone.relogins) == (2, 1)
        token = client.forms_of(page.text)[create]["csrf_token"]
        end_every_session()
        answer = phone.post(create, {"csrf_token": token, "rules": "classic"})
        assert client.logged_out(answer) and (phone.logins, phone.relogins) == (3, 2)
        assert phone.get(new).status == 200
    finally:
        phone.close()
        visitor.close()
        server.stop()
        with app.app_context():
            db.engine.dispose()
    assert server.crashes == [] and traffic.errors_5xx == 0


def test_a_phone_sent_to_the_log_in_page_is_seen_as_logged_out():
    client = bench_module("soak_client")
    sent = client.Answer(302, {"location": "/login?next=/m/x/deals/1/edit"}, "")
    assert client.logged_out(sent)
    assert client.logged_out(client.Answer(303, {"location": "http://127.0.0.1:1/login"}, ""))
    assert not client.logged_out(client.Answer(303, {"location": "/m/x"}, ""))
    assert not client.logged_out(client.Answer(200, {}, "<form action=/login>"))


def test_the_soak_server_lets_every_phone_log_in_twice_and_never_lowers_the_limit():
    soak = bench_module("soak")
    assert soak.login_limit(1, 1) == "10 per minute;60 per hour"  # the app's own default
    assert soak.login_limit(8, 16) == "48 per minute;288 per hour"


@pytest.mark.parametrize(
    "arguments", [["--scorers", "0"], ["--seconds", "0"], ["--read-seconds", "-1"]]
)
def test_the_soak_refuses_sizes_that_make_no_sense(arguments, capsys):
    soak = bench_module("soak")
    with pytest.raises(SystemExit) as stopped:
        soak.main(arguments)
    assert stopped.value.code == 2
    assert "must be" in capsys.readouterr().err


def test_a_long_history_is_the_short_one_copied_into_the_past_and_rebuilt(app, history):
    """``history.replicated``: 3 past matches grown to 8 by copies a span of weeks earlier,
    imported into an empty database; every derived row equals a rebuild from the deals."""
    replicated = bench_module("history").replicated
    with app.app_context():
        doc = data_export.document()
        with pytest.raises(ValueError, match="already holds 3"):
            replicated(doc, 2)
        db.drop_all()
        db.create_all()
        data_import.load(data_import.parse(replicated(doc, 8), "test"))
        rows = db.session.scalars(select(MatchRow).order_by(MatchRow.id)).all()
        assert len(rows) == 8 + 2  # tonight's two tables are not copied
        assert sum(1 for row in rows if row.finished) == 8 + 1
        assert len({row.public_id for row in rows}) == len(rows)
        originals, copies = rows[:5], rows[5:]
        first = min(row.played_on for row in originals)
        assert all(row.played_on < first for row in copies)
        by_key = {row.deals[0].submission_key: row for row in originals}
        for copy in copies:
            original = by_key[copy.deals[0].submission_key.rsplit("-c", 1)[0]]
            assert [d.sides[0].entry for d in copy.deals] == [
                d.sides[0].entry for d in original.deals
            ]
            assert [s.total for s in copy.sides] == [s.total for s in original.sides]
        keys = set(db.session.scalars(select(Deal.submission_key)))
        db.session.remove()
    findings = check(app, [], baseline=keys)
    assert sum(findings.counts.values()) == 0, findings.examples
    assert findings.integrity == "ok" and findings.matches == 10
