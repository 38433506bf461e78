"""The club's log (owners only): who changed the club's settings, seasons, members and
links, and when, newest first, as sentences in the reader's language
(``services.club_trail``; a match's deals have their own history on the match page)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from flask import Response, request, url_for
from flask_babel import format_date, ngettext
from flask_babel import gettext as _
from markupsafe import Markup, escape

from ...engine import PRESETS
from ...services import club_trail
from .. import authz
from ..actor import shown
from ..authz import role_label
from ..i18n import text
from ..inputs import number_or_none
from ..matches.history import time_element
from ..rendering import render
from . import forms
from .views import bp, club_or_404

#: The largest id a row may have (a signed 64-bit integer): a larger ``before`` cannot
#: even be sent to SQLite.
LAST_ID = 2**63 - 1


@bp.get("/c/<club_id>/log")
@authz.club("owner")
def log(club_id: str) -> Response:
    """The club's log, a page at a time (``?before=<event id>``: older ones)."""
    club = club_or_404(club_id)
    before = number_or_none(request.args.get("before"))
    if before is not None and not 0 < before <= LAST_ID:  # made by hand: the first page
        before = None
    page = club_trail.log_of(club, before=before)
    now = datetime.now(UTC)
    lines = [
        (entry, time_element(entry.at, now), _who(entry), said(entry)) for entry in page.entries
    ]
    response = render(
        "clubs/log.html",
        "clubs/log.html",
        club=club,
        lines=lines,
        older=page.older,
        first_page=request.args.get("before") is None,
    )
    response.headers["Cache-Control"] = "no-store"  # who did what: for the owners only
    return response


def _who(entry: club_trail.Entry) -> str:
    """Who made the change: an account's name, or the server's command line."""
    return shown(entry.actor) if entry.actor else _("the server's command line")


def said(entry: club_trail.Entry) -> Markup:
    """What the event changed, as a sentence (names escaped)."""
    d = entry.details
    kind = entry.kind
    if kind == club_trail.CREATED:
        return _sentence(_("Started the club: %(settings)s."), settings=_settings_text(d))
    if kind == club_trail.SETTINGS:
        changed = "; ".join(
            f"{forms.SETTING_LABELS.get(key, key)}: {_setting(key, old)} → {_setting(key, new)}"
            for key, old, new in d.get("changes", [])
        )
        return _sentence(_("Changed the settings: %(changes)s."), changes=changed)
    if kind == club_trail.SEASON_ADDED:
        return _sentence(
            _("Added the season %(name)s (%(starts)s – %(ends)s)."),
            name=d.get("name", ""),
            starts=_day(d.get("starts_on")),
            ends=_day(d.get("ends_on")),
        )
    if kind == club_trail.INVITED:
        return escape(
            ngettext(
                "Made an invitation link for %(num)d person, to join as %(role)s.",
                "Made an invitation link for %(num)d people, to join as %(role)s.",
                int(d.get("uses") or 0),
                role=role_label(d.get("role", "")),
            )
        )
    if kind == club_trail.INVITATION_REVOKED:
        return escape(
            ngettext(
                "Stopped an invitation link to join as %(role)s (%(num)d use left).",
                "Stopped an invitation link to join as %(role)s (%(num)d uses left).",
                int(d.get("uses_left") or 0),
                role=role_label(d.get("role", "")),
            )
        )
    if kind == club_trail.JOINED:
        if d.get("before"):
            return _sentence(
                _("%(member)s became %(role)s by an invitation link (was %(before)s)."),
                member=d.get("member", ""),
                role=role_label(d.get("role", "")),
                before=role_label(d["before"]),
            )
        return _sentence(
            _("%(member)s joined as %(role)s by an invitation link."),
            member=d.get("member", ""),
            role=role_label(d.get("role", "")),
        )
    if kind == club_trail.ROLE_CHANGED:
        return _sentence(
            _("Changed the role of %(member)s: %(before)s → %(after)s."),
            member=d.get("member", ""),
            before=role_label(d.get("before", "")),
            after=role_label(d.get("after", "")),
        )
    if kind == club_trail.MEMBER_REMOVED and d.get("left"):
        return _sentence(
            _("%(member)s (%(role)s) left the club."),
            member=d.get("member", ""),
            role=role_label(d.get("role", "")),
        )
    if kind == club_trail.MEMBER_REMOVED:
        return _sentence(
            _("Took %(member)s (%(role)s) out of the club."),
            member=d.get("member", ""),
            role=role_label(d.get("role", "")),
        )
    if kind == club_trail.PLAYER_LINKED:
        nobody = _("Nobody").lower()
        return _sentence(
            _("Changed which player %(member)s is: %(before)s → %(after)s."),
            member=d.get("member", ""),
            before=d.get("before") or nobody,
            after=d.get("player") or nobody,
        )
    if kind == club_trail.RESET_LINK:
        return _sentence(
            _("Made a password reset link for %(member)s."), member=d.get("member", "")
        )
    if kind == club_trail.OWNER_ASSIGNED:
        return _sentence(_("Made %(member)s an owner."), member=d.get("member", ""))
    if kind == club_trail.MATCH_REOPENED:
        match = Markup('<a href="{}">{}</a>').format(
            url_for("matches.show", public_id=d.get("match", "")),
            " · ".join(d.get("sides") or []) or d.get("match", ""),
        )
        return _sentence(
            _("Reopened %(match)s of %(day)s to correct its deals."),
            match=match,
            day=_day(d.get("played_on")),
        )
    return escape(kind)  # pragma: no cover - every kind is said above (test_club_log.py)


def _sentence(template: str, **values: Any) -> Markup:
    """``template`` (translated) filled with ``values``, each escaped unless it is markup."""
    return escape(template) % {key: escape(value) for key, value in values.items()}


def _settings_text(details: dict[str, Any]) -> str:
    return "; ".join(
        f"{forms.SETTING_LABELS[key]}: {_setting(key, details.get(key))}"
        for key in forms.SETTING_LABELS
    )


def _setting(key: str, value: Any) -> str:
    """A setting's value as the settings page shows it."""
    if key == "default_rules" and value in PRESETS:
        return text(PRESETS[value].name)
    if key == "visibility":
        return str(forms.VISIBILITY.get(value, value))
    return "—" if value is None else str(value)


def _day(iso: Any) -> str:
    try:
        return format_date(date.fromisoformat(iso))
    except (TypeError, ValueError):
        return str(iso or "")
