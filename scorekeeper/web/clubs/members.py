"""Club members (owners only): roles, invitation links with QR codes, reset links, and
deleting the club; joining by an invitation link."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, flash, redirect, request, session, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import SelectChoice, SelectField
from wtforms.validators import InputRequired, NumberRange

from ...models import Club
from ...services import accounts, clubs, memberships
from .. import authz
from ..actor import current_actor
from ..i18n import translate_problem as tr
from ..links import private_link, qr_svg
from ..matches.fields import IntegerText
from ..rendering import invalid_status, render
from .views import bp, club_or_404

#: Each role and what it may do: the members page's choice of role, and (owner aside) the
#: invitation's.
ROLE_WORDS = {
    "member": _l("Member (reads)"),
    "scorer": _l("Scorer (keeps scores)"),
    "owner": _l("Owner (settings, roles, seasons)"),
}


class InviteForm(FlaskForm):
    role = SelectField(
        _l("They join as"),
        choices=[SelectChoice(role, ROLE_WORDS[role]) for role in ("member", "scorer")],
        default="member",
    )
    uses = IntegerText(
        _l("How many people may use the link"),
        [
            InputRequired(_l("Enter a number from 1 to 50.")),
            NumberRange(1, memberships.MAX_INVITE_USES, _l("Enter a number from 1 to 50.")),
        ],
        default=1,
        render_kw={"inputmode": "numeric"},
    )


class ActionForm(FlaskForm):
    """A button that changes something: the CSRF token alone."""


def _page(club: Club, status: int = 200, **extra: Any) -> Response:
    context: dict[str, Any] = {
        "club": club,
        "members": memberships.members(club),
        "invitations": memberships.invitations(club),
        "players": clubs.search_players(club, "", limit=500),
        "invite_form": InviteForm(formdata=None),
        "action": ActionForm(formdata=None),
        "role_words": ROLE_WORDS,
        **extra,
    }
    response = render("clubs/members.html", "clubs/members.html", status, **context)
    response.headers["Cache-Control"] = "no-store"  # members, and links that are shown once
    return response


@bp.get("/c/<club_id>/members")
@authz.club("owner")
def members(club_id: str) -> Response:
    """Who is in the club and their roles; invitation links."""
    return _page(club_or_404(club_id))


@bp.post("/c/<club_id>/invitations")
@authz.club("owner")
def invite(club_id: str) -> Response:
    """Make an invitation link (shown once, with its QR code)."""
    club = club_or_404(club_id)
    form = InviteForm()
    if form.validate():
        try:
            _row, token = memberships.invite(club, current_user, form.role.data, form.uses.data)
        except accounts.AccountError as error:
            form.uses.errors = [tr(p) for p in error.problems]
        else:
            link = private_link("clubs.join", token=token)
            return _page(club, new_link=link, qr=qr_svg(link, _("QR code of the invitation link")))
    return _page(club, invalid_status(), invite_form=form)


@bp.post("/c/<club_id>/invitations/<invitation_id>/revoke")
@authz.club("owner")
def revoke(club_id: str, invitation_id: str) -> Response:
    """Make an invitation link stop working."""
    club = club_or_404(club_id)
    if ActionForm().validate():
        memberships.revoke(club, invitation_id, actor=current_actor())
        flash(_("The invitation link no longer works."), "info")
    return redirect(url_for(".members", club_id=club.public_id), 303)


def _member(club: Club, account_id: str) -> Any:
    found = memberships.get_member(club, account_id)
    if found is None:
        abort(404)
    return found


@bp.post("/c/<club_id>/members/<account_id>")
@authz.club("owner")
def change_member(club_id: str, account_id: str) -> Response:
    """Change a member's role or linked player, or take them out of the club."""
    club = club_or_404(club_id)
    member = _member(club, account_id)
    if not ActionForm().validate():
        abort(400)
    name = member.account.username
    try:
        if request.form.get("remove"):
            memberships.remove(member, actor=current_actor())
            flash(_("%(name)s is no longer in the club.", name=name), "info")
        elif "role" in request.form:
            memberships.set_role(member, request.form["role"], actor=current_actor())
            flash(_("Saved %(name)s's role.", name=name), "success")
        elif "player" in request.form:
            player = clubs.get_player(club, request.form["player"])
            if request.form["player"] and player is None:
                abort(400)
            memberships.link_player(member, player, actor=current_actor())
            flash(_("Saved who %(name)s is.", name=name), "success")
    except accounts.AccountError as error:
        return _page(club, invalid_status(), general=[tr(p) for p in error.problems])
    return redirect(url_for(".members", club_id=club.public_id), 303)


@bp.post("/c/<club_id>/members/<account_id>/reset")
@authz.club("owner")
def reset_link(club_id: str, account_id: str) -> Response:
    """A one-time link for a member (not another owner) to choose a new password."""
    club = club_or_404(club_id)
    member = _member(club, account_id)
    if not ActionForm().validate():
        abort(400)
    refusal = memberships.reset_link_refusal(member)
    if refusal is not None:
        return _page(club, invalid_status(), general=[refusal])
    token = memberships.reset_link(member, current_user)
    link = private_link("auth.reset", token=token)
    qr = qr_svg(link, _("QR code of the password reset link"))
    return _page(club, reset_for=member.account.username, reset_link=link, qr=qr)


@bp.route("/c/<club_id>/delete", methods=["GET", "POST"])
@authz.club("owner")
def delete(club_id: str) -> Response:
    """Confirm, then delete the club and all its history."""
    club = club_or_404(club_id)
    form = ActionForm()
    if request.method == "POST" and form.validate():
        if request.form.get("confirm_name", "").strip() != club.name:
            return render(
                "clubs/delete.html",
                "clubs/delete.html",
                invalid_status(),
                club=club,
                form=form,
                error=_("Type the club's name exactly to delete it."),
            )
        name = club.name
        clubs.delete_club(club)
        flash(_("Deleted %(name)s.", name=name), "success")
        return redirect(url_for(".index"), 303)
    return render("clubs/delete.html", "clubs/delete.html", club=club, form=form, error="")


@bp.route("/c/<club_id>/leave", methods=["GET", "POST"])
@authz.club("member")
def leave(club_id: str) -> Response:
    """Confirm, then leave the club (any member; its only owner is told how to hand it on).
    The club's history stays as it is; this phone forgets the pages it kept for offline
    use, the club's members-only ones among them, as logging out does."""
    club = club_or_404(club_id)
    member = memberships.membership(current_user, club)
    if member is None:  # left in another tab meanwhile
        abort(404)
    role, last_owner = member.role, memberships.is_last_owner(member)
    form = ActionForm()
    error = ""
    if request.method == "POST" and form.validate():
        name = club.name
        try:
            memberships.remove(member, actor=current_actor(), leaving=True)
        except accounts.AccountError as refused:
            error = " ".join(tr(p) for p in refused.problems)
            if memberships.membership(current_user, club) is None:  # taken out meanwhile
                flash(error, "info")
                return redirect(url_for("auth.account"), 303)
            last_owner = memberships.is_last_owner(member)  # as read under the club's lock
        else:
            session["clear_offline"] = True
            flash(_("You left %(name)s.", name=name), "info")
            return redirect(url_for("auth.account"), 303)
    response = render(
        "clubs/leave.html",
        "clubs/leave.html",
        invalid_status() if error else 200,
        club=club,
        form=form,
        role=role,
        last_owner=last_owner,
        error=error,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def _invitation(token: str) -> Any:
    return memberships.invitation_of(token)


@bp.get("/join/<token>")
@authz.anyone
def join(token: str) -> Response:
    """An invitation link: log in (or sign up), then join the club."""
    invitation = _invitation(token)
    if invitation is None:
        return render("clubs/join.html", "clubs/join.html", 404, club=None, invitation=None)
    club = clubs.get_club_by_id(invitation.club_id)
    role = memberships.role_of(authz.account(), club)
    return render(
        "clubs/join.html",
        "clubs/join.html",
        club=club,
        invitation=invitation,
        form=ActionForm(formdata=None),
        role=role,
    )


@bp.post("/join/<token>")
@authz.signed_in
def accept(token: str) -> Response:
    """Join the club of the invitation (one use of the link)."""
    invitation = _invitation(token)
    if invitation is None:
        return render("clubs/join.html", "clubs/join.html", 404, club=None, invitation=None)
    if not ActionForm().validate():
        abort(400)
    club = clubs.get_club_by_id(invitation.club_id)
    if memberships.accept(invitation, current_user) is None:  # used up meanwhile
        return render("clubs/join.html", "clubs/join.html", 404, club=None, invitation=None)
    flash(_("Welcome to %(name)s.", name=club.name), "success")
    return redirect(url_for(".show", club_id=club.public_id), 303)
