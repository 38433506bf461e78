"""The bodies of a club's pages, kept rendered in the process until the club changes.

A club's standings, its player pages and its match pages are read far more often than
the club changes, and most of their cost is reading and rendering the same rows again
(issue 17). Their body (everything inside ``<main>`` but the flashed messages) is kept
here, keyed by:

- what the page is (``parts``: the view, the rows, the query string);
- the club's ``data_version``, read with the club row before anything else the page
  shows, which every transaction that changes the club moves on
  (``services.club_versions``): a change is seen at the next request, by every process;
- who reads it and how: the account (or none), the language, the host (links and the
  share link carry it).

The whole page, the body in the site's frame (title, menus, the account, the language
links), is kept too (``page``), under the same key with the request's full path
and whether the session has a CSRF token yet (the frame gives htmx the token once it
has). A request with something to show once (a flashed message, the log-out's offline
clean-up) is rendered for itself: its frame is made anew around the kept body, and
neither is taken from nor kept for anyone else.

Nothing that must differ between two requests is kept: a form's CSRF token, and
whatever a view names as ``fresh`` (the deal form's submission key), stand in what is
kept as placeholders, replaced with new values each time it is sent.

``PAGE_CACHE_SIZE`` (setting ``SCOREKEEPER_PAGE_CACHE_SIZE``) bounds the bodies and
pages kept per process (least recently used go first); 0 turns the cache off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar, cast

from cachetools import LRUCache
from flask import current_app, g, make_response, render_template, request, session
from flask_babel import get_locale
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup
from werkzeug import Response

#: What a view's page function answers (a Flask response, through ``render``).
Answer = TypeVar("Answer", bound=Response)

DEFAULT_SIZE = 512

#: What a ``Bodies`` keeps: a page's title and body here, an empty form elsewhere
#: (``matches.blank_entry``).
Kept = TypeVar("Kept")


class Bodies(Generic[Kept]):
    """A bounded map of rendered bodies, shared by the server's threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: LRUCache[Hashable, Kept] = LRUCache(maxsize=max(size, 1))
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable) -> Kept | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, key: Hashable, page: Kept) -> None:
        with self._lock:
            self._kept[key] = page

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.hits = self.misses = 0


def bodies() -> Bodies[tuple[str, str]]:
    """This app's bodies (made on first use, sized by ``PAGE_CACHE_SIZE``)."""
    found = current_app.extensions.get("scorekeeper.page_cache")
    if found is None:
        size = int(current_app.config.get("PAGE_CACHE_SIZE", DEFAULT_SIZE))
        found = current_app.extensions["scorekeeper.page_cache"] = Bodies[tuple[str, str]](size)
    return found  # type: ignore[no-any-return]


def _reader() -> tuple[Hashable, ...]:
    account = current_user.get_id() if current_user.is_authenticated else None
    return (account, str(get_locale() or "en"), request.host_url)


#: A value a kept body must not repeat: (placeholder, where the render put it in its
#: context, how to make a new one for each request that is sent the body).
Fresh = tuple[str, Callable[[dict[str, Any]], str | None], Callable[[], str]]


def token_used(_context: dict[str, Any]) -> str | None:
    """The CSRF token this request's render put in the body (a form's field or
    ``csrf_token()``: Flask-WTF makes one a request and keeps it on ``g``), if any."""
    return g.get(current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token"))  # type: ignore[no-any-return]


#: The visitor's CSRF token: every kept body's first fresh value.
TOKEN: Fresh = ("\x1fcsrf-token\x1f", token_used, generate_csrf)


def kept_page(
    parts: tuple[Hashable, ...],
    version: int,
    template: str,
    context: Callable[[], dict[str, Any]],
    title: Callable[[dict[str, Any]], str] | None = None,
    fresh: tuple[Fresh, ...] = (),
) -> tuple[str, Markup]:
    """The page's title (made by ``title`` from the same context) and the body
    ``template`` renders with ``context()`` for the page ``parts`` of a club at
    ``version``: kept from an earlier request when it can be (``context`` is then not
    called: it is what reads the rows); ``fresh`` values (a form's one-time key) are
    made anew for each request."""
    kept = bodies()
    key = (*parts, version, tuple(sorted(request.args.items(multi=True))), *_reader())
    found = kept.get(key) if kept.size else None
    values = (TOKEN, *fresh)
    if found is None:
        rows = context()
        html = render_template(template, **rows)
        for placeholder, used, _make in values:
            value = used(rows)
            if value:
                html = html.replace(value, placeholder)
        found = (title(rows) if title else "", html)
        if kept.size:
            kept.put(key, found)
    heading, html = found
    return heading, Markup(_filled(html, values))


def _filled(html: str, values: tuple[Fresh, ...]) -> str:
    """``html`` with a new value for each placeholder it holds (noted on ``g``, so that a
    page kept whole can put the placeholders back: ``page``)."""
    made = g.setdefault("kept_fresh", {})
    for placeholder, _used, make in values:
        if placeholder in html:
            made[placeholder] = made.get(placeholder) or make()
            html = html.replace(placeholder, made[placeholder])
    return html


#: What a request's session may hold that a page shows once (then it is gone): such a
#: page is rendered for that request alone, never kept or taken from the kept ones.
SHOWN_ONCE = ("_flashes", "clear_offline")


def page(
    parts: tuple[Hashable, ...],
    version: int,
    template: str,
    context: Callable[[], dict[str, Any]],
    frame: Callable[[str, Markup], Answer],
    title: Callable[[dict[str, Any]], str] | None = None,
    fresh: tuple[Fresh, ...] = (),
) -> Answer:
    """A club's page: its body (``kept_page``) in the site's frame (``frame(title,
    body)`` renders the page around it), the whole of it kept as well, under the body's
    key and the request's full path: a reader who comes back pays for neither. Not when
    this request has a message to show once (a flashed message, the log-out's offline
    clean-up): then only the body is taken from what is kept."""

    def make() -> Answer:
        return frame(*kept_page(parts, version, template, context, title, fresh))

    kept = bodies()
    if not kept.size or any(name in session for name in SHOWN_ONCE):
        return make()
    # the frame carries the CSRF token for htmx only once the session has one (base.html)
    token_kept = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token") in session
    key = ("page", *parts, version, request.full_path, token_kept, *_reader())
    values = (TOKEN, *fresh)
    found = kept.get(key)
    if found is None:
        response = make()
        if response.status_code != 200 or response.direct_passthrough:
            return response
        html = response.get_data(as_text=True)
        put_in = dict(g.get("kept_fresh", {}))
        token = token_used({})
        if token:
            put_in[TOKEN[0]] = token
        for placeholder, value in put_in.items():
            html = html.replace(value, placeholder)
        kept.put(key, ("", html))
        return response
    answer = make_response(_filled(found[1], values))  # as ``render`` makes them
    answer.vary.add("HX-Request")
    return cast(Answer, answer)
