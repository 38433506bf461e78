"""This browser (the device) and who is making a change: the one place the web layer asks.

The device is one long-lived signed cookie (``scorekeeper_device``) holding a short random
id, shown as "phone 3f2a", the name the device gave itself ("Ann's phone", issue 14), and
the public ids of the casual matches it started or opened (the home page lists those,
never anyone else's, issue 11). The cookie is signed with the app's secret key (a
hand-made cookie is ignored and replaced), HttpOnly, SameSite=Lax, and holds no secret:
it labels the trail and remembers links. It is not the session cookie, and it is made
only when a page needs it (a match this browser may change), so casual play needs no
account and a visitor who only reads a public club page gets no cookie at all.

``current_actor`` is what the audit trail records: the logged-in account (its name and
id) when there is one, else the device's label. Services receive it as a parameter
(``services.audit.Actor``); they never read the request.
"""

from __future__ import annotations

import functools
import re
import secrets
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, request
from flask_babel import gettext as _
from flask_login import current_user
from itsdangerous import BadSignature, URLSafeSerializer

from ..models import is_public_id
from ..services.audit import Actor

COOKIE = "scorekeeper_device"
MAX_AGE = 5 * 365 * 24 * 60 * 60  # a phone stays the same phone for years
NAME_LENGTH = 30
KEEP_MATCHES = 50  # the newest casual matches a device lists on its home page
DEVICE_ID = re.compile(r"[0-9a-f]{8}")


@dataclass(frozen=True)
class Device:
    """This browser: its random id, the name it gave itself (empty until named) and its
    casual matches (public ids, most recently opened first)."""

    id: str
    name: str = ""
    matches: tuple[str, ...] = ()

    @property
    def short_id(self) -> str:
        """The part of the id shown to people."""
        return self.id[:4]

    @property
    def label(self) -> str:
        """How the trail stores this device: its name, else "phone 3f2a" (in English,
        whatever the language: ``shown`` says it in the reader's)."""
        return self.name or UNNAMED % {"id": self.short_id}


#: An unnamed device as the trail stores it (a message id: ``shown`` translates it).
UNNAMED = "phone %(id)s"


@functools.cache
def _unnamed_forms() -> re.Pattern[str]:
    """An unnamed device's label in any served language: the trail once stored it in the
    language of the phone that saved ("телефон 3f2a"), and every reader saw that one."""
    from babel.support import Translations

    from .i18n import LANGUAGES, TRANSLATIONS

    forms = {UNNAMED}
    for language in LANGUAGES:
        catalog = Translations.load(str(TRANSLATIONS), [language])
        forms.add(catalog.gettext(UNNAMED))
    said = "|".join(
        re.escape(form).replace(re.escape("%(id)s"), f"(?P<id{n}>[0-9a-f]{{4}})")
        for n, form in enumerate(sorted(forms))
    )
    return re.compile(f"(?:{said})")


def shown(label: str) -> str:
    """A trail's label of who did something, for the reader: an unnamed device's in the
    reader's language, a name as it was given."""
    found = _unnamed_forms().fullmatch(label)
    if found is None:
        return label
    return _("phone %(id)s", id=next(v for v in found.groupdict().values() if v))  # UNNAMED


def current_device() -> Device:
    """This request's device; a new one (and its cookie) when the browser has none."""
    device: Device | None = g.get("device")
    if device is None:
        device = _read(request.cookies.get(COOKIE))
        if device is None:
            device = Device(secrets.token_hex(4))
            g.device_changed = True
        g.device = device
    return device


def known_device() -> Device | None:
    """This request's device if the browser already has one; never makes one."""
    device: Device | None = g.get("device")
    return device if device is not None else _read(request.cookies.get(COOKIE))


def current_actor() -> Actor:
    """Who the audit trail says made this request's change: the logged-in account, else
    this device."""
    if current_user.is_authenticated:
        return Actor(current_user.username, current_user.id)
    return Actor(current_device().label)


def name_device(name: str) -> Device:
    """Give this device a name (an empty name forgets it); kept in its cookie."""
    found = current_device()
    device = Device(found.id, name.strip()[:NAME_LENGTH], found.matches)
    g.device, g.device_changed = device, True
    return device


def device_matches() -> list[str]:
    """The public ids of this browser's casual matches, most recently opened first."""
    device = known_device()
    return list(device.matches) if device is not None else []


def remember_match(public_id: str) -> None:
    """Put this match first in the device's list (its cookie is sent only if that changed)."""
    found = current_device()
    if found.matches[:1] == (public_id,):
        return
    kept = (public_id, *(i for i in found.matches if i != public_id))[:KEEP_MATCHES]
    g.device, g.device_changed = Device(found.id, found.name, kept), True


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key or "", salt="scorekeeper.device")


def _read(cookie: str | None) -> Device | None:
    if not cookie:
        return None
    try:
        data = _serializer().loads(cookie)
    except BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    device_id, name = data.get("id"), data.get("name", "")
    if not isinstance(device_id, str) or not DEVICE_ID.fullmatch(device_id):
        return None
    if not isinstance(name, str) or len(name) > NAME_LENGTH or not name.isprintable():
        name = ""
    listed = data.get("matches", [])
    if not isinstance(listed, list):
        listed = []
    matches = tuple(i for i in listed if isinstance(i, str) and is_public_id(i))
    return Device(device_id, name, matches[:KEEP_MATCHES])


def _keep_cookie(response: Response) -> Response:
    """Send the device cookie when this request made or renamed the device."""
    device: Device | None = g.get("device")
    if device is not None and g.get("device_changed"):
        response.set_cookie(
            COOKIE,
            _serializer().dumps(
                {"id": device.id, "name": device.name, "matches": list(device.matches)}
            ),
            max_age=MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure,
        )
    return response


def register(app: Flask) -> None:
    """Send the device cookie with the response that made it."""
    app.after_request(_keep_cookie)
