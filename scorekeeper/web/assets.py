"""Static files under versioned URLs, cached for a year; compression by Flask-Compress.

Every file under static/ gets a short content hash, computed once at startup. Each
``url_for("static", filename=...)`` adds it as ``?v=<hash>``, so a changed file gets a
new URL and a browser may keep the old one forever: a request whose ``v`` is the file's
hash is answered with ``Cache-Control: public, max-age=31536000, immutable``; an
unversioned (or outdated) URL gets a short cache. HTML pages are never cached long
(``no-cache``: a browser asks again each time), because they carry the live scores.

Minification: our own scripts and stylesheets are sent minified (calmjs.parse for scripts:
comments and spaces dropped and the names local to a function shortened, globals and
properties kept; rcssmin for stylesheets; a script calmjs.parse cannot read as ES5 goes
through rjsmin instead, which only drops comments and spaces); vendored files
(``vendor/``, ``*.min.*``) are sent as they are. The source files stay readable;
``STATIC_MINIFY`` (off in debug) turns it off. The URL's hash is the source's, so it
changes whenever the source does.

Compression: Flask-Compress (brotli, then gzip) for every text response of at least
``COMPRESS_MIN_SIZE`` bytes; the compressed bytes of a versioned static file are kept in
memory (they never change for that URL), so each file is compressed once per encoding.
So are the bytes of a response that stays the same for as long as the app runs (the
service worker's script, fetched on every first visit: ``FIXED_BODIES``).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import mimetypes
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brotli
import rcssmin
import rjsmin
from calmjs.parse import es5
from calmjs.parse.exceptions import ECMASyntaxError, ProductionError
from calmjs.parse.unparsers.es5 import minify_print
from flask import Flask, Request, Response, abort, current_app, request
from flask_compress import Compress

logger = logging.getLogger(__name__)

IMMUTABLE = "public, max-age=31536000, immutable"
SHORT = "public, max-age=300"
HTML = "no-cache"
HASH_LENGTH = 12

mimetypes.add_type("application/manifest+json", ".webmanifest")
mimetypes.add_type("image/svg+xml", ".svg")
mimetypes.add_type("text/javascript", ".js")

compress = Compress()

#: Endpoints whose answer is the same for as long as the app runs, each with the function
#: that makes its body (called in a request of the app): compressed once at the best
#: level and kept, like a versioned static file (see web/pwa.py).
FIXED_BODIES: dict[str, Callable[[], bytes]] = {}


def content_hashes(folder: Path) -> dict[str, str]:
    """``{"css/app.css": "1a2b3c4d5e6f", ...}``: a short SHA-256 of each static file."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()[
            :HASH_LENGTH
        ]
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def static_bytes(path: Path, minify: bool) -> bytes:
    """The bytes a static file is sent as: minified when it is one of our scripts or
    stylesheets (and ``minify``), else the file's own."""
    data = path.read_bytes()
    vendored = "vendor" in path.parts or ".min." in path.name
    if not minify or vendored or path.suffix not in (".js", ".css"):
        return data
    return _minified(path.suffix, data)


@functools.lru_cache(maxsize=256)
def _minified(suffix: str, data: bytes) -> bytes:
    text = data.decode("utf-8")
    if suffix == ".js":
        return _minified_script(text).encode("utf-8")
    return str(rcssmin.cssmin(text)).encode("utf-8")


def _minified_script(text: str) -> str:
    """The script with its local names shortened (about 13% fewer bytes after brotli than
    spaces and comments alone); rjsmin's plain minification if it is not ES5."""
    try:
        return str(minify_print(es5(text), obfuscate=True, obfuscate_globals=False))
    except (ECMASyntaxError, ProductionError) as error:
        logger.warning("calmjs.parse could not read a script (%s): sent rjsmin's", error)
        return str(rjsmin.jsmin(text))


class StaticCompressionCache:
    """A Flask-Compress cache backend that keeps only versioned static files.

    Flask-Compress asks it for every response; keys that end in ``;`` (see
    :func:`compression_key`) are never kept, so pages are compressed afresh each time, at
    Flask-Compress's quick levels. A versioned static file, and the body of an endpoint of
    ``FIXED_BODIES``, is compressed here instead, at the best level (brotli 11, gzip 9),
    once, on its first request, and then served from memory for as long as the app runs.
    """

    def __init__(self, folder: Path, minify: bool = True) -> None:
        self._folder = folder
        self._minify = minify
        self._lock = threading.Lock()
        self._store: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        algorithm, _, url = key.partition(";")
        if not url or key in self._store:
            return self._store.get(key)
        try:
            data = self._body(url)
        except OSError:  # removed since the app started: Flask-Compress answers the 404
            return None
        if algorithm == "br":
            value = brotli.compress(data, quality=11)
        elif algorithm == "gzip":
            value = gzip.compress(data, compresslevel=9, mtime=0)
        else:  # an algorithm this app does not enable: let Flask-Compress do it
            return None
        with self._lock:
            self._store[key] = value
        return value

    def set(self, key: str, value: bytes) -> None:
        """Nothing to do: :meth:`get` keeps what it makes."""

    def _body(self, url: str) -> bytes:
        if url in FIXED_BODIES:
            return FIXED_BODIES[url]()
        return static_bytes(
            self._folder / url.removeprefix("/static/").partition("?")[0], self._minify
        )


def compression_key(req: Request) -> str:
    """The cache key of a versioned static file or of a ``FIXED_BODIES`` endpoint (its
    name), or ``""`` (not cached) for the rest."""
    if req.endpoint == "static" and _is_current(req):
        return f"{req.path}?v={req.args['v']}"
    if req.endpoint in FIXED_BODIES:
        return req.endpoint
    return ""


def _is_current(req: Request) -> bool:
    filename = (req.view_args or {}).get("filename", "")
    hashes: dict[str, str] = current_app.extensions["asset_hashes"]
    return bool(req.args.get("v")) and hashes.get(filename) == req.args.get("v")


def register(app: Flask) -> None:
    """Hash the static files, version their URLs, serve them with long caching, compress."""
    folder = Path(app.static_folder or "static")
    hashes = content_hashes(folder)
    app.extensions["asset_hashes"] = hashes
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIN_SIZE", 256)  # below it, headers outweigh the gain
    app.config.setdefault("COMPRESS_BR_LEVEL", 5)  # a page in under 1 ms, 7% below level 4
    app.config.setdefault("STATIC_MINIFY", not app.debug)
    minify = bool(app.config["STATIC_MINIFY"])
    app.config.setdefault("COMPRESS_CACHE_BACKEND", lambda: StaticCompressionCache(folder, minify))
    app.config.setdefault("COMPRESS_CACHE_KEY", compression_key)
    compress.init_app(app)

    @app.url_defaults
    def _version_static(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint == "static" and "v" not in values:
            digest = hashes.get(values.get("filename", ""))
            if digest:
                values["v"] = digest

    def serve_static(filename: str) -> Response:
        path = (folder / filename).resolve()
        if folder.resolve() not in path.parents or not path.is_file():
            abort(404)
        mimetype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        response = Response(static_bytes(path, minify), mimetype=mimetype)
        current = _is_current(request) and not app.debug
        response.headers["Cache-Control"] = IMMUTABLE if current else SHORT
        response.set_etag(hashes.get(filename, "") or hashlib.sha256(response.data).hexdigest())
        return response.make_conditional(request)

    app.view_functions["static"] = serve_static

    @app.after_request
    def _html_not_cached_long(response: Response) -> Response:
        if response.mimetype == "text/html" and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = HTML
        return response
