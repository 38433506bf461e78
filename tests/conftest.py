"""Shared fixtures: a fresh app and database per test, on SQLite or PostgreSQL.

``pytest --dburi postgresql+psycopg://postgres@127.0.0.1:5432/test`` (or the environment
variable ``TEST_DATABASE_URL``) runs the same suite against PostgreSQL; the default is a
SQLite file in a temporary folder. Every test drops every table of the database it is
given: name a database made for the tests, never one whose data you want to keep.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support import make_app

from scorekeeper.config import normalise_db_url
from scorekeeper.extensions import db


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--dburi",
        default=None,
        help="database URL for the app's tests (default: a temporary SQLite file); the"
        " tests DROP EVERY TABLE of that database, so give them one of their own"
        " (also read from TEST_DATABASE_URL)",
    )


@pytest.fixture(scope="session")
def dburi(request: pytest.FixtureRequest) -> str | None:
    import os

    uri = request.config.getoption("--dburi") or os.environ.get("TEST_DATABASE_URL")
    return normalise_db_url(uri) if uri else None


@pytest.fixture
def app_config() -> dict[str, Any]:
    """Extra settings for the ``app`` fixture; a module overrides it (CSRF on, say)."""
    return {}


@pytest.fixture
def app(tmp_path: Path, dburi: str | None, app_config: dict[str, Any]) -> Iterator[Flask]:
    uri = dburi or f"sqlite:///{tmp_path / 'test.sqlite3'}"
    app = make_app(uri, **app_config)
    yield app
    with app.app_context():
        db.session.remove()
        db.drop_all()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
