"""The club's matches CSV (the whole history, a row per side per deal), streamed.

The file is compared byte for byte with what the app sent before it was streamed: the
previous implementation is kept here, verbatim, as the reference (``reference_csv``).
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import Any

import pytest
from flask_babel import gettext as _
from sqlalchemy import event, select, update
from support import give_role, log_in

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, Deal, DealSide, Match, MatchPlayer, MatchSide
from scorekeeper.services import clubs, exports, matches
from scorekeeper.services.demo import four_deals, play

LANGUAGES = ("en", "cs", "bs", "ru")


# -- the reference: the matches CSV as it was built before it was streamed ---------------------


def reference_csv(club_id: int, season_id: int | None) -> bytes:
    """The whole file as the app sent it before (a request context gives the language)."""
    return ("\ufeff" + exports.to_csv(_reference_rows(club_id, season_id))).encode()


def _reference_rows(club_id: int, season_id: int | None) -> list[list[Any]]:
    query = (
        select(
            Match.played_on,
            Match.created_at,
            Match.public_id,
            Match.id,
            Deal.number,
            DealSide.position,
            DealSide.entry,
            *[getattr(DealSide, k) for k in exports.BREAKDOWN],
        )
        .join(Deal, Deal.match_id == Match.id)
        .join(DealSide, DealSide.deal_id == Deal.id)
        .where(Match.club_id == club_id)
        .order_by(Match.played_on, Match.id, Deal.number, DealSide.position)
    )
    if season_id is not None:
        query = query.where(Match.season_id == season_id)
    found = db.session.execute(query).all()
    labels = _reference_labels(club_id)
    books = sorted({k for row in found for k in row.entry.get("books", {})})
    melded_keys = exports._keys(row.entry.get("melded", {}) for row in found)
    left_keys = exports._keys(row.entry.get("left", {}) for row in found)
    header = [
        _("date"), _("match"), _("deal"), _("side"), _("players"),
        *[_("books %(kind)s", kind=k) for k in books],
        *[exports._label(f) for f in exports.ENTRY_FIELDS], _("melded points"),
        *[_("melded %(cards)s", cards=k) for k in melded_keys],
        _("left points"), *[_("left %(cards)s", cards=k) for k in left_keys],
        *[_("score %(part)s", part=exports._label(k)) for k in exports.BREAKDOWN],
    ]  # fmt: skip
    rows: list[list[Any]] = [header]
    for row in found:
        entry = row.entry
        melded, left = entry.get("melded", {}), entry.get("left", {})
        rows.append(
            [
                (row.played_on or row.created_at.date()).isoformat(),
                row.public_id,
                row.number,
                row.position + 1,
                labels.get((row.id, row.position), ""),
                *[entry.get("books", {}).get(k, 0) for k in books],
                *[int(entry.get(f, 0)) for f in exports.ENTRY_FIELDS],
                entry.get("melded_points", ""),
                *[melded.get(k, "") for k in melded_keys],
                entry.get("left_points", ""),
                *[left.get(k, "") for k in left_keys],
                *[getattr(row, k) for k in exports.BREAKDOWN],
            ]
        )
    return rows


def _reference_labels(club_id: int) -> dict[tuple[int, int], str]:
    query = (
        select(MatchSide.match_id, MatchSide.position, MatchPlayer.name)
        .join(MatchPlayer, MatchPlayer.side_id == MatchSide.id)
        .join(Match, Match.id == MatchSide.match_id)
        .where(Match.club_id == club_id)
        .order_by(MatchSide.match_id, MatchSide.position, MatchPlayer.position)
    )
    labels: dict[tuple[int, int], list[str]] = {}
    for match_id, position, name in db.session.execute(query):
        labels.setdefault((match_id, position), []).append(name)
    return {key: " & ".join(names) for key, names in labels.items()}


# -- a club with a history of every kind of entry ------------------------------------------------


COUNTED = {  # cards counted by key, not points: ranks, a range, wild cards, black threes
    "went_out": True,
    "books": {"clean": 2, "dirty": 2, "wild": 1},
    "red_threes": 1,
    "melded": {"joker": 4, "2": 6, "A": 7, "K": 7, "8-Q": 14, "4-7": 7},
    "left": {},
}
LEFT = {
    "books": {"clean": 1},
    "red_threes": 2,
    "red_threes_left": 1,
    "red_threes_left_in_foot": 1,
    "melded": {"A": 3, "10": 4},
    "left": {"joker": 1, "5": 2, "black3": 1, "8-Q": 1},
}
PEOPLE = ("Ann", "Bob", "Cid", "Dee")


@pytest.fixture
def history(app) -> dict[str, Any]:
    """A club whose history has points and counts, every book kind, a match of today in a
    season and one still being played, one without deals, one without a date (its day is
    when it was made), and names a spreadsheet would run or that need quoting."""
    with app.app_context():
        club = clubs.create_club("Wednesday", min_games=1)
        today = date.today()
        season = clubs.add_season(club, "Autumn", today - timedelta(days=30), today)
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300), date(2024, 3, 5))
        play(
            club,
            [("=SUM(A1)", '"Quoted", Name'), ("-Žofie", "Ёлка")],
            four_deals(100, 900),
            date(2024, 3, 5),
            extra={0: {"books": {"clean": 1}}, 1: {"exact_draws": 1, "red_threes": 2}},
        )
        counted = clubs.start_club_match(
            club, PRESETS["classic"], [Side(PEOPLE[:2]), Side(PEOPLE[2:])], 1, today
        )
        for number in (1, 2):
            counted, _ = matches.record_deal(counted, [COUNTED, LEFT], f"c-{number}", number)
        clubs.start_club_match(  # no deals yet: no rows
            club, PRESETS["classic"], [Side(PEOPLE[:2]), Side(PEOPLE[2:])], 0, today
        )
        undated = play(club, [("Eve", "Fay"), ("Gus", "Hal")], four_deals(50, 0))
        db.session.execute(update(Match).where(Match.id == undated.row.id).values(played_on=None))
        db.session.commit()
        found = {"club": club.public_id, "club_id": club.id, "season": season.public_id}
        found["season_id"] = season.id
    give_role(app, found["club"], "owner", "owner")
    return found


@pytest.fixture
def client(app):
    signed_in = app.test_client()
    log_in(signed_in, "owner")
    return signed_in


def url(history: dict[str, Any], season: bool = False) -> str:
    query = f"?season={history['season']}" if season else ""
    return f"/c/{history['club']}/matches.csv{query}"


# -- the tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("season", [False, True], ids=["all-time", "season"])
def test_the_streamed_file_is_byte_for_byte_what_was_sent_before(
    client, app, history, lang, season
):
    response = client.get(url(history, season), headers={"Accept-Language": lang})
    assert response.status_code == 200
    assert response.is_streamed
    body = response.get_data()
    with app.test_request_context(headers={"Accept-Language": lang}):
        expected = reference_csv(history["club_id"], history["season_id"] if season else None)
    assert body == expected
    rows = list(csv.reader(io.StringIO(body.decode().lstrip("\ufeff"))))
    assert len(rows) == 1 + (2 * 2 if season else 4 * 2 + 4 * 2 + 2 * 2 + 4 * 2)


def test_the_history_is_translated_and_has_every_kind_of_column(client, history):
    headers = {
        lang: client.get(url(history), headers={"Accept-Language": lang}).get_data()
        for lang in LANGUAGES
    }
    assert len(set(headers.values())) == len(LANGUAGES)  # each language its own header
    text = headers["en"].decode()
    assert text.startswith("\ufeffdate,match,deal,side,players,books clean,books dirty,")
    first = text.splitlines()[0].split(",")
    assert [c for c in first if c.startswith("melded ")] == [
        "melded points", "melded joker", "melded 2", "melded A", "melded K", "melded 10",
        "melded 4-7", "melded 8-Q",
    ]  # fmt: skip
    assert '\'=SUM(A1) & ""Quoted"", Name' in text and "'-Žofie & Ёлка" in text


def test_the_headers_are_those_of_a_download(client, history):
    response = client.get(url(history))
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    disposition = f'attachment; filename="matches-{history["club"]}.csv"'
    assert response.headers["Content-Disposition"] == disposition
    assert response.get_data().startswith(b"\xef\xbb\xbfdate,")


def test_the_file_is_sent_in_chunks_the_mark_first(client, history, monkeypatch):
    monkeypatch.setattr(exports, "CHUNK_ROWS", 3)
    response = client.get(url(history), buffered=False)
    chunks = list(response.iter_encoded())
    response.close()
    assert chunks[0] == "\ufeff".encode()  # sent before the history is read
    assert len(chunks) > 10
    rows = b"".join(chunks[1:]).count(b"\r\n")
    assert rows == 1 + 4 * 2 + 4 * 2 + 2 * 2 + 4 * 2


def test_an_empty_history_is_a_header(client, app):
    with app.app_context():
        made = clubs.create_club("Empty")
        public_id = made.public_id
    give_role(app, public_id, "owner", "owner")
    body = client.get(f"/c/{public_id}/matches.csv").get_data(as_text=True)
    assert body.startswith("\ufeffdate,match,deal,side,players,went_out,")
    assert body.count("\r\n") == 1


@contextmanager
def statements(app) -> Iterator[list[str]]:
    seen: list[str] = []

    def executed(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", executed)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", executed)


def test_the_statements_do_not_grow_with_the_history(client, app, history):
    with statements(app) as seen:
        client.get(url(history)).get_data()
    before = len(seen)
    with app.app_context():
        club = db.session.get(Club, history["club_id"])
        for _ in range(5):
            play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
    with statements(app) as seen:
        client.get(url(history)).get_data()
    assert len(seen) == before
    reads = [s for s in seen if "deal_sides" in s]
    assert len(reads) == 2  # the columns used, then the rows: never a query per match


def test_a_failure_while_streaming_is_logged_and_ends_the_download(
    client, app, history, monkeypatch, caplog
):
    made = exports._counts

    def failing(*args: Any) -> Any:
        counts = made(*args)
        calls = iter(range(5))

        def broken(entry: dict[str, Any]) -> list[Any]:
            if next(calls, None) is None:
                raise RuntimeError("the disk went away")
            return counts(entry)

        return broken

    monkeypatch.setattr(exports, "_counts", failing)
    monkeypatch.setattr(exports, "CHUNK_ROWS", 2)
    response = client.get(url(history), buffered=False)
    assert response.status_code == 200  # sent before the failure: it cannot become a 500
    received = []
    with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError, match="disk went away"):
        for chunk in response.iter_encoded():
            received.append(chunk)
    response.close()
    assert b"".join(received).count(b"\r\n") == 1 + 4  # the header and two chunks of two
    failed = [r for r in caplog.records if "download failed" in r.getMessage()]
    assert failed and f"matches-{history['club']}.csv" in failed[0].getMessage()
    assert failed[0].exc_info is not None
    assert_connections_returned(app)


def test_a_failure_before_the_first_byte_is_the_view_s_an_error_page(
    client, app, history, monkeypatch
):
    @contextmanager
    def unreachable() -> Iterator[Any]:
        raise RuntimeError("the database is not there")
        yield

    monkeypatch.setattr(exports.data_export, "snapshot", unreachable)
    with pytest.raises(RuntimeError, match="not there"):  # raised by the view: no 200 sent
        client.get(url(history), buffered=False)
    assert_connections_returned(app)


def test_a_download_left_unread_gives_its_connection_back(client, app, history):
    response = client.get(url(history), buffered=False)
    assert next(iter(response.iter_encoded())) == "\ufeff".encode()
    response.close()  # the client went away
    assert_connections_returned(app)
    response = client.get(url(history), buffered=False)
    response.close()  # before the first chunk
    assert_connections_returned(app)
    head = client.head(url(history))
    assert head.status_code == 200 and head.get_data() == b""
    head.close()  # as a server does once it has sent the headers
    assert_connections_returned(app)


def assert_connections_returned(app) -> None:
    with app.app_context():
        pool = db.engine.pool
        checked_out = pool.checkedout() if hasattr(pool, "checkedout") else 0
    assert checked_out == 0


def test_a_season_reads_only_its_matches(client, app, history):
    body = client.get(url(history, season=True)).get_data(as_text=True)
    with app.app_context():
        in_season = set(
            db.session.scalars(
                select(Match.public_id).where(Match.season_id == history["season_id"])
            )
        )
    rows = list(csv.reader(io.StringIO(body.lstrip("\ufeff"))))[1:]
    assert len(in_season) == 2  # the counted match and the one without deals
    assert len(rows) == 4 and {row[1].lstrip("'") for row in rows} < in_season


def test_the_file_is_made_beside_the_process_s_other_requests(client, history):
    """Served by ``serve``'s processes, the file is made with a thread more for the
    process (``keeper.Beside``), given back once it is sent."""
    from scorekeeper.keeper import BESIDE

    made: list[str] = []

    @contextmanager
    def beside() -> Iterator[None]:
        made.append("more")
        yield
        made.append("back")

    response = client.get(url(history), environ_base={BESIDE: beside}, buffered=False)
    assert response.status_code == 200
    body = b"".join(response.iter_encoded())
    assert made == ["more", "back"]  # once, around the making of the file
    response.close()
    assert body.count(b"\r\n") == 1 + 4 * 2 + 4 * 2 + 2 * 2 + 4 * 2
