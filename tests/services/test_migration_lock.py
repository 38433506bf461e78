"""Servers starting at once on a fresh database all come up: one migrates, the others wait.

Each process runs what ``scorekeeper serve`` runs first (``cli.migrated_app``), released
together by a barrier, on an empty database: a SQLite file, and (when the suite runs on
PostgreSQL) a schema of its own in the test database, dropped afterwards.
"""

from __future__ import annotations

import multiprocessing
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PROCESSES = 4


def _migrate(url: str, barrier: multiprocessing.synchronize.Barrier) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["SCOREKEEPER_SECRET_KEY"] = "test"  # no key file written by the test
    from scorekeeper.cli import migrated_app

    barrier.wait(timeout=60)
    migrated_app()


def _race(url: str) -> list[int | None]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES)
    workers = [context.Process(target=_migrate, args=(url, barrier)) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=180)
    return [worker.exitcode for worker in workers]


def _head() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    root = Path(__file__).resolve().parents[2] / "migrations"
    config = Config(str(root / "alembic.ini"))
    config.set_main_option("script_location", str(root))
    return str(ScriptDirectory.from_config(config).get_current_head())


@pytest.fixture
def fresh_postgresql(dburi: str | None) -> Iterator[str]:
    """A URL of an empty schema of its own in the PostgreSQL test database."""
    if not dburi or not dburi.startswith("postgresql"):
        pytest.skip("runs when the suite is given a PostgreSQL database")
    schema = f"migrate_race_{uuid.uuid4().hex[:8]}"
    engine = create_engine(dburi)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(dburi).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


def _version(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return list(connection.scalars(text("SELECT version_num FROM alembic_version")))
    finally:
        engine.dispose()


def test_servers_starting_at_once_on_a_fresh_postgresql_database_all_come_up(
    fresh_postgresql: str,
) -> None:
    assert _race(fresh_postgresql) == [0] * PROCESSES
    assert _version(fresh_postgresql) == [_head()]


def test_servers_starting_at_once_on_a_fresh_sqlite_file_all_come_up(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    assert _race(url) == [0] * PROCESSES
    assert _version(url) == [_head()]
