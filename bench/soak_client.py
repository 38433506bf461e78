"""The soak's phones: a tiny HTTP client with its cookies, the forms it reads, what it sent.

Standard library only (``http.client``, ``html.parser``): a scorer is a thread with its own
keep-alive connection and cookies, like one phone. A request that gets no answer
(the server was killed, or is restarting) is sent again, byte for byte, until it is
answered or ``PATIENCE`` runs out: the same CSRF token and the same submission key, as a
browser's "resend the form" does. Every save is written to the ``Ledger`` with what the
server answered, so the checks can compare it with the database afterwards.
"""

from __future__ import annotations

import base64
import html
import http.client
import json
import re
import threading
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import urlencode, urlsplit

HOST = "127.0.0.1"  # the soak talks to loopback only
PATIENCE = 45.0  # seconds a request is resent while the server does not answer
TIMEOUT = 30.0  # seconds a scorer waits for one answer
UNREACHABLE = (OSError, http.client.HTTPException)  # refused, reset, timed out, cut short


@dataclass
class Answer:
    """What the server said: status, headers (lower-case names) and the body as text."""

    status: int
    headers: dict[str, str]
    text: str
    cookie: str = ""  # the session cookie this answer set, if any

    @property
    def location(self) -> str:
        """The path a redirect points at."""
        return urlsplit(self.headers.get("location", "")).path


class Traffic:
    """Counts shared by every connection: answers by status, resends, failures."""

    def __init__(self, limit: int) -> None:
        self.lock = threading.Lock()
        self.limit = limit  # most requests the whole run may send
        self.sent = 0
        self.statuses: Counter[int] = Counter()
        self.server_errors: list[str] = []  # "POST /m/x/deals -> 500"
        self.resends = 0  # requests sent again after no answer
        self.unanswered = 0  # requests given up after PATIENCE
        self.logins = 0  # log-ins through the log-in form
        self.relogins = 0  # of which: a phone sent to log in again (a lost session)
        self.login_failures: list[str] = []  # phones that could not log in, and why

    def take(self) -> bool:
        """Count one request; False when the run's request budget is spent."""
        with self.lock:
            if self.sent >= self.limit:
                return False
            self.sent += 1
            return True

    def answered(self, method: str, path: str, status: int) -> None:
        with self.lock:
            self.statuses[status] += 1
            if status >= 500:
                self.server_errors.append(f"{method} {path} -> {status}")

    @property
    def errors_5xx(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)


class Budget(Exception):
    """The run's request budget is spent."""


class Browser:
    """One phone: a keep-alive connection to the server and its cookies (the session, the
    device label of the audit trail), kept and sent back as a browser does."""

    def __init__(self, port: int, traffic: Traffic, timeout: float = TIMEOUT) -> None:
        self.port, self.timeout = port, timeout
        self.traffic = traffic
        self.cookies: dict[str, str] = {}
        self.conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def get(self, path: str) -> Answer | None:
        return self.send("GET", path)

    def post(self, path: str, fields: dict[str, str]) -> Answer | None:
        return self.send("POST", path, urlencode(fields))

    def send(self, method: str, path: str, body: str | None = None) -> Answer | None:
        """The answer, sending the same request again while there is none; None if never."""
        given_up = time.monotonic() + PATIENCE
        first = True
        while True:
            if not self.traffic.take():
                raise Budget
            if not first:
                with self.traffic.lock:
                    self.traffic.resends += 1
            first = False
            try:
                answer = self._once(method, path, body)
            except UNREACHABLE:
                self.close()
                if time.monotonic() > given_up:
                    with self.traffic.lock:
                        self.traffic.unanswered += 1
                    return None
                time.sleep(0.2)
                continue
            self.traffic.answered(method, path, answer.status)
            return answer

    def _once(self, method: str, path: str, body: str | None) -> Answer:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        names = {k.lower(): v for k, v in response.getheaders()}
        set_now = set_cookies(response.msg.get_all("Set-Cookie") or [])
        for name, value in set_now.items():
            if value:
                self.cookies[name] = value
            else:  # cleared by the server
                self.cookies.pop(name, None)
        if response.will_close:
            self.close()
        return Answer(response.status, names, text, set_now.get("session", ""))


class LoginFailed(Exception):
    """A phone could not log in: wrong password, rate limited, or no answer."""


class Member(Browser):
    """A phone logged in to an account, as a club's scorer is: it logs in once through
    the real ``/login`` form (keeping the session cookie it gets) and sends it with every
    request. Log-ins are rows in the database (``services.accounts``), so they outlive a
    restart of the server; should the server send the phone to ``/login`` all the same, it
    logs in again (counted in ``relogins``, not an error) and, for a page, asks again. A
    form sent while logged out comes back as the redirect: its CSRF token belonged to the
    old session, so the caller decides what to do (a save was not made)."""

    def __init__(
        self, port: int, traffic: Traffic, username: str, password: str, timeout: float = TIMEOUT
    ) -> None:
        super().__init__(port, traffic, timeout)
        self.username, self.password = username, password
        self.logins = 0
        self.relogins = 0

    def log_in(self) -> None:
        """The log-in page, then its form with the username and password; raises
        ``LoginFailed`` unless the server redirects away from ``/login``."""
        page = super().send("GET", "/login")
        if page is None or page.status != 200:
            raise LoginFailed(f"GET /login -> {page.status if page else 'no answer'}")
        hidden = forms_of(page.text).get("/login", {})
        fields = {**hidden, "username": self.username, "password": self.password}
        answer = super().send("POST", "/login", urlencode(fields))
        if answer is None or answer.status != 303 or logged_out(answer):
            status = answer.status if answer else "no answer"
            raise LoginFailed(f"POST /login as {self.username} -> {status}")
        self.logins += 1

    def send(self, method: str, path: str, body: str | None = None) -> Answer | None:
        answer = super().send(method, path, body)
        if answer is None or not logged_out(answer):
            return answer
        self.relogins += 1
        self.log_in()
        return super().send(method, path, body) if method == "GET" else answer


def logged_out(answer: Answer) -> bool:
    """Whether the server sent the phone to log in (only a logged-out phone is)."""
    return answer.status in (302, 303) and answer.location == "/login"


def set_cookies(headers: list[str]) -> dict[str, str]:
    """The cookies that ``Set-Cookie`` headers set, by name ("" for one cleared).

    Each header is read on its own: joined with commas (as ``getheader`` does) they are
    ambiguous, since an ``Expires`` date holds a comma too.
    """
    found: dict[str, str] = {}
    for header in headers:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(header)
        except CookieError:
            continue
        for name, morsel in jar.items():
            cleared = morsel["max-age"] == "0" or "1970" in morsel["expires"]
            found[name] = "" if cleared else morsel.value
    return found


def flashed(cookie: str) -> bool:
    """Whether a session cookie carries a flashed message other than "Deal N saved" (the
    category ``saved``, told after every save): read, not verified, a bench."""
    if not cookie:
        return False
    compressed = cookie.startswith(".")
    payload = cookie.lstrip(".").split(".")[0]
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        if compressed:
            data = zlib.decompress(data)
        flashes = json.loads(data).get("_flashes", [])
    except (ValueError, zlib.error, AttributeError):
        return False
    # Flask's session keeps each (category, message) tuple as {" t": [category, message]}.
    categories = [f.get(" t", [None])[0] if isinstance(f, dict) else f[0] for f in flashes]
    return any(category != "saved" for category in categories)


class FormReader(HTMLParser):
    """Every form of a page: its action and its hidden fields (CSRF token, keys, versions)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, str]] = {}
        self._current: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._current = self.forms.setdefault(values.get("action", ""), {})
        elif tag == "input" and self._current is not None and values.get("type") == "hidden":
            self._current[values.get("name", "")] = values.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._current = None


def forms_of(page: str) -> dict[str, dict[str, str]]:
    """The page's forms by action path."""
    reader = FormReader()
    reader.feed(page)
    return reader.forms


def message_of(page: str) -> str:
    """What an answer page says: the first paragraph after its heading (else the first
    paragraph, else the title), without tags."""
    found = (
        re.search(r"<h1[^>]*>.*?</h1>.*?<p[^>]*>(.*?)</p>", page, re.S)
        or re.search(r"<p[^>]*>(.*?)</p>", page, re.S)
        or re.search(r"<title[^>]*>(.*?)</title>", page, re.S)
    )
    text = re.sub(r"<[^>]+>", " ", found.group(1)) if found else ""
    return " ".join(html.unescape(text).split())[:160]


@dataclass
class Write:
    """One save a phone sent: a new deal or a correction, and how the server answered."""

    kind: str  # "record" or "correct"
    match: str  # the match's public id
    deal: int  # the deal's number (for a record: the deal the form expected)
    entries: list[dict[str, Any]]  # as the form says, in the engine's terms
    key: str = ""  # a record's submission key
    base: int = 0  # a correction's version of the deal it was made on
    outcome: str = "unanswered"  # acked, stale, closed, refused, logged_out, unanswered
    status: int = 0
    reason: str = ""  # for a refused save: the status and what the page said


@dataclass
class Ledger:
    """Every save of the run, in the order they were sent."""

    writes: list[Write] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, write: Write) -> Write:
        with self.lock:
            self.writes.append(write)
        return write

    def count(self, outcome: str, kind: str | None = None) -> int:
        return sum(1 for w in self.writes if w.outcome == outcome and kind in (None, w.kind))


BOOKS = ("clean", "dirty", "wild")  # the classic rules' book kinds


def deal_fields(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The deal form's fields for the engine entries (what a scorer types)."""
    out = next((str(i) for i, e in enumerate(entries) if e.get("went_out")), "")
    fields = {"went_out": out}
    for i, entry in enumerate(entries):
        for kind in BOOKS:
            fields[f"sides-{i}-books_{kind}"] = _text(entry.get("books", {}).get(kind))
        for name in ("red_threes", "red_threes_left", "melded_points", "left_points"):
            fields[f"sides-{i}-{name}"] = _text(entry.get(name))
    return fields


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def as_posted(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries the deal form makes of ``deal_fields(entries)`` (empty fields are 0)."""
    found = []
    for entry in entries:
        posted: dict[str, Any] = {
            "went_out": bool(entry.get("went_out")),
            "books": {kind: entry.get("books", {}).get(kind) or 0 for kind in BOOKS},
            "red_threes": entry.get("red_threes") or 0,
            "red_threes_left": entry.get("red_threes_left") or 0,
        }
        for block in ("melded", "left"):
            points = entry.get(f"{block}_points")
            if points is None:
                posted[block] = {}
            else:
                posted[f"{block}_points"] = points
        found.append(posted)
    return found
