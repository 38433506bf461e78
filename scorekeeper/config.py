"""Settings: defaults here, then the instance folder's config.py, then the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from flask import Flask

from .engine.errors import phrase
from .secret_key import instance_secret

ENV_PREFIX = "SCOREKEEPER_"


class SettingsError(RuntimeError):
    """A setting that cannot work; the message says which and what it should look like."""


class Defaults:
    """The defaults: SQLite in the instance folder, CSRF on, sessions that last a night."""

    SQLALCHEMY_ENGINE_OPTIONS: ClassVar[dict[str, Any]] = {"pool_pre_ping": True}
    WTF_CSRF_TIME_LIMIT = None  # a game night is longer than an hour
    MAX_CONTENT_LENGTH = 256 * 1024
    BABEL_DEFAULT_LOCALE = "en"
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SECURE = False  # True to always mark cookies Secure; see web/security.py
    REMEMBER_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_DURATION = 30 * 24 * 3600  # as services.accounts.REMEMBER_DAYS
    PROXY_FIX = 0  # how many proxies in front set X-Forwarded-* (0: trust none)
    # Tries counted in the app's database, shared by all processes (services/rate_limits.py)
    RATELIMIT_STORAGE_URI = "database://"
    RATELIMIT_HEADERS_ENABLED = True
    RATELIMIT_LOGIN = "10 per minute;60 per hour"
    # Log-in tries naming one account, from any address (the limit above is per address)
    RATELIMIT_LOGIN_ACCOUNT = "30 per hour"
    RATELIMIT_SIGNUP = "5 per minute;30 per hour"
    RATELIMIT_RESET = "10 per minute;60 per hour"
    # Tries at the password of the account logged in (changing it, closing the account):
    # a stolen log-in must not be a way to guess the password
    RATELIMIT_PASSWORD = "10 per minute;60 per hour"
    RECENT_MATCHES = 10
    PAGE_CACHE_SIZE = 512  # rendered page bodies kept per process (web/page_cache.py); 0: none
    # Server processes serving the database at once: ``serve --workers`` sets it for its
    # own; set it for gunicorn's. On SQLite a deal's save reads before its turn to write
    # only with more than one (``database.reads_before_writing``).
    SERVER_PROCESSES = 1
    #: The address ``scorekeeper serve`` listens on (set by it; None: served otherwise).
    LISTENING_ON: str | None = None


def load_settings(app: Flask, test_config: dict[str, Any] | None) -> None:
    """Apply defaults, the instance config, the environment, then ``test_config``."""
    app.config.from_object(Defaults)
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env(ENV_PREFIX.rstrip("_"))
    if os.environ.get("DATABASE_URL"):
        app.config["SQLALCHEMY_DATABASE_URI"] = normalise_db_url(os.environ["DATABASE_URL"])
    if test_config:
        app.config.update(test_config)
    app.config.setdefault(
        "SQLALCHEMY_DATABASE_URI",
        "sqlite:///" + str(Path(app.instance_path) / "scorekeeper.sqlite3"),
    )
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = instance_secret(Path(app.instance_path))
    _address_settings(app)


def _address_settings(app: Flask) -> None:
    """``PUBLIC_BASE_URL``: where phones reach the app (used for every absolute link);
    ``TRUSTED_HOSTS``: the host names the app answers to (a list, or names separated by
    commas in the environment); see ``web.links``. ``PAGE_CACHE_SIZE``: page bodies kept
    per process (``web.page_cache``). ``SERVER_PROCESSES``: see ``Defaults``."""
    base = app.config.get("PUBLIC_BASE_URL")
    if base:
        parts = urlsplit(str(base))
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
            raise SettingsError(
                phrase(
                    "SCOREKEEPER_PUBLIC_BASE_URL must be where phones reach the app, like"
                    " https://scores.example.org or http://192.168.1.10:8000 (not %(base)s).",
                    base=repr(base),
                )
            )
        app.config["PUBLIC_BASE_URL"] = str(base).rstrip("/")
    size = app.config.get("PAGE_CACHE_SIZE")
    if not _whole(size, 0):
        raise SettingsError(
            phrase(
                "SCOREKEEPER_PAGE_CACHE_SIZE must be a whole number of pages to keep, 0 or"
                " more (0 keeps none), not %(size)s.",
                size=repr(size),
            )
        )
    processes = app.config.get("SERVER_PROCESSES")
    if not _whole(processes, 1):
        raise SettingsError(
            phrase(
                "SCOREKEEPER_SERVER_PROCESSES must be how many server processes share the"
                " database, 1 or more, not %(n)s.",
                n=repr(processes),
            )
        )
    hosts = app.config.get("TRUSTED_HOSTS")
    if isinstance(hosts, str):
        app.config["TRUSTED_HOSTS"] = [h.strip() for h in hosts.split(",") if h.strip()] or None


def _whole(value: Any, least: int) -> bool:
    """Whether a setting is a whole number (not a bool: JSON's ``true``) of ``least`` or more."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def normalise_db_url(url: str) -> str:
    """``postgres://`` and ``postgresql://`` URLs use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url
