"""English, Czech, Bosnian and Russian: complete catalogs, pages without English left on
them, the API's problems in the asked language, and a switcher that remembers.

After new strings are merged: ``python -m scorekeeper.i18n_tools update``, translate what
it marks untranslated or fuzzy in each ``scorekeeper/translations/*/LC_MESSAGES/*.po``,
then ``python -m scorekeeper.i18n_tools compile`` (README, "Languages").
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale
from flask_wtf import FlaskForm
from helpers import start_match
from sqlalchemy import event
from support import log_in
from test_no_server_errors import _urls, ids  # noqa: F401  (ids is a fixture)
from werkzeug.datastructures import MultiDict
from wtforms import SelectChoice, SelectField

from scorekeeper import i18n_tools
from scorekeeper.engine.errors import Problem, phrase, phrase_n
from scorekeeper.extensions import db
from scorekeeper.models import Account
from scorekeeper.web.i18n import environment_locale, translate_problem

LANGS = ("cs", "bs", "ru")
PLACEHOLDER = re.compile(r"%(?:\([a-z_]+\))?[-#0 +]*\d*(?:\.\d+)?[sdrif]")


def _placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text.replace("%%", "")))


def _catalog(po: Path) -> Any:
    with po.open("rb") as f:
        return read_po(f, locale=po.parent.parent.name)


def _po_files() -> list[Path]:
    return i18n_tools.catalogs()


def test_every_language_has_both_catalogs() -> None:
    names = {(p.parent.parent.name, p.name) for p in _po_files()}
    assert names == {(lang, name) for lang in LANGS for name in ("messages.po", "wtforms.po")}


@pytest.mark.parametrize("po", _po_files(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_message_is_translated_not_fuzzy_and_keeps_its_placeholders(po: Path) -> None:
    catalog = _catalog(po)
    assert catalog.num_plurals == 3  # cs, bs and ru: one, few, many
    bad = []
    for message in catalog:
        if not message.id:
            continue
        msgids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy:
            bad.append(("fuzzy", msgids[0]))
        if len(strings) != (3 if len(msgids) > 1 else 1) or not all(strings):
            bad.append(("untranslated", msgids[0]))
            continue
        wanted = sorted(set().union(*(_placeholders(i) for i in msgids)))
        for text in strings:
            if sorted(set(_placeholders(text))) != wanted:
                bad.append(("placeholders", msgids[0], text))
    assert bad == []


def test_the_catalogs_hold_every_string_of_the_code_and_are_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A string marked for translation but missing from a catalog fails here: run
    ``python -m scorekeeper.i18n_tools update``, translate, ``compile``."""
    monkeypatch.setattr(i18n_tools, "POT", tmp_path / "messages.pot")
    i18n_tools.extract()
    with (tmp_path / "messages.pot").open("rb") as f:
        template = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    assert len(template) > 700
    for lang in LANGS:
        catalog = _catalog(i18n_tools.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po")
        held = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        assert sorted(template - held) == [], lang
    assert i18n_tools.problems() == []


def test_a_broken_catalog_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker itself: an untranslated, a fuzzy message and a stale .mo are found."""
    folder = tmp_path / "cs" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "messages.po").write_text(
        'msgid ""\nmsgstr ""\n"Language: cs\\n"\n\n'
        'msgid "Deal %(n)s"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Save"\nmsgstr "Uložit"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(i18n_tools, "TRANSLATIONS", tmp_path)
    found = "\n".join(i18n_tools.problems())
    assert "untranslated: 'Deal %(n)s'" in found
    assert "fuzzy: 'Save'" in found
    assert "not compiled" in found


# -- the served language -------------------------------------------------------------------


def _lang_of(html: str) -> str:
    match = re.search(r'<html lang="([a-z]+)"', html)
    assert match, html[:200]
    return match.group(1)


@pytest.mark.parametrize(
    ("header", "lang"),
    [("ru", "ru"), ("cs-CZ,cs;q=0.9,en;q=0.5", "cs"), ("bs", "bs"), ("de, fr", "en"), ("", "en")],
)
def test_the_page_speaks_the_browsers_language(client: FlaskClient, header: str, lang: str) -> None:
    html = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    assert _lang_of(html) == lang
    assert 'aria-label="{}"'.format({"en": "Language", "cs": "Jazyk", "bs": "Jezik",
                                     "ru": "Язык"}[lang]) in html  # fmt: skip


def test_the_switcher_sets_a_cookie_that_wins_over_the_browser(client: FlaskClient) -> None:
    response = client.get("/language?lang=cs&next=/rules")
    assert response.status_code == 303 and response.headers["Location"] == "/rules"
    html = client.get("/rules", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert _lang_of(html) == "cs" and "Domácí pravidla" in html
    assert 'lang="cs" aria-current="true"' in html
    # another choice replaces it; an unknown language or a foreign "next" changes nothing
    client.get("/language?lang=bs")
    assert _lang_of(client.get("/").get_data(as_text=True)) == "bs"
    response = client.get("/language?lang=xx&next=//evil.example/")
    assert response.headers["Location"] == "/"
    assert _lang_of(client.get("/").get_data(as_text=True)) == "bs"


def test_the_switcher_links_come_back_to_the_page(client: FlaskClient) -> None:
    html = client.get("/rules?x=1").get_data(as_text=True)
    assert 'href="/language?lang=ru&amp;next=/rules?x%3D1"' in html


def test_an_account_remembers_its_language_on_every_browser(app: Flask) -> None:
    first = app.test_client()
    first.post("/signup", data={"username": "jana", "password": "correct horse battery"})
    response = first.post("/account/language", data={"language": "ru"})
    assert response.status_code == 303
    with app.app_context():
        account = db.session.scalars(db.select(Account).filter_by(username="jana")).one()
        assert account.language == "ru"
    other = app.test_client()  # a new browser: no cookie, an English one
    log_in(other, "jana", "correct horse battery")
    html = other.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert _lang_of(html) == "ru"
    other.get("/language?lang=cs")  # this browser's switcher still wins here
    assert _lang_of(other.get("/").get_data(as_text=True)) == "cs"
    response = first.post("/account/language", data={"language": "tlh"})
    assert response.status_code == 303
    with app.app_context():
        assert db.session.scalars(db.select(Account.language)).one() == "ru"
    first.post("/account/language", data={"language": ""})  # back to the browser's
    with app.app_context():
        assert db.session.scalars(db.select(Account.language)).one() is None


def test_a_static_file_chooses_no_language_and_reads_nothing(app: Flask) -> None:
    """The language is chosen when a page asks for it: a stylesheet or the service
    worker's script, fetched by a logged-in browser, reads neither the log-in nor the
    account (it did, before every request); the page after it still speaks the account's
    language."""
    browser = app.test_client()
    browser.post("/signup", data={"username": "ivo", "password": "correct horse battery"})
    with app.app_context():  # the account's language, and no switcher cookie on this browser
        db.session.scalars(db.select(Account).filter_by(username="ivo")).one().language = "bs"
        db.session.commit()
        engine = db.engine
    assert browser.get_cookie("lang") is None
    ran: list[str] = []

    def executed(*args: Any) -> None:
        ran.append(args[2])

    event.listen(engine, "before_cursor_execute", executed)
    try:
        for path in ("/static/css/app.css", "/sw.js"):
            assert browser.get(path).status_code == 200
        assert ran == []
        html = browser.get("/", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", executed)
    assert _lang_of(html) == "bs" and ran  # the page read the log-in for its language


def test_the_cli_language_comes_from_the_environment() -> None:
    assert environment_locale({"LANG": "ru_RU.UTF-8"}) == "ru"
    assert environment_locale({"LANGUAGE": "de:cs", "LANG": "en_US.UTF-8"}) == "cs"
    assert environment_locale({"LC_ALL": "C.UTF-8"}) == "en"
    assert environment_locale({}) == "en"


@pytest.mark.parametrize(
    ("lang", "stop", "error"),
    [
        ("cs_CZ.UTF-8", "Zastaveno.", "scorekeeper: chyba: no"),
        ("bs_BA.UTF-8", "Zaustavljeno.", "scorekeeper: greška: no"),
        ("ru_RU.UTF-8", "Остановлено.", "scorekeeper: ошибка: no"),
        ("C.UTF-8", "Stopped.", "scorekeeper: error: no"),
    ],
)
def test_the_cli_speaks_the_environments_language(
    monkeypatch: pytest.MonkeyPatch, lang: str, stop: str, error: str
) -> None:
    import io

    from scorekeeper.cli_commands import announce
    from scorekeeper.cli_errors import CommandError, guarded

    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)

    def interrupted(args: Any) -> None:
        raise KeyboardInterrupt

    def refused(args: Any) -> None:
        raise CommandError("no")

    out = io.StringIO()
    guarded(interrupted, None, out)
    guarded(refused, None, out)
    assert out.getvalue().splitlines() == [stop, error]
    shown = io.StringIO()
    announce("127.0.0.1", 8123, shown)
    assert "http://127.0.0.1:8123/" in shown.getvalue()
    english = "Scorekeeper is running on this computer only"
    assert (english in shown.getvalue()) == lang.startswith("C.")


# -- the engine's problems and the API ----------------------------------------------------


def test_engine_phrases_keep_their_english_and_translate(app: Flask) -> None:
    one = Problem.of("x", phrase_n("%(num)d team of %(size)s", "%(num)d teams of %(size)s", 5,
                                   size=2))  # fmt: skip
    assert one.message == "5 teams of 2"
    nested = Problem.of("sides", phrase("%(what)s cannot be negative.", what=phrase("Points")))
    assert nested.message == "Points cannot be negative."
    with app.test_request_context("/", headers={"Accept-Language": "ru"}):
        assert translate_problem(one) == "5 команд по 2"
        assert translate_problem(nested) == "Очки: не может быть отрицательным."
        assert translate_problem(Problem("x", "As it is.")) == "As it is."
    with app.test_request_context("/", headers={"Accept-Language": "cs"}):
        assert translate_problem(one) == "5 týmů po 2"


BAD_SCORE = {
    "rules": "classic",
    "deal": 9,
    "players": 4,
    "sides": [{"went_out": "yes", "melded": {"4": -1}}, {}],
}


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("ru", ["сдачи 9 нет", "true или false"]),
        ("cs", ["rozdání 9 neexistuje", "true nebo false"]),
        ("bs", ["dijeljenja 9 nema", "true ili false"]),
    ],
)
def test_the_score_api_answers_its_422_in_the_asked_language(
    client: FlaskClient, lang: str, words: list[str]
) -> None:
    english = client.post("/api/v1/score", json=BAD_SCORE).get_json()["errors"]
    response = client.post("/api/v1/score", json=BAD_SCORE, headers={"Accept-Language": lang})
    assert response.status_code == 422
    errors = response.get_json()["errors"]
    assert [e["field"] for e in errors] == [e["field"] for e in english]
    assert all(set(e) == {"field", "message"} for e in errors)
    for mine, theirs in zip(errors, english, strict=True):
        assert mine["message"] != theirs["message"]
    text = " ".join(e["message"] for e in errors)
    for word in words:
        assert word in text


def test_the_meld_api_gives_its_reasons_and_problems_in_the_asked_language(
    client: FlaskClient,
) -> None:
    short = {"rules": "classic", "deal": 1, "melds": [{"rank": "K", "naturals": 2}]}
    english = client.post("/api/v1/meld", json=short).get_json()
    assert english["melds"][0]["reasons"] == ["A meld needs at least 3 cards; this one has 2."]
    answer = client.post("/api/v1/meld", json=short, headers={"Accept-Language": "ru"})
    assert answer.get_json()["melds"][0]["reasons"] == [
        "В мелде должно быть не меньше 3 карт; в этом 2."
    ]
    three = {"rules": "classic", "deal": 1, "melds": [{"rank": "3", "naturals": 3}]}
    refused = client.post("/api/v1/meld", json=three, headers={"Accept-Language": "bs"})
    assert refused.status_code == 422
    assert refused.get_json()["errors"] == [
        {"field": "melds[0].rank", "message": "Trojke se nikad ne spajaju."}
    ]


def test_the_api_ignores_the_switcher_cookie(client: FlaskClient) -> None:
    client.get("/language?lang=ru")
    errors = client.post("/api/v1/score", json=BAD_SCORE).get_json()["errors"]
    assert any("there is no deal 9" in e["message"] for e in errors)


# -- every page, in every language ----------------------------------------------------------


class _Text(HTMLParser):
    """The text a reader sees or hears: text nodes (not scripts or styles) and the
    attributes read aloud or shown (aria-label, title, placeholder, alt, value of buttons)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "textarea"):  # a textarea holds what is being edited
            self.skip += 1
        for name, value in attrs:
            if value and name in ("aria-label", "title", "placeholder", "alt"):
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "textarea"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def _visible(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def _english_fragments(lang: str) -> dict[str, str]:
    """For each catalog message, its longest literal piece (the text between placeholders)
    when that piece is a phrase: at least 14 characters with a space in it, and not also in
    the translation (a quoted source, a name). Short words ("OK", "W", numbers) are left
    out: they match too much by chance."""
    catalog = _catalog(i18n_tools.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po")
    out = {}
    for message in catalog:
        if not message.id:
            continue
        msgids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in msgids:
            pieces = PLACEHOLDER.split(text.replace("%%", "%"))
            piece = " ".join(max(pieces, key=len).split())
            if len(piece) >= 14 and " " in piece and not any(piece in s for s in strings):
                out[piece] = text
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_in_every_language_leaves_no_english_from_the_catalog(
    app: Flask,
    client: FlaskClient,
    ids: dict[str, str],  # noqa: F811  (the fixture imported above)
    lang: str,
) -> None:
    fragments = _english_fragments(lang)
    assert len(fragments) > 400
    log_in(client, "fuzz")
    seen = 0
    left: list[tuple[str, str]] = []
    pages = [*_urls(app, ids), ("GET", "/no-such-page")]  # and the error page
    for method, path in pages:
        if method != "GET" or path.startswith(("/logout", "/language", "/api/")):
            continue
        response = client.get(path, headers={"Accept-Language": lang})
        if response.mimetype != "text/html" or 300 <= response.status_code < 400:
            continue
        html = response.get_data(as_text=True)
        if "<html" in html:
            assert _lang_of(html) == lang, path
        seen += 1
        text = _visible(html)
        left += [(path, piece) for piece in fragments if piece in text]
    assert seen >= 30
    assert sorted(set(left)) == [], "\n".join(map(str, sorted(set(left))))


def test_templates_follow_the_locale_even_when_it_changes_within_a_request(app: Flask) -> None:
    """Templates look the catalog up once per request (issue 17): a locale forced for a
    while, then the request's own again, are each followed, and each language keeps its
    words apart from the others'."""
    from flask import render_template_string
    from flask_babel import force_locale

    page = (
        "{{ _('Deals') }}|{{ ngettext('History: %(num)s change', 'History: %(num)s changes', 2) }}"
    )
    with app.test_request_context("/", headers={"Accept-Language": "ru"}):
        first = render_template_string(page)
        with force_locale("cs"):
            forced = render_template_string(page)
        back = render_template_string(page)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = render_template_string(page)
    assert first == back and first.startswith("Сдачи|")
    assert forced == "Rozdání|Historie: 2 změny"
    assert english == "Deals|History: 2 changes"


def test_wtforms_own_messages_follow_the_served_language_and_a_forced_one(app: Flask) -> None:
    """WTForms' messages come from our ``wtforms`` catalogs, looked up once per request
    and followed when a locale is forced for a while (issue 17 keeps the lookup)."""

    class Pick(FlaskForm):
        class Meta:
            csrf = False

        kind = SelectField(choices=[SelectChoice("a", "A")])

    def refused() -> list[str]:
        form = Pick(formdata=MultiDict({"kind": "z"}))
        assert not form.validate()
        return form.kind.errors

    with app.test_request_context(headers={"Accept-Language": "cs"}):
        assert refused() == ["Neplatná volba."]
        with force_locale("ru"):
            assert refused() == ["Неверный вариант."]
        assert refused() == ["Neplatná volba."]
    with app.test_request_context(headers={"Accept-Language": "bs"}):
        assert refused() == ["Nije ispravan izbor."]
    with app.app_context():  # no request: Flask-Babel's own lookup, in the default language
        assert refused() == ["Not a valid choice."]


#: Impossible entries whose problems were once sentences made in English only: the cards
#: in play (jokers, red threes), the cards the books need, the points' multiple and most.
IMPOSSIBLE = {
    "rules": "classic",
    "deal": 1,
    "players": 6,
    "sides": [
        {"books": {"clean": 1, "dirty": 1}, "melded": {"2": 4, "joker": 11, "K": 7}},
        {"books": {"dirty": 2}, "melded": {"K": 14, "2": 1}, "red_threes": 11},
        {"books": {"clean": 1}, "melded": {"K": 6}},
        {"melded_points": 2003},
        {"left_points": 2955},
        {"went_out": True, "books": {"clean": 1}, "melded_points": 400},
    ],
}
#: English words none of those problems may keep in another language.
ENGLISH_WORDS = re.compile(
    r"\b(decks?|holds?|report|cards?|multiple|worth|books?|needs?|or|clean|dirty|wild|"
    r"natural|jokers|twos|kings|red|threes)\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("lang", LANGS)
def test_the_cards_in_play_books_and_points_problems_speak_the_asked_language(
    client: FlaskClient, lang: str
) -> None:
    english = client.post("/api/v1/score", json=IMPOSSIBLE).get_json()["errors"]
    assert len(english) == 11, english
    seven = {**IMPOSSIBLE, "players": 7, "sides": [{}, {}]}
    english += client.post("/api/v1/score", json=seven).get_json()["errors"]
    assert "2, 3, 4, 5 or 6 players" in english[-1]["message"]
    asked = {"Accept-Language": lang}
    errors = client.post("/api/v1/score", json=IMPOSSIBLE, headers=asked).get_json()["errors"]
    errors += client.post("/api/v1/score", json=seven, headers=asked).get_json()["errors"]
    assert [e["field"] for e in errors] == [e["field"] for e in english]
    for mine, theirs in zip(errors, english, strict=True):
        assert mine["message"] != theirs["message"]
        assert not ENGLISH_WORDS.findall(mine["message"]), mine["message"]


def _sheet_words(html: str) -> dict[str, str]:
    """The deal form's row labels (books, card counts) and its going-out checklist, by row."""
    found = dict(re.findall(r'class="row-label" id="row-([\w-]+)">([^<]*)<', html))
    found["checklist"] = " ".join(re.findall(r"</span> (\d+ [^<]+) <small>", html))
    found["rules"] = re.findall(r'class="rules-link"><a [^>]*>([^<]*)<', html)[0]
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_the_deal_forms_books_cards_and_checklist_speak_the_asked_language(
    client: FlaskClient, lang: str
) -> None:
    public_id = start_match(client)
    english = _sheet_words(client.get(f"/m/{public_id}").get_data(as_text=True))
    page = client.get(f"/m/{public_id}", headers={"Accept-Language": lang})
    mine = _sheet_words(page.get_data(as_text=True))
    assert set(mine) == set(english)
    rows = [r for r in english if r.startswith(("books_", "melded_", "left_"))]
    assert len(rows) >= 13  # three kinds of books, five groups of cards in two blocks
    assert english["books_clean"] == "Clean"
    assert english["checklist"].startswith("2 clean 2 dirty 1 wild 2 clean")
    for row, text in english.items():
        if row.startswith(("books_", "melded_", "left_")) or row in ("checklist", "rules"):
            assert mine[row] != text, row
            assert not ENGLISH_WORDS.findall(mine[row]), (row, mine[row])
            assert not re.search(r"\b(Classic|to)\b", mine[row]), (row, mine[row])
