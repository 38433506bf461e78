"""Who may do what in a club: memberships, roles, invitation links.

Roles, weakest first (``models.ROLES``): a member reads the club (also when it is
members-only); a scorer also starts, records, corrects and reopens club matches and adds
players; an owner also changes the settings, seasons, roles and invitations, and may
delete the club. A club always keeps at least one owner.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import InvalidRequestError

from ..engine import Problem
from ..extensions import db
from ..models import (
    ROLES,
    Account,
    Club,
    Invitation,
    Membership,
    PasswordReset,
    Player,
    SavedRuleSet,
    is_public_id,
    utcnow,
)
from . import accounts, club_trail, locks
from .accounts import AccountError, _aware, token_hash
from .audit import NOBODY, Actor

INVITE_DAYS = 7
MAX_INVITE_USES = 50


def rank(role: str | None) -> int:
    """0 for no role, then 1, 2, 3 for member, scorer, owner."""
    return ROLES.index(role) + 1 if role in ROLES else 0


def membership(account: Account | None, club: Club) -> Membership | None:
    """The account's membership of the club, or None (always None when logged out)."""
    if account is None or not getattr(account, "is_authenticated", False):
        return None
    return db.session.scalar(
        select(Membership).where(Membership.account_id == account.id, Membership.club_id == club.id)
    )


def role_of(account: Account | None, club: Club) -> str | None:
    """The account's role in the club, or None."""
    found = membership(account, club)
    return found.role if found else None


def can_read(account: Account | None, club: Club) -> bool:
    """Public clubs are read by anyone; members-only clubs by their members."""
    return club.visibility == "public" or role_of(account, club) is not None


def has_role(account: Account | None, club: Club, role: str) -> bool:
    """Whether the account's role in the club is ``role`` or stronger."""
    return rank(role_of(account, club)) >= rank(role)


def role_allows(role: str | None, club: Club, level: str) -> bool:
    """``can_read`` (level ``read``) or ``has_role`` for someone whose role is ``role``."""
    if level == "read":
        return club.visibility == "public" or role is not None
    return rank(role) >= rank(level)


def visible_clubs(account: Account | None) -> tuple[list[Club], list[Club]]:
    """The account's clubs, and the public clubs it is not in; each by name."""
    mine: list[Club] = []
    if account is not None and getattr(account, "is_authenticated", False):
        mine = list(
            db.session.scalars(
                select(Club)
                .join(Membership, Membership.club_id == Club.id)
                .where(Membership.account_id == account.id)
                .order_by(func.lower(Club.name))
            )
        )
    ids = [c.id for c in mine]
    public = select(Club).where(Club.visibility == "public")
    if ids:
        public = public.where(Club.id.not_in(ids))
    return mine, list(db.session.scalars(public.order_by(func.lower(Club.name))))


def add_member(
    club: Club, account: Account, role: str, *, log: str | None = None, actor: Actor = NOBODY
) -> Membership:
    """Give the account this role in the club (a member already keeps the stronger role).

    ``log``: the kind of event the club's log keeps of it (``club_trail.JOINED``,
    ``OWNER_ASSIGNED``), with ``details`` of who and from which role, when anything
    changed; None for the owner a new club starts with (its "created" event says who)."""
    found = membership(account, club)
    before = found.role if found is not None else None
    if found is None:
        found = Membership(account_id=account.id, club_id=club.id, role=role)
        db.session.add(found)
    elif rank(role) > rank(found.role):
        found.role = role
    if log is not None and found.role != before:
        club_trail.record(
            club.id, log, actor, member=account.username, role=found.role, before=before
        )
    db.session.commit()
    return found


def members(club: Club) -> list[Membership]:
    """The club's memberships, owners first, then by username."""
    rows = db.session.scalars(
        select(Membership)
        .join(Account, Account.id == Membership.account_id)
        .where(Membership.club_id == club.id)
        .order_by(Account.username_key)
    )
    return sorted(rows, key=lambda m: -rank(m.role))


def get_member(club: Club, account_public_id: str) -> Membership | None:
    """The club's membership of the account with this public id, or None."""
    if not is_public_id(account_public_id):
        return None
    return db.session.scalar(
        select(Membership)
        .join(Account, Account.id == Membership.account_id)
        .where(Membership.club_id == club.id, Account.public_id == account_public_id)
    )


def _owners(club: Club) -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(Membership)
        .where(Membership.club_id == club.id, Membership.role == "owner")
    )


def is_last_owner(member: Membership) -> bool:
    """Whether the member is their club's only owner (who may not leave it ownerless)."""
    return member.role == "owner" and _owners(member_club(member)) <= 1


def _last_owner() -> AccountError:
    message = _("A club needs an owner: make someone else owner first.")
    return AccountError([Problem("role", message)])


def _in_turn(member: Membership) -> None:
    """Take the club's lock, then read the member again: two owners changing roles at the
    same moment take turns, and the second sees the first's change, so the count of owners
    it checks is the one it writes against (on PostgreSQL two demotions at once left a club
    with no owner; SQLite's writers already take turns)."""
    locks.lock_club(db.session, member.club_id)
    try:
        db.session.refresh(member)
    except InvalidRequestError:  # taken out of the club meanwhile
        raise AccountError([Problem("role", _("This account is no longer in the club."))]) from None


def set_role(member: Membership, role: str, *, actor: Actor = NOBODY) -> None:
    """Change a member's role; the last owner stays an owner."""
    if role not in ROLES:
        raise AccountError([Problem("role", _("Choose a role."))])
    _in_turn(member)
    if member.role == "owner" and role != "owner" and _owners(member_club(member)) <= 1:
        raise _last_owner()
    if member.role != role:
        _log(member, club_trail.ROLE_CHANGED, actor, before=member.role, after=role)
    member.role = role
    db.session.commit()


def remove(member: Membership, *, actor: Actor = NOBODY, leaving: bool = False) -> None:
    """Take the account out of the club (``leaving``: the account leaves by itself); the
    last owner cannot be removed, nor leave. The reset links made for the account go with
    it (an owner made them as its club's owner)."""
    _in_turn(member)
    if is_last_owner(member):
        raise _last_owner()
    db.session.execute(delete(PasswordReset).where(PasswordReset.account_id == member.account_id))
    # the log says "left" for one who left, "took out" for one an owner took out
    extra = {"left": True} if leaving else {}
    _log(member, club_trail.MEMBER_REMOVED, actor, role=member.role, **extra)
    db.session.delete(member)
    db.session.commit()


def close_account(account: Account, password: str) -> None:
    """Close the account, confirmed by its password: it leaves each of its clubs (each
    club's log says so, as leaving by itself does), its log-ins and reset links end, and
    it is deleted. What it did stays, by the name it had, which no one may sign up with
    again: the match histories and club logs keep their names, house rules it saved stay,
    read-only (anyone may copy them).
    Refused, changing nothing, for a wrong password or while it is a club's only owner
    (each such club named). Each club is locked in turn, in id order, as ``remove``
    does: two owners of one club closing their accounts at once do not leave it
    ownerless."""
    if not accounts.password_matches(account, password):
        raise AccountError([Problem("password", _("This is not your password."))])
    alone = []
    for member in sorted(account.memberships, key=lambda m: m.club_id):
        try:
            _in_turn(member)
        except AccountError:  # taken out of the club meanwhile: nothing to leave there
            continue
        if is_last_owner(member):
            alone.append(member_club(member).name)
    if alone:
        db.session.rollback()
        message = _(
            "You are the only owner of %(clubs)s: make another member owner first, or "
            "delete the club.",
            clubs=", ".join(sorted(alone, key=str.casefold)),
        )
        raise AccountError([Problem("password", message)])
    # each club's log says it left, from the memberships deleted: a club joined since they
    # were read above (by an invitation: never as owner) is left and logged too
    actor, name = _actor(account), account.username
    gone = delete(Membership).where(Membership.account_id == account.id)
    for club_id, role in db.session.execute(gone.returning(Membership.club_id, Membership.role)):
        club_trail.record(
            club_id, club_trail.MEMBER_REMOVED, actor, member=name, role=role, left=True
        )
    # log-ins and reset links go with it (ON DELETE CASCADE); what names it (trails, logs,
    # house rules, links it made) keeps the name (ON DELETE SET NULL), which no one may
    # sign up with again
    accounts.retire_username(account)
    db.session.execute(delete(Account).where(Account.id == account.id))
    db.session.commit()


def reset_link_refusal(member: Membership) -> str | None:
    """Why an owner of the member's club may not make them a password reset link, or None.

    A reset link logs in as the account everywhere, not only in this club: an owner who
    invited someone could otherwise take over an account that owns or scores for a club of
    its own, or keeps house rules. Only an account that is nothing but a member of this club
    gets one from its owner; for any other, the person who runs the server makes the link
    (``scorekeeper reset-link``).
    """
    if member.role == "owner":
        return _(
            "An owner's password is reset by the person who runs the server"
            " ('scorekeeper reset-link'), not by this link."
        )
    elsewhere = db.session.scalar(
        select(func.count())
        .select_from(Membership)
        .where(Membership.account_id == member.account_id, Membership.club_id != member.club_id)
    )
    rules = db.session.scalar(
        select(func.count())
        .select_from(SavedRuleSet)
        .where(SavedRuleSet.account_id == member.account_id)
    )
    if elsewhere or rules:
        return _(
            "%(name)s is also in another club or keeps house rules of their own, so a reset"
            " link for them would open more than this club: only the person who runs the"
            " server can make one ('scorekeeper reset-link').",
            name=member.account.username,
        )
    return None


def member_club(member: Membership) -> Club:
    return db.session.get(Club, member.club_id)  # type: ignore[return-value]


def link_player(member: Membership, player: Player | None, *, actor: Actor = NOBODY) -> None:
    """Say which of the club's players this account is (or none)."""
    if player is not None and player.club_id != member.club_id:
        raise AccountError([Problem("player", _("This player is not in the club."))])
    _in_turn(member)  # two tabs at once: the second's "before" is the first's player
    before = member.player_id
    member.player_id = player.id if player else None
    if member.player_id != before:
        was = db.session.get(Player, before) if before is not None else None
        _log(
            member,
            club_trail.PLAYER_LINKED,
            actor,
            player=player.name if player else None,
            before=was.name if was else None,
        )
    db.session.commit()


def reset_link(member: Membership, made_by: Account) -> str:
    """A password reset link an owner makes for a member of the club
    (``reset_link_refusal`` says for whom not); the club's log keeps that it was made,
    never the link."""
    _log(member, club_trail.RESET_LINK, _actor(made_by))
    return accounts.make_reset_link(member.account, made_by)  # commits the event with it


def _actor(account: Account) -> Actor:
    return Actor(account.username, account.id)


def _log(member: Membership, kind: str, actor: Actor, **details: Any) -> None:
    """The club's log keeps ``kind`` of the member's account, by its name now."""
    club_trail.record(member.club_id, kind, actor, member=member.account.username, **details)


def invite(club: Club, made_by: Account, role: str, uses: int) -> tuple[Invitation, str]:
    """A link to join the club as ``role`` (member or scorer): 7 days, ``uses`` times."""
    if role not in ("member", "scorer"):
        raise AccountError([Problem("role", _("Invite as a member or a scorer."))])
    if not 1 <= uses <= MAX_INVITE_USES:
        raise AccountError([Problem("uses", _("Between 1 and %(n)d people.", n=MAX_INVITE_USES))])
    token = secrets.token_urlsafe(24)
    row = Invitation(
        token_hash=token_hash(token),
        club_id=club.id,
        role=role,
        uses_left=uses,
        created_by=made_by.id,
        expires_at=utcnow() + timedelta(days=INVITE_DAYS),
    )
    db.session.add(row)
    club_trail.record(club.id, club_trail.INVITED, _actor(made_by), role=role, uses=uses)
    db.session.commit()
    return row, token


def invitations(club: Club) -> list[Invitation]:
    """The club's invitations that can still be used, newest first."""
    return list(
        db.session.scalars(
            select(Invitation)
            .where(
                Invitation.club_id == club.id,
                Invitation.uses_left > 0,
                Invitation.expires_at > utcnow(),
            )
            .order_by(Invitation.created_at.desc())
        )
    )


def _usable(row: Invitation | None) -> bool:
    return row is not None and row.uses_left > 0 and _aware(row.expires_at) > utcnow()


def invitation_of(token: str) -> Invitation | None:
    """The usable invitation of this token, or None (unknown, expired or used up)."""
    if not token or len(token) > 128:
        return None
    row = db.session.scalar(select(Invitation).where(Invitation.token_hash == token_hash(token)))
    return row if _usable(row) else None


def accept(invitation: Invitation, account: Account) -> Membership | None:
    """Join the invitation's club, or take its stronger role; each spends one use (a
    member already holding the role spends none). A link for one scorer once made every
    member who opened it a scorer, and could still be used.

    None when the link was used up (or revoked) meanwhile: the club's lock is taken and the
    invitation read again first, so two people joining at the same moment by a link for one
    take turns and the second finds it spent (on PostgreSQL both once joined)."""
    try:
        locks.lock_club(db.session, invitation.club_id)
        db.session.refresh(invitation)
    except InvalidRequestError:  # the club was deleted meanwhile, its links with it
        db.session.rollback()
        return None
    if not _usable(invitation):
        db.session.rollback()
        return None
    club = db.session.get(Club, invitation.club_id)
    assert club is not None
    found = membership(account, club)
    if found is None or rank(invitation.role) > rank(found.role):
        invitation.uses_left -= 1
    return add_member(club, account, invitation.role, log=club_trail.JOINED, actor=_actor(account))


def revoke(club: Club, invitation_public_id: str, *, actor: Actor = NOBODY) -> None:
    """Make one of the club's invitation links stop working. Read under the club's lock:
    two tabs stopping it at once stop it, and log it, once (a join meanwhile takes the
    same lock, so the uses left are the ones it left)."""
    if not is_public_id(invitation_public_id):
        return
    locks.lock_club(db.session, club.id)
    row = db.session.scalar(
        select(Invitation)
        .where(Invitation.club_id == club.id, Invitation.public_id == invitation_public_id)
        .execution_options(populate_existing=True)
    )
    if row is not None and row.uses_left > 0:
        club_trail.record(
            club.id,
            club_trail.INVITATION_REVOKED,
            actor,
            role=row.role,
            uses_left=row.uses_left,
        )
        row.uses_left = 0
        db.session.commit()


def ownerless_or_named(club_ref: str) -> list[Club]:
    """Clubs whose public id or name (any case) is ``club_ref`` (for the CLI)."""
    return list(
        db.session.scalars(
            select(Club).where(
                or_(Club.public_id == club_ref, func.lower(Club.name) == club_ref.lower())
            )
        )
    )


def assign_owner(club_ref: str, username: str) -> str:
    """Make an account an owner of a club (by public id or exact name); for the CLI.

    Clubs started before accounts existed have no owner: the person who runs the server
    gives them one. Returns what was done; raises LookupError when a name is ambiguous or
    unknown. Both are :class:`~scorekeeper.engine.errors.Phrase`: English as they are,
    and the command line says them in its language (``cli_i18n.say``).
    """
    from ..engine.errors import phrase
    from .accounts import find

    found = ownerless_or_named(club_ref)
    if not found:
        raise LookupError(phrase("No club has the id or name %(club)s.", club=repr(club_ref)))
    if len(found) > 1:
        ids = ", ".join(c.public_id for c in found)
        raise LookupError(
            phrase(
                "Several clubs are called %(club)s; use one of the ids: %(ids)s.",
                club=repr(club_ref),
                ids=ids,
            )
        )
    account = find(username)
    if account is None:
        raise LookupError(
            phrase(
                "No account is called %(username)s; sign up in the app first.",
                username=repr(username),
            )
        )
    add_member(found[0], account, "owner", log=club_trail.OWNER_ASSIGNED)
    return phrase(
        "%(username)s is now an owner of %(club)s.",
        username=account.username,
        club=found[0].name,
    )
