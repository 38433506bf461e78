"""The next deal's empty form, kept rendered per rule set and language
(``web/matches/blank_entry.py``): every match gets exactly the form it would have had
rendered for itself, with its own address, deal, names, submission key and CSRF token."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask, render_template
from flask.testing import FlaskClient
from helpers import (
    HX,
    deal_count,
    deal_form_data,
    enter_deal,
    hidden_fields,
    show,
)

from scorekeeper.engine import PRESETS, RuleSet, Side
from scorekeeper.services import matches
from scorekeeper.web.matches import blank_entry, context, forms

DEAL = ({"melded_points": 300}, {"melded_points": 200})
#: Names that HTML must escape, and one that looks like the form's own markup.
NAMES = ['Ann & "Bo"', "<b>Cy</b>", "Dee's", "Eve"]


@pytest.fixture
def app_config() -> dict[str, Any]:
    return {"WTF_CSRF_ENABLED": True}  # the token is one of the values put in


def _house_rules() -> RuleSet:
    """Classic with what the form shows only for some rules: exact draws and a minimum
    meld by thresholds on the running total."""
    data = PRESETS["classic"].to_dict()
    data.update(id="house", name="House", exact_draw_bonus=100)
    data["minimum_meld"] = [[0, 50], [3000, 90]]
    return RuleSet.from_dict(data)


RULES = {**PRESETS, "house": _house_rules()}


def _start(app: Flask, rules: RuleSet, layout: tuple[int, ...], names: list[str]) -> str:
    with app.app_context():
        people = iter(names)
        sides = [Side(tuple(next(people) for _ in range(size))) for size in layout]
        return matches.start_match(rules, rules.id, sides, 0).public_id


def _reference(loaded: Any, key: str) -> str:
    """The form as the page rendered it for itself before it was kept."""
    game = loaded.game
    form = forms.deal_form(game.rules, len(game.sides))
    form.submission_key.data = key
    form.expected_deal.data = str(game.current_deal)
    return render_template(
        "matches/_entry.html",
        match=loaded.row,
        deal=game.current_deal,
        labels=[side.label for side in game.sides],
        rules=game.rules,
        minimums=context._minimums(game, None),
        requires=dict(game.rules.going_out_requires),
        form=form,
        editing=None,
        general_errors=[],
        preview=None,
        **context.entry_rows(game, form),
    )


def _kept_and_reference(app: Flask, public_id: str, language: str) -> tuple[str, str]:
    with app.test_request_context(headers={"Accept-Language": language}):
        loaded = matches.load_match(public_id)
        assert loaded is not None
        entry = blank_entry.BlankEntry(loaded, context._minimums(loaded.game, None))
        kept = str(entry.__html__())
        assert entry.submission_key
        return kept, _reference(loaded, entry.submission_key)


@pytest.mark.parametrize("language", ["en", "bs", "cs", "ru"])
@pytest.mark.parametrize(
    ("rules", "layout"),
    [
        ("classic", (2, 2)),
        ("classic", (1, 1, 1)),
        ("four-books", (2, 2)),
        ("whitnack", (2, 2)),
        ("house", (2, 2)),
    ],
)
def test_the_kept_form_is_the_form_rendered_for_the_match(
    app: Flask, rules: str, layout: tuple[int, ...], language: str
) -> None:
    first = _start(app, RULES[rules], layout, NAMES)
    kept, reference = _kept_and_reference(app, first, language)
    assert kept == reference
    assert "Ann &amp; &#34;Bo&#34;" in kept and "&lt;b&gt;Cy&lt;/b&gt;" in kept
    # a second match of the same rules is served from what was kept, with its own values
    second = _start(app, RULES[rules], layout, list(reversed(NAMES)))
    for _ in range(2):
        enter_deal(app.test_client(), second, *DEAL[: len(layout)], *([{}] * (len(layout) - 2)))
    kept, reference = _kept_and_reference(app, second, language)
    assert kept == reference
    assert f"/m/{second}/deals" in kept and first not in kept
    with app.app_context():
        # one for this rule set in this language (the pages that entered the deals are
        # in English)
        assert [key[-1] for key in blank_entry._forms()._kept].count(language) == 1


def test_languages_and_rules_are_kept_apart(app: Flask) -> None:
    public_id = _start(app, RULES["classic"], (2, 2), NAMES)
    english, _ = _kept_and_reference(app, public_id, "en")
    czech, _ = _kept_and_reference(app, public_id, "cs")
    assert english != czech
    house = _start(app, RULES["house"], (2, 2), NAMES)
    _kept_and_reference(app, house, "en")
    with app.app_context():
        assert len(blank_entry._forms()._kept) == 3


def test_every_page_gets_a_new_key_and_the_sessions_token(app: Flask, client: FlaskClient) -> None:
    public_id = _start(app, RULES["classic"], (2, 2), NAMES)
    pages = [show(client, public_id) for _ in range(3)]
    keys = {hidden_fields(page)["submission_key"] for page in pages}
    assert len(keys) == 3
    for page in pages[1:]:  # the form's token is the one the frame gives htmx (once the
        # session has one: from the second page on)
        framed = re.findall(r'"X-CSRFToken": "([^"]+)"', page)
        assert framed == [hidden_fields(page)["csrf_token"]]
    assert blank_entry._NONCE not in "".join(pages)
    mine = hidden_fields(pages[0])["csrf_token"].split(".")[0]  # the session's, signed
    other = app.test_client()
    assert hidden_fields(show(other, public_id))["csrf_token"].split(".")[0] != mine


def test_a_saved_deal_is_answered_with_the_next_deals_form_and_saved_once(
    app: Flask, client: FlaskClient
) -> None:
    public_id = _start(app, RULES["classic"], (2, 2), NAMES)
    data = {**hidden_fields(show(client, public_id)), **deal_form_data(*DEAL)}
    answer = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "Deal 1 saved." in html
    fields = hidden_fields(html)
    assert fields["expected_deal"] == "2" and "Enter deal 2" in html
    assert fields["submission_key"] != data["submission_key"]
    assert f'action="/m/{public_id}/deals"' in html
    assert f"/m/{public_id}/preview?deal=2" in html
    # the same post again (a double tap) saves nothing more
    again = client.post(f"/m/{public_id}/deals", data=data, headers=HX)
    assert again.status_code == 200
    assert deal_count(app, public_id) == 1
    page = show(client, public_id)
    assert "Enter deal 2" in page and "Enter deal 3" not in page


def test_pages_that_do_not_show_the_form_do_not_make_it(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    public_id = _start(app, RULES["classic"], (2, 2), NAMES)
    built: list[int] = []
    real = blank_entry._rendered
    monkeypatch.setattr(blank_entry, "_rendered", lambda *a: built.append(1) or real(*a))
    assert client.get(f"/m/{public_id}/live", headers=HX).status_code == 200
    assert built == []
    show(client, public_id)
    show(client, public_id)
    assert built == [1]  # made once, then kept


def test_with_the_caches_off_every_page_renders_its_own(app: Flask, client: FlaskClient) -> None:
    app.config["PAGE_CACHE_SIZE"] = 0
    public_id = _start(app, RULES["classic"], (2, 2), NAMES)
    first, second = show(client, public_id), show(client, public_id)
    assert hidden_fields(first)["submission_key"] != hidden_fields(second)["submission_key"]
    with app.app_context():
        assert len(blank_entry._forms()._kept) == 0
