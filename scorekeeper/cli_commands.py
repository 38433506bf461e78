"""What the ``scorekeeper`` subcommands do: serve, migrate, make the demo club.

``cli.py`` reads the command line and runs these through ``cli_errors.guarded``; a failure
they understand is raised as ``CommandError``, told in one line.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from . import network
from .cli_errors import CommandError, database_error, port_error, safe_url
from .cli_i18n import _, ngettext, say

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 8000
DEMO_NAME = "Tuesday Card Club"


def announce(host: str, port: int, out: TextIO | None = None) -> list[str]:
    """Print where the server answers (and a QR code of it); return the URLs printed."""
    stream = out or sys.stdout
    here = network.this_computer_url(host, port)
    if network.is_loopback(host):
        print(_("Scorekeeper is running on this computer only: %(url)s", url=here), file=stream)
        print(_("Press Ctrl+C to stop."), file=stream, flush=True)
        return [here]
    urls = network.network_urls(host, port)
    if urls:
        print(_("Scorekeeper is running. Open it on a phone on the same Wi-Fi:"), file=stream)
    else:
        print(
            _(
                "Scorekeeper is running. This computer's network address was not found:"
                " look it up in its network settings and open http://<address>:%(port)s/"
                " on the phones.",
                port=port,
            ),
            file=stream,
        )
    for url in urls:
        print(f"  {url}", file=stream)
    print("  " + _("(on this computer: %(url)s)", url=here), file=stream)
    if urls:
        _print_qr(urls[0], stream)
    print(
        _(
            "Anyone on this network can open it and score a casual match whose link they have"
            " (a club's matches change only by its accounts); --host 127.0.0.1 keeps it to"
            " this computer."
        ),
        file=stream,
    )
    print(_("Press Ctrl+C to stop."), file=stream, flush=True)
    return urls or [here]


def _print_qr(url: str, stream: TextIO) -> None:
    try:
        import segno

        segno.make(url, error="m").terminal(out=stream, compact=True)
    except Exception:  # a QR code is a convenience; the printed address is enough
        pass


def migrate_database(app: Any) -> str:
    """Upgrade the app's database to the newest migration; return that revision.

    One process at a time (``database.migration_lock``): servers starting at once wait for
    the first one's migration, then find nothing left to do. A database already at the
    newest migration is left alone. Alembic's log lines (one a migration, eighteen on a
    first run, before the address a newcomer looks for) are replaced by one line on
    stderr saying how many migrations were applied."""
    from alembic import command
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError as AlembicError

    from .database import migration_lock
    from .extensions import db

    with app.app_context():
        where = safe_url(str(app.config["SQLALCHEMY_DATABASE_URI"]))
        try:
            with db.engine.connect():
                pass
        except Exception as exc:
            raise CommandError(
                _(
                    "the database %(where)s cannot be reached: %(why)s",
                    where=where,
                    why=database_error(exc),
                )
            ) from exc
        config = app.extensions["migrate"].migrate.get_config()
        config.attributes["quiet"] = True  # migrations/env.py: no logging configured
        script = ScriptDirectory.from_config(config)
        heads = script.get_heads()
        try:
            with migration_lock(db.engine):  # servers starting at once take turns
                current = _revisions(db.engine)
                if current != set(heads):
                    pending = _pending(script, heads, current)
                    with _alembic_quiet():
                        command.upgrade(config, "head")  # says what is wrong with an unknown one
                    message = ngettext(
                        "The database %(where)s: %(num)d migration applied.",
                        "The database %(where)s: %(num)d migrations applied.",
                        pending,
                        where=where,
                    )
                    print(message, file=sys.stderr)
        except AlembicError as exc:
            if "Can't locate revision" in str(exc):
                message = _(
                    "the database %(where)s cannot be migrated (it was migrated by another"
                    " version of scorekeeper): %(why)s",
                    where=where,
                    why=exc,
                )
            else:
                message = _(
                    "the database %(where)s cannot be migrated: %(why)s", where=where, why=exc
                )
            raise CommandError(message) from exc
        except Exception as exc:
            raise CommandError(
                _(
                    "a migration of the database %(where)s failed: %(why)s",
                    where=where,
                    why=database_error(exc),
                )
            ) from exc
        return ", ".join(sorted(_revisions(db.engine)))


@contextmanager
def _alembic_quiet() -> Iterator[None]:
    """Alembic's INFO lines left out, whatever configured its logging before in this
    process (``flask db upgrade``'s set-up, in a process that ran it first)."""
    logger = logging.getLogger("alembic")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _pending(script: Any, heads: Sequence[str], current: set[str]) -> int:
    """How many migrations lead from ``current`` to ``heads`` (0 when ``current`` names
    one this version does not know: the upgrade itself refuses that, saying so)."""
    try:
        return len(list(script.iterate_revisions(heads, tuple(current) or "base")))
    except Exception:
        return 0


def _revisions(engine: Any) -> set[str]:
    """The migrations the database is at (none for a database never migrated)."""
    from sqlalchemy import inspect, text

    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return set()
        return {
            str(row[0])
            for row in connection.execute(text("SELECT version_num FROM alembic_version"))
        }


def migrated_app() -> Any:
    """The app, with its database upgraded to the newest migration."""
    from .app import create_app

    app = create_app()
    migrate_database(app)
    return app


def serve(args: argparse.Namespace) -> int:
    """Listen, apply migrations, announce the addresses, then serve with waitress in
    ``--workers`` child processes, each started again if it crashes (``keeper.py``)."""
    from . import keeper
    from .app import create_app

    if args.workers > 1 and not keeper.CAN_KEEP:
        raise CommandError(
            _(
                "--workers %(workers)s: several server processes need Linux, macOS or"
                " another POSIX system; on this one, serve with one (leave --workers out)",
                workers=args.workers,
            )
        )
    if args.threads is None:
        args.threads = keeper.default_threads(args.workers)
    app = create_app()
    if args.listening_fd is not None:  # the child: serve on the socket its parent opened
        balance = (args.balance_fd, args.slot) if args.balance_fd is not None else None
        keeper.serve_on_inherited(app, args.listening_fd, args.threads, balance)
        return 0
    try:
        sock = keeper.listen(args.host, args.port)
    except OSError as exc:
        raise port_error(exc, args.host, args.port) from exc
    try:
        migrate_database(app)
        announce(args.host, sock.getsockname()[1])
        with app.app_context():
            from .extensions import db

            db.engine.dispose()  # each child opens its own connections
        if not keeper.CAN_KEEP:  # no inherited sockets: serve here, unkept
            keeper.serve_on_inherited(app, sock.detach(), args.threads)
            return 0
        try:
            return keeper.keep_serving(sock, args.threads, workers=args.workers)
        except keeper.KeeperError as exc:
            raise CommandError(str(exc)) from exc
    finally:
        sock.close()


def migrate(args: argparse.Namespace) -> None:
    """Apply the migrations and say which one the database is at."""
    from .app import create_app

    revision = migrate_database(create_app())
    print(_("The database is up to date (migration %(revision)s).", revision=revision))


def seed_demo(args: argparse.Namespace) -> None:
    """Make the demo club unless it exists, and print where to open it."""
    from .services import demo

    app = migrated_app()
    with app.app_context():
        club, created = demo.seed_once(args.name, args.weeks)
        lines = demo_report(club, created, args.host, args.port, app.config.get("PUBLIC_BASE_URL"))
    print("\n".join(lines))


def demo_report(club: Any, created: bool, host: str, port: int, base: str | None) -> list[str]:
    """What ``seed-demo`` says: made now or found, and the URLs the server answers it on."""
    path = f"/c/{club.public_id}"
    if created:
        lines = [
            _(
                "Created the demo club %(name)s: eight players and a season of matches.",
                name=club.name,
            )
        ]
    else:
        lines = [
            _(
                "The demo club %(name)s already exists; nothing was changed (--name makes"
                " another).",
                name=club.name,
            )
        ]
    lines.append(_("Open it where the server answers (start it with 'scorekeeper serve'):"))
    return lines + _answered_at(path, host, port, base)


def _answered_at(path: str, host: str, port: int, base: str | None) -> list[str]:
    """The addresses the server answers ``path`` on, a line each: the public base URL
    when it is set, this computer's network addresses, then this computer itself."""
    urls = [base.rstrip("/") + path] if base else []
    urls += network.network_urls(host, port, path)
    lines = [f"  {url}" for url in urls]
    here = network.this_computer_url(host, port, path)
    return [*lines, "  " + _("%(url)s (on this computer)", url=here)]


def reset_link(args: argparse.Namespace) -> None:
    """A one-time link for any account to choose a new password (owners included): what
    the person who runs the server hands over when a club's owner may not."""
    from .engine.errors import phrase
    from .services import accounts

    app = migrated_app()
    with app.app_context():
        account = accounts.find(args.username)
        if account is None:
            raise CommandError(
                say(
                    phrase(
                        "No account is called %(username)s; sign up in the app first.",
                        username=repr(args.username),
                    )
                )
            )
        path = f"/reset/{accounts.make_reset_link(account, None)}"
        name = account.username
        base = app.config.get("PUBLIC_BASE_URL")
    lines = [
        _(
            "A one-time link for %(name)s to choose a new password, for 24 hours. It logs"
            " them in: hand it over in person, not where others can read it.",
            name=name,
        )
    ]
    print("\n".join(lines + _answered_at(path, args.host, args.port, base)))


def release_username(args: argparse.Namespace) -> None:
    """Let a closed account's username be signed up with again (README "Accounts")."""
    from .engine.errors import phrase
    from .services import accounts

    app = migrated_app()
    with app.app_context():
        if accounts.find(args.username) is not None:
            raise CommandError(
                say(
                    phrase(
                        "An account is called %(username)s: only a closed account's"
                        " username is kept from sign-up.",
                        username=repr(args.username),
                    )
                )
            )
        if not accounts.release_username(args.username):
            raise CommandError(
                say(
                    phrase(
                        "No closed account was called %(username)s: anyone may sign up with it.",
                        username=repr(args.username),
                    )
                )
            )
    print(
        _(
            "%(username)s may be signed up with again. The clubs' logs and match histories"
            " that name it will read as whoever signs up with it.",
            username=repr(args.username),
        )
    )


def club_owner(args: argparse.Namespace) -> None:
    """Give a club (one made before accounts, say) an owner; see README "Clubs"."""
    from .services import memberships

    app = migrated_app()
    with app.app_context():
        try:
            print(say(memberships.assign_owner(args.club, args.username)))
        except LookupError as error:
            raise CommandError(say(error.args[0])) from None


def update_ratings(args: argparse.Namespace) -> None:
    """Bring every club whose ratings are marked as updating up to date."""
    from .services import ratings

    app = migrated_app()
    with app.app_context():
        clubs = ratings.stale_clubs()
        rated = sum(ratings.catch_up(club_id) for club_id in clubs)
    if not clubs:
        print(_("Every club's ratings are up to date."))
        return
    print(
        ngettext(
            "Ratings brought up to date: %(num)s match rated again.",
            "Ratings brought up to date: %(num)s matches rated again.",
            rated,
        )
    )
