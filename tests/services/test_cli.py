"""The ``scorekeeper`` command: what it prints for the phones on the network."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scorekeeper import cli


def test_the_announcement_names_every_local_address_and_this_computer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "local_addresses", lambda: ["192.0.2.7"])
    out = io.StringIO()
    urls = cli.announce("0.0.0.0", 8123, out)
    text = out.getvalue()
    assert urls == ["http://192.0.2.7:8123/"]
    assert "http://192.0.2.7:8123/" in text
    assert "http://127.0.0.1:8123/" in text
    assert "Ctrl+C" in text
    assert "\u2588" in text or "\u2580" in text  # the QR code drawn with block characters


def test_a_machine_without_a_network_address_still_gets_a_local_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "local_addresses", lambda: [])
    assert cli.announce("0.0.0.0", 8000, io.StringIO()) == ["http://127.0.0.1:8000/"]


def test_a_chosen_host_is_announced_as_it_is() -> None:
    assert cli.announce("127.0.0.1", 9000, io.StringIO()) == ["http://127.0.0.1:9000/"]


def test_local_addresses_leave_out_loopback() -> None:
    assert all(not a.startswith("127.") for a in cli.local_addresses())


def test_the_command_requires_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([])
    assert "serve" in capsys.readouterr().err


def test_seed_demo_migrates_an_empty_instance_and_creates_the_club(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/demo.sqlite3")
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    assert cli.main(["seed-demo", "--name", "Demo night", "--weeks", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Created Demo night: open /c/")


def test_seed_demo_refuses_a_season_longer_than_a_year() -> None:
    with pytest.raises(SystemExit, match="--weeks"):
        cli.main(["seed-demo", "--weeks", "53"])


def test_a_host_whose_name_means_loopback_falls_back_to_hostname_i(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        cli.socket, "getaddrinfo", lambda *a, **k: [(2, 1, 6, "", ("127.0.1.1", 0))]
    )

    class Done:
        returncode = 0
        stdout = "192.0.2.9 fd00::9 192.0.2.9\n"

    monkeypatch.setattr(cli.subprocess, "run", lambda *a, **k: Done())
    assert cli.local_addresses() == ["192.0.2.9"]


def test_without_a_network_address_the_announcement_says_how_to_find_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "local_addresses", lambda: [])
    out = io.StringIO()
    cli.announce("0.0.0.0", 8000, out)
    assert "network address was not found" in out.getvalue()
    assert "Open it on a phone" not in out.getvalue()
