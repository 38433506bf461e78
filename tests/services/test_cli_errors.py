"""A ``scorekeeper`` command that fails says why in one line on stderr, never a traceback."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest
from support import free_port

from scorekeeper import cli
from scorekeeper.cli_errors import CommandError, guarded, safe_url


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")


def failure(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the command; check it failed with exactly one error line; return that line."""
    assert cli.main(list(argv)) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("scorekeeper: error: ")]
    assert len(errors) == 1, err
    return errors[0].removeprefix("scorekeeper: error: ")


def sqlite_file(tmp_path: Path, *statements: str) -> str:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    return f"sqlite:///{path}"


def test_a_port_in_use_is_one_line_naming_the_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = failure(capsys, "serve", "--host", "127.0.0.1", "--port", str(port))
    assert line.startswith(f"port {port} is already in use on 127.0.0.1")
    assert "--port" in line
    assert not (tmp_path / "db.sqlite3").exists() or _tables(tmp_path / "db.sqlite3") == []


def _tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [r[0] for r in connection.execute("SELECT name FROM sqlite_master")]


def test_an_address_of_another_computer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    line = failure(capsys, "serve", "--host", "192.0.2.1", "--port", str(free_port()))
    assert line.startswith("cannot listen on 192.0.2.1: it is not an address of this computer")


def test_an_unreachable_database_is_one_line_with_its_url_but_not_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()  # nothing listens there
    monkeypatch.setenv("DATABASE_URL", f"postgresql://club:hunter2@127.0.0.1:{port}/club")
    line = failure(capsys, "migrate")
    assert line.startswith(f"the database postgresql+psycopg://club:***@127.0.0.1:{port}/club")
    assert "cannot be reached" in line and "refused" in line
    assert "hunter2" not in line


def test_a_sqlite_file_in_a_missing_folder_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/missing/db.sqlite3")
    line = failure(capsys, "seed-demo")
    assert "cannot be reached: unable to open database file" in line


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("not a url", "DATABASE_URL is not a database URL scorekeeper can use"),
        ("oracle+nothing://u@h/db", "DATABASE_URL is not a database URL scorekeeper can use"),
        ("mysql://u@127.0.0.1/db", "DATABASE_URL needs a database driver that is not installed"),
    ],
)
def test_a_bad_database_url_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str, says: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    assert failure(capsys, "migrate").startswith(says)


def test_a_database_migrated_by_an_unknown_version_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqlite_file(
        tmp_path,
        "CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('ffffffffffff')",
    )
    monkeypatch.setenv("DATABASE_URL", url)
    line = failure(capsys, "serve", "--host", "127.0.0.1", "--port", str(free_port()))
    assert "cannot be migrated (it was migrated by another version of scorekeeper)" in line
    assert "'ffffffffffff'" in line


def test_a_migration_that_fails_is_one_line_with_the_database_s_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", sqlite_file(tmp_path, "CREATE TABLE matches (x INTEGER)"))
    line = failure(capsys, "migrate")
    assert line.startswith("a migration of the database sqlite:///")
    assert line.endswith("failed: table matches already exists")


def test_debug_shows_the_traceback_instead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/missing/db.sqlite3")
    with pytest.raises(CommandError, match="cannot be reached"):
        cli.main(["--debug", "migrate"])


def test_an_unexpected_failure_is_one_line_that_points_to_debug() -> None:
    import io

    def broken(_args: object) -> None:
        raise ZeroDivisionError("division by zero")

    err = io.StringIO()
    assert guarded(broken, None, err) == 1
    assert err.getvalue() == (
        "scorekeeper: error: unexpected ZeroDivisionError: division by zero"
        " (run the command again with --debug to see where)\n"
    )


def test_ctrl_c_stops_quietly_with_the_shell_s_status() -> None:
    import io

    def interrupted(_args: object) -> None:
        raise KeyboardInterrupt

    err = io.StringIO()
    assert guarded(interrupted, None, err) == 130
    assert err.getvalue() == "Stopped.\n"


def test_a_url_that_is_not_one_still_hides_what_looks_like_a_password() -> None:
    assert safe_url("postgresql://club:hunter2@host/db") == "postgresql://club:***@host/db"
    assert "hunter2" not in safe_url("weird://club:hunter2@[bad")


def test_a_public_base_url_that_cannot_work_is_one_line_saying_what_it_should_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    monkeypatch.setenv("SCOREKEEPER_PUBLIC_BASE_URL", "scores.example.org")
    for argv in (["migrate"], ["seed-demo"], ["export", str(tmp_path / "club.json")]):
        line = failure(capsys, *argv)
        assert line.startswith("SCOREKEEPER_PUBLIC_BASE_URL must be where phones reach the app")
        assert "https://scores.example.org" in line
    assert not (tmp_path / "club.json").exists()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("PAGE_CACHE_SIZE", "must be a whole number of pages to keep, 0 or more"),
        ("SERVER_PROCESSES", "must be how many server processes share the database, 1 or more"),
    ],
)
@pytest.mark.parametrize("value", ["-1", '"lots"', "2.5", "true"])
def test_a_count_that_cannot_work_is_one_line_saying_what_it_should_be(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    says: str,
    value: str,
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    monkeypatch.setenv(f"SCOREKEEPER_{name}", value)
    line = failure(capsys, "migrate")
    assert line.startswith(f"SCOREKEEPER_{name} {says}")
    assert value.strip('"').lower() in line.lower()


def test_no_server_processes_is_refused_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    monkeypatch.setenv("SCOREKEEPER_SERVER_PROCESSES", "0")
    assert failure(capsys, "migrate").startswith("SCOREKEEPER_SERVER_PROCESSES must be")
