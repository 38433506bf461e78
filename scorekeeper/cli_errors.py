"""One clear line on stderr for a command that fails, never a traceback.

Every subcommand of ``scorekeeper`` runs through :func:`guarded`: a command raises
:class:`CommandError` for a failure it understands (the port is taken, the database is at
an unknown migration), and the failures any command may meet (a bad ``DATABASE_URL``, a
database that cannot be reached, a secret key file or a setting that cannot be used) are
told by :func:`explain`. ``--debug`` shows the
traceback instead, for a bug report.
"""

from __future__ import annotations

import errno
import re
import socket
import sys
from collections.abc import Callable
from typing import Any, TextIO

from .cli_i18n import _, say

#: Exit status of a command that failed (argparse uses 2 for a mistyped command line).
FAILED = 1
#: Exit status after Ctrl+C, as a shell reports it.
INTERRUPTED = 130


class CommandError(Exception):
    """A failure the user can act on, told in one line."""


def one_line(text: object, limit: int = 300) -> str:
    """``text`` on one line, whitespace collapsed, cut at ``limit`` characters."""
    flat = re.sub(r"\s+", " ", str(text)).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def database_error(exc: BaseException) -> str:
    """What the database driver said, without SQLAlchemy's SQL echo and links."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc)
    text = re.split(r"\n?\[SQL:|\n?\(Background on this error", text)[0]
    return one_line(text)


def safe_url(uri: str) -> str:
    """A database URL with its password hidden."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(uri).render_as_string(hide_password=True)
    except Exception:  # not a URL at all: show it as typed, minus anything after '@'
        return re.sub(r"//[^@/]*@", "//***@", uri)


def port_error(exc: OSError, host: str, port: int) -> CommandError:
    """Why a server could not listen on ``host:port``."""
    if exc.errno == errno.EADDRINUSE:
        return CommandError(
            _(
                "port %(port)s is already in use on %(host)s: stop the program that uses it,"
                " or choose another port with --port",
                port=port,
                host=host or _("every interface"),
            )
        )
    if exc.errno == errno.EACCES:
        return CommandError(
            _(
                "not allowed to listen on port %(port)s: ports below 1024 need administrator"
                " rights; choose a port from 1024 up with --port",
                port=port,
            )
        )
    if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(exc, socket.gaierror):
        return CommandError(
            _(
                "cannot listen on %(host)s: it is not an address of this computer"
                " (use 0.0.0.0 for every interface or 127.0.0.1 for this computer only)",
                host=host,
            )
        )
    return CommandError(
        _(
            "cannot listen on %(host)s:%(port)s: %(why)s",
            host=host,
            port=port,
            why=one_line(exc),
        )
    )


def explain(exc: BaseException) -> str | None:
    """One line for a failure any command may meet; None when it is not one of them."""
    from sqlalchemy import exc as sa

    from .config import SettingsError
    from .secret_key import SecretKeyError

    if isinstance(exc, SecretKeyError | SettingsError):  # their message says what to do
        return one_line(say(exc.args[0]) if exc.args else exc)
    if isinstance(exc, sa.ArgumentError):
        return _(
            "DATABASE_URL is not a database URL scorekeeper can use (%(why)s); e.g."
            " postgresql://user@host/db or sqlite:////path/file",
            why=one_line(exc),
        )
    if isinstance(exc, ModuleNotFoundError):
        return _(
            "DATABASE_URL needs a database driver that is not installed (%(why)s);"
            " scorekeeper works with PostgreSQL (postgresql://...) and SQLite (sqlite:///...)",
            why=one_line(exc),
        )
    if isinstance(exc, sa.OperationalError | sa.InterfaceError):
        return _("the database cannot be reached: %(why)s", why=database_error(exc))
    if isinstance(exc, sa.SQLAlchemyError):
        return _("the database refused the command: %(why)s", why=database_error(exc))
    return None


def guarded(
    handler: Callable[[Any], object], args: Any, err: TextIO | None = None, debug: bool = False
) -> int:
    """Run a subcommand's ``handler(args)``; its exit status (the status it returns, else 0;
    1 after the one line saying why it failed)."""
    stream = err or sys.stderr
    try:
        status = handler(args)
    except KeyboardInterrupt:
        print(_("Stopped."), file=stream)
        return INTERRUPTED
    except CommandError as exc:
        if debug:
            raise
        print(_("scorekeeper: error: %(why)s", why=exc), file=stream)
        return FAILED
    except Exception as exc:
        if debug:
            raise
        message = explain(exc) or (
            _(
                "unexpected %(kind)s: %(why)s (run the command again with --debug to see where)",
                kind=type(exc).__name__,
                why=one_line(exc),
            )
        )
        print(_("scorekeeper: error: %(why)s", why=message), file=stream)
        return FAILED
    return status if isinstance(status, int) else 0
