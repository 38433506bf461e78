"""Rate limits on log-in, sign-up and reset links (in the app's database by default, shared
by several server processes; or Redis); cookie flags, HTTPS and the trusted proxy."""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select
from support import PASSWORD, ensure_account, log_in, make_app, signed_in_client

from scorekeeper.extensions import db
from scorekeeper.models import RateLimitCount
from scorekeeper.services import rate_limits

REDIS = "redis://127.0.0.1:6379/5"


def wrong_login(client, **extra):
    return client.post("/login", data={"username": "ana", "password": "wrong one"}, **extra)


def test_logging_in_is_limited_per_address_and_the_page_says_to_wait(app: Flask) -> None:
    app.config["RATELIMIT_LOGIN"] = "3 per minute"
    ensure_account(app, "ana")
    client = app.test_client()
    assert [wrong_login(client).status_code for _ in range(3)] == [422, 422, 422]
    blocked = wrong_login(client)
    assert blocked.status_code == 429
    assert "Too many tries from here" in blocked.get_data(as_text=True)
    elsewhere = wrong_login(client, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert elsewhere.status_code == 422  # another address has its own count
    assert client.get("/login").status_code == 200  # only posts are counted


def test_signing_up_and_reset_links_are_limited_too(app: Flask) -> None:
    app.config["RATELIMIT_SIGNUP"] = "2 per minute"
    app.config["RATELIMIT_RESET"] = "2 per minute"
    client = app.test_client()
    codes = [client.post("/signup", data={"username": f"u{i}", "password": "x"}).status_code
             for i in range(3)]  # fmt: skip
    assert codes == [422, 422, 429]
    assert [client.post("/reset/nothing").status_code for _ in range(3)] == [404, 404, 429]


def test_tries_at_the_logged_in_accounts_password_are_limited(app: Flask) -> None:
    # changing the password and closing the account each ask for it: a log-in taken from
    # someone is not a way to guess their password
    app.config["RATELIMIT_PASSWORD"] = "2 per minute"
    client = signed_in_client(app, "ana")
    wrong = {"current": "not it", "new": "a new password"}
    assert [client.post("/account", data=wrong).status_code for _ in range(3)] == [422, 422, 429]
    closing = [client.post("/account/close", data={"password": "no"}) for _ in range(3)]
    assert [answer.status_code for answer in closing] == [422, 422, 429]
    assert "Too many tries" in closing[-1].get_data(as_text=True)
    assert client.get("/account").status_code == 200  # reading the page is not a try


def _redis_reachable() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping())
    except Exception:
        return False


SHARED = [
    pytest.param("database://", id="database"),
    pytest.param(
        REDIS,
        id="redis",
        marks=pytest.mark.skipif(not _redis_reachable(), reason=f"no Redis answers at {REDIS}"),
    ),
]


@pytest.mark.parametrize("storage", SHARED)
def test_two_server_processes_share_one_count(tmp_path: Path, dburi, storage: str) -> None:
    uri = dburi or f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    prefix = f"sk-test-{secrets.token_hex(4)}"
    settings = {"RATELIMIT_STORAGE_URI": storage, "RATELIMIT_KEY_PREFIX": prefix,
                "RATELIMIT_LOGIN": "4 per minute"}  # fmt: skip
    first = make_app(uri, **settings)
    ensure_account(first, "ana")
    second = create_second(uri, settings)
    a, b = first.test_client(), second.test_client()
    codes = [wrong_login(c).status_code for c in (a, b, a, b)]
    assert codes == [422, 422, 422, 422]
    assert wrong_login(a).status_code == 429 and wrong_login(b).status_code == 429
    with first.app_context():
        db.engine.dispose()
    with second.app_context():
        db.engine.dispose()


def test_the_default_storage_is_the_database_and_a_refused_try_still_counts(app: Flask) -> None:
    app.config["RATELIMIT_LOGIN"] = "2 per minute"
    ensure_account(app, "ana")
    client = app.test_client()
    assert [wrong_login(client).status_code for _ in range(3)] == [422, 422, 429]
    with app.app_context():
        rows = db.session.execute(select(RateLimitCount.key, RateLimitCount.count)).all()
    # the failed log-ins rolled their requests back; the counts were committed apart
    by_address = [(key, count) for key, count in rows if "127.0.0.1" in key]
    assert [count for _key, count in by_address] == [3]
    assert "login" in by_address[0][0]
    # the account's own count holds no username (a digest of it)
    assert all("ana" not in key for key, _count in rows)


def test_log_in_tries_naming_one_account_are_limited_from_every_address(app: Flask) -> None:
    """Many addresses each under their own limit could still guess one password."""
    app.config["RATELIMIT_LOGIN_ACCOUNT"] = "4 per hour"
    ensure_account(app, "ana")
    ensure_account(app, "ben")
    client = app.test_client()
    codes = [
        wrong_login(client, environ_base={"REMOTE_ADDR": f"10.0.0.{i}"}).status_code
        for i in range(4)
    ]
    assert codes == [422, 422, 422, 422]
    # a fifth address, the right password, "Ana" spelled otherwise: the account's limit
    blocked = client.post(
        "/login",
        data={"username": " ANA ", "password": PASSWORD},
        environ_base={"REMOTE_ADDR": "10.0.0.9"},
    )
    assert blocked.status_code == 429
    assert "Too many log-in tries for this account" in blocked.get_data(as_text=True)
    # another account logs in from that address
    ben = client.post(
        "/login",
        data={"username": "ben", "password": PASSWORD},
        environ_base={"REMOTE_ADDR": "10.0.0.9"},
    )
    assert ben.status_code == 303


class Clock:
    """``time.time`` of the storage, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(rate_limits.time, "time", clock)
    return clock


def test_a_window_counts_until_it_ends_then_a_new_one_starts(app: Flask, clock: Clock) -> None:
    storage = rate_limits.DatabaseStorage()
    with app.app_context():
        assert storage.check()
        assert (storage.get("a"), storage.get_expiry("a")) == (0, clock.now)
        assert [storage.incr("a", 60) for _ in range(3)] == [1, 2, 3]
        assert storage.incr("a", 60, amount=2) == 5
        assert storage.incr("b", 10) == 1
        assert (storage.get("a"), storage.get_expiry("a")) == (5, 1_000_060.0)
        clock.now += 30  # b's window has ended, a's has not
        assert (storage.get("a"), storage.get("b")) == (5, 0)
        assert storage.incr("a", 60) == 6
        assert storage.get_expiry("a") == 1_000_060.0  # a try does not move the window
        assert storage.incr("b", 100) == 1  # a new window for b
        assert storage.get_expiry("b") == 1_000_130.0
        clock.now += 30  # a's window ends exactly now
        assert storage.get("a") == 0
        assert storage.incr("a", 60) == 1
        assert storage.get_expiry("a") == 1_000_120.0
        storage.clear("a")
        assert storage.get("a") == 0 and storage.get("b") == 1
        assert storage.reset() == 1
        assert storage.get("b") == 0


def test_a_try_removes_the_rows_whose_window_ended(app: Flask, clock: Clock) -> None:
    storage = rate_limits.DatabaseStorage()
    with app.app_context():
        for n in range(5):
            storage.incr(f"once-{n}", 60)
        storage.incr("later", 600)
        clock.now += 61
        storage.incr("now", 60)
        keys = set(db.session.scalars(select(RateLimitCount.key)))
    assert keys == {"later", "now"}


def test_tries_at_once_are_each_counted_once(app: Flask) -> None:
    storage = rate_limits.DatabaseStorage()
    counts: list[int] = []
    start = threading.Barrier(6)

    def tries() -> None:
        with app.app_context():
            start.wait()
            for _ in range(10):
                counts.append(storage.incr("busy", 60))

    threads = [threading.Thread(target=tries) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counts) == list(range(1, 61))
    with app.app_context():
        assert storage.get("busy") == 60


def create_second(uri: str, settings: dict) -> Flask:
    """Another app on the same database, as a second server process would be."""
    from scorekeeper.app import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": uri,
                       "WTF_CSRF_ENABLED": False, **settings})  # fmt: skip


def set_cookies(response) -> list[str]:
    return response.headers.getlist("Set-Cookie")


def test_cookies_are_httponly_and_samesite_lax_and_not_secure_over_plain_http(
    app: Flask,
) -> None:
    ensure_account(app, "ana")
    client = app.test_client()
    response = client.post(
        "/login", data={"username": "ana", "password": PASSWORD, "remember": "y"}
    )
    cookies = set_cookies(response)
    assert {c.split("=")[0] for c in cookies} >= {"session", "remember_token"}
    for cookie in cookies:
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie


def test_cookies_are_secure_when_the_request_came_over_https(app: Flask) -> None:
    ensure_account(app, "ana")
    client = app.test_client()
    response = client.post(
        "/login",
        data={"username": "ana", "password": PASSWORD, "remember": "y"},
        base_url="https://localhost",
    )
    assert all("; Secure" in c for c in set_cookies(response))


def test_behind_a_trusted_proxy_its_https_header_makes_cookies_secure(
    tmp_path: Path, dburi
) -> None:
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"}
    for proxies, secure in ((1, True), (0, False)):
        uri = dburi or f"sqlite:///{tmp_path / f'proxy{proxies}.sqlite3'}"
        app = make_app(uri, PROXY_FIX=proxies)
        ensure_account(app, "ana")
        response = app.test_client().post(
            "/login", data={"username": "ana", "password": PASSWORD}, headers=https
        )
        assert response.status_code == 303
        assert all(("; Secure" in c) is secure for c in set_cookies(response)), proxies


def test_the_secure_setting_marks_cookies_secure_even_over_http(app: Flask) -> None:
    app.config["SESSION_COOKIE_SECURE"] = True
    client = app.test_client()
    log_in(client, "ana")
    response = client.post("/logout")
    assert all("; Secure" in c for c in set_cookies(response))
