"""The request's ``Host`` header is not trusted for the links the app makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import start_match
from support import give_role, log_in, make_app

from scorekeeper.config import SettingsError
from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.services import clubs, rule_sets

EVIL = "evil.example"


@pytest.fixture
def ids(app: Flask, client: FlaskClient) -> dict[str, str]:
    """Something behind every URL: a match, a club with a player, saved rules."""
    public_id = start_match(client)
    with app.app_context():
        club = clubs.create_club("Tuesday")
        player = clubs.add_player(club, "Ann")
        saved = rule_sets.create(PRESETS["classic"].to_dict() | {"name": "Ours"})
        found = {
            "public_id": public_id,
            "club_id": club.public_id,
            "player_id": player.public_id,
            "saved_id": saved.public_id,
            "rule_set_id": "classic",
            "preset_id": "four-books",
            "number": "1",
            "token": "no-such-token",  # an invitation or reset link that is not (any more)
        }
        db.session.remove()
    give_role(app, found["club_id"])  # the client walks as the club's owner: every page
    log_in(client)
    return found


def _get_urls(app: Flask, ids: dict[str, str]) -> list[str]:
    """Every page a GET reaches, with real ids in it."""
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
            continue
        path = rule.rule.replace("<int:number>", ids["number"])
        for name, value in ids.items():
            if name == "public_id" and rule.endpoint.startswith("rules."):
                value = ids["saved_id"]
            path = path.replace(f"<{name}>", value)
        assert "<" not in path, path
        urls.append(path)
    return urls


def test_a_forged_host_never_appears_in_any_page(
    app: Flask, client: FlaskClient, ids: dict[str, str]
) -> None:
    client.post(f"/m/{ids['public_id']}/deals", data={"went_out": ""})  # a deal page or two
    seen = []
    urls = _get_urls(app, ids)
    for url in urls:
        response = client.get(url, headers={"Host": EVIL})
        headers = " ".join(f"{k}: {v}" for k, v in response.headers.items())
        body = response.get_data().decode("utf-8", errors="replace")  # an icon is binary
        if EVIL in body or EVIL in headers:
            seen.append(f"{url} ({response.status_code})")
    assert len(urls) > 20
    assert f"/rules/{ids['saved_id']}" in urls  # the page with the share link
    assert not seen, seen


def _share(client: FlaskClient, saved_id: str, host: str) -> tuple[str | None, str]:
    html = client.get(f"/rules/{saved_id}", headers={"Host": host}).get_data(as_text=True)
    link = re.search(r'id="share-link"[^>]*value="([^"]+)"', html)
    return (link.group(1) if link else None), html


def test_without_settings_a_share_link_is_absolute_only_for_the_servers_own_address(
    client: FlaskClient, ids: dict[str, str]
) -> None:
    saved = ids["saved_id"]
    assert _share(client, saved, "127.0.0.1:8000")[0] == f"http://127.0.0.1:8000/r/{saved}"
    assert _share(client, saved, "[::1]:8000")[0] == f"http://[::1]:8000/r/{saved}"
    assert _share(client, saved, "localhost")[0] == f"http://localhost/r/{saved}"
    for host in (EVIL, "203.0.113.9:8000", "scores.example.org"):
        link, html = _share(client, saved, host)
        assert link is None and "<svg" not in html  # no link, no QR code to another host
        assert f'href="/r/{saved}"' in html and "SCOREKEEPER_PUBLIC_BASE_URL" in html


def test_a_browser_on_the_servers_own_computer_hands_out_its_network_address(
    app: Flask, client: FlaskClient, ids: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opened at 127.0.0.1 (what serve offers "on this computer"), the share link and its
    # QR code were 127.0.0.1 too: no other phone can open that.
    from scorekeeper.web import links

    monkeypatch.setattr(links, "network_addresses", lambda: ("192.168.1.10",))
    saved = ids["saved_id"]
    app.config["LISTENING_ON"] = "0.0.0.0"  # serve on every interface
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        link, html = _share(client, saved, host)
        assert link == f"http://192.168.1.10:8000/r/{saved}", host
        assert "<svg" in html
    assert _share(client, saved, "localhost")[0] == f"http://192.168.1.10/r/{saved}"
    # a server on this computer only, or not started by serve: nothing else to offer
    for listening in ("127.0.0.1", None):
        app.config["LISTENING_ON"] = listening
        assert _share(client, saved, "127.0.0.1:8000")[0] == f"http://127.0.0.1:8000/r/{saved}"
    monkeypatch.setattr(links, "network_addresses", lambda: ())
    app.config["LISTENING_ON"] = "0.0.0.0"
    assert _share(client, saved, "127.0.0.1:8000")[0] == f"http://127.0.0.1:8000/r/{saved}"


def test_the_public_base_url_makes_every_share_link_whatever_the_host(
    app: Flask, client: FlaskClient, ids: dict[str, str]
) -> None:
    app.config["PUBLIC_BASE_URL"] = "https://scores.example.org/club"
    saved = ids["saved_id"]
    for host in (EVIL, "127.0.0.1:8000"):
        link, html = _share(client, saved, host)
        assert link == f"https://scores.example.org/club/r/{saved}"
        assert "<svg" in html and EVIL not in html


def test_trusted_hosts_refuse_any_other_host_and_link_to_the_one_asked(
    app: Flask, client: FlaskClient, ids: dict[str, str]
) -> None:
    app.config["TRUSTED_HOSTS"] = ["scores.example.org", "192.168.1.10"]
    saved = ids["saved_id"]
    response = client.get(f"/rules/{saved}", headers={"Host": EVIL})
    assert response.status_code == 400 and EVIL not in response.get_data(as_text=True)
    link, _html = _share(client, saved, "scores.example.org")
    assert link == f"http://scores.example.org/r/{saved}"


def test_the_address_settings_are_read_from_the_environment_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCOREKEEPER_TRUSTED_HOSTS", "scores.example.org, 192.168.1.10")
    monkeypatch.setenv("SCOREKEEPER_PUBLIC_BASE_URL", "https://scores.example.org/")
    app = make_app(f"sqlite:///{tmp_path / 'settings.sqlite3'}")
    assert app.config["TRUSTED_HOSTS"] == ["scores.example.org", "192.168.1.10"]
    assert app.config["PUBLIC_BASE_URL"] == "https://scores.example.org"
    monkeypatch.setenv("SCOREKEEPER_PUBLIC_BASE_URL", "scores.example.org")
    with pytest.raises(SettingsError, match=r"like https://scores\.example\.org"):
        make_app(f"sqlite:///{tmp_path / 'settings.sqlite3'}")
