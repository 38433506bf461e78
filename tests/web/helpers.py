"""Helpers for driving the match pages through the Flask test client, with no JavaScript.

They fill forms the way a browser would (every field a string) and read the page back
(totals, deal rows, errors), so the tests read as what happens at the table.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from htmltree import errors_beside, parse
from sqlalchemy import func, select

from scorekeeper.extensions import db
from scorekeeper.models import Deal
from scorekeeper.models import Match as MatchRow

NAMES = ("Ana", "Boris", "Cecile", "Dusan", "Emir", "Fatima")
HX = {"HX-Request": "true"}

#: RULES.md section 7: side A went out with 2 clean, 2 dirty and 1 wild book, one red
#: three laid, and these cards on the table (690 points).
SIDE_A_COUNTS: dict[str, Any] = {
    "books_clean": 2,
    "books_dirty": 2,
    "books_wild": 1,
    "red_threes": 1,
    "melded_joker": 4,
    "melded_2": 6,
    "melded_A": 6,
    "melded_8toK": 20,
    "melded_4to7": 10,
}
#: RULES.md section 7: side B, one clean book, 185 on the table, 75 left, a red three left.
SIDE_B_POINTS: dict[str, Any] = {
    "books_clean": 1,
    "melded_points": 185,
    "left_points": 75,
    "red_threes_left": 1,
}
#: The same two sides the other way round: A by points, B card by card.
SIDE_A_POINTS: dict[str, Any] = {
    "books_clean": 2,
    "books_dirty": 2,
    "books_wild": 1,
    "red_threes": 1,
    "melded_points": 690,
}
SIDE_B_COUNTS: dict[str, Any] = {
    "books_clean": 1,
    "melded_8toK": 15,
    "melded_4to7": 7,
    "red_threes_left": 1,
    "left_8toK": 6,
    "left_4to7": 2,
    "left_black3": 1,
}
STANDARD_TOTALS = [3990, 510]


def layout_sizes(layout: str) -> list[int]:
    """``"2+2"`` -> ``[2, 2]``."""
    return [int(n) for n in layout.split("+")]


def new_match_data(
    rules: str = "classic",
    layout: str = "2+2",
    names: list[str] | None = None,
    first_dealer: int = 0,
    team_names: list[str] | None = None,
) -> dict[str, str]:
    """The new-match form as a browser posts it; names fill the seats side by side."""
    names = list(names if names is not None else NAMES)
    data = {"rules": rules, "layout": layout, "first_dealer": str(first_dealer)}
    for i, size in enumerate(layout_sizes(layout)):
        if size > 1 and team_names:
            data[f"side_{i}_name"] = team_names[i]
        for j in range(size):
            data[f"side_{i}_player_{j}"] = names.pop(0) if names else ""
    return data


def start_match(
    client: FlaskClient,
    rules: str = "classic",
    layout: str = "2+2",
    names: list[str] | None = None,
    **extra: Any,
) -> str:
    """Start a match through the form and return its public id."""
    response = client.post("/matches", data=new_match_data(rules, layout, names, **extra))
    assert response.status_code == 303, response.get_data(as_text=True)
    location = response.headers["Location"]
    assert location.startswith("/m/")
    return location.removeprefix("/m/")


def deal_form_data(*sides: dict[str, Any], went_out: int | None = None, **extra: Any) -> dict:
    """A deal form: ``sides`` hold field -> value (``"books_clean": 2``) per side."""
    data: dict[str, Any] = {"went_out": "" if went_out is None else str(went_out)}
    for i, side in enumerate(sides):
        for key, value in side.items():
            data[f"sides-{i}-{key}"] = str(value)
    data.update(extra)
    return data


def hidden_fields(html: str) -> dict[str, str]:
    """The hidden inputs of the deal form as the page rendered them (the guards)."""
    form = parse(html).find_all("form", id="deal-entry")
    assert form, "the page has no deal form"
    return {
        n.attrs["name"]: n.attrs.get("value", "") for n in form[0].find_all("input", type="hidden")
    }


def enter_deal(
    client: FlaskClient,
    public_id: str,
    *sides: dict[str, Any],
    went_out: int | None = None,
    headers: dict[str, str] | None = None,
) -> Any:
    """Open the match page, fill the deal form and send it, like a player would."""
    page = client.get(f"/m/{public_id}").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data(*sides, went_out=went_out)}
    return client.post(f"/m/{public_id}/deals", data=data, headers=headers or {})


def totals(html: str) -> list[int]:
    """The running totals shown on the scoreboard."""
    return [_number(n.text) for n in parse(html).find_all("span", cls="side-total")]


def deal_scores(html: str) -> list[list[int]]:
    """Each deal row's scores, as the deal table shows them."""
    rows = []
    for row in parse(html).find_all("table", cls="deal-table")[0].find_all("tr")[1:]:
        rows.append([_number(s.text) for s in row.find_all("span", cls="deal-score")])
    return rows


def _number(text: str) -> int:
    match = re.search(r"[+\u2212-]?\d+", text)
    assert match, f"no number in {text!r}"
    return int(match.group().replace("\u2212", "-").replace("+", ""))


def show(client: FlaskClient, public_id: str) -> str:
    """The match page's HTML."""
    response = client.get(f"/m/{public_id}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def deal_count(app: Flask, public_id: str) -> int:
    """How many deals the database holds for the match."""
    with app.app_context():
        return db.session.scalar(
            select(func.count(Deal.id)).join(MatchRow).where(MatchRow.public_id == public_id)
        )


def match_count(app: Flask) -> int:
    """How many matches the database holds."""
    with app.app_context():
        return db.session.scalar(select(func.count(MatchRow.id)))


def assert_refused_beside(response: Any, name: str, message: str, status: int = 422) -> None:
    """The response re-shows the form with ``message`` in the block of input ``name``."""
    html = response.get_data(as_text=True)
    assert response.status_code == status, html[:500]
    beside = errors_beside(html, name)
    assert any(message in e for e in beside), f"{message!r} not beside {name}: {beside}"


def correct_deal(
    client: FlaskClient, public_id: str, number: int, *sides: dict[str, Any], went_out: int | None
) -> Any:
    """Open a deal's correction page, replace its entry and send it."""
    page = client.get(f"/m/{public_id}/deals/{number}/edit").get_data(as_text=True)
    data = {**hidden_fields(page), **deal_form_data(*sides, went_out=went_out)}
    return client.post(f"/m/{public_id}/deals/{number}", data=data)


def general_errors(html: str) -> list[str]:
    """The errors of the deal form that belong to no single field."""
    return [li.text for ul in parse(html).find_all("ul", cls="general") for li in ul.iter()[1:]]
