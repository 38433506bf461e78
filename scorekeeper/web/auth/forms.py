"""Forms of the accounts area: no composition rules, paste allowed, the right autocomplete."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    HiddenField,
    PasswordField,
    SelectChoice,
    SelectField,
    StringField,
)
from wtforms.validators import InputRequired, Length

from ..matches.fields import no_control_characters

USERNAME = {"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false",
            "maxlength": 40}  # fmt: skip


class LogInForm(FlaskForm):
    username = StringField(
        _l("Username"), [InputRequired(_l("Type your username."))], render_kw=USERNAME
    )
    password = PasswordField(
        _l("Password"),
        [InputRequired(_l("Type your password."))],
        render_kw={"autocomplete": "current-password"},
    )
    remember = BooleanField(_l("Keep me logged in on this device for 30 days"))
    next = HiddenField()


class SignUpForm(FlaskForm):
    username = StringField(
        _l("Username"),
        [InputRequired(_l("Choose a username.")), Length(max=40), no_control_characters],
        render_kw=USERNAME,
    )
    password = PasswordField(
        _l("Password (at least 8 characters; a few words make a good one)"),
        [InputRequired(_l("Choose a password."))],
        render_kw={"autocomplete": "new-password", "minlength": 8, "maxlength": 128},
    )
    next = HiddenField()


class ChangePasswordForm(FlaskForm):
    current = PasswordField(
        _l("Current password"),
        [InputRequired(_l("Type your current password."))],
        render_kw={"autocomplete": "current-password"},
    )
    new = PasswordField(
        _l("New password (at least 8 characters)"),
        [InputRequired(_l("Choose a new password."))],
        render_kw={"autocomplete": "new-password", "minlength": 8, "maxlength": 128},
    )


class CloseAccountForm(FlaskForm):
    password = PasswordField(
        _l("Your password, to confirm"),
        [InputRequired(_l("Type your password."))],
        render_kw={"autocomplete": "current-password"},
    )


class ResetForm(FlaskForm):
    new = PasswordField(
        _l("New password (at least 8 characters)"),
        [InputRequired(_l("Choose a new password."))],
        render_kw={"autocomplete": "new-password", "minlength": 8, "maxlength": 128},
    )


class LanguageForm(FlaskForm):
    """The account's language: every browser it logs in on speaks it (a switcher's cookie
    on one browser still wins there)."""

    language = SelectField(
        _l("Language"),
        choices=[SelectChoice("", _l("The browser's language"))],
        validate_choice=True,
    )
