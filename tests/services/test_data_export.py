"""Export and import: every table classified, and a club's history survives a round trip.

The round trip runs on the suite's database (SQLite, or PostgreSQL with
``TEST_DATABASE_URL``) and through a second, SQLite, database: export, import into an
empty database, export again gives the same bytes, and every derived row (totals, scores,
side results, standing lines, ratings) is rebuilt equal to what the app wrote.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, ForeignKey, Integer, MetaData, Table, func, select
from support import make_app

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, Deal, DealSide, Match, MatchSide
from scorekeeper.services import clubs, data_export, data_import, demo, matches, rule_sets
from scorekeeper.services.data_tables import (
    DERIVED,
    EXPORTED,
    NOT_EXPORTED,
    STARTS_ANEW,
    Refused,
    UnclassifiedTableError,
    check_classified,
    unclassified,
)

WHEN = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


def history() -> Club:
    """A club with a season of play, and the odd things real use leaves behind."""
    club = demo.seed("Zoë's Tuesday Club", weeks=3)
    clubs.add_player(club, "Idle Ida")  # a player who never played
    rule_sets.create({**PRESETS["classic"].to_dict(), "name": "Our house rules"})
    casual = matches.start_match(
        PRESETS["classic"], "classic", [Side(("Ann",)), Side(("Émile",))], 1
    )
    casual, _ = matches.record_deal(
        casual, [{"melded_points": 120}, {"melded_points": 90}], "c1", 1
    )
    played = demo.play(club, [("Ann", "Bob"), ("Cid", "Dee")], demo.four_deals(700, 300))
    played = matches.reopen(played)
    played = matches.correct_deal(
        played, 2, [{"melded_points": 50}, {"melded_points": 400}], played.row.deals[1].version
    )
    unfinished = demo.play(club, [("Eve",), ("Fay",)], [[100, 200], [300, 0]], date(2024, 3, 6))
    matches.remove_last_deal(unfinished, 2)
    db.session.commit()
    return club


def derived_state() -> dict[str, Any]:
    """Every derived row and column, comparable across databases (derived ids left out)."""
    db.session.expire_all()
    state: dict[str, Any] = {}
    for name in DERIVED:
        table = db.metadata.tables[name]
        columns = [c for c in table.columns if c.name != "id"]
        state[name] = sorted(tuple(row) for row in db.session.execute(select(*columns)))
    for name, derived in EXPORTED.items():
        table = db.metadata.tables.get(name)
        if table is not None and derived:
            rebuilt = derived - STARTS_ANEW.get(name, frozenset())
            columns = [table.c.id, *(table.c[c] for c in sorted(rebuilt))]
            state[name] = sorted(tuple(row) for row in db.session.execute(select(*columns)))
    return state


def exported_text() -> str:
    text = data_export.dumps(data_export.document(WHEN))
    db.session.remove()
    return text


def import_text(text: str) -> data_import.Imported:
    done = data_import.load(data_import.parse(json.loads(text), "export.json"))
    db.session.remove()
    return done


def test_every_table_of_the_models_is_classified_as_exported_or_derived() -> None:
    assert unclassified(db.metadata) == [], (
        "classify new tables in scorekeeper/services/data_tables.py"
    )
    assert not EXPORTED.keys() & DERIVED.keys()
    assert not NOT_EXPORTED.keys() & (EXPORTED.keys() | DERIVED.keys())
    for name, derived in EXPORTED.items():
        table = db.metadata.tables.get(name)
        if table is not None:  # audit_events may not exist yet
            assert derived <= set(table.columns.keys()), f"{name}: unknown derived columns"


def test_a_new_table_nobody_classified_stops_the_export_with_its_name() -> None:
    metadata = MetaData()
    for table in db.metadata.sorted_tables:
        table.to_metadata(metadata)
    Table("trophies", metadata, Column("id", Integer, primary_key=True))
    Table("winners", metadata, Column("trophy_id", ForeignKey("trophies.id"), primary_key=True))
    assert unclassified(metadata) == ["trophies", "winners"]
    with pytest.raises(UnclassifiedTableError, match="trophies, winners"):
        check_classified(metadata)


def test_export_import_export_gives_the_same_bytes_and_rebuilds_every_derived_row(
    app: Any, tmp_path: Path
) -> None:
    with app.app_context():
        history()
        first = exported_text()
        before = derived_state()
    other = make_app(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    with other.app_context():
        done = import_text(first)
        assert done.counts["matches"] == 11 and done.rebuilt["side_results"] > 0
        assert derived_state() == before
        second = exported_text()
        db.engine.dispose()
    with app.app_context():  # back into the suite's database, emptied
        db.drop_all()
        db.create_all()
        import_text(second)
        assert derived_state() == before
        third = exported_text()
    assert first == second == third


def test_the_export_is_versioned_json_with_rows_in_key_order_and_utc_timestamps(app: Any) -> None:
    with app.app_context():
        history()
        text = exported_text()
    doc = json.loads(text)
    assert doc["format"] == "scorekeeper-export" and doc["version"] == 1
    assert doc["exported_at"] == "2024-06-01T12:00:00+00:00"
    assert set(doc["tables"]) == {n for n in EXPORTED if n in db.metadata.tables}
    for name, rows in doc["tables"].items():
        ids = [row["id"] for row in rows]
        assert ids == sorted(ids), name
    first_match = doc["tables"]["matches"][0]
    assert first_match["created_at"].endswith("+00:00") and "rules" in first_match
    assert "total" not in doc["tables"]["match_sides"][0]  # derived: rebuilt on import
    assert set(doc["tables"]["deal_sides"][0]) == {"id", "deal_id", "position", "entry"}
    assert "Zoë's Tuesday Club" in text  # UTF-8, not \u escapes
    assert text.count("\n") > sum(len(rows) for rows in doc["tables"].values())  # a row a line


def test_an_export_to_a_full_disk_says_so_and_leaves_no_partial_file(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It left ".club.json.<pid>.partial" holding the disk's last free space, and the
    # server's saves then failed; the command printed "unexpected OSError".
    real = Path.write_bytes

    def full(path: Path, data: bytes) -> int:
        real(path, data[:100])  # what fitted
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "club.json"
    with app.app_context(), pytest.raises(Refused) as refused:
        history()
        data_export.write(target)
    assert str(refused.value) == f"Could not write {target}: No space left on device."
    assert list((tmp_path / "out").iterdir()) == []


def test_stored_totals_after_an_import_are_the_sums_of_the_deals(app: Any) -> None:
    with app.app_context():
        history()
        text = exported_text()
        db.drop_all()
        db.create_all()
        import_text(text)
        sums: dict[tuple[int, int], int] = defaultdict(int)
        for match_id, position, total in db.session.execute(
            select(Deal.match_id, DealSide.position, DealSide.total).join(Deal.sides)
        ):
            sums[match_id, position] += total
        sides = db.session.scalars(select(MatchSide)).all()
        assert len(sides) == 2 * 11 and any(side.total for side in sides)
        assert all(side.total == sums[side.match_id, side.position] for side in sides)


def test_new_rows_after_an_import_get_fresh_ids(app: Any) -> None:
    with app.app_context():
        history()
        largest = db.session.scalar(select(func.max(Match.id)))
        text = exported_text()
        db.drop_all()
        db.create_all()
        import_text(text)
        club = db.session.scalars(select(Club)).one()
        loaded = demo.play(club, [("Ann",), ("Bob",)], demo.four_deals(10, 20))
        assert loaded.row.id == largest + 1
        assert clubs.add_player(club, "Newcomer").id > 9


def test_the_import_scores_every_deal_again_and_the_pages_agree(app: Any) -> None:
    with app.app_context():
        club = history()
        public_id = club.public_id
        text = exported_text()
        db.drop_all()
        db.create_all()
        import_text(text)
    page = app.test_client().get(f"/c/{public_id}")
    assert page.status_code == 200 and "Zoë" in page.get_data(as_text=True)


def test_an_export_reads_one_snapshot_without_waiting_for_a_writer(app: Any) -> None:
    with app.app_context():
        clubs.create_club("Tuesday")
        db.session.remove()
        with db.engine.connect() as writer:
            writer.begin()  # a phone saving: it holds the write lock (BEGIN IMMEDIATE)
            writer.execute(Club.__table__.insert().values(public_id="p" * 16, name="Later"))
            started = datetime.now(UTC)
            doc = data_export.document()
            assert (datetime.now(UTC) - started).total_seconds() < 5
            writer.rollback()
    assert [club["name"] for club in doc["tables"]["clubs"]] == ["Tuesday"]


def test_accounts_and_memberships_travel_and_log_ins_and_links_stay_behind(
    app: Any, tmp_path: Path
) -> None:
    from scorekeeper.models import AccountSession, AuditEvent, SavedRuleSet
    from scorekeeper.services import accounts, audit, memberships

    password = "correct horse battery"
    with app.app_context():
        club = clubs.create_club("Fridays", visibility="members")
        ana = accounts.sign_up("Ana", password)
        bo = accounts.sign_up("Bo", password)
        memberships.add_member(club, ana, "owner")
        memberships.add_member(club, bo, "scorer")
        rule_sets.create({**PRESETS["classic"].to_dict(), "name": "Ana's"}, account_id=ana.id)
        accounts.start_session(ana, remember=True)
        memberships.invite(club, ana, "member", 3)
        accounts.make_reset_link(bo, ana)
        casual = matches.start_match(PRESETS["classic"], "classic", [Side(("A",)), Side(("B",))], 0)
        matches.record_deal(casual, [{"melded_points": 120}, {"melded_points": 90}], "k1", 1,
                            actor=audit.Actor("Bo", bo.id))  # fmt: skip
        text = exported_text()
    doc = json.loads(text)
    for kept_out in NOT_EXPORTED:
        assert kept_out not in doc["tables"] and kept_out not in text
    [first, second] = doc["tables"]["accounts"]
    assert first["username"] == "Ana" and first["password_hash"].startswith("$argon2id$")
    assert {m["role"] for m in doc["tables"]["memberships"]} == {"owner", "scorer"}
    other = make_app(f"sqlite:///{tmp_path / 'accounts.sqlite3'}")
    with other.app_context():
        import_text(text)
        ana = accounts.authenticate("ana", password)
        assert ana is not None and accounts.authenticate("ana", "wrong password") is None
        imported = clubs.get_club(club_public_id := doc["tables"]["clubs"][0]["public_id"])
        assert imported is not None and imported.visibility == "members"
        assert memberships.role_of(ana, imported) == "owner"
        assert memberships.role_of(accounts.find("bo"), imported) == "scorer"
        assert db.session.scalar(select(SavedRuleSet.account_id)) == ana.id
        assert db.session.scalar(select(AuditEvent.account_id)) == second["id"]
        assert db.session.scalar(select(func.count()).select_from(AccountSession)) == 0
        assert memberships.invitations(imported) == [] and club_public_id
        db.engine.dispose()
