"""The empty deal form, rendered once per rule set and language, filled in per match.

The form for the next deal is most of what a match page being played renders, and it is
the same for every match of the same rules, side count and language but for a few values:
the match's address, the deal's number, the sides' names, the submission key and the CSRF
token (issue 17: a fifth of a saved deal's answer, and as much of the match page, went to
rendering it, and another twentieth to building its WTForms form). So it is rendered once
with a stand-in for each of those values, kept in the process (least recently used go
first), and each page gets a copy with its own values put in, in one pass.

Only the empty form is kept: a form with typed numbers, errors or a preview, and the
form that corrects a deal, are rendered for their request (``templates/matches/_entry.html``
both ways). At most ``KEPT`` forms are kept per process; with ``PAGE_CACHE_SIZE`` 0 (setting
``SCOREKEEPER_PAGE_CACHE_SIZE``, ``web.page_cache``) none is, and each page renders its
own, through the same stand-ins.
"""

from __future__ import annotations

import json
import re
import secrets
from types import SimpleNamespace
from typing import Any

from flask import current_app, render_template
from flask_babel import get_locale
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup, escape

from ...services.matches import LoadedMatch, new_submission_key
from .. import page_cache
from . import forms

#: Empty forms kept per process: one per rule set, side count and language in use.
KEPT = 64

#: Stand-ins are made of this process's own random letters, so that no text a rule set or
#: a player's name brings can be taken for one; ``.`` and the letters pass unchanged
#: through HTML escaping and URLs (the match's address and the deal's number are in links).
_NONCE = "sk" + secrets.token_hex(8)
_STAND_IN = re.compile(re.escape(_NONCE) + r"\.([a-z0-9]+)\." + re.escape(_NONCE))


def _stand_in(name: str) -> str:
    return f"{_NONCE}.{name}.{_NONCE}"


class BlankEntry:
    """The empty form for the next deal of ``loaded``, rendered when the template shows it
    (``{{ entry }}``): a page that never shows it (the live updates) pays nothing.
    ``submission_key`` is the key the form was given (None until it is shown)."""

    def __init__(self, loaded: LoadedMatch, minimums: list[int] | None) -> None:
        self.loaded = loaded
        self.minimums = minimums
        self.submission_key: str | None = None
        self._html: Markup | None = None

    def __html__(self) -> Markup:
        if self._html is None:
            self._html = self._render()
        return self._html

    def _render(self) -> Markup:
        game, row = self.loaded.game, self.loaded.row
        labels = [side.label for side in game.sides]
        template = _kept(row.rules, len(labels), bool(self.minimums), self.loaded)
        self.submission_key = new_submission_key()
        values: dict[str, str] = {
            "match": row.public_id,  # letters, digits, - and _ (models.is_public_id)
            "deal": str(game.current_deal),
            "key": self.submission_key,
            **{f"side{i}": str(escape(label)) for i, label in enumerate(labels)},
        }

        def value(found: re.Match[str]) -> str:
            name = found.group(1)
            if name == "csrf":
                return generate_csrf()  # this session's token (kept on ``g`` for the page)
            return values[name]

        return Markup(_STAND_IN.sub(value, template))


def _forms() -> page_cache.Bodies[str]:
    """This app's kept forms (made on first use; none kept with ``PAGE_CACHE_SIZE`` 0)."""
    found = current_app.extensions.get("scorekeeper.entry_cache")
    if found is None:
        size = KEPT if current_app.config.get("PAGE_CACHE_SIZE", 1) else 0
        found = current_app.extensions["scorekeeper.entry_cache"] = page_cache.Bodies[str](size)
    return found  # type: ignore[no-any-return]


def _kept(rules: dict[str, Any], sides: int, minimums: bool, loaded: LoadedMatch) -> str:
    """The empty form with stand-ins, for these rules (the match's own, as frozen when it
    started: the whole of them is the key, whatever part the form shows), side count and
    language, and whether the deal has a minimum meld (the meld checker's link)."""
    kept = _forms()
    key = (json.dumps(rules, sort_keys=True), sides, minimums, str(get_locale() or "en"))
    found = kept.get(key) if kept.size else None
    if found is None:
        found = _rendered(loaded, sides, minimums)
        if kept.size:
            kept.put(key, found)
    return found


def _rendered(loaded: LoadedMatch, sides: int, minimums: bool) -> str:
    """``templates/matches/_entry.html`` for an empty form, with stand-ins for the values
    that differ between matches and requests."""
    from .context import entry_rows  # (context imports this module)

    game = loaded.game
    form = forms.deal_form(game.rules, sides)
    form.submission_key.data = _stand_in("key")
    form.expected_deal.data = _stand_in("deal")
    labels = [_stand_in(f"side{i}") for i in range(sides)]
    html = render_template(
        "matches/_entry.html",
        match=SimpleNamespace(public_id=_stand_in("match")),
        deal=_stand_in("deal"),
        labels=labels,
        rules=game.rules,
        minimums=minimums,
        requires=dict(game.rules.going_out_requires),
        form=form,
        editing=None,
        general_errors=[],
        preview=None,
        **entry_rows(game, form),
    )
    # the form's CSRF field holds this session's token: a stand-in in what is kept
    token = page_cache.token_used({})
    if token:
        html = html.replace(token, _stand_in("csrf"))
    return html
