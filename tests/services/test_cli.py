"""The ``scorekeeper`` command: what it prints for the phones, its help, and the demo club."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from scorekeeper import cli, network


@pytest.fixture
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty SQLite database for the command to migrate, as a fresh install has."""
    path = tmp_path / "scorekeeper.sqlite3"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    return path


def test_the_announcement_names_every_local_address_and_this_computer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(network, "local_addresses", lambda: ["192.0.2.7"])
    out = io.StringIO()
    urls = cli.announce("0.0.0.0", 8123, out)
    text = out.getvalue()
    assert urls == ["http://192.0.2.7:8123/"]
    assert "http://192.0.2.7:8123/" in text
    assert "http://127.0.0.1:8123/" in text
    assert "Ctrl+C" in text
    assert "\u2588" in text or "\u2580" in text  # the QR code drawn with block characters


def test_serving_every_interface_warns_that_the_network_can_change_anything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(network, "local_addresses", lambda: ["192.0.2.7"])
    out = io.StringIO()
    cli.announce("0.0.0.0", 8000, out)
    assert "Anyone on this network can open it" in out.getvalue()
    assert "--host 127.0.0.1 keeps it to this computer" in out.getvalue()


def test_a_machine_without_a_network_address_still_gets_a_local_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(network, "local_addresses", lambda: [])
    assert cli.announce("0.0.0.0", 8000, io.StringIO()) == ["http://127.0.0.1:8000/"]


def test_serving_this_computer_only_offers_no_phone_address_nor_qr_code() -> None:
    out = io.StringIO()
    assert cli.announce("127.0.0.1", 9000, out) == ["http://127.0.0.1:9000/"]
    text = out.getvalue()
    assert "on this computer only: http://127.0.0.1:9000/" in text
    assert "Wi-Fi" not in text and "Anyone on this network" not in text
    assert "\u2588" not in text and "\u2580" not in text


def test_a_named_address_is_announced_as_it_is() -> None:
    assert cli.announce("192.0.2.4", 9000, io.StringIO()) == ["http://192.0.2.4:9000/"]


def test_an_ipv6_address_is_written_in_brackets() -> None:
    assert network.url("2001:db8::5", 8000, "/c/x") == "http://[2001:db8::5]:8000/c/x"


def test_local_addresses_leave_out_loopback() -> None:
    assert all(not a.startswith("127.") for a in network.local_addresses())


def test_a_host_whose_name_means_loopback_falls_back_to_hostname_i(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        network.socket, "getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("127.0.1.1", 0))]
    )

    class Done:
        returncode = 0
        stdout = "192.0.2.9 fd00::9 192.0.2.9\n"

    monkeypatch.setattr(network.subprocess, "run", lambda *a, **k: Done())
    assert network.local_addresses() == ["192.0.2.9"]


def test_without_a_network_address_the_announcement_says_how_to_find_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(network, "local_addresses", lambda: [])
    out = io.StringIO()
    cli.announce("0.0.0.0", 8000, out)
    assert "network address was not found" in out.getvalue()
    assert "Open it on a phone" not in out.getvalue()


def test_the_command_requires_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([])
    assert "serve" in capsys.readouterr().err


def test_the_help_names_every_command_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for command in ("serve", "migrate", "seed-demo", "ratings", "backup", "export", "import"):
        assert f"    {command}" in text
    assert "examples:" in text and "docs/deploy.md" in text


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("serve", "--host 127.0.0.1 --port 8080"),
        ("migrate", "flask --app scorekeeper.app db downgrade"),
        ("seed-demo", "--name 'Friday Club'"),
        ("ratings", "scorekeeper ratings"),
        ("backup", "scorekeeper backup backups/club-2026-03-05.sqlite3"),
        ("export", "scorekeeper export club.json"),
        ("import", "scorekeeper import club.json"),
    ],
)
def test_each_command_explains_itself_with_an_example(
    capsys: pytest.CaptureFixture[str], command: str, says: str
) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main([command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "example" in text and says in text
    assert text.count("(default") >= (2 if command in ("serve", "seed-demo") else 0)


def test_seed_demo_migrates_an_empty_instance_and_prints_full_urls(
    instance: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(network, "local_addresses", lambda: ["192.0.2.7"])
    assert cli.main(["seed-demo", "--name", "Demo night", "--weeks", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Created the demo club Demo night")
    assert lines[2].startswith("  http://192.0.2.7:8000/c/")
    assert lines[3].startswith("  http://127.0.0.1:8000/c/")
    assert lines[2].split("/c/")[1] == lines[3].split("/c/")[1].split()[0]


def test_seed_demo_prints_the_urls_of_the_server_it_is_told_of(
    instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["seed-demo", "--weeks", "1", "--host", "127.0.0.1", "--port", "8080"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "  http://127.0.0.1:8080/c/" in out
    assert ":8000/" not in out


def test_seed_demo_twice_leaves_one_demo_club_and_says_where_it_is(
    instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqlalchemy import create_engine, text

    assert cli.main(["seed-demo", "--weeks", "1", "--host", "127.0.0.1"]) == 0
    first = capsys.readouterr().out
    assert cli.main(["seed-demo", "--weeks", "1", "--host", "127.0.0.1"]) == 0
    second = capsys.readouterr().out
    assert second.startswith("The demo club Tuesday Card Club already exists")
    assert "--name makes another" in second
    assert first.splitlines()[-1] == second.splitlines()[-1]  # the same club's URL
    engine = create_engine(f"sqlite:///{instance}")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM clubs")).scalar() == 1
        matches = connection.execute(text("SELECT count(*) FROM matches")).scalar()
    assert cli.main(["seed-demo", "--weeks", "1", "--name", "Friday Club"]) == 0
    assert capsys.readouterr().out.startswith("Created the demo club Friday Club")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM clubs")).scalar() == 2
        assert connection.execute(text("SELECT count(*) FROM matches")).scalar() == 2 * matches
    engine.dispose()


def test_seed_demo_refuses_a_season_longer_than_a_year(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["seed-demo", "--weeks", "53"])
    assert done.value.code == 2
    assert "--weeks: 53 is not from 1 to 52" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["65536", "-1", "eighty"])
def test_serve_refuses_a_port_that_is_not_one(
    capsys: pytest.CaptureFixture[str], port: str
) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["serve", "--port", port])
    assert done.value.code == 2
    assert "argument --port" in capsys.readouterr().err


def test_migrate_says_which_migration_the_database_is_at(
    instance: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["migrate"]) == 0
    head = list((Path(cli.__file__).parent.parent / "migrations" / "versions").glob("*.py"))
    first = capsys.readouterr()
    out = first.out
    # a new database: one line says what was applied, instead of a log line a migration
    assert len(first.err.splitlines()) == 1
    assert first.err.rstrip().endswith(f": {len(head)} migrations applied.")
    assert "Running upgrade" not in first.err
    # and the app's own loggers still log (Alembic's logging set-up disabled them)
    assert not logging.getLogger("scorekeeper.web.background").disabled
    assert not logging.getLogger("scorekeeper.services.data_import").disabled
    assert out.startswith("The database is up to date (migration ")
    assert any(out.split("migration ")[1].startswith(p.name.split("_")[0]) for p in head)
    assert cli.main(["migrate"]) == 0  # a second run has nothing to do and says the same
    again = capsys.readouterr()
    assert again.out == out
    assert "alembic" not in again.err  # nor the log lines of a migration


def test_ratings_brings_every_club_marked_as_updating_up_to_date(
    instance: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server stopped before it caught a club's ratings up: the command finishes."""
    from scorekeeper.cli_commands import migrated_app
    from scorekeeper.extensions import db
    from scorekeeper.services import clubs, matches, ratings
    from scorekeeper.services.demo import four_deals, play

    assert cli.main(["ratings"]) == 0
    assert capsys.readouterr().out == "Every club's ratings are up to date.\n"
    monkeypatch.setattr(ratings, "IN_REQUEST", 0)
    with migrated_app().app_context():
        club = clubs.create_club("Tuesday")
        first = play(club, [("Ann",), ("Bob",)], four_deals(500, 300))
        play(club, [("Ann",), ("Bob",)], four_deals(100, 300))
        matches.remove_last_deal(matches.reopen(matches.load_match(first.row.public_id)), 4)
        assert ratings.stale_clubs() == [club.id]
        db.session.remove()
    assert cli.main(["ratings"]) == 0
    assert capsys.readouterr().out == "Ratings brought up to date: 1 match rated again.\n"
    with migrated_app().app_context():
        assert ratings.stale_clubs() == []


@pytest.mark.parametrize("workers", ["0", "65", "two"])
def test_serve_refuses_a_number_of_processes_that_is_not_one(
    capsys: pytest.CaptureFixture[str], workers: str
) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["serve", "--workers", workers])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "argument --workers: " in err and "Traceback" not in err
    assert "is not from 1 to 64" in err or "is not a whole number" in err
