"""Installable (issue 13): the web app manifest, our icons, the favicon, the service worker
served from the root scope, and the offline page, all without inline code."""

from __future__ import annotations

import json
import re
import struct
from typing import Any

from flask.testing import FlaskClient
from htmltree import parse

from scorekeeper.web.pwa import THEME_COLOUR


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def manifest(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    return json.loads(response.data)


def test_every_page_links_the_manifest_its_icon_and_the_theme_colour(client: FlaskClient) -> None:
    for path in ("/", "/matches/new", "/meld", "/rules"):
        head = parse(client.get(path).get_data(as_text=True)).find_all("head")[0]
        links = {link.attrs["rel"]: link.attrs["href"] for link in head.find_all("link")}
        assert links["manifest"] == "/manifest.webmanifest"
        assert links["icon"].startswith("/static/icons/icon.svg?v=")
        metas = {m.attrs.get("name"): m.attrs.get("content") for m in head.find_all("meta")}
        assert metas["theme-color"] == THEME_COLOUR


def test_the_manifest_makes_the_app_installable_standalone_from_the_home_page(
    client: FlaskClient,
) -> None:
    data = manifest(client)
    assert data["name"] and data["short_name"]
    assert data["display"] == "standalone"
    assert data["start_url"] == "/" and data["scope"] == "/"
    assert data["theme_color"] == THEME_COLOUR
    assert re.fullmatch(r"#[0-9a-f]{6}", data["background_color"])
    assert client.get(data["start_url"]).status_code == 200


def test_the_manifest_icons_are_ours_an_svg_and_pngs_of_192_and_512_and_a_maskable_one(
    client: FlaskClient,
) -> None:
    icons = manifest(client)["icons"]
    seen = set()
    for icon in icons:
        response = client.get(icon["src"])
        assert response.status_code == 200, icon
        assert response.mimetype == icon["type"]
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        if icon["type"] == "image/png":
            width, height = png_size(response.data)
            assert icon["sizes"] == f"{width}x{height}"
        else:
            assert b"<svg" in response.data
        seen.add((icon["sizes"], icon["purpose"]))
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable"), ("any", "any")} <= seen


def test_the_favicon_is_an_icon_and_not_a_404(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.data[:4] == b"\x00\x00\x01\x00"  # an .ico with one image
    assert png_size(response.data[22:])[0] == 48


def test_the_service_worker_is_served_from_the_root_for_the_whole_app(
    client: FlaskClient,
) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert response.headers["Cache-Control"] == "no-cache"
    again = client.get("/sw.js", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_the_service_worker_keeps_the_static_files_and_the_app_pages_that_exist(
    client: FlaskClient,
) -> None:
    body = client.get("/sw.js").get_data(as_text=True)
    head = json.loads(re.match(r"self\.SCOREKEEPER = (\{.*\});\n", body).group(1))
    assert head["offline"] == "/offline"
    assert head["shell"] == f"/sw-shell.json?v={head['version']}"
    shell = client.get(head["shell"])  # what the worker fetches when it installs
    assert shell.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    config = shell.get_json()
    assert config["version"] == head["version"] and config["offline"] == "/offline"
    unversioned = client.get("/sw-shell.json?v=0")  # an old worker's: asked again each time
    assert unversioned.headers["Cache-Control"] == "no-cache"
    assert {"/offline", "/", "/meld", "/rules"} < set(config["pages"])
    assert "/rules/presets/classic" in config["pages"]  # the rules cards
    urls = config["assets"] + config["pages"]
    for url in urls:
        assert client.get(url).status_code == 200, url
    names = {re.sub(r"\?v=[0-9a-f]{12}$", "", url) for url in config["assets"]}
    assert {"/static/js/app.js", "/static/js/sync.js", "/static/css/app.css"} <= names
    assert any(name.startswith("/static/vendor/htmx/") for name in names)
    assert all("?v=" in url for url in config["assets"])


def test_a_new_static_file_version_gives_the_service_worker_a_new_version(
    client: FlaskClient,
) -> None:
    def version() -> str:
        return re.search(r'"version": "([0-9a-f]+)"', client.get("/sw.js").get_data(as_text=True))[
            1
        ]

    before = version()
    client.application.extensions["asset_hashes"]["css/app.css"] = "0123456789ab"
    assert version() != before


def test_the_offline_page_says_what_works_without_a_connection(client: FlaskClient) -> None:
    response = client.get("/offline")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "No connection" in html
    assert 'id="kept-matches"' in html
    assert "/static/js/kept.js?v=" in html


def test_no_page_has_inline_code_and_the_texts_for_the_scripts_are_data(
    client: FlaskClient,
) -> None:
    for path in ("/", "/offline", "/meld"):
        blocks = []
        for script in parse(client.get(path).get_data(as_text=True)).find_all("script"):
            if "src" not in script.attrs:
                assert script.attrs.get("type") == "application/json"
                blocks.append(json.loads(script.text))
        assert blocks[0]["waiting"] == "Deal {n} · waiting to be sent"
