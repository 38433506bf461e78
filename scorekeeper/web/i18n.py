"""The served language: a switcher's cookie, the account's saved language, the browser's
``Accept-Language``, else English. Also the translation of the engine's problems.

Catalogs live in ``scorekeeper/translations/<lang>/LC_MESSAGES/messages.po``; the compiled
``.mo`` files are committed next to them (``python -m scorekeeper.i18n_tools compile``), so a
plain ``pip install`` serves every language. ``python -m scorekeeper.i18n_tools check``
fails when a ``.mo`` is not what its ``.po`` compiles to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import flask_wtf.form as flask_wtf_form
from flask import Blueprint, Flask, Response, g, has_request_context, redirect, request
from flask_babel import (
    Domain,
    format_date,
    format_decimal,
    format_number,
    get_locale,
    get_translations,
    ngettext,
)
from flask_babel import gettext as _
from flask_login import current_user

from ..cli_i18n import environment_locale, said
from ..engine.errors import Problem
from . import authz
from .next_url import local_path

#: The languages served, each named in itself (the switcher shows these names).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "cs": "Čeština",
    "bs": "Bosanski",
    "ru": "Русский",
}
DEFAULT = "en"
COOKIE = "lang"
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"
COOKIE_MAX_AGE = 365 * 24 * 3600

bp = Blueprint("i18n", __name__)


def known(code: str | None) -> str | None:
    """``code`` when it is a served language, else None."""
    return code if code in LANGUAGES else None


def select_locale() -> str:
    """Cookie > the logged-in account's language > ``Accept-Language`` > English.

    The API (``/api/``) answers by ``Accept-Language`` alone: a script's header says what
    it wants, whatever cookie a browser on the same host holds. Outside a request (the
    CLI), the environment's ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``.
    """
    if not has_request_context():
        return environment_locale()
    if not request.path.startswith("/api/"):
        chosen = known(request.cookies.get(COOKIE))
        if chosen:
            return chosen
        try:
            user = current_user
            saved = known(getattr(user, "language", None)) if user.is_authenticated else None
        except Exception:  # the database may be what failed (the storage-failure page)
            saved = None
        if saved:
            return saved
    best = request.accept_languages.best_match(list(LANGUAGES))
    return best or DEFAULT


def current() -> str:
    """The language of this request (``en`` outside one)."""
    locale = get_locale()
    return str(locale) if locale is not None else DEFAULT


def say(text: str) -> str:
    """A :class:`Phrase` in the served language (its parameters that are phrases too);
    any other text as it is."""
    return said(text, _, ngettext)


def text(value: str | None) -> str:
    """A stored text in the served language when the catalog has it (a preset's name,
    description or going-out condition), else as it is; never %-formatted, so a user's
    "50%" stays."""
    if not value:
        return value or ""
    return str(_(value))


def translated_check(answer: dict[str, Any]) -> dict[str, Any]:
    """A meld check's JSON (``MeldCheck.as_dict``) with each meld's reasons translated.

    The reasons are the engine's phrases (each a ``str``), which ``as_dict`` passes on."""
    melds = [{**m, "reasons": [say(r) for r in m["reasons"]]} for m in answer["melds"]]
    return {**answer, "melds": melds}


def translate_problem(problem: Problem) -> str:
    """The problem's sentence in the served language (its English when no phrase)."""
    return say(problem.phrase) if problem.phrase is not None else problem.message


def problem_dicts(problems: Iterable[Problem]) -> list[dict[str, str]]:
    """The JSON shape of problems, messages translated; the ``field`` paths unchanged."""
    return [{"field": p.field, "message": translate_problem(p)} for p in problems]


def translated_messages(problems: Iterable[Problem]) -> dict[str, list[str]]:
    """``field -> [messages]`` translated, for putting next to form fields."""
    out: dict[str, list[str]] = {}
    for p in problems:
        out.setdefault(p.field, []).append(translate_problem(p))
    return out


def _safe_next(target: str | None) -> str:
    """A path on this site to go back to (``next_url.local_path``), else the home page."""
    return local_path(target) or "/"


@bp.route("/language")
@authz.anyone  # sets this browser's own preference cookie, nothing else
def switch() -> Response:
    """``/language?lang=cs&next=/rules``: remember the chosen language in a cookie and go
    back to the page it was chosen on (an unknown language changes nothing)."""
    response = redirect(_safe_next(request.args.get("next")), 303)
    lang = known(request.args.get("lang"))
    if lang is not None:
        response.set_cookie(COOKIE, lang, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True)
    return response


def _language_links() -> list[dict[str, Any]]:
    here = request.full_path.rstrip("?") if request else "/"
    served = current()
    return [
        {"code": code, "name": name, "current": code == served, "next": here}
        for code, name in LANGUAGES.items()
    ]


#: WTForms' own messages ("This field is required.", "Not a valid choice."): their
#: catalogs ``translations/<lang>/LC_MESSAGES/wtforms.po`` come from WTForms (cs, ru) and
#: are written here for Bosnian; Flask-WTF's own lookup knows only WTForms' folder, where
#: Czech is ``cs_CZ`` and Bosnian missing.
WTFORMS = Domain(translation_directories=[str(TRANSLATIONS)], domain="wtforms")


class WTFormsTranslations:
    """What WTForms asks of a translations object, answered from our ``wtforms`` domain in
    the served language, looked up once per request as the templates' catalog is: every
    field of a form asks as it is made (its label), 38 times for a deal form."""

    def gettext(self, string: str) -> str:
        return str(_wtforms_translations().ugettext(string))

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return str(_wtforms_translations().ungettext(singular, plural, n))


def _wtforms_translations() -> Any:
    if not has_request_context():  # a form outside a request: Flask-Babel's own lookup
        return WTFORMS.get_translations()
    return _request_catalog("_wtforms_translations", WTFORMS.get_translations)


def register(app: Flask) -> None:
    """The switcher's route and template helpers (``html_lang()`` for ``<html lang>``,
    ``language_links()``, ``LANGUAGES``). The language is chosen when something asks for
    it (a page, a translated message), not for every request: a static file or the
    service worker's script would otherwise read the logged-in account for nothing."""
    app.register_blueprint(bp)
    flask_wtf_form.translations = WTFormsTranslations()  # every FlaskForm's Meta reads it

    @app.after_request
    def _vary(response: Response) -> Response:
        # pages and API answers depend on the language; static files do not
        if response.mimetype in ("text/html", "application/json"):
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response

    app.jinja_env.globals["html_lang"] = current
    app.jinja_env.globals["language_links"] = _language_links
    app.jinja_env.filters["text"] = text
    app.jinja_env.filters["say"] = say  # an engine phrase ("2 clean") in the served language
    # dates and numbers written the served language's way (1. 12. 2026, 1 234,5)
    app.jinja_env.globals["format_date"] = format_date
    app.jinja_env.globals["format_number"] = format_number
    app.jinja_env.globals["format_decimal"] = format_decimal
    app.jinja_env.globals["LANGUAGES"] = LANGUAGES


def _page_translations() -> Any:
    """The catalog of the served language, looked up once per request and language.

    Flask-Babel's own lookup (its context three times over and the locale's name built
    again, on every ``_()`` of a template) was a tenth of the match page (issue 17).
    Kept with the locale it is for, read where Flask-Babel keeps the request's locale once
    chosen (``get_locale`` otherwise), so a locale forced for a while is still followed."""
    return _request_catalog("_page_translations", get_translations)


def _request_catalog(name: str, lookup: Callable[[], Any]) -> Any:
    """``lookup()``'s catalog, kept on ``g`` as ``name`` with the locale it is for."""
    state = g._get_current_object()
    locale = getattr(getattr(state, "_flask_babel", None), "babel_locale", None)
    if locale is None:
        locale = get_locale()
    cached = getattr(state, name, None)
    if cached is None or cached[0] is not locale:
        cached = (locale, lookup())
        setattr(state, name, cached)
    return cached[1]


def install_page_gettext(app: Flask) -> None:
    """Templates' ``_()``, ``ngettext()``…: what Flask-Babel installs, from the catalog
    looked up once per request (call after ``babel.init_app``)."""
    app.jinja_env.install_gettext_callables(
        gettext=lambda s: _page_translations().ugettext(s),
        ngettext=lambda s, p, n: _page_translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: _page_translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: _page_translations().unpgettext(c, s, p, n),
    )
