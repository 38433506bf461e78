"""``flask`` commands of the app (``flask --app scorekeeper.app db upgrade`` and friends)."""

from __future__ import annotations

import click
from flask import Flask, current_app


def register(app: Flask) -> None:
    """Install the commands (Flask-Migrate adds ``flask db``)."""
    from .cli_commands import DEFAULT_HOST, DEFAULT_PORT, DEMO_NAME

    @app.cli.command("seed-demo")
    @click.option("--name", default=DEMO_NAME, show_default=True, help="Name of the demo club.")
    @click.option(
        "--weeks", default=10, show_default=True, type=click.IntRange(1, 52), help="Club nights."
    )
    @click.option(
        "--host",
        default=DEFAULT_HOST,
        show_default=True,
        help="Where 'scorekeeper serve' listens, for the URLs printed.",
    )
    @click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535))
    def seed_demo(name: str, weeks: int, host: str, port: int) -> None:
        """Make a demo club with a season of matches, unless one of that name exists.

        Prints the URLs to open it. Apply the migrations first (flask db upgrade).
        """
        from .cli_commands import demo_report
        from .services import demo

        club, created = demo.seed_once(name, weeks)
        base = current_app.config.get("PUBLIC_BASE_URL")
        click.echo("\n".join(demo_report(club, created, host, port, base)))

    @app.cli.command("club-owner")
    @click.argument("club")
    @click.argument("username")
    def club_owner(club: str, username: str) -> None:
        """Make USERNAME an owner of CLUB (its public id or exact name)."""
        from .cli_i18n import say
        from .services import memberships

        try:
            click.echo(say(memberships.assign_owner(club, username)))
        except LookupError as error:
            raise click.ClickException(say(error.args[0])) from None
