"""Every form and query string of the app, sent what no phone types: never a 500.

A sweep: each page's forms are read from the page itself (so a field added later is
covered), then posted with one field at a time set to a 310-digit number (past what a
float holds: WTForms' range check turned it into ``OverflowError``) or to text holding a
NUL character (which PostgreSQL refuses in any text parameter). The answer is a page or a
fragment that says what is wrong, never a server error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers import HX, SIDE_A_COUNTS, SIDE_B_POINTS, enter_deal, start_match
from htmltree import Node, parse

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.services import clubs, rule_sets

HUGE = "9" * 310
NUL = "Ann\x00Bob"


@pytest.fixture
def app_config() -> dict[str, Any]:
    # A crash must come back as the 500 a server answers, not as an exception in the test.
    return {"TESTING": False}


@pytest.fixture
def pages(app: Flask, client: FlaskClient) -> list[str]:
    """A URL of every page with a form, with something in the database behind each."""
    public_id = start_match(client)
    enter_deal(client, public_id, SIDE_A_COUNTS, SIDE_B_POINTS, went_out=0)
    with app.app_context():
        club = clubs.create_club("Tuesday")
        clubs.add_player(club, "Ann")
        saved = rule_sets.create(PRESETS["classic"].to_dict() | {"name": "Ours", "id": "ours"})
        club_id, rules_id = club.public_id, saved.public_id
        db.session.remove()
    return [
        "/signup",
        "/login",
        "/matches/new",
        f"/m/{public_id}",
        f"/m/{public_id}/deals/1/edit",
        f"/m/{public_id}/deals/1/remove",
        "/meld",
        f"/meld?match={public_id}",
        "/rules/new",
        f"/rules/{rules_id}/edit",
        f"/rules/{rules_id}/delete",
        "/rules/import",
        f"/r/{rules_id}",
        "/clubs",
        f"/c/{club_id}/settings",
        f"/c/{club_id}/matches/new",
        f"/c/{club_id}/players",
    ]


def _forms(html: str, page: str) -> Iterator[tuple[str, str, dict[str, str], list[str]]]:
    """(method, action, default data, names of the fields a person can type in)."""
    for form in parse(html).find_all("form"):
        method = form.attrs.get("method", "get").lower()
        actions = [form.attrs.get("action") or page]
        actions += [b.attrs["formaction"] for b in form.iter() if "formaction" in b.attrs]
        data: dict[str, str] = {}
        typed: list[str] = []
        for node in form.iter():
            name = node.attrs.get("name")
            if not name or node.tag not in ("input", "select", "textarea"):
                continue
            kind = node.attrs.get("type", "text")
            if kind in ("radio", "checkbox") and "checked" not in node.attrs:
                data.setdefault(name, "") if kind == "radio" else None
                continue
            if node.tag == "select":
                data[name] = _selected(node)
            elif kind not in ("submit", "button", "file"):
                data[name] = node.attrs.get("value", node.text if node.tag == "textarea" else "")
            if kind not in ("hidden", "submit", "button", "file", "radio", "checkbox"):
                typed.append(name)
        for action in actions:
            yield method, action, data, typed


def _selected(select: Node) -> str:
    options = select.find_all("option")
    chosen = [o for o in options if "selected" in o.attrs] or options[:1]
    return chosen[0].attrs.get("value", chosen[0].text) if chosen else ""


def _send(client: FlaskClient, method: str, action: str, data: dict[str, str], hx: bool) -> Any:
    headers = HX if hx else {}
    if method == "post":
        return client.post(action, data=data, headers=headers)
    return client.get(action, query_string=data, headers=headers)


@pytest.mark.parametrize("value", [HUGE, NUL], ids=["310 digits", "NUL"])
def test_no_form_field_answers_a_server_error(
    client: FlaskClient, pages: list[str], value: str
) -> None:
    failures = []
    sent = 0
    for page in pages:
        html = client.get(page).get_data(as_text=True)
        for method, action, data, typed in _forms(html, page):
            for name in typed:
                for hx in (False, True):
                    response = _send(client, method, action, {**data, name: value}, hx)
                    sent += 1
                    if response.status_code >= 500:
                        failures.append(f"{method.upper()} {action} {name} (htmx: {hx})")
    assert sent > 100, sent  # the sweep did reach the forms
    assert not failures, "\n".join(failures)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every number and string inside a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    elif not isinstance(value, bool):
        yield path, value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def _requests() -> Iterator[tuple[str, Any]]:
    from scorekeeper.web.api.examples import MELD_REQUEST, SCORE_REQUEST

    inline = PRESETS["classic"].to_dict()
    for url, body in (("/api/v1/score", SCORE_REQUEST), ("/api/v1/meld", MELD_REQUEST)):
        yield url, body
        yield url, {**body, "rules": inline}  # a whole rule set sent inline


@pytest.mark.parametrize("kind", ["310 digits", "NUL"])
def test_no_json_value_of_the_api_answers_a_server_error(client: FlaskClient, kind: str) -> None:
    failures, sent = [], 0
    for url, body in _requests():
        for path, value in _leaves(body):
            if kind == "NUL" and not isinstance(value, str):
                continue
            new = 10**309 if kind != "NUL" else f"{value}\x00"
            response = client.post(url, json=_replaced(body, path, new))
            sent += 1
            refused = response.status_code == 422 and "errors" in (response.json or {})
            if not refused and (kind == "NUL" or response.status_code != 200):
                failures.append(f"{url} {path}: {response.status_code}")
    assert sent > 20, sent
    assert not failures, "\n".join(failures)
