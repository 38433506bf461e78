"""Helpers any test module may import (``from support import ...``): pytest puts this
folder on the import path for its root conftest."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from flask import Flask

from scorekeeper.app import create_app
from scorekeeper.extensions import db


def make_app(uri: str, **config: Any) -> Flask:
    """An app on ``uri`` with empty tables (for tests that cannot use fixtures)."""
    settings = {
        "TESTING": True,
        "SECRET_KEY": "test",
        "SQLALCHEMY_DATABASE_URI": uri,
        "WTF_CSRF_ENABLED": False,
    }
    settings.update(config)
    app = create_app(settings)
    with app.app_context():
        db.drop_all()
        db.create_all()
    return app


def csrf_token_of(html: str) -> str:
    """The CSRF token rendered in a page."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html) or re.search(
        r'"X-CSRFToken": "([^"]+)"', html
    )
    assert match, "no CSRF token in the page"
    return match.group(1)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (free when this returns)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: The password of every test account (long enough; no composition rules).
PASSWORD = "correct horse battery"


def ensure_account(app: Flask, username: str = "owner") -> None:
    """Make the account ``username`` (password ``PASSWORD``) unless it exists."""
    from scorekeeper.services import accounts

    with app.app_context():
        if accounts.find(username) is None:
            accounts.sign_up(username, PASSWORD)


def give_role(
    app: Flask, club_public_id: str, username: str = "owner", role: str = "owner"
) -> None:
    """Make ``username`` (made if needed) a ``role`` of the club."""
    from scorekeeper.services import accounts, clubs, memberships

    ensure_account(app, username)
    with app.app_context():
        club = clubs.get_club(club_public_id)
        assert club is not None
        memberships.add_member(club, accounts.find(username), role)  # type: ignore[arg-type]


def log_in(client: Any, username: str = "owner", password: str = PASSWORD) -> None:
    """Log the test client in as ``username`` through the form (made if needed)."""
    ensure_account(client.application, username)
    page = client.get("/login").get_data(as_text=True)
    data = {"username": username, "password": password}
    if client.application.config.get("WTF_CSRF_ENABLED", True):
        data["csrf_token"] = csrf_token_of(page)
    response = client.post("/login", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)


def owner_client(app: Flask, *club_public_ids: str, username: str = "owner") -> Any:
    """A test client logged in as an owner of these clubs."""
    for public_id in club_public_ids:
        give_role(app, public_id, username, "owner")
    client = app.test_client()
    log_in(client, username)
    return client


def signed_in_client(app: Flask, username: str = "owner") -> Any:
    """A test client logged in as ``username`` (made if needed)."""
    client = app.test_client()
    log_in(client, username)
    return client


def account_id(app: Flask, username: str = "owner") -> int:
    """The id of the account ``username`` (made if needed), to own what a test saves."""
    from scorekeeper.services import accounts

    ensure_account(app, username)
    with app.app_context():
        found = accounts.find(username)
        assert found is not None
        return found.id


#: The checkout's root: the bench scripts import ``bench`` from there (it is not installed).
ROOT = Path(__file__).resolve().parents[1]


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py``, imported as the script imports itself: ``bench`` is not
    installed, so the checkout's root goes on the import path first."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"bench.{name}")
