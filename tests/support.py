"""Helpers any test module may import (``from support import ...``): pytest puts this
folder on the import path for its root conftest."""

from __future__ import annotations

import re
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
