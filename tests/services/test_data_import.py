"""Import refuses what it cannot load, with one clear line, and writes nothing then."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import OperationalError

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import Club, Match, RateLimitCount
from scorekeeper.services import clubs, data_export, data_import, demo, rate_limits, rule_sets
from scorekeeper.services.data_tables import Refused


@pytest.fixture
def ctx(app: Any) -> Any:
    with app.app_context():
        yield


@pytest.fixture
def exported(ctx: Any) -> dict[str, Any]:
    """The export of a small club, and an empty database to import it into."""
    club = clubs.create_club("Tuesday")
    demo.play(club, [("Ann", "Bob"), ("Cid", "Dee")], demo.four_deals(700, 300))
    doc = json.loads(data_export.dumps(data_export.document()))
    db.session.remove()
    db.drop_all()
    db.create_all()
    return doc


def refusal(doc: Any) -> str:
    with pytest.raises(Refused) as refused:
        data_import.load(data_import.parse(doc, "club.json"), "club.json")
    assert "\n" not in str(refused.value)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Club)) == 0  # nothing written
    return str(refused.value)


def changed(doc: dict[str, Any], table: str, row: int, **values: Any) -> dict[str, Any]:
    other = copy.deepcopy(doc)
    other["tables"][table][row].update(values)
    return other


def test_a_file_that_is_not_json_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "photo.json"
    path.write_bytes(b"\x89PNG\r\n")
    with pytest.raises(Refused, match=r"photo.json is not a scorekeeper export: it is not JSON"):
        data_import.read(path)
    with pytest.raises(Refused, match=r"Cannot read .*missing.json: No such file"):
        data_import.read(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1, 2], 'it lacks "format": "scorekeeper-export"'),
        ({"name": "Our house rules", "decks": 5}, 'it lacks "format"'),
        ({"format": "scorekeeper-export"}, 'no valid "version"'),
        ({"format": "scorekeeper-export", "version": "1"}, 'no valid "version"'),
        ({"format": "scorekeeper-export", "version": 2, "tables": {}}, "reads version 1 only"),
        ({"format": "scorekeeper-export", "version": 1}, 'has no "tables"'),
    ],
)
def test_a_wrong_file_is_refused_with_what_is_wrong(ctx: Any, doc: Any, message: str) -> None:
    assert message in refusal(doc)


def test_a_file_without_rows_imports_as_an_empty_database(ctx: Any) -> None:
    done = data_import.load(
        data_import.parse({"format": "scorekeeper-export", "version": 1, "tables": {}}, "x")
    )
    assert done.counts["matches"] == 0


def test_unknown_and_derived_tables_and_columns_are_refused(exported: dict[str, Any]) -> None:
    unknown = {**exported, "tables": {**exported["tables"], "trophies": []}}
    assert "unknown table 'trophies'" in refusal(unknown)
    for secret in ("account_sessions", "password_resets", "invitations"):
        kept_out = {**exported, "tables": {**exported["tables"], secret: []}}
        assert f"table {secret} is never imported" in refusal(kept_out)
    derived = {**exported, "tables": {**exported["tables"], "side_results": []}}
    assert "side_results is rebuilt on import" in refusal(derived)
    assert "unknown column 'colour'" in refusal(changed(exported, "clubs", 0, colour="red"))
    assert "column total is rebuilt on import" in refusal(
        changed(exported, "match_sides", 0, total=99999)
    )


@pytest.mark.parametrize(
    ("table", "values", "message"),
    [
        ("clubs", {"name": None}, "clubs row 1, column name: must not be empty"),
        ("clubs", {"name": "x" * 81}, "column name: must be at most 80 characters"),
        ("clubs", {"name": "Tues\x00day"}, "must not contain a NUL character"),
        ("clubs", {"min_games": "3"}, "column min_games: must be a whole number"),
        ("clubs", {"min_games": 10**310}, "column min_games: is too large"),
        ("clubs", {"created_at": "yesterday"}, "column created_at: must be a timestamp"),
        ("matches", {"played_on": "2024-13-01"}, "column played_on: must be a date"),
        ("matches", {"reopened": 1}, "column reopened: must be true or false"),
        ("deal_sides", {"entry": {"melded_points": "7\x00"}}, "must not contain a NUL"),
    ],
)
def test_a_value_its_column_cannot_hold_is_refused_with_table_row_and_column(
    exported: dict[str, Any], table: str, values: dict[str, Any], message: str
) -> None:
    assert message in refusal(changed(exported, table, 0, **values))


def test_a_missing_required_column_is_refused_and_a_nullable_one_is_empty(
    exported: dict[str, Any],
) -> None:
    without_name = copy.deepcopy(exported)
    del without_name["tables"]["clubs"][0]["name"]
    assert "clubs row 1: column name is missing" in refusal(without_name)
    without_date = copy.deepcopy(exported)
    del without_date["tables"]["matches"][0]["finished_at"]
    data_import.load(data_import.parse(without_date, "x"))
    assert db.session.scalar(select(Match.finished_at)) is None


def test_a_repeated_id_or_a_dangling_link_is_refused(exported: dict[str, Any]) -> None:
    twice = copy.deepcopy(exported)
    twice["tables"]["players"].append(dict(twice["tables"]["players"][0], key="zed"))
    assert "players row 5 repeats the id 1" in refusal(twice)
    dangling = changed(exported, "match_players", 0, player_id=999)
    message = "match_players row 1, column player_id: it names players 999, which the file"
    assert message in refusal(dangling)
    # a deal's side without its deal: "A value is required for bind parameter 'went_out'"
    orphan = copy.deepcopy(exported)
    deal_id = orphan["tables"]["deals"].pop(0)["id"]
    assert f"column deal_id: it names deals {deal_id}, which the file" in refusal(orphan)


def test_a_deal_the_app_could_not_read_back_is_refused_with_its_match_and_deal(
    exported: dict[str, Any],
) -> None:
    public_id = exported["tables"]["matches"][0]["public_id"]
    impossible = changed(exported, "deal_sides", 0, entry={"melded_points": "lots"})
    assert f"match {public_id}: it cannot be read back" in refusal(impossible)
    holes = changed(exported, "deals", 1, number=7)
    assert "its deals are not numbered 1, 2, ..." in refusal(holes)
    one_sided = copy.deepcopy(exported)
    one_sided["tables"]["deal_sides"].pop(1)
    assert "deal 1: it needs one entry per side" in refusal(one_sided)
    bad_rules = changed(exported, "matches", 0, rules={"decks": -1})
    assert "cannot be read back" in refusal(bad_rules)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (
            {"went_out": True, "books": {"clean": 0}, "melded_points": 400},
            "Going out needs 2 clean books; this side has 0.",
        ),
        ({"melded": {"joker": 40}}, "Five decks hold only 10 jokers; the sides report 40."),
    ],
)
def test_a_deal_the_app_would_not_have_saved_is_refused_with_its_match_and_deal(
    exported: dict[str, Any], entry: dict[str, Any], why: str
) -> None:
    # An export edited by hand: read back without a word, it counted in the standings.
    public_id = exported["tables"]["matches"][0]["public_id"]
    message = refusal(changed(exported, "deal_sides", 0, entry=entry))
    assert f"match {public_id}, deal 1 cannot be scored: sides[0]" in message
    assert why in message


def test_a_saved_rule_set_the_engine_refuses_is_refused_by_name(ctx: Any) -> None:
    rule_sets.create({**PRESETS["classic"].to_dict(), "name": "Our house rules"})
    doc = json.loads(data_export.dumps(data_export.document()))
    db.session.remove()
    db.drop_all()
    db.create_all()
    doc["tables"]["saved_rule_sets"][0]["rules"]["decks"] = 0
    assert "saved rule set 'Our house rules' is not valid" in refusal(doc)


def test_an_import_into_a_database_with_any_row_is_refused_and_changes_nothing(
    exported: dict[str, Any],
) -> None:
    clubs.create_club("Already here")
    message = refusal_keeping(exported)
    assert message.startswith("The database is not empty (club_events 1, clubs 1)")  # its log
    assert "import loads into an empty database only" in message
    assert db.session.scalars(select(Club.name)).all() == ["Already here"]


def test_tries_at_logging_in_before_the_import_do_not_make_the_database_not_empty(
    exported: dict[str, Any],
) -> None:
    rate_limits.DatabaseStorage().incr("LIMITER/10.0.0.9/auth.login/10/1/minute", 60)
    data_import.load(data_import.parse(exported, "club.json"))
    assert db.session.scalar(select(func.count()).select_from(RateLimitCount)) == 0
    assert db.session.scalars(select(Club.name)).all() == ["Tuesday"]


def refusal_keeping(doc: dict[str, Any]) -> str:
    with pytest.raises(Refused) as refused:
        data_import.load(data_import.parse(doc, "club.json"))
    db.session.remove()
    return str(refused.value)


def test_an_import_leaves_postgresql_with_the_statistics_of_the_history(
    exported: dict[str, Any],
) -> None:
    """PostgreSQL plans by its statistics: an imported history is analyzed at once (a
    planner without them read every deal side for one match's page). SQLite is left
    without statistics, which its queries are written for."""
    data_import.load(data_import.parse(exported, "club.json"))
    if db.engine.dialect.name == "postgresql":
        analyzed = db.session.execute(
            text(
                "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL"
                " AND relname IN ('deals', 'deal_sides', 'side_results', 'rating_points')"
            )
        ).scalars()
        assert sorted(analyzed) == ["deal_sides", "deals", "rating_points", "side_results"]
    else:
        stats = "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'"
        assert db.session.execute(text(stats)).scalar() == 0


def test_an_import_stands_when_postgresql_cannot_analyze_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Statistics help the planner but are not part of the import: a failed ``ANALYZE``
    (after the import's commit) is logged and rolled back, not reported as a failed
    import."""

    class Session:
        rolled_back = False

        def get_bind(self) -> Any:
            return SimpleNamespace(dialect=SimpleNamespace(name="postgresql"))

        def execute(self, statement: Any) -> None:
            raise OperationalError(str(statement), {}, Exception("cannot analyze now"))

        def commit(self) -> None:
            raise AssertionError("nothing to commit after a failed ANALYZE")

        def rollback(self) -> None:
            self.rolled_back = True

    warned: list[str] = []
    monkeypatch.setattr(data_import.log, "warning", lambda message, **_: warned.append(message))
    session = Session()
    data_import.analyze(session)
    assert session.rolled_back
    assert warned and "not analyzed" in warned[0]


def test_an_import_writes_every_side_result_in_one_statement(ctx: Any) -> None:
    """The side results of every imported match go in together (an executemany), not one
    statement a match: an import of a long history must not send a statement a match."""
    club = clubs.create_club("Tuesday")
    for night in range(3):
        demo.play(club, [("Ann", "Bob"), ("Cid", "Dee")], demo.four_deals(700 - 5 * night, 300))
    doc = json.loads(data_export.dumps(data_export.document()))
    db.session.remove()
    db.drop_all()
    db.create_all()
    ran: list[str] = []

    def executed(*args: Any) -> None:
        ran.append(args[2])

    event.listen(db.engine, "before_cursor_execute", executed)
    try:
        imported = data_import.load(data_import.parse(doc, "club.json"))
    finally:
        event.remove(db.engine, "before_cursor_execute", executed)
    assert imported.rebuilt["side_results"] == 6
    assert len([s for s in ran if s.startswith("INSERT INTO side_results")]) == 1
