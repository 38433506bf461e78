"""How much a visit weighs on the wire: each page with everything it loads, as a browser
fetches it, with and without compression, on a first and a repeat visit (issue 13).

    python bench/wire.py [--deals 3] [--first-budget 30] [--repeat-budget 6] [--no-minify]

Makes a fresh temporary SQLite database with one match of the classic rules, two against
two, ``--deals`` deals in, and reads its pages in-process with Flask's test client. For
each page the HTML is fetched, then every stylesheet, script, icon and manifest it names
and the service worker it registers, the way a browser does:

- **first visit**: everything, nothing cached;
- **repeat visit**: what was sent ``immutable`` comes from the browser's cache (no
  request at all); everything else is asked again with its ``ETag`` (a 304 has no body).

Each visit is measured three ways in the same run: ``identity`` (no compression: the
baseline, what the app sent before issue 13), ``gzip`` and ``br``. Bytes are the bodies
as sent (``Content-Encoding`` honoured; every compressed body is checked to decode to the
plain one); headers are left out. The service worker's install (the app shell and pages it
keeps for offline use, fetched once in the background) is reported on its own line.
``--no-minify`` sends our scripts and stylesheets as written, to see minification's share.

Exits 1 when the match page's brotli first visit passes ``--first-budget`` KB or its
repeat visit passes ``--repeat-budget`` KB (the issue's 30 and 6). See bench/README.md.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import brotli
from flask import Flask
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(ROOT))

from scorekeeper.app import create_app  # noqa: E402
from scorekeeper.engine import PRESETS, Side  # noqa: E402
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.services import demo, matches  # noqa: E402
from scorekeeper.web.pwa import shell_config  # noqa: E402

ENCODINGS = ("identity", "gzip", "br")
IMMUTABLE = "public, max-age=31536000, immutable"
#: What a page makes the browser fetch: stylesheets, scripts, icons, the manifest, and the
#: service worker the page registers.
REFERENCES = re.compile(r'<(?:link|script)\b[^>]*?\b(?:href|src)="(/[^"]+)"|\bdata-sw="(/[^"]+)"')


@dataclass
class Visit:
    """One visit of one page in one encoding: the requests made and the bytes they carried."""

    requests: int = 0
    bytes: int = 0
    files: list[tuple[str, int, int]] = field(default_factory=list)  # url, status, bytes

    def add(self, url: str, status: int, size: int) -> None:
        self.requests += 1
        self.bytes += size
        self.files.append((url, status, size))


@dataclass(frozen=True)
class Row:
    """A page's first and repeat visit in each encoding."""

    name: str
    url: str
    first: dict[str, Visit]
    repeat: dict[str, Visit]


def _decoded(response: Any) -> bytes:
    encoding = response.headers.get("Content-Encoding")
    if encoding == "br":
        return brotli.decompress(response.data)
    if encoding == "gzip":
        return gzip.decompress(response.data)
    if encoding:
        raise SystemExit(f"bench: unexpected Content-Encoding {encoding!r}")
    return bytes(response.data)


def _get(client: FlaskClient, url: str, encoding: str, etag: str | None = None) -> Any:
    headers = {"Accept-Encoding": encoding}
    if etag:
        headers["If-None-Match"] = etag
    response = client.get(url, headers=headers)
    if response.status_code not in (200, 304):
        raise SystemExit(f"bench: {url} answered {response.status_code}")
    return response


def visit(
    client: FlaskClient, url: str, encoding: str, cached: dict[str, Any] | None = None
) -> tuple[Visit, dict[str, Any]]:
    """The page and what it loads; ``cached`` (the first visit's answers) makes it a repeat."""
    done = Visit()
    answers: dict[str, Any] = {}
    page = _get(client, url, encoding)
    html = _decoded(page).decode()
    done.add(url, page.status_code, len(page.data))
    names = [u.replace("&amp;", "&") for m in REFERENCES.findall(html) for u in m if u]
    for name in dict.fromkeys(names):
        before = (cached or {}).get(name)
        if before is not None and before.headers.get("Cache-Control") == IMMUTABLE:
            continue  # the browser's cache answers: no request
        etag = before.headers.get("ETag") if before is not None else None
        response = _get(client, name, encoding, etag)
        if response.status_code == 200 and encoding != "identity":
            plain = _get(client, name, "identity")
            if _decoded(response) != plain.data:
                raise SystemExit(f"bench: {name} in {encoding} does not decode to its bytes")
        done.add(name, response.status_code, len(response.data))
        answers[name] = response
    return done, answers


def install(client: FlaskClient, encoding: str) -> Visit:
    """What the service worker fetches once, in the background, when it is installed."""
    with client.application.test_request_context():
        shell = shell_config()
    done = Visit()
    listed = f"/sw-shell.json?v={shell['version']}"  # the list it fetches first
    for url in [listed, *shell["assets"], *shell["pages"]]:
        response = _get(client, url, encoding)
        done.add(url, response.status_code, len(response.data))
    return done


def make_match(app: Flask, deals: int, seed: int = 13) -> str:
    """A classic two-against-two match with ``deals`` deals in; its public id."""
    rng = random.Random(seed)
    sides = [Side(("Ann", "Bob")), Side(("Cy", "Di"))]
    with app.app_context():
        loaded = matches.start_match(PRESETS["classic"], "classic", sides, 0)
        for number in range(1, deals + 1):
            out = rng.randint(0, 1)
            entries = [demo.realistic_deal(rng, out == i) for i in range(2)]
            loaded, _ = matches.record_deal(loaded, entries, f"wire-{number}", number)
        public_id = loaded.row.public_id
        db.session.remove()
    return public_id


def run(app: Flask, deals: int = 3) -> list[Row]:
    """Every page measured in every encoding, first and repeat visit."""
    public_id = make_match(app, deals)
    pages = {"match page": f"/m/{public_id}", "home page": "/", "meld check": "/meld"}
    rows = []
    for name, url in pages.items():
        first: dict[str, Visit] = {}
        repeat: dict[str, Visit] = {}
        for encoding in ENCODINGS:
            client = app.test_client()  # a browser with an empty cache
            first[encoding], answers = visit(client, url, encoding)
            repeat[encoding], _ = visit(client, url, encoding, cached=answers)
        rows.append(Row(name, url, first, repeat))
    client = app.test_client()
    worker = {encoding: install(client, encoding) for encoding in ENCODINGS}
    rows.append(Row("service worker install", "/sw.js", worker, {}))
    return rows


def _kb(size: int) -> str:
    return f"{size / 1024:.1f}"


def format_table(rows: Sequence[Row]) -> str:
    """A Markdown table: KB and requests per visit and encoding, and br/identity."""
    head = "| page, visit | requests | KB identity | KB gzip | KB br | br / identity |"
    lines = [head, "|---|---|---|---|---|---|"]
    for row in rows:
        for visit_name, visits in (("first", row.first), ("repeat", row.repeat)):
            if not visits:
                continue
            plain = visits["identity"].bytes
            ratio = f"{visits['br'].bytes / plain:.2f}" if plain else "n/a"
            label = row.name if row.name.startswith("service") else f"{row.name}, {visit_name}"
            lines.append(
                f"| {label} | {visits['br'].requests} | {_kb(plain)} | "
                f"{_kb(visits['gzip'].bytes)} | {_kb(visits['br'].bytes)} | {ratio} |"
            )
    return "\n".join(lines)


def problems(rows: Sequence[Row], first_budget: float, repeat_budget: float) -> list[str]:
    """The match page's brotli visits over their budgets (KB)."""
    match = rows[0]
    found = []
    if match.first["br"].bytes > first_budget * 1024:
        found.append(f"first visit {_kb(match.first['br'].bytes)} KB > {first_budget:g} KB")
    if match.repeat["br"].bytes > repeat_budget * 1024:
        found.append(f"repeat visit {_kb(match.repeat['br'].bytes)} KB > {repeat_budget:g} KB")
    return found


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3, help="deals in the match (0 to 4)")
    parser.add_argument("--first-budget", type=float, default=30, help="KB, first visit")
    parser.add_argument("--repeat-budget", type=float, default=6, help="KB, repeat visit")
    parser.add_argument(
        "--no-minify", action="store_true", help="send our scripts and stylesheets as written"
    )
    args = parser.parse_args(argv)
    if not 0 <= args.deals <= PRESETS["classic"].deals:
        parser.error(f"--deals must be between 0 and {PRESETS['classic'].deals}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the table, and return 1 when the match page passes a budget."""
    args = _arguments(argv)
    with tempfile.TemporaryDirectory() as folder:
        uri = f"sqlite:///{folder}/bench.sqlite3"
        config = {"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": uri}
        app = create_app({**config, "STATIC_MINIFY": not args.no_minify})
        with app.app_context():
            db.create_all()
        try:
            rows = run(app, args.deals)
        finally:
            with app.app_context():
                db.session.remove()
                db.drop_all()
                db.engine.dispose()
    minified = "as written" if args.no_minify else "minified"
    print(f"One classic 2 vs 2 match, {args.deals} deals in; bodies as sent, headers left out;")
    print(f"our scripts and stylesheets {minified}.\n")
    print(format_table(rows))
    match = rows[0]
    for visit_name, visits in (("first", match.first), ("repeat", match.repeat)):
        print(f"\nmatch page, {visit_name} visit (br):")
        for url, status, size in visits["br"].files:
            print(f"  {status} {size:>7} B  {url}")
    found = problems(rows, args.first_budget, args.repeat_budget)
    for problem in found:
        print(f"OVER BUDGET: match page {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
