"""``flask seed-demo``: the same demo club and URLs as ``scorekeeper seed-demo``."""

from __future__ import annotations

from flask import Flask

from scorekeeper.extensions import db
from scorekeeper.models import Club


def test_flask_seed_demo_twice_leaves_one_demo_club_with_its_urls(app: Flask) -> None:
    runner = app.test_cli_runner()
    args = ["seed-demo", "--weeks", "1", "--host", "127.0.0.1", "--port", "8080"]
    first = runner.invoke(args=args)
    assert first.exit_code == 0, first.output
    second = runner.invoke(args=args)
    assert second.exit_code == 0, second.output
    with app.app_context():
        (club,) = db.session.query(Club).all()
        url = f"http://127.0.0.1:8080/c/{club.public_id}"
    assert first.output.startswith("Created the demo club Tuesday Card Club")
    assert second.output.startswith("The demo club Tuesday Card Club already exists")
    assert f"  {url} (on this computer)" in first.output
    assert f"  {url} (on this computer)" in second.output


def test_flask_seed_demo_puts_the_public_base_url_first_when_there_is_one(app: Flask) -> None:
    app.config["PUBLIC_BASE_URL"] = "https://cards.example.org/"
    result = app.test_cli_runner().invoke(args=["seed-demo", "--weeks", "1", "--name", "Fri"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[2].startswith("  https://cards.example.org/c/")


def test_flask_seed_demo_refuses_a_season_longer_than_a_year(app: Flask) -> None:
    result = app.test_cli_runner().invoke(args=["seed-demo", "--weeks", "53"])
    assert result.exit_code == 2
    with app.app_context():
        assert db.session.query(Club).count() == 0
