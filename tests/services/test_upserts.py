"""The kept rows' inserts and upserts (``services.upserts``), on SQLite and PostgreSQL.

On PostgreSQL the rows go as one JSON text (``INSERT ... SELECT * FROM
json_to_recordset``): one execution and one statement text whatever their number. These
check that what is stored is what was given, NULLs, dates, times, floats, JSON and text
included, that text with a NUL is refused as every parameter's is, and that it stays one
execution there (a finish writes some fifty kept rows under the club's lock).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    bindparam,
    event,
    select,
    update,
)

from scorekeeper.database import UnstorableText
from scorekeeper.extensions import db
from scorekeeper.services import upserts

TALLIES = Table(
    "test_upsert_tallies",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("player", Integer, nullable=False),
    Column("relation", String(7), nullable=False),
    Column("played_on", Date),
    Column("rating", Float),
    Column("note", String(20)),
    Column("wins", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    UniqueConstraint("player", "relation"),
)
KEY = ("player", "relation")
#: Two more tables for the writes sent ``together``: each part writes a table of its own.
SEEN = Table(
    "test_upsert_seen",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("player", Integer, nullable=False),
    Column("played_on", Date),
)
RATED = Table(
    "test_upsert_rated",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("mu", Float),
    Column("note", String(20)),
)
#: The other kinds of value a kept row holds (a deal side's entry, an event's time).
STAMPED = Table(
    "test_upsert_stamped",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True)),
    Column("entry", JSON),
    Column("went_out", Boolean),
    Column("mu", Float),
    Column("note", String(40)),
)
TABLES = (TALLIES, SEEN, RATED, STAMPED)


def added(excluded: Any) -> dict[str, Any]:
    return {
        "wins": TALLIES.c.wins + excluded.wins,
        "losses": TALLIES.c.losses + excluded.losses,
        "played_on": excluded.played_on,
    }


@pytest.fixture
def session(app: Flask) -> Iterator[Any]:
    with app.app_context():
        for table in TABLES:
            table.create(db.engine)
        try:
            yield db.session()
        finally:
            db.session.rollback()
            for table in TABLES:
                table.drop(db.engine)


@pytest.fixture
def executions(session: Any) -> Iterator[list[tuple[str, bool]]]:
    """Each statement sent (its text, and whether as ``executemany``)."""
    sent: list[tuple[str, bool]] = []

    def count(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, many: bool):
        sent.append((statement, many))

    event.listen(db.engine, "before_cursor_execute", count)
    yield sent
    event.remove(db.engine, "before_cursor_execute", count)


def row(player: int, relation: str = "against", **values: Any) -> dict[str, Any]:
    base = {"player": player, "relation": relation, "played_on": None, "rating": None}
    return {**base, "note": None, "wins": 0, "losses": 0, **values}


def stored(session: Any) -> list[tuple[Any, ...]]:
    columns = [c for c in TALLIES.columns if c.name != "id"]
    return [tuple(r) for r in session.execute(select(*columns).order_by(TALLIES.c.id))]


def test_rows_are_stored_as_given_nulls_dates_and_text_included(session: Any) -> None:
    rows = [
        row(1, played_on=date(2026, 12, 5), rating=25.5, note="Zoë's", wins=2),
        row(2, "with", losses=1),  # every nullable column NULL
        row(3, note="", rating=-0.125),
    ]
    upserts.insert_rows(session, TALLIES, rows)
    assert stored(session) == [
        (1, "against", date(2026, 12, 5), 25.5, "Zoë's", 2, 0),
        (2, "with", None, None, None, 0, 1),
        (3, "against", None, -0.125, "", 0, 0),
    ]


def test_times_json_booleans_exact_floats_and_any_text_are_stored_as_given(
    session: Any,
) -> None:
    evening = datetime(2026, 12, 5, 21, 30, 15, 123456, tzinfo=UTC)
    rows = [
        {
            "at": evening,
            "entry": {"books": {"clean": 2, "dirty": 1}, "left": [5, 0], "note": "Zoë"},
            "went_out": True,
            "mu": 0.1 + 0.2,  # 0.30000000000000004, not 0.3
            "note": 'a "quote", a \\ and ☘ \\u0000',  # a backslash and u0000, no NUL
        },
        {"at": None, "entry": None, "went_out": False, "mu": 1e-300, "note": "−5 ⟨⟩"},
        {
            "at": evening - timedelta(days=400),
            "entry": [],
            "went_out": None,
            "mu": -25.0,
            "note": "=SUM(A1)\n\t",
        },
    ]
    upserts.insert_rows(session, STAMPED, rows)
    columns = [c for c in STAMPED.columns if c.name != "id"]
    back = [dict(r._mapping) for r in session.execute(select(*columns).order_by(STAMPED.c.id))]
    for row in back:  # SQLite keeps no zone: its times come back as UTC without one
        if row["at"] is not None and row["at"].tzinfo is None:
            row["at"] = row["at"].replace(tzinfo=UTC)
    assert back == rows


def test_text_with_a_nul_is_refused_and_nothing_is_stored(session: Any) -> None:
    bad = row(1, note="a\x00b")
    with pytest.raises(UnstorableText):
        upserts.insert_rows(session, TALLIES, [row(2), bad])
    with pytest.raises(UnstorableText):
        upserts.upsert(session, TALLIES, [bad], KEY, added)
    with pytest.raises(UnstorableText):
        upserts.update_rows(session, RATED, "id", [{"id": 1, "mu": 1.0, "note": "\x00"}])
    with pytest.raises(UnstorableText), upserts.together(session):  # refused when made
        upserts.insert_rows(session, TALLIES, [bad])
        pytest.fail("not refused")
    assert stored(session) == []


def test_no_rows_send_nothing(session: Any, executions: list[tuple[str, bool]]) -> None:
    upserts.insert_rows(session, TALLIES, [])
    upserts.upsert(session, TALLIES, [], KEY, added)
    upserts.update_rows(session, TALLIES, "id", [])
    assert executions == []


def test_an_upsert_adds_to_the_stored_rows_and_inserts_the_new(session: Any) -> None:
    upserts.insert_rows(session, TALLIES, [row(1, wins=2, losses=1), row(2, "with", wins=1)])
    upserts.upsert(
        session,
        TALLIES,
        [row(1, wins=1, played_on=date(2026, 12, 1)), row(3, losses=4), row(2, "against")],
        KEY,
        added,
    )
    assert sorted(stored(session)) == [
        (1, "against", date(2026, 12, 1), None, None, 3, 1),
        (2, "against", None, None, None, 0, 0),
        (2, "with", None, None, None, 1, 0),
        (3, "against", None, None, None, 0, 4),
    ]


def test_on_postgresql_the_rows_are_one_execution_of_one_text(
    session: Any, executions: list[tuple[str, bool]]
) -> None:
    if session.get_bind().dialect.name != "postgresql":
        pytest.skip("SQLite runs the statement once a row, in-process (executemany)")
    for first, count in ((0, 1), (10, 5)):
        players = range(first, first + count)
        upserts.insert_rows(session, TALLIES, [row(p) for p in players])
        upserts.upsert(session, TALLIES, [row(p, wins=1) for p in players], KEY, added)
    inserts = [text for text, _many in executions if text.startswith("INSERT")]
    assert len(inserts) == 4
    assert not any(many for _text, many in executions)
    assert inserts[0] == inserts[2] and inserts[1] == inserts[3]  # whatever the number
    assert "json_to_recordset" in inserts[0] and "ON CONFLICT" in inserts[1]
    assert sorted(stored(session))[-1] == (14, "against", None, None, None, 1, 0)


def test_an_update_sets_the_given_columns_of_the_rows_with_the_given_keys(session: Any) -> None:
    """``update_rows``: each row given sets its columns on the stored row whose key it
    holds (NULLs, dates, floats and text included); the other rows and the columns not
    given stay as they were, and a key not stored changes nothing."""
    upserts.insert_rows(session, TALLIES, [row(p, wins=p, note=f"n{p}") for p in (1, 2, 3)])
    ids = dict(session.execute(select(TALLIES.c.player, TALLIES.c.id)).all())
    upserts.update_rows(
        session,
        TALLIES,
        "id",
        [
            {"id": ids[3], "rating": 27.25, "played_on": date(2026, 12, 5), "note": None},
            {"id": ids[1], "rating": None, "played_on": None, "note": "Zoë"},
            {"id": 10_000, "rating": 1.0, "played_on": None, "note": "nobody"},
        ],
    )
    assert stored(session) == [
        (1, "against", None, None, "Zoë", 1, 0),
        (2, "against", None, None, "n2", 2, 0),
        (3, "against", date(2026, 12, 5), 27.25, None, 3, 0),
    ]


def test_on_postgresql_an_update_is_one_execution_of_one_text(
    session: Any, executions: list[tuple[str, bool]]
) -> None:
    if session.get_bind().dialect.name != "postgresql":
        pytest.skip("SQLite runs the statement once a row, in-process (executemany)")
    upserts.insert_rows(session, TALLIES, [row(p) for p in range(6)])
    ids = list(session.scalars(select(TALLIES.c.id).order_by(TALLIES.c.id)))
    executions.clear()
    for chosen in (ids[:1], ids[1:]):
        upserts.update_rows(session, TALLIES, "id", [{"id": i, "wins": 7} for i in chosen])
    assert len(executions) == 2 and not any(many for _text, many in executions)
    assert executions[0][0] == executions[1][0] and "json_to_recordset" in executions[0][0]
    assert [r[5] for r in stored(session)] == [7] * 6


def written_together(session: Any, first: int, count: int) -> None:
    """An upsert, an insert and an update, each of its own table, inside ``together``."""
    players = range(first, first + count)
    with upserts.together(session):
        upserts.upsert(session, TALLIES, [row(p, wins=1) for p in players], KEY, added)
        upserts.insert_rows(
            session, SEEN, [{"player": p, "played_on": date(2026, 12, p % 28 + 1)} for p in players]
        )
        upserts.update_rows(
            session, RATED, "id", [{"id": p, "mu": p / 4, "note": f"r{p}"} for p in players]
        )


def test_writes_sent_together_store_what_they_would_one_by_one(session: Any) -> None:
    """Inside ``together`` (one statement on PostgreSQL, each sent as made on SQLite):
    the upsert adds to the stored rows and inserts the new, the rows inserted are stored
    as given, and the update sets the rows with the keys given, the others untouched."""
    upserts.insert_rows(session, TALLIES, [row(1, wins=2), row(2, wins=5)])
    upserts.insert_rows(
        session, RATED, [{"id": i, "mu": None, "note": "old"} for i in (1, 2, 3, 9)]
    )
    written_together(session, 1, 3)
    assert sorted(stored(session)) == [
        (1, "against", None, None, None, 3, 0),
        (2, "against", None, None, None, 6, 0),
        (3, "against", None, None, None, 1, 0),
    ]
    seen = session.execute(select(SEEN.c.player, SEEN.c.played_on).order_by(SEEN.c.player))
    assert [tuple(r) for r in seen] == [(p, date(2026, 12, p + 1)) for p in (1, 2, 3)]
    rated = session.execute(select(RATED.c.id, RATED.c.mu, RATED.c.note).order_by(RATED.c.id))
    assert [tuple(r) for r in rated] == [
        (1, 0.25, "r1"),
        (2, 0.5, "r2"),
        (3, 0.75, "r3"),
        (9, None, "old"),
    ]


def test_on_postgresql_writes_together_are_one_execution_of_one_text(
    session: Any, executions: list[tuple[str, bool]]
) -> None:
    """Three writes, one execution at the block's end, nothing before it; the same text
    for one row a write and for five."""
    if session.get_bind().dialect.name != "postgresql":
        pytest.skip("SQLite sends each write as it is made")
    upserts.insert_rows(session, RATED, [{"id": i, "mu": None, "note": None} for i in range(20)])
    executions.clear()
    with upserts.together(session):
        upserts.insert_rows(session, SEEN, [{"player": 1, "played_on": None}])
        upserts.upsert(session, TALLIES, [row(1)], KEY, added)
        assert executions == []
        with upserts.together(session):  # inside another: held for the outer one's end
            upserts.update_rows(session, RATED, "id", [{"id": 1, "mu": 2.5, "note": None}])
        assert executions == []
    assert len(executions) == 1 and executions[0][0].startswith("WITH")
    written_together(session, 10, 1)
    written_together(session, 11, 5)
    assert len(executions) == 3 and not any(many for _text, many in executions)
    assert executions[1][0] == executions[2][0]
    assert len(session.scalars(select(SEEN.c.id)).all()) == 7
    assert session.scalar(select(RATED.c.mu).where(RATED.c.id == 1)) == 2.5


@functools.lru_cache(maxsize=4)
def rated_note(suffix: str) -> Any:
    """An ``UPDATE`` for ``upserts.execute``: its values named with ``suffix`` added."""
    return (
        update(RATED)
        .where(RATED.c.id == bindparam(f"which{suffix}"))
        .values(note=bindparam(f"text{suffix}"))
    )


def test_a_statement_executed_inside_together_goes_with_the_writes(
    session: Any, executions: list[tuple[str, bool]]
) -> None:
    """``execute`` runs any statement built for a suffix (the club's lock, an ``UPDATE``):
    outside ``together`` at once, inside it held and sent with the block's writes, as
    the last part on PostgreSQL (one execution), its values renamed to its suffix; what
    is stored is the same on both databases."""
    upserts.insert_rows(session, RATED, [{"id": i, "mu": None, "note": "old"} for i in (1, 2)])
    executions.clear()
    upserts.execute(session, rated_note, {"which": 1, "text": "alone"})
    assert len(executions) == 1
    executions.clear()
    with upserts.together(session):
        upserts.insert_rows(session, SEEN, [{"player": 4, "played_on": None}])
        upserts.execute(session, rated_note, {"which": 2, "text": "with"})
    postgresql = session.get_bind().dialect.name == "postgresql"
    assert len(executions) == (1 if postgresql else 2)
    if postgresql:
        assert (
            executions[0][0].startswith("WITH") and "UPDATE test_upsert_rated" in (executions[0][0])
        )
    notes = session.execute(select(RATED.c.id, RATED.c.note).order_by(RATED.c.id))
    assert [tuple(r) for r in notes] == [(1, "alone"), (2, "with")]
    assert session.scalars(select(SEEN.c.player)).all() == [4]


def test_writes_held_are_not_sent_when_the_block_raises(
    session: Any, executions: list[tuple[str, bool]]
) -> None:
    with pytest.raises(RuntimeError), upserts.together(session):
        upserts.insert_rows(session, SEEN, [{"player": 1, "played_on": None}])
        raise RuntimeError("the transaction is to be rolled back")
    postgresql = session.get_bind().dialect.name == "postgresql"
    writes = [text for text, _many in executions if text.startswith(("INSERT", "WITH"))]
    assert len(writes) == (0 if postgresql else 1)
    assert upserts.HELD not in session.info
    upserts.insert_rows(session, SEEN, [{"player": 2, "played_on": None}])  # sent as made
    assert session.scalars(select(SEEN.c.player)).all() == ([2] if postgresql else [1, 2])
