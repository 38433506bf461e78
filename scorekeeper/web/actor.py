"""Who is making a change, as far as the app knows: the one place the web layer asks.

Today that is the device: a short random id kept in a long-lived signed cookie, shown as
"phone 3f2a", or the name the device gave itself ("Ann's phone", issue 14). The cookie is
signed with the app's secret key (a hand-made cookie is ignored and replaced) and holds no
secret: it only labels the trail. When accounts exist, ``current_actor`` returns the
signed-in account's name and id instead, and the device label stays for the rest.

Services receive the result as a parameter (``services.audit.Actor``); they never read the
request.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, request
from flask_babel import gettext as _
from itsdangerous import BadSignature, URLSafeSerializer

from ..services.audit import Actor

COOKIE = "scorekeeper_device"
MAX_AGE = 5 * 365 * 24 * 60 * 60  # a phone stays the same phone for years
NAME_LENGTH = 30
DEVICE_ID = re.compile(r"[0-9a-f]{8}")


@dataclass(frozen=True)
class Device:
    """This browser: its random id and the name it gave itself (empty until named)."""

    id: str
    name: str = ""

    @property
    def short_id(self) -> str:
        """The part of the id shown to people."""
        return self.id[:4]

    @property
    def label(self) -> str:
        """How the trail names this device: its name, else "phone 3f2a"."""
        return self.name or _("phone %(id)s", id=self.short_id)


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


def current_actor() -> Actor:
    """Who the audit trail says made this request's change."""
    return Actor(current_device().label)


def name_device(name: str) -> Device:
    """Give this device a name (an empty name forgets it); kept in its cookie."""
    device = Device(current_device().id, name.strip()[:NAME_LENGTH])
    g.device, g.device_changed = device, True
    return device


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
    return Device(device_id, name)


def _keep_cookie(response: Response) -> Response:
    """Send the device cookie when this request made or renamed the device."""
    device: Device | None = g.get("device")
    if device is not None and g.get("device_changed"):
        response.set_cookie(
            COOKIE,
            _serializer().dumps({"id": device.id, "name": device.name}),
            max_age=MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
        )
    return response


def register(app: Flask) -> None:
    """Send the device cookie with the response that made it."""
    app.after_request(_keep_cookie)
