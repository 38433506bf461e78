"""Response headers that keep every page self-contained and strict; cookie flags.

Cookies are HttpOnly and SameSite=Lax (config.py). They are marked ``Secure`` when the
request came over HTTPS, or always with ``SCOREKEEPER_SESSION_COOKIE_SECURE=true``. Behind
a reverse proxy that terminates HTTPS, set ``SCOREKEEPER_PROXY_FIX`` to the number of
proxies in front: their ``X-Forwarded-For/-Proto/-Host`` headers are then trusted
(werkzeug's ProxyFix), so the app sees ``https`` and the client's address (which the rate
limits count by). Never set it without a proxy: anyone could then claim any address.
"""

from __future__ import annotations

from flask import Flask, Response, request
from werkzeug.middleware.proxy_fix import ProxyFix

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def register(app: Flask) -> None:
    """Add the security headers to every response; trust the configured proxies."""
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_prefix=proxies
        )

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if request.is_secure or app.config.get("SESSION_COOKIE_SECURE"):
            _secure_cookies(response)
        return response


def _secure_cookies(response: Response) -> None:
    """Mark every cookie of the response ``Secure`` (session, remember me, device list)."""
    cookies = response.headers.getlist("Set-Cookie")
    if not cookies:
        return
    del response.headers["Set-Cookie"]
    for cookie in cookies:
        flags = {part.strip().lower() for part in cookie.split(";")[1:]}
        response.headers.add("Set-Cookie", cookie if "secure" in flags else cookie + "; Secure")
