"""The ``scorekeeper`` command: serve the app, migrate its database, make a demo club,
back the database up, export and import it (those three in ``cli_data``).

Each subcommand registers itself with ``set_defaults(handler=...)`` and runs through
``cli_errors.guarded``, so a failure it meets is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from . import cli_data
from .cli_commands import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEMO_NAME,
    announce,
    club_owner,
    demo_report,
    migrate,
    migrate_database,
    migrated_app,
    release_username,
    reset_link,
    seed_demo,
    serve,
    update_ratings,
)
from .cli_errors import guarded
from .cli_help import fill, formatter
from .cli_i18n import _
from .keeper import (
    DEFAULT_MOST_WORKERS,
    MOST_WORKERS,
    THREADS,
    THREADS_OF_SEVERAL,
    default_workers,
)

#: The examples in ``scorekeeper --help``: the command line and what it does.
EXAMPLES = (
    ("scorekeeper serve", "serve to the phones on this network, port 8000"),
    ("scorekeeper serve --host 127.0.0.1", "serve to this computer only"),
    ("scorekeeper seed-demo", "make a demo club with a season of matches"),
    ("DATABASE_URL=postgresql://user@host/db scorekeeper migrate", ""),
    ("scorekeeper backup backups/club-2026-03-05.sqlite3", ""),
    ("scorekeeper export club.json", "every club, player, match and deal as JSON"),
)


def _description() -> str:
    return fill(
        _("Scorekeeper for Hand and Foot: keeps the score on the phones around the table."),
        _(
            "Settings come from the environment (DATABASE_URL, SCOREKEEPER_SECRET_KEY, any"
            " SCOREKEEPER_<NAME>) or instance/config.py; without them the database is a"
            " SQLite file in instance/."
        ),
    )


def _epilog() -> str:
    said = {
        "serve to the phones on this network, port 8000": _(
            "serve to the phones on this network, port 8000"
        ),
        "serve to this computer only": _("serve to this computer only"),
        "make a demo club with a season of matches": _("make a demo club with a season of matches"),
        "every club, player, match and deal as JSON": _(
            "every club, player, match and deal as JSON"
        ),
    }
    lines = [_("examples:")]
    for command, what in EXAMPLES:
        lines.append(f"  {command:<37}  {said[what]}".rstrip() if what else f"  {command}")
    return fill(
        " " + "\n".join(lines),
        _(
            "Run 'scorekeeper COMMAND --help' for a command's options. Running a club server"
            " for real (PostgreSQL, several processes, a proxy with TLS): docs/deploy.md."
        ),
    )


def _port(text: str) -> int:
    port = _whole(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            _("%(text)s is not a port: use 1 to 65535 (0: any free one)", text=text)
        )
    return port


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("%(text)s is not a whole number", text=repr(text))
        ) from None


def _within(low: int, high: int) -> Any:
    def check(text: str) -> int:
        number = _whole(text)
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(
                _("%(number)s is not from %(low)s to %(high)s", number=number, low=low, high=high)
            )
        return number

    return check


def _add_where(parser: argparse.ArgumentParser, what: str) -> None:
    """``--host`` (``what`` it is) and ``--port``; argparse fills in ``%(default)s``."""
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=_(
            "%(what)s (default %%(default)s: every network interface; 127.0.0.1: this"
            " computer only)",
            what=what,
        ),
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=_("its port (default %(default)s)")
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``serve``, ``migrate``, ``seed-demo``, ``backup``, ``export`` and
    ``import``, its help in the environment's language (``cli_i18n``)."""
    examples = " " + _("examples:")
    parser = argparse.ArgumentParser(
        prog="scorekeeper",
        description=_description(),
        epilog=_epilog(),
        formatter_class=formatter,
    )
    parser.add_argument(
        "--debug", action="store_true", help=_("show the full traceback when a command fails")
    )
    commands = parser.add_subparsers(
        title=_("commands"), dest="command", required=True, metavar="COMMAND"
    )
    run = commands.add_parser(
        "serve",
        help=_("apply the database migrations and serve the app"),
        description=fill(
            _(
                "Apply the database migrations, then serve the app with waitress (one"
                " process of several threads per core: --workers) and print the addresses to"
                " open, with a QR code. Should a server process ever crash, it is started"
                " again at once."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper serve\n  scorekeeper serve --host 127.0.0.1 --port 8080"
            "\n  scorekeeper serve --workers 2 --host 127.0.0.1 --port 8001",
            _(
                "Serving on every interface lets anyone on the network open the app and score"
                " a casual match whose link they have; a club's matches change only by its"
                " members' accounts. Several processes behind a proxy with TLS: docs/deploy.md."
            ),
        ),
        formatter_class=formatter,
    )
    _add_where(run, _("address to listen on"))
    run.add_argument(
        "--threads",
        type=_within(1, 256),
        default=None,
        help=_(
            "requests each server process serves at once (default %(one)s with one process,"
            " %(several)s with several)",
            one=THREADS,
            several=THREADS_OF_SEVERAL,
        ),
    )
    run.add_argument(
        "--workers",
        type=_within(1, MOST_WORKERS),
        default=default_workers(),
        help=_(
            "server processes, each serving --threads requests at once, 1 to %(most)s"
            " (default: one per core, at most %(cores)s; here %%(default)s)",
            most=MOST_WORKERS,
            cores=DEFAULT_MOST_WORKERS,
        ),
    )
    # the server process serve starts (and starts again after a crash): keeper.py
    run.add_argument("--listening-fd", type=int, default=None, help=argparse.SUPPRESS)
    run.add_argument("--balance-fd", type=int, default=None, help=argparse.SUPPRESS)
    run.add_argument("--slot", type=int, default=0, help=argparse.SUPPRESS)
    run.set_defaults(handler=serve)
    up = commands.add_parser(
        "migrate",
        help=_("apply the database migrations and exit"),
        description=fill(
            _(
                "Upgrade the database to the newest migration and exit ('serve' does this"
                " too), for server processes that start without migrating, such as"
                " gunicorn's."
            )
        ),
        epilog=fill(
            " " + _("example:") + "\n  DATABASE_URL=postgresql://scorekeeper@localhost/scorekeeper"
            " scorekeeper migrate",
            " "
            + _("to roll back the newest migration:")
            + "\n  flask --app scorekeeper.app db downgrade",
        ),
        formatter_class=formatter,
    )
    up.set_defaults(handler=migrate)
    demo = commands.add_parser(
        "seed-demo",
        help=_("make a demo club with a season of matches"),
        description=fill(
            _(
                "Make a demo club (eight players, a season of club nights, one table still"
                " playing today) and print the URLs to open it. Run again, it finds the club"
                " of that name and changes nothing."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper seed-demo\n  scorekeeper seed-demo --name 'Friday Club'"
            " --weeks 4\n  scorekeeper seed-demo --host 127.0.0.1 --port 8080",
            _(
                "--host and --port do not start anything: they say where 'scorekeeper serve'"
                " listens, so that the URLs printed are the ones it answers."
            ),
        ),
        formatter_class=formatter,
    )
    demo.add_argument("--name", default=DEMO_NAME, help=_("the club's name (default %(default)s)"))
    demo.add_argument(
        "--weeks",
        type=_within(1, 52),
        default=10,
        help=_("club nights to play, 1 to 52 (default %(default)s)"),
    )
    _add_where(demo, _("where 'scorekeeper serve' listens"))
    demo.set_defaults(handler=seed_demo)
    owner = commands.add_parser(
        "club-owner",
        help=_("make an account an owner of a club"),
        description=fill(
            _(
                "Give a club an owner: a club made before accounts existed has none, and only"
                " an owner can change its settings, roles and seasons. The account must have"
                " signed up in the app first."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper club-owner 'Tuesday Card Club' ana\n"
            "  scorekeeper club-owner -- -Xb3kQ2pLr9 ana",
            _("A public id may start with '-': put '--' before it."),
        ),
        formatter_class=formatter,
    )
    owner.add_argument("club", help=_("the club's public id (from its address) or exact name"))
    owner.add_argument("username", help=_("an account that has signed up"))
    owner.set_defaults(handler=club_owner)
    reset = commands.add_parser(
        "reset-link",
        help=_("make a one-time password reset link for an account"),
        description=fill(
            _(
                "For an account whose password is forgotten: a link, valid for 24 hours,"
                " that sets a new password once and logs in; every other log-in of the"
                " account then ends. A club's owner makes such links in the app for the"
                " club's own members; this makes one for any account, owners and members of"
                " several clubs included."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper reset-link ana\n  scorekeeper reset-link --port 8080 ana"
        ),
        formatter_class=formatter,
    )
    reset.add_argument("username", help=_("the account's username"))
    _add_where(reset, _("where 'scorekeeper serve' listens"))
    reset.set_defaults(handler=reset_link)
    release = commands.add_parser(
        "release-username",
        help=_("let a closed account's username be signed up with again"),
        description=fill(
            _(
                "A closed account's username is kept from sign-up, because the clubs' logs"
                " and match histories still name it. For the same person coming back, this"
                " frees it: whoever signs up with it next reads in those logs as its owner."
            )
        ),
        epilog=fill(examples + "\n  scorekeeper release-username ana"),
        formatter_class=formatter,
    )
    release.add_argument("username", help=_("the closed account's username"))
    release.set_defaults(handler=release_username)
    rate = commands.add_parser(
        "ratings",
        help=_("bring club ratings up to date and exit"),
        description=fill(
            _(
                "A change to an older match marks its club's ratings as updating; the server"
                " brings them up to date right after answering, or on the next view of the"
                " club. This does it now, for every club still marked, and says how many"
                " matches it rated again."
            )
        ),
        epilog=fill(
            examples + "\n  scorekeeper ratings\n"
            "  DATABASE_URL=postgresql://scorekeeper@localhost/scorekeeper scorekeeper ratings"
        ),
        formatter_class=formatter,
    )
    rate.set_defaults(handler=update_ratings)
    cli_data.add_commands(commands)  # backup, export, import
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekeeper`` command; its exit status."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help(sys.stderr)  # a bare 'scorekeeper' shows what it can do
        raise SystemExit(2)
    args = parser.parse_args(argv)
    return guarded(args.handler, args, debug=args.debug)


# for the commands added elsewhere and for the flask commands: one place to import from
__all__ = ["announce", "build_parser", "demo_report", "main", "migrate_database", "migrated_app"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
