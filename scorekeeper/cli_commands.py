"""What the ``scorekeeper`` subcommands do: serve, migrate, make the demo club.

``cli.py`` reads the command line and runs these through ``cli_errors.guarded``; a failure
they understand is raised as ``CommandError``, told in one line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from . import network
from .cli_errors import CommandError, database_error, port_error, safe_url

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 8000
DEMO_NAME = "Tuesday Card Club"


def announce(host: str, port: int, out: TextIO | None = None) -> list[str]:
    """Print where the server answers (and a QR code of it); return the URLs printed."""
    stream = out or sys.stdout
    here = network.this_computer_url(host, port)
    if network.is_loopback(host):
        print(f"Scorekeeper is running on this computer only: {here}", file=stream)
        print("Press Ctrl+C to stop.", file=stream, flush=True)
        return [here]
    urls = network.network_urls(host, port)
    if urls:
        print("Scorekeeper is running. Open it on a phone on the same Wi-Fi:", file=stream)
    else:
        print(
            "Scorekeeper is running. This computer's network address was not found:"
            f" look it up in its network settings and open http://<address>:{port}/"
            " on the phones.",
            file=stream,
        )
    for url in urls:
        print(f"  {url}", file=stream)
    print(f"  (on this computer: {here})", file=stream)
    if urls:
        _print_qr(urls[0], stream)
    print(
        "Anyone on this network can open it and, until accounts exist, change anything in"
        " it; --host 127.0.0.1 keeps it to this computer.",
        file=stream,
    )
    print("Press Ctrl+C to stop.", file=stream, flush=True)
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
    newest migration is left alone, without Alembic's log lines."""
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
                f"the database {where} cannot be reached: {database_error(exc)}"
            ) from exc
        config = app.extensions["migrate"].migrate.get_config()
        heads = ScriptDirectory.from_config(config).get_heads()
        try:
            with migration_lock(db.engine):  # servers starting at once take turns
                if _revisions(db.engine) != set(heads):
                    command.upgrade(config, "head")
        except AlembicError as exc:
            hint = ""
            if "Can't locate revision" in str(exc):
                hint = " (it was migrated by another version of scorekeeper)"
            raise CommandError(f"the database {where} cannot be migrated{hint}: {exc}") from exc
        except Exception as exc:
            raise CommandError(
                f"a migration of the database {where} failed: {database_error(exc)}"
            ) from exc
        return ", ".join(sorted(_revisions(db.engine)))


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


def serve(args: argparse.Namespace) -> None:
    """Listen, apply migrations, announce the addresses, then serve with waitress."""
    from waitress import create_server

    from .app import create_app

    app = create_app()
    try:
        server = create_server(
            app, host=args.host, port=args.port, threads=args.threads, ident="scorekeeper"
        )
    except OSError as exc:
        raise port_error(exc, args.host, args.port) from exc
    try:
        migrate_database(app)
        announce(args.host, getattr(server, "effective_port", args.port))
        server.run()
    finally:
        server.close()


def migrate(args: argparse.Namespace) -> None:
    """Apply the migrations and say which one the database is at."""
    from .app import create_app

    revision = migrate_database(create_app())
    print(f"The database is up to date (migration {revision}).")


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
        lines = [f"Created the demo club {club.name}: eight players and a season of matches."]
    else:
        lines = [
            f"The demo club {club.name} already exists; nothing was changed (--name makes another)."
        ]
    lines.append("Open it where the server answers (start it with 'scorekeeper serve'):")
    urls = [base.rstrip("/") + path] if base else []
    urls += network.network_urls(host, port, path)
    lines += [f"  {url}" for url in urls]
    lines.append(f"  {network.this_computer_url(host, port, path)} (on this computer)")
    return lines


def club_owner(args: argparse.Namespace) -> None:
    """Give a club (one made before accounts, say) an owner; see README "Clubs"."""
    from .services import memberships

    app = migrated_app()
    with app.app_context():
        try:
            print(memberships.assign_owner(args.club, args.username))
        except LookupError as error:
            raise CommandError(str(error)) from None
