"""Light on the wire (issue 13): compressed responses, static files cached for a year under
versioned URLs, and the match page's weight on a first and a repeat visit.

Bytes are counted as they travel: each response's own body, compressed as its
``Content-Encoding`` says (and checked to decode to the same bytes as the plain answer).
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import brotli
import pytest
from flask.testing import FlaskClient
from helpers import SIDE_A_COUNTS, SIDE_B_POINTS, enter_deal, start_match

from scorekeeper.web.security import CSP

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
#: Issue 13's budgets: a first visit of the match page (three deals in) at most 30 KB on
#: the wire, a repeat visit at most 6 KB (only the HTML).
FIRST_VISIT_BUDGET = 30 * 1024
REPEAT_VISIT_BUDGET = 6 * 1024
IMMUTABLE = "public, max-age=31536000, immutable"
#: What a page makes the browser fetch: stylesheets, scripts, icons, the manifest, and the
#: service worker the page registers.
REFERENCES = re.compile(r'<(?:link|script)\b[^>]*?\b(?:href|src)="(/[^"]+)"|\bdata-sw="(/[^"]+)"')


@dataclass(frozen=True)
class Fetched:
    url: str
    wire: int  # the bytes of the body as sent
    encoding: str | None
    cache_control: str
    etag: str | None
    status: int = 200


def decoded(response: Any) -> bytes:
    """The body as the browser reads it, after undoing its Content-Encoding."""
    encoding = response.headers.get("Content-Encoding")
    if encoding == "br":
        return brotli.decompress(response.data)
    if encoding == "gzip":
        return gzip.decompress(response.data)
    assert encoding is None, encoding
    return response.data


def fetch(client: FlaskClient, url: str, etag: str | None = None) -> tuple[Fetched, bytes]:
    """``url`` as a browser fetches it (revalidating with ``etag`` when it has one)."""
    if etag:
        response = client.get(url, headers={**BROWSER, "If-None-Match": etag})
        if response.status_code == 304:
            return Fetched(url, len(response.data), None, "", etag, 304), b""
    response = client.get(url, headers=BROWSER)
    assert response.status_code == 200, url
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    body = decoded(response)
    if response.mimetype != "text/html":  # a page carries a fresh CSRF token each time
        assert body == plain.data, f"{url} does not decode to its plain bytes"
    info = Fetched(
        url,
        len(response.data),
        response.headers.get("Content-Encoding"),
        response.headers.get("Cache-Control", ""),
        response.headers.get("ETag"),
    )
    return info, body


def visit(client: FlaskClient, path: str, before: list[Fetched] | None = None) -> list[Fetched]:
    """The page and everything its HTML makes the browser load (the service worker too).

    A repeat visit (``before``: what the first one fetched) takes what is cached as
    immutable from the browser's cache, and revalidates the rest with its ETag.
    """
    known = {f.url: f for f in before or []}
    page, html = fetch(client, path)
    urls = [u.replace("&amp;", "&") for m in REFERENCES.findall(html.decode()) for u in m if u]
    loads = [page]
    for url in dict.fromkeys(urls):
        if url in known and known[url].cache_control == IMMUTABLE:
            continue
        loads.append(fetch(client, url, known[url].etag if url in known else None)[0])
    return loads


@pytest.fixture
def match_url(client: FlaskClient) -> str:
    """A classic match at its heaviest while it is still played: three deals in (each adds
    a row, a history line and a chart point), the form for the fourth."""
    public_id = start_match(client)
    for _ in range(3):
        response = enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
        assert response.status_code == 303
    return f"/m/{public_id}"


def test_a_first_visit_of_a_match_page_with_everything_it_loads_weighs_at_most_30_kb(
    client: FlaskClient, match_url: str
) -> None:
    loads = visit(client, match_url)
    assert len(loads) >= 5, loads  # the page, its stylesheets and its scripts
    assert "/sw.js" in {f.url for f in loads}
    total = sum(f.wire for f in loads)
    assert total <= FIRST_VISIT_BUDGET, [(f.url, f.wire) for f in loads]


def test_a_repeat_visit_fetches_only_the_html_and_weighs_at_most_6_kb(
    client: FlaskClient, match_url: str
) -> None:
    first = visit(client, match_url)
    again = visit(client, match_url, before=first)
    assert [f.url for f in again if f.status == 200] == [match_url]
    assert {f.url for f in again if f.status == 304} == {"/manifest.webmanifest", "/sw.js"}
    assert sum(f.wire for f in again) <= REPEAT_VISIT_BUDGET


def test_pages_and_assets_are_sent_compressed_with_brotli_or_gzip(
    client: FlaskClient, match_url: str
) -> None:
    for fetched in visit(client, match_url):
        if fetched.wire >= 500 or fetched.encoding:
            assert fetched.encoding == "br", fetched
    response = client.get(match_url, headers={"Accept-Encoding": "gzip"})
    assert response.headers["Content-Encoding"] == "gzip"
    assert b"Enter deal 4" in gzip.decompress(response.data)
    assert "Accept-Encoding" in response.headers["Vary"]


def test_the_service_worker_is_compressed_once_at_the_best_level_and_still_revalidates(
    client: FlaskClient,
) -> None:
    """Every first visit fetches /sw.js, the same bytes for as long as the app runs: it is
    compressed as a versioned static file is (brotli 11, gzip 9), not at a page's quick
    level, and a browser that has it still gets a 304."""
    plain = client.get("/sw.js", headers={"Accept-Encoding": "identity"})
    assert plain.data.startswith(b"self.SCOREKEEPER = ")
    for encoding, best in (
        ("br", brotli.compress(plain.data, quality=11)),
        ("gzip", gzip.compress(plain.data, compresslevel=9, mtime=0)),
    ):
        for _ in range(2):  # made on the first request, kept for the next
            response = client.get("/sw.js", headers={"Accept-Encoding": encoding})
            assert response.headers["Content-Encoding"] == encoding
            assert response.data == best
            assert response.headers["Service-Worker-Allowed"] == "/"
        etag = response.headers["ETag"]
        again = client.get("/sw.js", headers={"Accept-Encoding": encoding, "If-None-Match": etag})
        assert again.status_code == 304 and again.data == b""
    assert len(brotli.compress(plain.data, quality=5)) > len(
        brotli.compress(plain.data, quality=11)
    )


def test_a_body_too_small_to_gain_from_compression_is_sent_as_it_is(app: Any) -> None:
    app.add_url_rule("/tiny", "tiny", lambda: "<p>" + "tiny " * 40 + "</p>")
    response = app.test_client().get("/tiny", headers=BROWSER)
    assert response.mimetype == "text/html"
    assert len(response.data) == 207
    assert "Content-Encoding" not in response.headers


def test_a_client_that_asks_for_no_compression_gets_plain_bytes(
    client: FlaskClient, match_url: str
) -> None:
    response = client.get(match_url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in response.headers
    assert b"Enter deal 4" in response.data


def test_static_urls_in_pages_carry_the_content_hash_and_are_cached_for_a_year(
    client: FlaskClient, match_url: str
) -> None:
    assets = [f for f in visit(client, match_url) if "/static/" in f.url]
    assert assets
    for fetched in assets:
        assert re.search(r"\?v=[0-9a-f]{12}$", fetched.url), fetched.url
        assert fetched.cache_control == IMMUTABLE, fetched


def test_a_changed_static_file_gets_a_new_url(client: FlaskClient) -> None:
    hashes = client.application.extensions["asset_hashes"]
    with client.application.test_request_context():
        from flask import url_for

        url = url_for("static", filename="css/app.css")
    assert url == f"/static/css/app.css?v={hashes['css/app.css']}"
    assert len(set(hashes.values())) == len(hashes)  # each file its own hash


def test_an_unversioned_or_outdated_static_url_is_cached_only_briefly(client: FlaskClient) -> None:
    for url in ("/static/css/app.css", "/static/css/app.css?v=000000000000"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "public, max-age=300"


def test_a_missing_static_file_is_a_404_and_nothing_outside_static_is_served(
    client: FlaskClient,
) -> None:
    assert client.get("/static/css/nothing.css").status_code == 404
    assert client.get("/static/../pyproject.toml").status_code == 404
    assert client.get("/static/%2e%2e/pyproject.toml").status_code == 404


def test_a_static_file_is_revalidated_by_its_etag(client: FlaskClient) -> None:
    first = client.get("/static/js/app.js", headers=BROWSER)
    again = client.get(
        "/static/js/app.js", headers={**BROWSER, "If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304


def test_html_pages_are_not_cached_long_and_keep_the_strict_csp(
    client: FlaskClient, match_url: str
) -> None:
    response = client.get(match_url, headers=BROWSER)
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Content-Security-Policy"] == CSP
    assert "'unsafe-inline'" not in CSP


def test_our_scripts_and_stylesheets_are_sent_minified_and_vendored_files_as_they_are(
    client: FlaskClient,
) -> None:
    static = Path(client.application.static_folder or "static")
    for name in ("js/app.js", "js/sync.js", "js/meld.js", "css/app.css"):
        source = (static / name).read_bytes()
        sent = client.get(f"/static/{name}", headers={"Accept-Encoding": "identity"}).data
        assert len(sent) < 0.9 * len(source), name
        assert b"/*" not in sent and b"\n  " not in sent, name
    vendored = next(static.glob("vendor/htmx/*.min.js")).relative_to(static).as_posix()
    sent = client.get(f"/static/{vendored}", headers={"Accept-Encoding": "identity"}).data
    assert sent == (static / vendored).read_bytes()
    worker = client.get("/sw.js", headers={"Accept-Encoding": "identity"}).get_data(as_text=True)
    assert "/*" not in worker and "self.SCOREKEEPER" in worker


@pytest.mark.parametrize("app_config", [{"STATIC_MINIFY": False}])
def test_minifying_can_be_turned_off_and_the_sources_are_sent_as_written(
    client: FlaskClient,
) -> None:
    static = Path(client.application.static_folder or "static")
    for url in ("/static/js/app.js", "/static/css/app.css"):
        response = client.get(url, headers=BROWSER)
        assert decoded(response) == (static / url.removeprefix("/static/")).read_bytes()


def test_scripts_keep_their_globals_and_properties_when_their_local_names_are_shortened() -> None:
    from scorekeeper.web.assets import _minified_script

    script = (
        "(function () { var counted = 0; function addOne(total) { return total + 1; }"
        " window.Scorekeeper = { next: addOne(counted) }; document.title = 'x'; })();"
    )
    sent = _minified_script(script)
    assert "window.Scorekeeper" in sent and "next:" in sent and "document.title" in sent
    assert "counted" not in sent and "addOne" not in sent  # local names shortened
    assert len(sent) < len(script) * 0.7


def test_a_script_that_is_not_es5_is_still_sent_minified_the_plain_way() -> None:
    from scorekeeper.web.assets import _minified_script

    script = "const twice = (n) => n * 2;  /* an arrow: not ES5 */\nconsole.log(twice(2));"
    assert _minified_script(script) == "const twice=(n)=>n*2;console.log(twice(2));"
