"""The installable app: web app manifest, service worker, icons, the offline page.

The service worker (static/js/sw.js) is served from the root (``/sw.js``) so that it
controls every page. This module puts in front of its code what it keeps from the start
(the versioned URLs of the static files and the pages below) and a version made of their
hashes, so that a new deploy installs a new worker, which drops the old files. It answers:

- versioned static files (``?v=<hash>``): from its cache first (they never change);
- pages: from the network first, so the scores are the latest when there is a
  connection; every page opened on this phone is kept, and shown when there is none (a
  page never opened here gets the offline page);
- anything else (saving a deal, htmx fragments, the API): untouched, from the network.

In the page (static/js/app.js): the worker is registered; on a match page the screen is
kept on (Screen Wake Lock API, taken again whenever the page comes back into view); after
each saved deal the page as it now stands is stored as this phone's offline copy.

Deals saved without a connection (static/js/app.js, too): a Save that fails for want of a
connection (offline, or no answer in time) is kept in IndexedDB with its idempotency key
(``submission_key``), the deal number it was meant for (``expected_deal``) and its
version; the scoreboard shows it at once as "waiting to be sent" and the form moves on
to the next deal. When the connection returns the kept deals are sent in order, each
with a fresh CSRF token; the server saves each once however often it is sent. If another
phone entered that deal first, the server refuses it: both versions are shown, theirs
and ours, and ours stays kept until it is saved as the next deal or discarded. A Save
the server answers with an error (5xx) is not kept: the numbers stay in the form and a
message beside Save says what happened.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale, get_translations
from flask_babel import gettext as _
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from ..engine.meld import MAX_MELD
from ..engine.presets import PRESETS
from . import authz, i18n
from .assets import FIXED_BODIES, IMMUTABLE, static_bytes
from .meld.page import RANK_LABELS

bp = Blueprint("pwa", __name__)

THEME_COLOUR = "#0b5d3b"
BACKGROUND_COLOUR = "#f7f6f2"
#: Static files the worker keeps from the start (others are kept when first used).
SHELL_SUFFIXES = (".css", ".js", ".svg")
#: Pages the worker keeps from the start: the offline fallback, home, meld check, rules
#: (then each preset's rules card, see shell_config).
SHELL_PAGES = ("pwa.offline", "home.index", "meld.check", "rules.index")


@bp.get("/manifest.webmanifest")
@authz.anyone  # reads nothing of anyone\'s: the app shell
def manifest() -> Response:
    """The web app manifest: name, icons, colours, standalone display, start URL."""
    icon = "icons/{}".format
    data = {
        "id": "/",
        "name": _("Scorekeeper · Hand and Foot"),
        "short_name": _("Scorekeeper"),
        "description": _("Keeps the score of Hand and Foot at the table, even offline."),
        "start_url": url_for("home.index"),
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            _icon(icon("icon.svg"), "any", "image/svg+xml", "any"),
            _icon(icon("icon-192.png"), "192x192", "image/png", "any"),
            _icon(icon("icon-512.png"), "512x512", "image/png", "any"),
            _icon(icon("maskable-512.png"), "512x512", "image/png", "maskable"),
        ],
    }
    body = json.dumps(data, ensure_ascii=False)
    return _revalidated(Response(body, mimetype="application/manifest+json"))


def _revalidated(response: Response) -> Response:
    """Asked again on each visit, answered "304 Not Modified" while it is the same."""
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(hashlib.sha256(response.get_data()).hexdigest()[:16])
    return response.make_conditional(request)


def _icon(filename: str, sizes: str, kind: str, purpose: str) -> dict[str, str]:
    return {
        "src": url_for("static", filename=filename),
        "sizes": sizes,
        "type": kind,
        "purpose": purpose,
    }


@bp.get("/sw.js")
@authz.anyone  # reads nothing of anyone\'s: the app shell
def service_worker() -> Response:
    """The service worker, with the version of what it keeps put in front of it (a new
    version changes the script's bytes, so browsers install it again). The list itself
    is fetched by the worker when it installs (:func:`shell`): the page that registers
    the worker does not carry it."""
    response = _revalidated(Response(worker_script(), mimetype="text/javascript"))
    response.headers["Service-Worker-Allowed"] = "/"
    return response


def worker_script() -> bytes:
    """The worker's script as :func:`service_worker` sends it: the same for as long as the
    app runs, so its compressed bytes are made once (``assets.FIXED_BODIES``)."""
    folder = Path(current_app.static_folder or "static")
    minify = bool(current_app.config.get("STATIC_MINIFY"))
    code = static_bytes(folder / "js" / "sw.js", minify).decode("utf-8")
    config = shell_config()
    head = {
        "version": config["version"],
        "offline": config["offline"],
        "shell": url_for("pwa.shell", v=config["version"]),
    }
    return f"self.SCOREKEEPER = {json.dumps(head)};\n{code}".encode()


FIXED_BODIES["pwa.service_worker"] = worker_script


@bp.get("/sw-shell.json")
@authz.anyone  # reads nothing of anyone\'s: the app shell
def shell() -> Response:
    """What the worker keeps from the start (static files, pages), fetched by it when it
    installs; under its version's URL it never changes, so it is cached for good."""
    config = shell_config()
    response = Response(json.dumps(config), mimetype="application/json")
    if request.args.get("v") == config["version"]:
        response.headers["Cache-Control"] = IMMUTABLE
        return response
    return _revalidated(response)


def shell_config() -> dict[str, Any]:
    """What the worker keeps from the start, and the version of that set."""
    hashes: dict[str, str] = current_app.extensions["asset_hashes"]
    assets = sorted(
        url_for("static", filename=name)
        for name in hashes
        if name.endswith(SHELL_SUFFIXES) and name != "js/sw.js"
    )
    pages = [url_for(endpoint) for endpoint in SHELL_PAGES]
    pages += [url_for("rules.preset", preset_id=preset_id) for preset_id in PRESETS]
    version = hashlib.sha256(json.dumps([assets, pages]).encode()).hexdigest()[:12]
    return {"version": version, "assets": assets, "pages": pages, "offline": pages[0]}


@bp.get("/favicon.ico")
@authz.anyone  # reads nothing of anyone\'s: the app shell
def favicon() -> Response:
    """The icon browsers ask for on their own (pages name the SVG one)."""
    return current_app.send_static_file("icons/favicon.ico")


@bp.get("/offline")
@authz.anyone  # reads nothing of anyone\'s: the app shell
def offline() -> Response:
    """Shown by the service worker for a page that was never opened on this phone."""
    return Response(render_template("pwa/offline.html"))


def offline_texts() -> dict[str, str]:
    """The words static/js/app.js shows, translated like every other string."""
    deal = {"n": "{n}"}  # the script puts the deal number in
    return {
        "queued": _(
            "No connection: deal %(n)s is kept on this phone until it can be sent.", **deal
        ),
        "waiting": _("Deal %(n)s · waiting to be sent", **deal),
        "waiting_note": _("It is sent by itself when the connection returns."),
        "server_error": _(
            "The server had a problem: nothing was saved. Your numbers are kept; tap Save again."
        ),
        "timeout": _(
            "No answer in time: deal %(n)s is kept on this phone until it can be sent.", **deal
        ),
        "offline": _(
            "No connection: nothing was saved. Your numbers are kept; tap Save again later."
        ),
        "offline_correction": _(
            "No connection: the correction was not saved. Your numbers are kept; "
            "tap Save again when the connection returns."
        ),
        "not_sent": _("No connection: nothing was changed. Try again when it returns."),
        "no_answer": _("No answer in time: reload the page to see whether it was done."),
        "failed": _("The server had a problem: nothing was changed. Try again."),
        "refused_request": _("That could not be done: reload the page and try again."),
        "refused": _("Deal %(n)s was not saved: another phone entered that deal first.", **deal),
        "problem": _("Deal %(n)s was not saved: the server found a problem with it.", **deal),
        "edit": _("Put my numbers back in the form"),
        "theirs": _("Saved from the other phone"),
        "yours": _("Yours, kept on this phone"),
        "save_next": _("Save mine as the next deal"),
        "discard": _("Discard mine"),
    }


#: ``offline_texts()`` as every page embeds it, by language: made once per language.
_OFFLINE_JSON: dict[str, Markup] = {}


def offline_texts_json() -> Markup:
    """``offline_texts()`` as JSON for the base template (the ``tojson`` filter's form):
    the same for every page in one language, so it is not translated again per page."""
    language = str(get_locale() or "en")
    found = _OFFLINE_JSON.get(language)
    if found is None:
        found = htmlsafe_json_dumps(
            offline_texts(), dumps=json.dumps, separators=(",", ":"), ensure_ascii=False
        )  # compact: every page carries it
        _OFFLINE_JSON[language] = found
    return found


#: The knobs of a rule set that the meld check reads (static/js/meld.js).
MELD_KNOBS = (
    "deals",
    "minimum_meld",
    "card_values",
    "book_bonus",
    "wild_limit",
    "discard_pickup",
    "pile_blocked_by",
    "one_open_meld_per_rank",
)


#: Where the engine's sentences of a meld check are (its reasons, and the card names in
#: them): static/js/meld.js says the same sentences, translated by ``meld_words``.
MELD_SOURCES = ("meld.py", "cards.py")


@functools.cache
def meld_sentences() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The message ids of the engine's meld sentences, read from its source: those of
    ``phrase(...)`` and the (singular, plural) pairs of ``phrase_n(...)``."""
    engine = Path(__file__).resolve().parents[1] / "engine"
    single: list[str] = []
    plural: list[tuple[str, str]] = []
    for name in MELD_SOURCES:
        for node in ast.walk(ast.parse((engine / name).read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if node.func.id == "phrase" and texts and isinstance(texts[0], str):
                single.append(texts[0])
            elif node.func.id == "phrase_n" and len(texts) >= 2:
                plural.append((str(texts[0]), str(texts[1])))
    return tuple(dict.fromkeys(single)), tuple(dict.fromkeys(plural))


def meld_words() -> dict[str, Any]:
    """The engine's meld sentences in the served language, for static/js/meld.js: each
    message id with its translation (``%(name)s`` kept for the script to fill), and for a
    sentence with a count, its form for every count a meld can hold (0 to 7). Empty in
    English: the script's own sentences are the message ids."""
    if i18n.current() == i18n.DEFAULT:
        return {}
    catalog = get_translations()
    single, plural = meld_sentences()
    words: dict[str, Any] = {msgid: catalog.gettext(msgid) for msgid in single}
    for singular, many in plural:
        words[singular] = {str(n): catalog.ngettext(singular, many, n) for n in range(MAX_MELD + 1)}
    return words


def meld_offline_data(checker: Any) -> dict[str, Any]:
    """What static/js/meld-offline.js needs to check melds on this phone without a
    connection: the rule set's meld knobs, the running total, and the page's words."""
    rules = checker.rules.to_dict()
    return {
        "rules": {key: rules[key] for key in MELD_KNOBS},
        "words": meld_words(),
        "total": checker.state.total,
        "labels": {rank: str(label) for rank, label in RANK_LABELS.items()},
        "texts": {
            "meld": _("Meld %(n)s: %(name)s", n="{n}", name="{name}"),
            "points": _("%(n)s points", n="{n}"),
            "legal": _("Legal"),
            "illegal": _("Not legal"),
            "enough": _(
                "Enough: %(counted)s of %(minimum)s", counted="{counted}", minimum="{minimum}"
            ),
            "short": _("Short by %(n)s", n="{n}"),
            "not_yet": _("Not yet"),
            "sub": _(
                "%(counted)s counted of the %(minimum)s needed in deal %(deal)s.",
                counted="{counted}",
                minimum="{minimum}",
                deal="{deal}",
            ),
            "top": _(
                "Made with the top card of the discard pile: its count includes the top card."
            ),
            "jokers": _("Jokers"),
            "twos": _("Twos"),
            "less": _("One less: %(what)s", what="{what}"),
            "more": _("One more: %(what)s", what="{what}"),
            "remove": _("Remove"),
            "remove_meld": _("Remove meld %(n)s", n="{n}"),
            "offline": _("No connection: checked on this phone."),
            "needs_connection": _("No connection: this needs one, so nothing changed."),
        },
    }


def register(app: Flask) -> None:
    """The blueprint, and the offline texts for the base template."""
    app.register_blueprint(bp)
    app.jinja_env.globals["offline_texts_json"] = offline_texts_json

    @app.context_processor
    def _forget_offline_pages() -> dict[str, Any]:
        """After a log-out, the page names the shell pages to keep: this phone's copies of
        every other page are dropped (static/js/app.js). Deals kept unsent stay."""
        if not session.pop("clear_offline", False):
            return {"keep_offline_pages": None}
        return {"keep_offline_pages": shell_config()["pages"]}

    app.jinja_env.globals["theme_colour"] = THEME_COLOUR
    app.jinja_env.globals["meld_offline_data"] = meld_offline_data
