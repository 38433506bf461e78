"""The command line's language: the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and
``LANG`` that names a served language (``cs_CZ.UTF-8`` -> ``cs``), else English.

What the command line says outside the app (every subcommand's ``--help``, ``scorekeeper
serve`` announcing its address, what ``backup``, ``export`` and ``import`` did or why they
refused, a failure told in one line) is translated here, with the standard library's
``gettext`` and the same catalogs as the web pages; inside the app, Flask-Babel picks the
same language (``web/i18n.py``).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
#: The served languages (``web/i18n.py`` names them).
CODES = ("en", "cs", "bs", "ru")
DEFAULT = "en"


def environment_locale(environ: Mapping[str, str] | None = None) -> str:
    """The first served language named by the POSIX locale variables, else English."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for part in (env.get(name) or "").split(":"):
            code = part.split(".")[0].split("_")[0].lower()
            if code in CODES:
                return code
    return DEFAULT


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    return gettext.translation("messages", TRANSLATIONS, [lang], fallback=True)


def _(msgid: str, **params: object) -> str:
    """``msgid`` in the environment's language, ``%(name)s`` filled from ``params``."""
    text = _catalog(environment_locale()).gettext(msgid)
    return text % params if params else text


def ngettext(singular: str, plural: str, num: int, **params: object) -> str:
    """The form of ``singular``/``plural`` for ``num`` in the environment's language, with
    ``%(num)d`` and the ``%(name)s`` of ``params`` filled."""
    text = _catalog(environment_locale()).ngettext(singular, plural, num)
    return text % {"num": num, **params}


def said(text: str, gettext: Any, ngettext: Any) -> str:
    """An engine or service :class:`~scorekeeper.engine.errors.Phrase` said with these
    catalog functions (``gettext(msgid, **params)``, ``ngettext(singular, plural, num,
    **params)``: this module's, or Flask-Babel's in the web layer), its parameters that are
    phrases too; any other text as it is (already said, or not ours: a database's own
    words)."""
    from .engine.errors import Phrase

    if not isinstance(text, Phrase):
        return text
    params = {
        key: said(value, gettext, ngettext) if isinstance(value, Phrase) else value
        for key, value in text.params.items()
        if key != "num"
    }
    if text.plural and text.num is not None:
        return str(ngettext(text.msgid, text.plural, text.num, **params))
    return str(gettext(text.msgid, **params))


def say(text: str) -> str:
    """A phrase (e.g. a backup's or an import's refusal) in the environment's language."""
    return said(text, _, ngettext)


def decimal(number: float) -> str:
    """``number`` with one decimal, written as the environment's language writes it
    (``1.5`` in English, ``1,5`` in Czech)."""
    from babel.numbers import format_decimal

    return format_decimal(number, format="0.0", locale=environment_locale())
