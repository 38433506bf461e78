"""The accounts area: sign up, log in, log out, change the password, use a reset link.

Logging in clears the browser's session and starts a new server-side one (a fresh
random token), so nothing from before the log-in carries over; logging out deletes it.
"""

from __future__ import annotations

import hashlib
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    g,
    make_response,
    redirect,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user
from flask_wtf.csrf import generate_csrf
from wtforms import SelectChoice

from ...extensions import limiter, login_manager
from ...services import accounts, memberships
from .. import authz
from ..i18n import COOKIE, COOKIE_MAX_AGE, LANGUAGES
from ..i18n import translate_problem as tr
from ..next_url import local_path
from ..rendering import invalid_status, render, wants_fragment
from . import forms

bp = Blueprint("auth", __name__)


def _limit(name: str) -> Any:
    return limiter.limit(lambda: current_app.config[name], methods=["POST"])


def _named_account() -> str:
    """The account a log-in names, as usernames are compared (any case, any spacing), by
    a digest: the counts' table holds no usernames, and any length or character sent fits."""
    name = accounts.username_key(request.form.get("username", ""))
    return "account:" + hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()[:32]


#: Log-in tries naming one account are limited from every address together: the limit
#: per address alone let many addresses guess one account's password. Each try counts
#: before it is made, as the address's do (counted after it, the count would wait for
#: the log-in's own write on SQLite); an owner logs in far less often than the limit.
#: When it is reached, the page says it is this account's limit, not this address's.
_limit_per_account = limiter.limit(
    lambda: current_app.config["RATELIMIT_LOGIN_ACCOUNT"],
    methods=["POST"],
    key_func=_named_account,
    error_message=lambda: _(
        "Too many log-in tries for this account. Wait an hour, then try again, or ask"
        " the club's owner for a reset link."
    ),
)


@login_manager.user_loader
def _load(token: str) -> Any:
    return accounts.account_of_session(token)


@bp.after_app_request
def _settle_anonymous_session(response: Response) -> Response:
    """An anonymous session is written once as it will stay: Flask-Login's ``basic``
    protection marks a session without its ``_id`` not fresh at the first request that
    reads it, which was the request after the one that made it (its CSRF token). That
    request wrote the session again, anonymous: the service worker's first fetches of
    the shell, sent from the log-in page with its cookie and answered after the log-in,
    logged the phone out again. Marked here with the first writing, later requests leave
    it as it is."""
    anonymous = session.modified and session and "_user_id" not in session
    if anonymous and session.get("_fresh") is not False:
        session["_fresh"] = False
    return response


@login_manager.unauthorized_handler
def _unauthorized() -> Response:
    target = url_for("auth.login", next=request.full_path.rstrip("?"))
    if request.method != "GET":
        target = url_for("auth.login")
    if wants_fragment():
        response = make_response(_("Log in first."), 401)
        response.headers["HX-Redirect"] = target
        return response
    flash(_("Log in to do that."), "info")
    return redirect(target, 303 if request.method != "GET" else 302)


def safe_next(target: str | None) -> str:
    """Only a path on this site (``next_url.local_path``) is followed after log-in."""
    return local_path(target) or url_for("home.index")


def _log_in(account: Any, remember: bool) -> None:
    session.clear()  # a new session: nothing from before the log-in survives
    accounts.start_session(account, remember)
    login_user(account, remember=remember)
    _new_csrf_token()


def _new_csrf_token() -> None:
    """The cleared session's CSRF token, made in the answer that clears it (a log-in, a
    log-out). The next page and the service worker's fetches of the shell all leave with
    this answer's cookie, and each made a token of its own when it had none. The phone
    kept whichever answer came last, and the next page's forms were refused when that was
    not the page's (a newcomer's first club, a match started after logging out: "This
    page was open too long"). Flask-WTF keeps a request's token on ``g``: the old
    session's, here."""
    g.pop(current_app.config["WTF_CSRF_FIELD_NAME"], None)
    generate_csrf()


@bp.route("/login", methods=["GET", "POST"])
@authz.anyone
@_limit("RATELIMIT_LOGIN")
@_limit_per_account
def login() -> Response:
    """Log in with a username and password."""
    form = forms.LogInForm(data={"next": request.args.get("next", "")})
    if request.method == "POST":
        form = forms.LogInForm()
        if form.validate():
            account = accounts.authenticate(form.username.data, form.password.data)
            if account is not None:
                _log_in(account, bool(form.remember.data))
                return redirect(safe_next(form.next.data), 303)
            form.password.errors = [_("Wrong username or password.")]
        status = invalid_status()
        return render("auth/login.html", "auth/login.html", status, form=form)
    return render("auth/login.html", "auth/login.html", form=form)


@bp.route("/signup", methods=["GET", "POST"])
@authz.anyone
@_limit("RATELIMIT_SIGNUP")
def signup() -> Response:
    """Make an account (no e-mail needed)."""
    form = forms.SignUpForm(data={"next": request.args.get("next", "")})
    if request.method == "POST":
        form = forms.SignUpForm()
        if form.validate():
            try:
                account = accounts.sign_up(form.username.data, form.password.data)
            except accounts.AccountError as error:
                _apply(form, error)
            else:
                _log_in(account, False)
                if local_path(form.next.data):  # on its way somewhere (an invitation...)
                    flash(_("Welcome, %(name)s.", name=account.username), "success")
                else:  # to the home page, which says nothing of clubs
                    flash(
                        _(
                            "Welcome, %(name)s. Start your club under Clubs, or open the"
                            " invitation link a club sent you to join it.",
                            name=account.username,
                        ),
                        "success",
                    )
                return redirect(safe_next(form.next.data), 303)
        return render("auth/signup.html", "auth/signup.html", invalid_status(), form=form)
    return render("auth/signup.html", "auth/signup.html", form=form)


@bp.post("/logout")
@authz.anyone
def logout() -> Response:
    """End the session here and on the server."""
    if current_user.is_authenticated:
        accounts.end_session(current_user.session_token)
    return _logged_out(_("You are logged out."))


def _logged_out(message: str) -> Response:
    """This browser logged out (its session row is gone already), to the home page with
    ``message``."""
    logout_user()
    session.clear()
    # The next page tells this phone to forget the pages it kept for offline use (a club's
    # members-only pages among them): on a shared phone, nobody reads them after this.
    session["clear_offline"] = True
    _new_csrf_token()
    flash(message, "info")
    return redirect(url_for("home.index"), 303)


@bp.route("/account", methods=["GET", "POST"])
@_limit("RATELIMIT_PASSWORD")  # counted before authz: on SQLite its read takes the write lock
@authz.signed_in
def account() -> Response:
    """The account's clubs, and a form to change the password."""
    form = forms.ChangePasswordForm()
    status = 200
    if request.method == "POST":
        if form.validate():
            try:
                accounts.change_password(current_user, form.current.data, form.new.data)
            except accounts.AccountError as error:
                _apply(form, error)
            else:
                flash(_("Your password is changed; other devices are logged out."), "success")
                return redirect(url_for(".account"), 303)
        status = invalid_status()
    return render(
        "auth/account.html", "auth/account.html", status, form=form, language=_language_form()
    )


@bp.route("/account/close", methods=["GET", "POST"])
@_limit("RATELIMIT_PASSWORD")  # counted before authz: on SQLite its read takes the write lock
@authz.signed_in
def close() -> Response:
    """Confirm with the password, then close the account (``memberships.close_account``)
    and log this browser out; the phone forgets the pages it kept for offline use."""
    form = forms.CloseAccountForm()
    status = 200
    if request.method == "POST":
        if form.validate():
            try:
                memberships.close_account(current_user, form.password.data)
            except accounts.AccountError as error:
                _apply(form, error)
            else:
                return _logged_out(_("Your account is closed."))
        status = invalid_status()
    response = render("auth/close.html", "auth/close.html", status, form=form)
    response.headers["Cache-Control"] = "no-store"
    return response


def _language_choices() -> list[SelectChoice]:
    return [
        SelectChoice("", _("The browser's language")),
        *(SelectChoice(code, name) for code, name in LANGUAGES.items()),
    ]


def _language_form() -> forms.LanguageForm:
    form = forms.LanguageForm(formdata=None, language=current_user.language or "")
    form.language.choices = _language_choices()
    return form


@bp.route("/account/language", methods=["POST"])
@authz.signed_in
def language() -> Response:
    """Save the account's language; this browser's switcher cookie follows it."""
    form = forms.LanguageForm()
    form.language.choices = _language_choices()
    if not form.validate():
        flash(_("Choose one of the languages."), "error")
        return redirect(url_for(".account"), 303)
    accounts.set_language(current_user, form.language.data or None)
    response = redirect(url_for(".account"), 303)
    if form.language.data:
        response.set_cookie(
            COOKIE, form.language.data, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True
        )
    else:
        response.delete_cookie(COOKIE)
    return response


@bp.route("/reset/<token>", methods=["GET", "POST"])
@authz.anyone
@_limit("RATELIMIT_RESET")
def reset(token: str) -> Response:
    """Choose a new password with a one-time link a club owner handed over."""
    row = accounts.reset_of(token)
    if row is None:
        abort(404)
    form = forms.ResetForm()
    status = 200
    if request.method == "POST":
        if form.validate():
            try:
                account = accounts.use_reset(row, form.new.data)
            except accounts.AccountError as error:
                _apply(form, error)
            else:
                if current_user.is_authenticated:
                    logout_user()
                _log_in(account, False)
                flash(_("Your new password is saved."), "success")
                return redirect(url_for(".account"), 303)
        status = invalid_status()
    return render(
        "auth/reset.html", "auth/reset.html", status, form=form, username=row.account.username
    )


def _apply(form: Any, error: accounts.AccountError) -> None:
    for problem in error.problems:
        field = form._fields.get(problem.field) or next(iter(form))
        field.errors = [*field.errors, tr(problem)]
