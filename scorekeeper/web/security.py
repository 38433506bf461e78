"""Response headers that keep every page self-contained and strict; cookie flags.

Cookies are HttpOnly and SameSite=Lax (config.py). They are marked ``Secure`` when the
request came over HTTPS, or always with ``SCOREKEEPER_SESSION_COOKIE_SECURE=true``. Behind
a reverse proxy that terminates HTTPS, set ``SCOREKEEPER_PROXY_FIX`` to the number of
proxies in front: their ``X-Forwarded-For/-Proto/-Host`` headers are then trusted
(werkzeug's ProxyFix), so the app sees ``https`` and the client's address (which the rate
limits count by). Never set it without a proxy: anyone could then claim any address.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def register(app: Flask) -> None:
    """Add the security headers to every response; trust the configured proxies."""
    app.wsgi_app = SecureCookies(app.wsgi_app, app)  # type: ignore[method-assign]
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies > 0:  # outside SecureCookies: it sees the scheme the proxy reported
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_prefix=proxies
        )

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response


class SecureCookies:
    """WSGI middleware: every cookie (session, remember me, device list) gets ``Secure``
    on an HTTPS request or with ``SESSION_COOKIE_SECURE``. It works on the final headers,
    after Flask and Flask-Login have set their cookies."""

    def __init__(self, wsgi_app: Any, app: Flask) -> None:
        self.wsgi_app, self.app = wsgi_app, app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        always = bool(self.app.config.get("SESSION_COOKIE_SECURE"))
        if not always and environ.get("wsgi.url_scheme") != "https":
            return self.wsgi_app(environ, start_response)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers = [(k, _secure(v) if k.lower() == "set-cookie" else v) for k, v in headers]
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def _secure(cookie: str) -> str:
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    return cookie if "secure" in flags else cookie + "; Secure"
