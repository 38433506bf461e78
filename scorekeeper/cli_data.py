"""``scorekeeper backup``, ``export`` and ``import``: the club's history kept safe.

Only argument parsing and printing live here; the work is in ``services.backup``,
``services.data_export`` and ``services.data_import``. A refusal (an existing file, a
database that is not empty, a file that is not an export) ends the command with its
one-line message and exit status 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[argparse.Namespace], int]

#: The tables named in a summary, in the order a person thinks of them, and their words.
SUMMARY = {
    "clubs": ("club", "clubs"),
    "players": ("player", "players"),
    "seasons": ("season", "seasons"),
    "saved_rule_sets": ("saved rule set", "saved rule sets"),
    "matches": ("match", "matches"),
    "deals": ("deal", "deals"),
    "side_results": ("side result", "side results"),
    "standing_lines": ("standing line", "standing lines"),
    "rating_points": ("rating point", "rating points"),
}


def add_commands(commands: Any) -> None:
    """Register the subcommands on the ``scorekeeper`` parser's subparsers."""
    backup = commands.add_parser(
        "backup",
        help="copy the database to a file, safely while the server runs",
        description="SQLite: a consistent copy made with SQLite's online backup API (what"
        " is still in the -wal file included), checked before it is kept. PostgreSQL: runs"
        " pg_dump (custom format) when it is installed, else prints the command to run.",
    )
    backup.add_argument("path", type=Path, help="the file to write")
    backup.add_argument("--force", action="store_true", help="replace the file if it exists")
    backup.set_defaults(handler=run_backup)

    export = commands.add_parser(
        "export",
        help="write every club, player, match and deal to a JSON file",
        description="A versioned JSON file of the source data (totals, standings and"
        " ratings are rebuilt on import); the same database always gives the same file.",
    )
    export.add_argument("path", type=Path, help="the JSON file to write")
    export.add_argument("--force", action="store_true", help="replace the file if it exists")
    export.set_defaults(handler=run_export)

    load = commands.add_parser(
        "import",
        help="load an export into an empty database and rebuild standings",
        description="Loads a file written by 'scorekeeper export' into an empty database"
        " (DATABASE_URL), creating its tables if needed, and rebuilds every total,"
        " standing and rating from the deals, in one transaction.",
    )
    load.add_argument("path", type=Path, help="the JSON file written by scorekeeper export")
    load.set_defaults(handler=run_import)


def refusals(handler: Handler) -> Handler:
    """Turn a refusal into its message on stderr and exit status 1."""

    def run(args: argparse.Namespace) -> int:
        from .services.data_tables import Refused

        try:
            return handler(args)
        except Refused as refused:
            raise SystemExit(f"scorekeeper {args.command}: {refused}") from None

    return run


@refusals
def run_backup(args: argparse.Namespace) -> int:
    """Back up the configured database to ``args.path``."""
    from .app import create_app
    from .services import backup

    app = create_app()
    written = backup.backup(app.config["SQLALCHEMY_DATABASE_URI"], args.path, force=args.force)
    print(f"Backed up the database to {written.path} ({_size(written.size)}; {written.note}).")
    return 0


@refusals
def run_export(args: argparse.Namespace) -> int:
    """Export the configured database to ``args.path``."""
    from .app import create_app
    from .extensions import db
    from .services import data_export
    from .services.data_tables import Refused

    app = create_app()
    with app.app_context():
        problem = schema_problem()
        if problem:
            raise Refused(problem)
        done = data_export.write(args.path, force=args.force)
        db.session.remove()
    print(f"Exported {_counts(done.counts)} to {done.path} ({_size(done.size)}).")
    return 0


@refusals
def run_import(args: argparse.Namespace) -> int:
    """Import ``args.path`` into the configured (empty) database."""
    from flask_migrate import upgrade

    from .app import create_app
    from .extensions import db
    from .services import data_import

    app = create_app()
    with app.app_context():
        tables = data_import.read(args.path)
        data_import.refuse_unless_empty(db.session)  # before migrating anything
        db.session.remove()
        upgrade()
        done = data_import.load(tables, str(args.path))
        db.session.remove()
    print(f"Imported {_counts(done.counts)} from {args.path}; rebuilt {_counts(done.rebuilt)}.")
    return 0


def schema_problem() -> str | None:
    """Why the database cannot be exported as it is (no tables, an older schema), if so."""
    from alembic.script import ScriptDirectory
    from flask import current_app
    from sqlalchemy import inspect

    from .extensions import db
    from .services.data_export import schema_revision

    with db.engine.connect() as connection:
        if not inspect(connection).has_table("matches"):
            return "The database has no scorekeeper tables yet: there is nothing to export."
        revision = schema_revision(connection)
    heads = ScriptDirectory(current_app.extensions["migrate"].directory).get_heads()
    if revision is not None and revision not in heads:
        return (
            f"The database is at migration {revision}, this scorekeeper expects"
            f" {', '.join(heads)}: run 'scorekeeper serve' once (it upgrades the database),"
            " then export again."
        )
    return None


def _counts(counts: dict[str, int]) -> str:
    """``{"clubs": 1, "matches": 6}`` -> ``"1 club, 6 matches"`` (in ``SUMMARY`` order)."""
    return ", ".join(
        f"{counts[name]} {words[counts[name] != 1]}"
        for name, words in SUMMARY.items()
        if name in counts
    )


def _size(size: int) -> str:
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"
