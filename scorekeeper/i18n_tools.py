"""Keep the translation catalogs in step with the code: ``python -m scorekeeper.i18n_tools``.

- ``extract``: collect every marked string (``_``, ``_l``, ``ngettext``, the engine's
  ``phrase``/``phrase_n``, templates) into ``scorekeeper/translations/messages.pot``;
- ``update``: ``extract``, then merge the template into each language's ``messages.po``
  (a new language gets a new catalog); new and changed strings show up untranslated or
  ``fuzzy``: translate them, and remove the ``fuzzy`` mark once a translation is right;
- ``compile``: write each ``messages.mo`` (and ``wtforms.mo``) next to its ``.po``;
- ``check``: fail when a catalog lacks a translation, keeps a fuzzy one, or has a ``.mo``
  that is older than what its ``.po`` compiles to (tests/web/test_i18n.py says the same).

The compiled ``.mo`` files are committed, so ``pip install -e .`` (the README's install)
serves every language with no build step. After editing a ``.po``, run ``compile``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
TRANSLATIONS = PACKAGE / "translations"
POT = TRANSLATIONS / "messages.pot"
#: Every language but English (the source language) has a catalog.
LANGUAGES = ("cs", "bs", "ru")
KEYWORDS = (
    "_",
    "_l",
    "lazy_gettext",
    "gettext",
    "ngettext:1,2",
    "pgettext:1c,2",
    "phrase",
    "phrase_n:1,2",
)


def _babel(*argv: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *argv])


def extract() -> None:
    """Write the template catalog from the code and the templates."""
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    # from the repository's root, so the catalogs' "#:" comments name files as in the
    # repository (scorekeeper/cli.py:12), not as on the machine that extracted them
    with contextlib.chdir(ROOT):
        _extract(keywords)
    _add_preset_texts()


def _extract(keywords: list[str]) -> None:
    _babel(
        "extract",
        "-F",
        str(ROOT / "babel.cfg"),
        "--no-default-keywords",
        *keywords,
        "--sort-by-file",
        "--no-wrap",
        "--project",
        "scorekeeper",
        "-o",
        str(POT),
        ".",
    )


def preset_texts() -> list[tuple[str, str]]:
    """The presets' names, descriptions and going-out conditions, with where they are: the
    engine keeps them in English (standard library only); the web layer translates them."""
    from .engine.presets import PRESETS

    found = []
    for preset in PRESETS.values():
        found += [(preset.name, "name"), (preset.description, "description")]
        found += [(c, "going_out_conditions") for c in preset.going_out_conditions]
    return [(t, f"scorekeeper/engine/presets.py ({preset_id})") for t, preset_id in found if t]


def _add_preset_texts() -> None:
    with POT.open("rb") as f:
        template = read_po(f)
    for text, where in preset_texts():
        template.add(text, locations=[(where, 0)])
    with POT.open("wb") as f:
        write_po(f, template, width=0, sort_by_file=True)


def update() -> None:
    """Extract, then merge into each language's catalog (making missing ones)."""
    extract()
    for lang in LANGUAGES:
        po = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
        if po.exists():
            _babel("update", "-i", str(POT), "-d", str(TRANSLATIONS), "-l", lang, "--no-wrap")
        else:
            _babel("init", "-i", str(POT), "-d", str(TRANSLATIONS), "-l", lang, "--no-wrap")


def catalogs() -> list[Path]:
    """Every ``.po`` of every language (``messages`` and ``wtforms``)."""
    return sorted(TRANSLATIONS.glob("*/LC_MESSAGES/*.po"))


def compiled(po: Path) -> bytes:
    """What ``po`` compiles to (fuzzy entries left out, as gettext does)."""
    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def compile_all() -> None:
    """Write each ``.mo`` from its ``.po``."""
    for po in catalogs():
        po.with_suffix(".mo").write_bytes(compiled(po))


def problems() -> list[str]:
    """What is wrong with the catalogs: untranslated, fuzzy, stale ``.mo``."""
    found: list[str] = []
    for po in catalogs():
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        for message in catalog:
            if not message.id:
                continue
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if not all(strings):
                found.append(f"{po}: untranslated: {message.id!r}")
            if message.fuzzy:
                found.append(f"{po}: fuzzy: {message.id!r}")
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(po):
            found.append(f"{mo}: not compiled from the current {po.name}: run compile")
    return found


def main(argv: list[str] | None = None) -> int:
    """``extract``, ``update``, ``compile`` or ``check``."""
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else ""
    if command == "extract":
        extract()
    elif command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    else:
        print("usage: python -m scorekeeper.i18n_tools extract|update|compile|check")
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
