"""Rate limits on log-in, sign-up and reset links (memory, or Redis shared by several
server processes); cookie flags, HTTPS and the trusted proxy."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from flask import Flask
from support import PASSWORD, ensure_account, log_in, make_app

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


def _redis_reachable() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping())
    except Exception:
        return False


@pytest.mark.skipif(not _redis_reachable(), reason=f"no Redis answers at {REDIS}")
def test_two_server_processes_share_one_count_in_redis(tmp_path: Path, dburi) -> None:
    uri = dburi or f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    prefix = f"sk-test-{secrets.token_hex(4)}"
    settings = {"RATELIMIT_STORAGE_URI": REDIS, "RATELIMIT_KEY_PREFIX": prefix,
                "RATELIMIT_LOGIN": "4 per minute"}  # fmt: skip
    first = make_app(uri, **settings)
    ensure_account(first, "ana")
    second = create_second(uri, settings)
    a, b = first.test_client(), second.test_client()
    codes = [wrong_login(c).status_code for c in (a, b, a, b)]
    assert codes == [422, 422, 422, 422]
    assert wrong_login(a).status_code == 429 and wrong_login(b).status_code == 429


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
