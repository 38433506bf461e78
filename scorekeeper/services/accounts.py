"""Accounts: sign up, log in, server-side sessions, passwords and one-time reset links.

Passwords are hashed with Argon2id (argon2-cffi) at the OWASP Password Storage Cheat
Sheet's first recommendation, which ASVS 5.0 level 2 (V11.4.2) points to: 19 MiB of memory,
2 iterations, 1 lane, a 16-byte salt and a 32-byte hash. A stored hash made with other
parameters is re-made at the next log-in. There are no composition rules: at least 8
characters (ASVS V6.2.1), at most 128 (ASVS V6.2.9 allows 64 or more).

A log-in is a row in ``account_sessions``; the browser's cookie holds a random token whose
SHA-256 is the row's key. Logging out deletes the row, so the cookie (and a "remember me"
cookie made from the same token) stops working on the server side.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from datetime import datetime, timedelta

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError
from flask_babel import gettext as _
from sqlalchemy import bindparam, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload

from ..engine import Problem
from ..engine.errors import EngineError
from ..extensions import db
from ..models import Account, AccountSession, PasswordReset, RetiredUsername, utcnow

MIN_PASSWORD = 8
MAX_PASSWORD = 128
MAX_USERNAME = 40
SESSION_HOURS = 24  # a log-in without "remember me" ends after a day at the latest
REMEMBER_DAYS = 30
RESET_HOURS = 24

HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1, hash_len=32,
                        salt_len=16, type=Type.ID)  # fmt: skip
#: Verified against when the username is unknown, so both answers take as long.
_DUMMY_HASH = HASHER.hash(secrets.token_urlsafe(16))


class AccountError(EngineError):
    """A form value the account service refuses (field and message, like the engine's)."""


def token_hash(token: str) -> str:
    """What the database keeps of a token that travels in a link or a cookie."""
    return hashlib.sha256(token.encode()).hexdigest()


def username_as_kept(username: str) -> str:
    """A username as it is kept and shown: its runs of spaces made one, none at the ends."""
    return " ".join(username.split())


def username_key(username: str) -> str:
    """Usernames are unique whatever their case: ``Ana`` and ``ana`` are the same."""
    return username_as_kept(username).casefold()


def check_password(password: str, field: str = "password") -> None:
    """At least 8 characters, at most 128; nothing else is required."""
    if len(password) < MIN_PASSWORD:
        raise AccountError([Problem(field, _("Use at least %(n)d characters.", n=MIN_PASSWORD))])
    if len(password) > MAX_PASSWORD:
        raise AccountError([Problem(field, _("Use at most %(n)d characters.", n=MAX_PASSWORD))])


def _key_to_look_up(username: str) -> str | None:
    """The key a username is looked up by, or None when no account can have it."""
    # the name's length, not its key's: a key can be three times as long
    if len(username_as_kept(username)) > MAX_USERNAME:
        return None
    key = username_key(username)
    if not key or "\x00" in key:  # PostgreSQL refuses NUL
        return None
    return key


def find(username: str) -> Account | None:
    """The account with this username (any case), or None."""
    key = _key_to_look_up(username)
    if key is None:
        return None
    return db.session.scalar(select(Account).where(Account.username_key == key))


#: Alphabets whose letters look alike: a word mixing them can pass for another's name.
LOOK_ALIKE = ("LATIN", "CYRILLIC", "GREEK")


def _looks_like_another(name: str) -> bool:
    """Whether a username could pass for another: an invisible or direction-changing
    character (Unicode's format characters), a letter with a plainer twin (a full-width
    "Ａnn" is "Ann"), or a word mixing Latin, Cyrillic and Greek letters ("Аnn" with a
    Cyrillic А). Each was accepted beside an "Ann"."""
    if any(unicodedata.category(ch) == "Cf" for ch in name):
        return True
    if unicodedata.normalize("NFKC", name) != unicodedata.normalize("NFC", name):
        return True
    for word in name.split():
        scripts = {unicodedata.name(ch, "").split(" ", 1)[0] for ch in word if ch.isalpha()}
        if len(scripts & set(LOOK_ALIKE)) > 1:
            return True
    return False


def sign_up(username: str, password: str) -> Account:
    """Make an account; the username must be free (any case)."""
    name = username_as_kept(username)
    if not name:
        raise AccountError([Problem("username", _("Choose a username."))])
    if len(name) > MAX_USERNAME:
        raise AccountError(
            [Problem("username", _("Use at most %(n)d characters.", n=MAX_USERNAME))]
        )
    check_password(password)
    taken = AccountError([Problem("username", _("This username is taken; choose another."))])
    if find(name) is not None:
        raise taken
    key = _key_to_look_up(name)
    if key is not None and db.session.get(RetiredUsername, key) is not None:
        raise AccountError(
            [
                Problem(
                    "username",
                    _(
                        "This username belonged to an account that was closed, and the"
                        " clubs' logs still name it; choose another."
                    ),
                )
            ]
        )
    if _looks_like_another(name):
        raise AccountError(
            [
                Problem(
                    "username",
                    _("Use the letters of one alphabet in each word, and no hidden characters."),
                )
            ]
        )
    account = Account(username=name, username_key=username_key(name))
    account.password_hash = HASHER.hash(password)
    db.session.add(account)
    try:
        db.session.commit()
    except IntegrityError:  # taken by someone else between the check and the insert
        db.session.rollback()
        raise taken from None
    return account


def retire_username(account: Account) -> None:
    """Keep the username of an account being closed from being signed up with again: the
    logs name it (their ``actor``), and a newcomer under it would read as its owner."""
    db.session.merge(RetiredUsername(username_key=account.username_key))


def release_username(username: str) -> bool:
    """Let a retired username be signed up with again (the person who runs the server, for
    someone who closed their account and comes back); whether it was retired."""
    key = _key_to_look_up(username)
    if key is None:
        return False
    gone = db.session.execute(delete(RetiredUsername).where(RetiredUsername.username_key == key))
    db.session.commit()
    return bool(gone.rowcount)


def authenticate(username: str, password: str) -> Account | None:
    """The account if the password is right (re-hashed if the parameters changed)."""
    account = find(username)
    if account is None or len(password) > MAX_PASSWORD:
        _verify(_DUMMY_HASH, password[:MAX_PASSWORD])
        return None
    if not _verify(account.password_hash, password):
        return None
    if HASHER.check_needs_rehash(account.password_hash):
        account.password_hash = HASHER.hash(password)
        db.session.commit()
    return account


def password_matches(account: Account, password: str) -> bool:
    """Whether ``password`` is the account's (a confirmation of who is at the phone)."""
    return _verify(account.password_hash, password[:MAX_PASSWORD])


def _verify(stored: str, password: str) -> bool:
    try:
        return HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def start_session(account: Account, remember: bool = False) -> str:
    """Record a new log-in and return its token (for the cookie)."""
    token = secrets.token_urlsafe(32)
    lifetime = timedelta(days=REMEMBER_DAYS) if remember else timedelta(hours=SESSION_HOURS)
    db.session.add(
        AccountSession(
            token_hash=token_hash(token),
            account_id=account.id,
            remember=remember,
            expires_at=utcnow() + lifetime,
        )
    )
    db.session.commit()
    account.session_token = token
    return token


#: A log-in's session row with its account, in one query: every page of a log-in asks.
#: Built once (building it cost more than running it).
_SESSION_WITH_ACCOUNT = (
    select(AccountSession)
    .where(AccountSession.token_hash == bindparam("token_hash"))
    .options(joinedload(AccountSession.account))
)


def account_of_session(token: str) -> Account | None:
    """The account logged in with this token, if the session still exists and is current."""
    if not token or len(token) > 128:
        return None
    row = db.session.scalar(_SESSION_WITH_ACCOUNT, {"token_hash": token_hash(token)})
    if row is None or _aware(row.expires_at) <= utcnow():
        return None
    account = row.account
    account.session_token = token
    return account


def end_session(token: str | None) -> None:
    """Log out: the session's row goes, so its cookies stop working."""
    if token:
        db.session.execute(
            delete(AccountSession).where(AccountSession.token_hash == token_hash(token))
        )
        db.session.commit()


def end_other_sessions(account: Account, keep: str | None = None) -> None:
    """Log the account out everywhere (but on the browser whose token is ``keep``)."""
    query = delete(AccountSession).where(AccountSession.account_id == account.id)
    if keep:
        query = query.where(AccountSession.token_hash != token_hash(keep))
    db.session.execute(query)
    db.session.commit()


def change_password(account: Account, current: str, new: str) -> None:
    """Replace the password; every other log-in of the account ends."""
    if not password_matches(account, current):
        raise AccountError([Problem("current", _("This is not your current password."))])
    check_password(new, "new")
    _cancel_resets(account)
    _set_password(account, new)
    end_other_sessions(account, keep=account.session_token)


def set_language(account: Account, language: str | None) -> None:
    """Save the account's language (None: follow the browser)."""
    account.language = language or None
    db.session.commit()


def _set_password(account: Account, password: str) -> None:
    account.password_hash = HASHER.hash(password)
    account.password_changed_at = utcnow()
    db.session.commit()


def make_reset_link(account: Account, made_by: Account | None) -> str:
    """A one-time token to set a new password, for 24 hours: a club owner hands it over
    (``made_by``), or the person who runs the server makes it (``scorekeeper reset-link``)."""
    token = secrets.token_urlsafe(32)
    db.session.add(
        PasswordReset(
            token_hash=token_hash(token),
            account_id=account.id,
            created_by=made_by.id if made_by is not None else None,
            expires_at=utcnow() + timedelta(hours=RESET_HOURS),
        )
    )
    db.session.commit()
    return token


def reset_of(token: str) -> PasswordReset | None:
    """The unused, unexpired reset of this token, or None."""
    if not token or len(token) > 128:
        return None
    row = db.session.scalar(
        select(PasswordReset).where(PasswordReset.token_hash == token_hash(token))
    )
    if row is None or row.used_at is not None or _aware(row.expires_at) <= utcnow():
        return None
    return row


def use_reset(reset: PasswordReset, password: str) -> Account:
    """Set the new password; the link is used up and every log-in of the account ends."""
    check_password(password, "new")
    reset.used_at = utcnow()
    account = reset.account
    _cancel_resets(account, but=reset)
    _set_password(account, password)
    end_other_sessions(account)
    return account


def _cancel_resets(account: Account, but: PasswordReset | None = None) -> None:
    """The account's other reset links stop working: its password was just chosen (a link
    handed over earlier, or made before the account left a club, opened it afterwards)."""
    query = delete(PasswordReset).where(PasswordReset.account_id == account.id)
    if but is not None:
        query = query.where(PasswordReset.id != but.id)
    db.session.execute(query)


def _aware(moment: datetime) -> datetime:
    """SQLite gives naive datetimes back; they were stored in UTC."""
    from datetime import UTC

    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
