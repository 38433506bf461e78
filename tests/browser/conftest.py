"""Browser-test fixtures: the app on a live server in a thread, and Debian's Chromium
driven by pytest-playwright at a phone viewport (390 x 844).

Every test in this folder is skipped, with the reason, when /usr/bin/chromium is absent
(``apt-get install chromium``). Reuse: ask for ``live_server`` (its ``url(path)``) and
pytest-playwright's ``page`` (a fresh phone-sized page whose relative URLs resolve
against the live server), or ``no_js_page`` for the same page with JavaScript off.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from scorekeeper.app import create_app
from scorekeeper.extensions import db

#: Debian's Chromium; SCOREKEEPER_CHROMIUM points elsewhere (or nowhere, to see the skip).
CHROMIUM = Path(os.environ.get("SCOREKEEPER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session", autouse=True)
def _chromium_installed() -> None:
    """Skip the browser tests (before any browser starts) when Chromium is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")


@dataclass(frozen=True)
class LiveServer:
    """The app served over HTTP for the browser."""

    app: Flask
    base_url: str

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path`` on this server."""
        return f"{self.base_url}{path}"


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, dburi: str | None
) -> Iterator[LiveServer]:
    """The app with fresh tables, served on a free port of 127.0.0.1 for the session."""
    uri = dburi or f"sqlite:///{tmp_path_factory.mktemp('live') / 'live.sqlite3'}"
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "browser-tests",
            "SQLALCHEMY_DATABASE_URI": uri,
            "WTF_CSRF_ENABLED": True,
        }
    )
    with app.app_context():
        db.drop_all()
        db.create_all()
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(app, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        thread.join(timeout=10)
        with app.app_context():
            db.session.remove()
            db.drop_all()
            db.engine.dispose()


@pytest.fixture(scope="session")
def base_url(live_server: LiveServer) -> str:
    """Relative URLs in ``page.goto`` and ``expect(...).to_have_url`` resolve here."""
    return live_server.base_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch Debian's Chromium, quietly (no network calls of its own)."""
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A phone: 390 x 844 with touch (``base_url`` is already in the defaults)."""
    return {**browser_context_args, "viewport": PHONE, "has_touch": True, "is_mobile": True}


@pytest.fixture
def no_js_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """The same phone with JavaScript turned off: the plain-HTML flows."""
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def until(page: Any, promise: str, timeout: float = 5_000) -> None:
    """Wait until the JavaScript expression ``promise`` resolves to something truthy.

    ``page.wait_for_function`` does not await a promise: it takes the promise object itself
    for true and returns at once. This asks again on every poll (one question at a time)
    and returns once an answer was truthy.
    """
    key = json.dumps(promise)
    page.wait_for_function(
        f"""() => {{
            const s = (window.__until = window.__until || {{}}), key = {key};
            if (s[key] === true) {{ delete s[key]; return true; }}
            if (!s["asking " + key]) {{
                s["asking " + key] = true;
                Promise.resolve().then(() => {promise}).then(
                    (v) => {{ s[key] = Boolean(v); }}, () => {{ s[key] = false; }}
                ).then(() => {{ s["asking " + key] = false; }});
            }}
            return false;
        }}""",
        timeout=timeout,
    )
