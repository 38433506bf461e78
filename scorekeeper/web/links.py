"""Absolute links the app hands out (a share link and its QR code): never built from a
``Host`` header nobody vouched for.

The ``Host`` header is whatever the client sent: building links from it let a request
with ``Host: evil.example`` get a page (and a QR code) pointing at ``http://evil.example/``,
which a cache in front of the server could hand to everyone. So an absolute link is made:

1. from ``PUBLIC_BASE_URL`` (``SCOREKEEPER_PUBLIC_BASE_URL``) when it is set;
2. else from the request's host when it is trusted: it passed ``TRUSTED_HOSTS``
   (``SCOREKEEPER_TRUSTED_HOSTS``, which makes Flask refuse any other host with 400), or
   it is ``localhost``, a loopback address or one of this machine's own addresses (what
   ``scorekeeper serve`` prints for the phones to open);
3. else not at all: the page links relatively and says how to get a shareable link.
"""

from __future__ import annotations

import functools
import ipaddress
from typing import Any

import segno
from flask import current_app, request, url_for

from .. import network


def public_url(endpoint: str, **values: Any) -> str | None:
    """The absolute URL of ``endpoint`` another phone can open, or None (see the module)."""
    base = current_app.config.get("PUBLIC_BASE_URL")
    if base:
        path = url_for(endpoint, **values)
        root = request.script_root
        if root and path.startswith(root):
            path = path[len(root) :]  # the base URL names where the app is mounted
        return str(base).rstrip("/") + path
    if host_trusted():
        root = _network_root()
        if root is not None:
            return root + url_for(endpoint, **values)
        return url_for(endpoint, _external=True, **values)
    return None


def _network_root() -> str | None:
    """For a browser on the server's own computer (``localhost``, ``127.0.0.1``), the root
    the phones on the network open instead, when the server listens there: a link or QR
    code of 127.0.0.1 opens nothing on another phone, and said nothing about it."""
    if not network.is_loopback(hostname(request.host)):
        return None
    if current_app.config.get("LISTENING_ON") not in network.EVERY_INTERFACE:
        return None  # not served by ``scorekeeper serve`` on every interface
    addresses = network_addresses()
    if not addresses:
        return None
    name = hostname(request.host)
    port = request.host.removeprefix("[")[len(name) :].lstrip("]")  # ":8000", or ""
    return f"{request.scheme}://{addresses[0]}{port}{request.script_root}"


def private_link(endpoint: str, **values: Any) -> str:
    """An absolute link shown only to the person who asked for it (an invitation or a
    password reset link, in a page that is not cached): ``PUBLIC_BASE_URL`` when set, else
    the host this very browser used, since a link a visitor cannot open is useless and
    the request came from the browser that will show it."""
    return public_url(endpoint, **values) or url_for(endpoint, _external=True, **values)


def host_trusted() -> bool:
    """Whether the request's ``Host`` may be used in a link (see the module)."""
    if current_app.config.get("TRUSTED_HOSTS"):
        return True  # Flask answered any other host with 400 before the view ran
    name = hostname(request.host)
    if name.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # a name nobody configured
    return address.is_loopback or str(address) in own_addresses()


def hostname(host: str) -> str:
    """``"[::1]:8000"`` -> ``"::1"``, ``"192.168.1.10:8000"`` -> ``"192.168.1.10"``."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


@functools.lru_cache(maxsize=1)
def network_addresses() -> tuple[str, ...]:
    """This machine's network addresses, in the order ``serve`` prints them (looked up
    once, nothing sent on the network)."""
    return tuple(network.local_addresses())


def own_addresses() -> frozenset[str]:
    """This machine's network addresses, to tell a request's host is one of them."""
    return frozenset(network_addresses())


def qr_svg(url: str, title: str) -> str:
    """An inline SVG QR code of ``url`` (dark on light, so it scans in dark mode too), its
    ``title`` saying what the link is for (read out by screen readers)."""
    return str(
        segno.make(url, error="m").svg_inline(
            scale=4,
            border=4,
            dark="#000",
            light="#fff",
            omitsize=True,
            svgclass="qr",
            lineclass=None,
            title=title,
        )
    )
