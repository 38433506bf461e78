"""Where a ``next=`` parameter may send a browser: a path on this site, nothing else."""

from __future__ import annotations

from urllib.parse import urlsplit


def local_path(target: str | None) -> str | None:
    """``target`` if it is a path on this site, else None.

    Never ``//host``, ``/\\host`` or a scheme, and never with whitespace or a control
    character inside: browsers and Werkzeug drop a tab or a line break from a URL, so
    ``/<tab>/evil.example`` became ``//evil.example`` (an open redirect), and a line break
    in a redirect's ``Location`` was a 500. The site's own links are percent-encoded, so
    none of these is lost.
    """
    target = (target or "").strip()
    if not target.startswith("/") or target.startswith(("//", "/\\")) or "\\" in target:
        return None
    if any(not ch.isprintable() or ch.isspace() for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return target
