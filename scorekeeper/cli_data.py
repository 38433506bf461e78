"""``scorekeeper backup``, ``export`` and ``import``: the club's history kept safe.

Only argument parsing and printing live here; the work is in ``services.backup``,
``services.data_export`` and ``services.data_import``. A refusal (an existing file, a
database that is not empty, a file that is not an export) ends the command with its
one-line message and exit status 1, like every failure of a ``scorekeeper`` command
(``cli_errors``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli_i18n import _, decimal, ngettext, say

Handler = Callable[[argparse.Namespace], int]

#: The tables named in a summary, in the order a person thinks of them, and their words
#: (``num`` of them, in the environment's language).
SUMMARY: dict[str, Callable[[int], str]] = {
    "clubs": lambda num: ngettext("%(num)d club", "%(num)d clubs", num),
    "players": lambda num: ngettext("%(num)d player", "%(num)d players", num),
    "seasons": lambda num: ngettext("%(num)d season", "%(num)d seasons", num),
    "saved_rule_sets": lambda num: ngettext(
        "%(num)d saved rule set", "%(num)d saved rule sets", num
    ),
    "matches": lambda num: ngettext("%(num)d match", "%(num)d matches", num),
    "deals": lambda num: ngettext("%(num)d deal", "%(num)d deals", num),
    "side_results": lambda num: ngettext("%(num)d side result", "%(num)d side results", num),
    "standing_lines": lambda num: ngettext("%(num)d standing line", "%(num)d standing lines", num),
    "rating_points": lambda num: ngettext("%(num)d rating point", "%(num)d rating points", num),
}

#: What ``services.backup`` says of a copy it made, in the environment's language.
NOTES: dict[str, Callable[[], str]] = {
    "integrity check ok": lambda: _("integrity check ok"),
    "pg_dump custom format: restore it with pg_restore": lambda: _(
        "pg_dump custom format: restore it with pg_restore"
    ),
}


def add_commands(commands: Any) -> None:
    """Register the subcommands on the ``scorekeeper`` parser's subparsers."""
    from .cli_help import fill, formatter

    examples = " " + _("examples:")
    replace = _("replace the file if it exists")
    backup = commands.add_parser(
        "backup",
        help=_("copy the database to a file, safely while the server runs"),
        description=fill(
            _(
                "Copy the database (DATABASE_URL) to a file, safely while the server runs."
                " SQLite: a consistent copy made with SQLite's online backup API (what is"
                " still in the -wal file included), checked before it is kept. PostgreSQL:"
                " runs pg_dump (custom format) when it is installed, else prints the command"
                " to run."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper backup backups/club-2026-03-05.sqlite3\n"
            "  DATABASE_URL=postgresql://scorekeeper@localhost/scorekeeper"
            " scorekeeper backup club.dump",
            _(
                "To restore: stop the server, delete the database's -wal and -shm files if"
                " they are there and copy the SQLite backup over the database file; or load a"
                " PostgreSQL dump into a new database with pg_restore (README: Backup, export"
                " and restore)."
            ),
        ),
        formatter_class=formatter,
    )
    backup.add_argument("path", type=Path, help=_("the file to write"))
    backup.add_argument("--force", action="store_true", help=replace)
    backup.set_defaults(handler=run_backup)

    export = commands.add_parser(
        "export",
        help=_("write every club, player, match and deal to a JSON file"),
        description=fill(
            _(
                "Write a versioned JSON file of everything typed in: clubs, players, seasons,"
                " saved rule sets, matches, their deals and history (totals, standings and"
                " ratings are left out and rebuilt on import). The same data always gives"
                " the same file."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper export club.json\n  scorekeeper export --force club.json"
        ),
        formatter_class=formatter,
    )
    export.add_argument("path", type=Path, help=_("the JSON file to write"))
    export.add_argument("--force", action="store_true", help=replace)
    export.set_defaults(handler=run_export)

    load = commands.add_parser(
        "import",
        help=_("load an export into an empty database and rebuild standings"),
        description=fill(
            _(
                "Load a file written by 'scorekeeper export' into an empty database"
                " (DATABASE_URL), creating its tables if needed, and rebuild every total,"
                " standing and rating from the deals, in one transaction. A database that"
                " holds anything is refused and left as it was."
            )
        ),
        epilog=fill(
            examples + "\n  DATABASE_URL=sqlite:////srv/scorekeeper/new.sqlite3"
            " scorekeeper import club.json\n"
            "  DATABASE_URL=postgresql://scorekeeper@localhost/scorekeeper"
            " scorekeeper import club.json"
        ),
        formatter_class=formatter,
    )
    load.add_argument("path", type=Path, help=_("the JSON file written by 'scorekeeper export'"))
    load.set_defaults(handler=run_import)


def refusals(handler: Handler) -> Handler:
    """Turn a refusal into a ``CommandError``: its message (in the environment's language)
    on stderr and exit status 1."""

    def run(args: argparse.Namespace) -> int:
        from .cli_errors import CommandError
        from .services.data_tables import Refused

        try:
            return handler(args)
        except Refused as refused:
            raise CommandError(say(refused.message)) from refused

    return run


@refusals
def run_backup(args: argparse.Namespace) -> int:
    """Back up the configured database to ``args.path``."""
    from .app import create_app
    from .services import backup

    app = create_app()
    written = backup.backup(app.config["SQLALCHEMY_DATABASE_URI"], args.path, force=args.force)
    note = NOTES[written.note]() if written.note in NOTES else written.note
    print(
        _(
            "Backed up the database to %(path)s (%(size)s; %(note)s).",
            path=written.path,
            size=_size(written.size),
            note=note,
        )
    )
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
    print(
        _(
            "Exported %(counts)s to %(path)s (%(size)s).",
            counts=_counts(done.counts),
            path=done.path,
            size=_size(done.size),
        )
    )
    return 0


@refusals
def run_import(args: argparse.Namespace) -> int:
    """Import ``args.path`` into the configured (empty) database."""
    from .app import create_app
    from .cli_commands import migrate_database
    from .extensions import db
    from .services import data_import

    app = create_app()
    with app.app_context():
        tables = data_import.read(args.path)
        data_import.refuse_unless_empty(db.session)  # before migrating anything
        db.session.remove()
        migrate_database(app)
        done = data_import.load(tables, str(args.path))
        db.session.remove()
    print(
        _(
            "Imported %(counts)s from %(path)s; rebuilt %(rebuilt)s.",
            counts=_counts(done.counts),
            path=args.path,
            rebuilt=_counts(done.rebuilt),
        )
    )
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
            return _("The database has no scorekeeper tables yet: there is nothing to export.")
        revision = schema_revision(connection)
    heads = ScriptDirectory(current_app.extensions["migrate"].directory).get_heads()
    if revision is not None and revision not in heads:
        return _(
            "The database is at migration %(revision)s, this scorekeeper expects"
            " %(heads)s: run 'scorekeeper migrate' (or 'scorekeeper serve' once, which"
            " migrates too), then export again.",
            revision=revision,
            heads=", ".join(heads),
        )
    return None


def _counts(counts: dict[str, int]) -> str:
    """``{"clubs": 1, "matches": 6}`` -> ``"1 club, 6 matches"`` (in ``SUMMARY`` order)."""
    return ", ".join(words(counts[name]) for name, words in SUMMARY.items() if name in counts)


def _size(size: int) -> str:
    if size < 1000:
        return ngettext("%(num)d byte", "%(num)d bytes", size)
    if size < 1_000_000:
        return _("%(size)s kB", size=decimal(size / 1000))
    return _("%(size)s MB", size=decimal(size / 1_000_000))
