"""The secret key kept in the instance folder: made once, never seen half-written.

Sessions and CSRF tokens are signed with it, so every process serving one installation
must read the same key, and nobody else may read it. The file is made complete and
private before it has its name: a temporary file opened with mode 0600 from the start
(``O_CREAT | O_EXCL``), written and flushed to disk, then linked to ``secret_key`` only if
no file has that name yet (``os.link`` never overwrites). Processes starting at once all
end up reading the one key linked first. The key read back is checked: an empty file
(left by an older version that wrote the file in place, or by a full disk) is replaced
under a lock, since no session can have been signed with an empty key; anything else
that is not a key is refused with a message saying what to do, never used.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

from .engine.errors import phrase

FILE_NAME = "secret_key"
MIN_LENGTH = 16
READ_ATTEMPTS = 20  # a key being written by a system without hard links: wait a little


class SecretKeyError(RuntimeError):
    """The secret key file cannot be used; the message says why and what to do."""


def instance_secret(instance: Path) -> str:
    """The installation's secret key, made on first start (see the module)."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / FILE_NAME
    for attempt in range(READ_ATTEMPTS):
        key = _read(path)
        if key:
            return key
        if key is None:  # no file yet
            _create(path)
            continue
        if attempt < READ_ATTEMPTS - 1:  # empty: perhaps being written right now
            time.sleep(0.05)
    return _repair_empty(path)


def _read(path: Path) -> str | None:
    """The key in the file ('' when the file is empty), or None when there is no file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SecretKeyError(
            phrase(
                "The secret key file %(path)s cannot be read: %(why)s.",
                path=str(path),
                why=str(error),
            )
        ) from error
    _make_private(path)
    try:
        key = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        key = None
    if key == "":
        return ""
    if key is None or len(key) < MIN_LENGTH or not key.isprintable() or " " in key:
        raise SecretKeyError(
            phrase(
                "The secret key file %(path)s does not hold a key (it should hold one line of"
                " at least %(length)s letters and digits). Move it away and start again to"
                " make a new key (everyone will have to reload their pages), or put the"
                " installation's key back in it.",
                path=str(path),
                length=MIN_LENGTH,
            )
        )
    return key


def _make_private(path: Path) -> None:
    """A key file readable by others (made by an older version) is made private."""
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)


def _create(path: Path) -> None:
    """Write a new key under a temporary name, then give it the key's name if free."""
    temporary = _write_private(path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}"))
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass  # another process made it first: its key is the key
    except OSError:
        # No hard links here (some file systems): create the name itself, exclusively.
        with contextlib.suppress(FileExistsError):
            _write_private(path)
    finally:
        temporary.unlink(missing_ok=True)


def _write_private(path: Path) -> Path:
    """A new file holding a fresh key, private from the moment it exists."""
    descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:  # a full disk: leave no empty key behind
        path.unlink(missing_ok=True)
        raise SecretKeyError(
            phrase(
                "The secret key file %(path)s cannot be written: %(why)s.",
                path=str(path),
                why=str(error),
            )
        ) from error
    return path


def _repair_empty(path: Path) -> str:
    """Replace an empty key file, one process at a time; others read the new key."""
    with _locked(path.with_name(f".{FILE_NAME}.lock")) as locked:
        if not locked:
            raise SecretKeyError(
                phrase(
                    "The secret key file %(path)s is empty. Delete it and start again: a new"
                    " key is made.",
                    path=str(path),
                )
            )
        key = _read(path)
        if key:
            return key  # another process repaired it while this one waited
        fresh = _write_private(path.with_name(f".{FILE_NAME}.{os.getpid()}.new"))
        os.replace(fresh, path)
    key = _read(path)
    if not key:
        raise SecretKeyError(
            phrase("The secret key file %(path)s stays empty; check the disk.", path=str(path))
        )
    return key


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[bool]:
    """An exclusive lock on ``path`` (False where the system has no ``fcntl``)."""
    try:
        import fcntl
    except ImportError:
        yield False
        return
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
