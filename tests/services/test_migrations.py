"""Migrations: an empty database upgrades to head, and models and migrations agree."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from scorekeeper.app import create_app
from scorekeeper.extensions import db


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
