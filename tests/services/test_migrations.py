"""Migrations: an empty database upgrades to head, and models and migrations agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import event, inspect, text

from scorekeeper.app import create_app
from scorekeeper.extensions import db
from scorekeeper.services import clubs
from scorekeeper.services.demo import four_deals, play


def _empty_app(tmp_path: Path, dburi: str | None):
    uri = dburi or f"sqlite:///{tmp_path / 'migrations.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": uri})
    with app.app_context():
        db.drop_all()
        with db.engine.begin() as connection:
            connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    return app


def test_an_empty_database_upgrades_to_head_and_matches_the_models(
    tmp_path: Path, dburi: str | None
) -> None:
    app = _empty_app(tmp_path, dburi)
    with app.app_context():
        upgrade()
        assert "matches" in inspect(db.engine).get_table_names()
        with db.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, db.metadata)
        assert differences == []
        downgrade(revision="base")
        assert "matches" not in inspect(db.engine).get_table_names()
        db.engine.dispose()


#: The columns an ``UPDATE`` of the match table sets (SQLite's and PostgreSQL's spelling).
MATCH_UPDATE = re.compile(r"UPDATE matches SET (.*?) WHERE", re.S)


def test_no_index_of_the_match_table_holds_a_column_a_deal_s_save_sets(
    tmp_path: Path, dburi: str | None
) -> None:
    """Every deal's save updates its match row. PostgreSQL writes a row's new version in
    place (a HOT update), touching no index, only when no indexed column changes; an
    index on one the save sets (``updated_at`` was one) cost an entry in each of the
    table's indexes at every deal."""
    app = _empty_app(tmp_path, dburi)
    with app.app_context():
        upgrade()
        inspector = inspect(db.engine)
        indexed = set(inspector.get_pk_constraint("matches")["constrained_columns"])
        for index in (
            *inspector.get_indexes("matches"),
            *inspector.get_unique_constraints("matches"),
        ):
            indexed.update(index["column_names"])
        sets: set[str] = set()

        def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
            for columns in MATCH_UPDATE.findall(statement):
                sets.update(part.split("=")[0].strip() for part in columns.split(","))

        club = clubs.create_club("Tuesday")
        event.listen(db.engine, "before_cursor_execute", seen)
        try:  # a club match's deals, the last of which finishes it
            loaded = play(club, [("Ann", "Cid"), ("Bob", "Dee")], four_deals(350, 150))
        finally:
            event.remove(db.engine, "before_cursor_execute", seen)
        assert loaded.game.finished
        assert {"deal_count", "updated_at", "finished", "winner_position"} <= sets
        assert sets.isdisjoint(indexed), sorted(sets & indexed)
        db.session.remove()
        downgrade(revision="base")
        db.engine.dispose()
