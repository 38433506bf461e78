"""``flask`` commands of the app (``flask --app scorekeeper.app db upgrade`` and friends)."""

from __future__ import annotations

import click
from flask import Flask


def register(app: Flask) -> None:
    """Install the commands (Flask-Migrate adds ``flask db``)."""

    @app.cli.command("seed-demo")
    @click.option("--name", default="Tuesday Card Club", help="Name of the demo club.")
    @click.option("--weeks", default=10, type=click.IntRange(1, 52), help="Club nights to play.")
    def seed_demo(name: str, weeks: int) -> None:
        """Create a demo club with a season of realistic matches (standings, charts)."""
        from .services import demo

        club = demo.seed(name, weeks)
        click.echo(f"Created {club.name}: open /c/{club.public_id}")

    @app.cli.command("club-owner")
    @click.argument("club")
    @click.argument("username")
    def club_owner(club: str, username: str) -> None:
        """Make USERNAME an owner of CLUB (its public id or exact name)."""
        from .services import memberships

        try:
            click.echo(memberships.assign_owner(club, username))
        except LookupError as error:
            raise click.ClickException(str(error)) from None
