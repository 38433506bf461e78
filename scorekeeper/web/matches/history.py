"""The match page's history: each event of the audit trail as a sentence in the game's words.

"Deal 3 corrected at 21:14 UTC by Ann's phone: Ann & Bob 690 → 720, Cy & Di 510 → 480".
Times are stored in UTC and shown in UTC with a ``<time datetime=...>`` element, which
``static/js/app.js`` rewrites into the phone's own time zone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from babel.dates import format_datetime
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup, escape

from ...engine import RuleSet
from ...services import audit
from ...services.match_reads import LoadedMatch
from ..actor import shown
from ..i18n import text
from .forms import card_keys, card_label

SENTENCES = {
    (audit.RECORDED, True): _l("Deal %(n)s entered at %(time)s by %(who)s: %(scores)s"),
    (audit.RECORDED, False): _l("Deal %(n)s entered at %(time)s: %(scores)s"),
    (audit.CORRECTED, True): _l("Deal %(n)s corrected at %(time)s by %(who)s: %(scores)s"),
    (audit.CORRECTED, False): _l("Deal %(n)s corrected at %(time)s: %(scores)s"),
    (audit.REMOVED, True): _l("Deal %(n)s removed at %(time)s by %(who)s: %(scores)s"),
    (audit.REMOVED, False): _l("Deal %(n)s removed at %(time)s: %(scores)s"),
    (audit.RESTORED, True): _l("Deal %(n)s restored at %(time)s by %(who)s: %(scores)s"),
    (audit.RESTORED, False): _l("Deal %(n)s restored at %(time)s: %(scores)s"),
    (audit.REOPENED, True): _l("Match reopened for corrections at %(time)s by %(who)s."),
    (audit.REOPENED, False): _l("Match reopened for corrections at %(time)s."),
}


@dataclass(frozen=True)
class Line:
    """One event of the history, ready to show."""

    id: int
    kind: str
    deal: int | None
    text: Markup


@dataclass(frozen=True)
class HistoryView:
    """The match page's history: newest first, the removal to offer back, the deals
    changed after they were entered (the deal table marks them), and who entered or
    last changed each deal (the deal table names them: "who entered what", issue 14)."""

    lines: list[Line]
    restorable: Line | None
    changed: frozenset[int]
    by: dict[int, str] = field(default_factory=dict)


def history_view(loaded: LoadedMatch, now: datetime | None = None) -> HistoryView:
    """The history of ``loaded`` as the match page shows it (as its save read it, if
    it was just saved)."""
    saved = loaded.saved
    trail = saved.history if saved else audit.history(loaded.row, loaded.game.current_deal)
    labels = [side.label for side in loaded.game.sides]
    now = now or datetime.now(UTC)
    rules = loaded.game.rules
    lines = [_line(change, labels, now, rules) for change in trail.changes]
    restorable = next(
        (ln for ln in lines if trail.restorable and ln.id == trail.restorable.id), None
    )
    played = range(1, len(loaded.game.deals) + 1)
    changed = frozenset(n for n in played if trail.changed(n))
    return HistoryView(lines, restorable, changed, _who_entered(trail.changes, played))


#: The events that leave a deal as it stands: its entry, its restoring, its correction.
ENTERED = (audit.RECORDED, audit.RESTORED, audit.CORRECTED)


def _who_entered(changes: Sequence[audit.Change], played: range) -> dict[int, str]:
    """Deal number -> who made its newest entry, restoring or correction (newest first in
    ``changes``); a deal entered by nobody known (a script, the demo) is left out."""
    by: dict[int, str] = {}
    for change in changes:
        if change.deal in played and change.deal not in by and change.kind in ENTERED:
            by[change.deal] = change.actor
    return {n: shown(who) for n, who in by.items() if who}


def _line(change: audit.Change, labels: Sequence[str], now: datetime, rules: RuleSet) -> Line:
    template = escape(str(SENTENCES[change.kind, bool(change.actor)]))
    text = template % {
        "n": change.deal,
        "time": time_element(change.at, now),
        "who": shown(change.actor),
        "scores": scores_text(labels, change.before, change.after),
    }
    if change.entries is not None:
        changed = changes_text(rules, labels, *change.entries)
        if changed:
            text += Markup(". ") + escape(_("Changed: %(what)s.", what=changed))
    return Line(change.id, change.kind, change.deal, text)


def changes_text(
    rules: RuleSet,
    labels: Sequence[str],
    before: Sequence[dict[str, Any]],
    after: Sequence[dict[str, Any]],
) -> str:
    """What a correction changed besides the scores, in the sheet's words: "Who went out?
    Ann & Bob → nobody; Cy & Di: Kings (on the table) 2 → 3, Clean (books) 1 → 2". Empty
    when the entries are the same."""
    parts = []
    went = [_went_out(labels, entries) for entries in (before, after)]
    if went[0] != went[1]:
        parts.append(f"{_('Who went out?')} {went[0]} → {went[1]}")
    names = _field_names(rules, [*before, *after])
    for label, old, new in zip(labels, before, after, strict=False):
        flat_old, flat_new = _flat(old), _flat(new)
        fields = [
            f"{name} {_shown(flat_old.get(key), key)} → {_shown(flat_new.get(key), key)}"
            for key, name in names
            if _shown(flat_old.get(key), key) != _shown(flat_new.get(key), key)
        ]
        if fields:
            parts.append(f"{label}: {', '.join(fields)}")
    return "; ".join(parts)


def _went_out(labels: Sequence[str], entries: Sequence[dict[str, Any]]) -> str:
    out = [label for label, entry in zip(labels, entries, strict=False) if entry.get("went_out")]
    return ", ".join(out) if out else _("Nobody").lower()


def _flat(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry's numbers by one key each: ``books.clean``, ``melded.K``, ``red_threes``."""
    flat: dict[str, Any] = {}
    for key, value in entry.items():
        if isinstance(value, dict):
            flat.update({f"{key}.{inner}": count for inner, count in value.items()})
        elif key != "went_out":
            flat[key] = value
    return flat


#: An entry's parts counted as cards or as points: absent means 0 cards, or not by points.
POINTS = ("melded_points", "left_points")


def _shown(value: Any, key: str) -> str:
    if value is None:
        return "—" if key in POINTS else "0"
    return f"\u2212{-value}" if isinstance(value, int) and value < 0 else str(value)


def _field_names(rules: RuleSet, entries: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each number an entry may hold, in the sheet's order, with its name on the sheet."""
    on_table = _("(%(what)s)", what=_("On the table").lower())
    left = _("(%(what)s)", what=_("Left in hand and foot").lower())
    alike = rules.red_three.hand_and_foot_alike
    books = _("(%(what)s)", what=_("Books").lower())
    names = [
        (f"books.{kind}", f"{text(rules.book_name(kind)).capitalize()} {books}")
        for kind in rules.book_kinds()
    ]
    names += [
        ("red_threes", _("Red threes laid")),
        (
            "red_threes_left",
            _("Red threes left in hand or foot") if alike else _("Red threes left in a hand"),
        ),
        ("red_threes_left_in_foot", _("Red threes in a foot nobody picked up")),
        ("exact_draws", _("Exact draws")),
        ("melded_points", _("Points on the table")),
        ("left_points", _("Points left in hand and foot")),
    ]
    seen = {key for key, _name in names}
    for block, where in (("melded", on_table), ("left", left)):
        keys = list(card_keys(rules, block))
        keys += dict.fromkeys(k for e in entries for k in e.get(block, {}) if k not in keys)
        for key in keys:
            names.append((f"{block}.{key}", f"{card_label(key)} {where}"))
            seen.add(f"{block}.{key}")
    kinds = [k for e in entries for k in e.get("books", {}) if f"books.{k}" not in seen]
    names += [(f"books.{kind}", f"{kind} {books}") for kind in dict.fromkeys(kinds)]
    return names


def time_element(at: datetime, now: datetime) -> Markup:
    """``<time datetime="...Z">21:14 UTC</time>``; the day too when it is not today."""
    at, now = at.astimezone(UTC), now.astimezone(UTC)
    if at.date() == now.date():
        pattern = "HH:mm"
    elif at.year == now.year:
        pattern = "d MMM, HH:mm"
    else:
        pattern = "d MMM y, HH:mm"
    # always UTC, whatever BABEL_DEFAULT_TIMEZONE says: the text ends in "UTC"
    shown = format_datetime(at, pattern, tzinfo=UTC, locale=get_locale() or "en")
    return Markup('<time datetime="{}" data-local>{} UTC</time>').format(
        at.strftime("%Y-%m-%dT%H:%M:%SZ"), shown
    )


def scores_text(
    labels: Sequence[str], before: Sequence[int] | None, after: Sequence[int] | None
) -> str:
    """ "Ann & Bob 690 → 720, Cy & Di 510 → 480" (one number when it did not change)."""
    if before is None and after is None:
        return ""
    parts = []
    for i, label in enumerate(labels):
        old = before[i] if before is not None and i < len(before) else None
        new = after[i] if after is not None and i < len(after) else None
        if old is not None and new is not None and old != new:
            parts.append(f"{label} {_number(old)} → {_number(new)}")
        else:
            value = new if new is not None else old
            parts.append(f"{label} {_number(value)}" if value is not None else label)
    return ", ".join(parts)


def _number(value: int) -> str:
    return f"\u2212{-value}" if value < 0 else str(value)
