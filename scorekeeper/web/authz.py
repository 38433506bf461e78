"""Who may open each route: one decorator per view, checked before the view runs.

Every view of the app carries exactly one rule (``view.authz``), set by a decorator
below; ``tests/web/test_authz_matrix.py`` walks ``app.url_map`` and fails for a route
without one. Templates may hide a button, but the check is here.

- ``anyone``: no check (casual play, presets, the meld checker, the public API).
- ``signed_in``: any account (start a club, save house rules).
- ``club(level)``: the ``club_id`` of the URL; ``read`` lets anyone read a public club
  and members read a members-only one; ``member``, ``scorer``, ``owner`` need that role
  or a stronger one (``services.memberships``).
- ``match(level)``: the ``public_id`` of a match. A casual match belongs to whoever holds
  its unguessable link; a club match is read as its club is and changed by its scorers.
- ``rule_set_owner``: saved house rules, changed by the account that saved them (or by
  the owners of the club they belong to).

Refused: a visitor who is not logged in is sent to log in (401 for htmx, with
``HX-Redirect``); an account without the role gets 403 ("ask the club's owner").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from flask import abort, g, request
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import and_, bindparam, null, select

from ..extensions import db, login_manager
from ..models import Club, Membership, SavedRuleSet, is_public_id
from ..models import Match as MatchRow
from ..services import clubs, memberships, rule_sets

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Rule:
    """What a view requires: ``kind`` (anyone, signed_in, club, match, rule_set_owner)
    and, for clubs and matches, the ``level``."""

    kind: str
    level: str = ""


def _mark(rule: Rule, check: Callable[[dict[str, Any]], None] | None) -> Callable[[F], F]:
    def decorate(view: F) -> F:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if check is not None:
                check(kwargs)
            return view(*args, **kwargs)

        guarded.authz = rule  # type: ignore[attr-defined]
        return guarded  # type: ignore[return-value]

    return decorate


def account() -> Any | None:
    """The logged-in account, or None."""
    return current_user if current_user.is_authenticated else None


def refuse() -> None:
    """Log in first (not logged in), or 403 (logged in, without the right).

    The JSON API answers 401 or 403 with a JSON body (``web/errors.py``), never a redirect.
    """
    if request.path.startswith("/api/"):
        abort(403 if current_user.is_authenticated else 401)
    if not current_user.is_authenticated:
        abort(login_manager.unauthorized())
    abort(403)


def anyone(view: F) -> F:
    """No check: anyone may open this route."""
    return _mark(Rule("anyone"), None)(view)


def _signed_in(_kwargs: dict[str, Any]) -> None:
    if not current_user.is_authenticated:
        refuse()


def signed_in(view: F) -> F:
    """Any logged-in account."""
    return _mark(Rule("signed_in"), _signed_in)(view)


def allowed_in_club(club: Club, level: str) -> bool:
    """Whether the current visitor may do ``level`` (read, member, scorer, owner) here."""
    if level == "read":
        return memberships.can_read(account(), club)
    return memberships.has_role(account(), club, level)


def club(level: str) -> Callable[[F], F]:
    """The URL's club (``club_id``), read or changed at ``level``; 404 when unknown."""

    def check(kwargs: dict[str, Any]) -> None:
        found = clubs.get_club(kwargs.get("club_id", ""))
        if found is None:
            abort(404)
        g.club = found
        if not allowed_in_club(found, level):
            refuse()

    return _mark(Rule("club", level), check)


def _club_of_match(*columns: Any) -> Any:
    """A match's club (none for a casual match) with ``columns``, by its public id."""
    return (
        select(Club, *columns)
        .join(MatchRow, MatchRow.club_id == Club.id)
        .where(MatchRow.public_id == bindparam("public_id"))
    )


#: The club with no role for a visitor, with the reader's role for an account. Built
#: once: on a kept page, building the statement cost more than running it.
_CLUB_OF_MATCH = _club_of_match(null())
_CLUB_AND_ROLE = _club_of_match(Membership.role).outerjoin(
    Membership,
    and_(Membership.club_id == Club.id, Membership.account_id == bindparam("account_id")),
)


def match(level: str) -> Callable[[F], F]:
    """The URL's match (``public_id``): casual by its link; a club's by its club's rules."""

    def check(kwargs: dict[str, Any]) -> None:
        public_id = kwargs.get("public_id", "")
        found = None
        if is_public_id(public_id):
            # the club and the reader's role in it, in one query
            me = account()
            if me:
                query, values = _CLUB_AND_ROLE, {"public_id": public_id, "account_id": me.id}
            else:
                query, values = _CLUB_OF_MATCH, {"public_id": public_id}
            found = db.session.execute(query, values).first()
        g.match_writable = True
        if found is None:
            return  # a casual match, or none (the view answers 404)
        owner, role = found
        g.match_club = owner  # read before the match: its data version keys kept pages
        g.match_writable = memberships.role_allows(role, owner, "scorer")
        if not memberships.role_allows(role, owner, "read" if level == "read" else "scorer"):
            refuse()

    return _mark(Rule("match", level), check)


def may_edit_rule_set(row: SavedRuleSet) -> bool:
    """The account that saved it, or an owner of its club; nobody for unowned ones."""
    me = account()
    if me is None:
        return False
    if row.account_id is not None and row.account_id == me.id:
        return True
    if row.club_id is not None:
        owner = db.session.get(Club, row.club_id)
        return owner is not None and memberships.has_role(me, owner, "owner")
    return False


def rule_set_owner(view: F) -> F:
    """Saved house rules (``public_id``), changed only by whoever owns them."""

    def check(kwargs: dict[str, Any]) -> None:
        row = rule_sets.load(kwargs.get("public_id", ""))
        if row is None:
            abort(404)
        if not may_edit_rule_set(row):
            refuse()

    return _mark(Rule("rule_set_owner"), check)(view)


def role_label(role: str) -> str:
    """A role's name in a sentence ("owner"), in the reader's language."""
    labels = {"owner": _("owner"), "scorer": _("scorer"), "member": _("member")}
    return labels.get(role, role)


def register_templating(app: Any) -> None:
    """Template helpers that mirror the checks above (to hide what a visitor may not do)."""
    from flask import session
    from flask_wtf.csrf import generate_csrf

    def csrf_token_if_session() -> str:
        return generate_csrf() if "csrf_token" in session else ""  # type: ignore[no-any-return]

    def can(club_row: Club, level: str) -> bool:
        return allowed_in_club(club_row, level)

    def club_of(member: Any) -> Club | None:
        return db.session.get(Club, member.club_id)

    app.jinja_env.globals.update(
        csrf_token_if_session=csrf_token_if_session,
        can=can,
        role_label=role_label,
        club_of=club_of,
        may_edit_rule_set=may_edit_rule_set,
        match_writable=lambda: g.get("match_writable", True),
    )
