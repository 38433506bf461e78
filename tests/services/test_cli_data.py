"""``scorekeeper backup``, ``export`` and ``import`` as a person types them.

The commands read ``DATABASE_URL`` like ``scorekeeper serve``. The round trip runs on the
suite's database too (PostgreSQL with ``TEST_DATABASE_URL``), migrated from nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from scorekeeper import cli
from scorekeeper.app import create_app
from scorekeeper.extensions import db


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")


def use(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", url)


def without_exported_at(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith('  "exported_at": ')
    return lines[:1] + lines[2:]


def refused(argv: list[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert isinstance(stop.value.code, str) and "\n" not in stop.value.code
    return stop.value.code


def test_backup_export_and_import_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use(monkeypatch, f"sqlite:///{tmp_path}/club.sqlite3")
    cli.main(["seed-demo", "--weeks", "2"])
    capsys.readouterr()

    assert cli.main(["backup", str(tmp_path / "club-backup.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Backed up the database to {tmp_path}/club-backup.sqlite3 (")
    assert "integrity check ok" in out
    connection = sqlite3.connect(tmp_path / "club-backup.sqlite3")
    assert connection.execute("SELECT count(*) FROM deals").fetchone()[0] == 22
    connection.close()
    assert "already exists" in refused(["backup", str(tmp_path / "club-backup.sqlite3")])
    assert cli.main(["backup", "--force", str(tmp_path / "club-backup.sqlite3")]) == 0
    capsys.readouterr()

    assert cli.main(["export", str(tmp_path / "club.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Exported 1 club, 8 players, 1 season, 0 saved rule sets, 6 matches,")
    assert "already exists" in refused(["export", str(tmp_path / "club.json")])

    use(monkeypatch, f"sqlite:///{tmp_path}/restored.sqlite3")
    assert cli.main(["import", str(tmp_path / "club.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Imported 1 club, 8 players, 1 season, 0 saved rule sets, 6 matches")
    assert "rebuilt 10 side results," in out
    assert cli.main(["export", str(tmp_path / "restored.json")]) == 0
    assert without_exported_at(tmp_path / "restored.json") == without_exported_at(
        tmp_path / "club.json"
    )
    message = refused(["import", str(tmp_path / "club.json")])
    assert message.startswith("scorekeeper import: The database is not empty (")


def test_import_checks_the_file_before_it_touches_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, f"sqlite:///{tmp_path}/new.sqlite3")
    (tmp_path / "rules.json").write_text('{"name": "Our house rules"}')
    message = refused(["import", str(tmp_path / "rules.json")])
    assert message == (
        f"scorekeeper import: {tmp_path}/rules.json is not a scorekeeper export"
        ' (it lacks "format": "scorekeeper-export").'
    )
    assert not (tmp_path / "new.sqlite3").exists() or _tables(tmp_path / "new.sqlite3") == []


def _tables(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    finally:
        connection.close()


def test_export_says_when_there_is_nothing_to_export_or_the_schema_is_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, f"sqlite:///{tmp_path}/empty.sqlite3")
    assert "no scorekeeper tables yet" in refused(["export", str(tmp_path / "out.json")])
    cli.migrated_app()
    connection = sqlite3.connect(tmp_path / "empty.sqlite3")
    connection.execute("UPDATE alembic_version SET version_num = 'ed2e2cc608a0'")
    connection.commit()
    connection.close()
    message = refused(["export", str(tmp_path / "out.json")])
    assert "is at migration ed2e2cc608a0" in message and "scorekeeper serve" in message
    assert not (tmp_path / "out.json").exists()


@pytest.fixture
def migrated_from_nothing(tmp_path: Path, dburi: str | None) -> Iterator[str]:
    """The suite's database with no table at all (not even alembic's), and after the test."""
    url = dburi or f"sqlite:///{tmp_path / 'suite.sqlite3'}"

    def empty() -> None:
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "test"})
        with app.app_context():
            db.drop_all()
            with db.engine.begin() as connection:
                connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
            db.engine.dispose()

    empty()
    yield url
    empty()


def test_the_command_line_round_trip_on_the_suites_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, migrated_from_nothing: str
) -> None:
    use(monkeypatch, f"sqlite:///{tmp_path}/club.sqlite3")
    cli.main(["seed-demo", "--weeks", "1"])
    cli.main(["export", str(tmp_path / "club.json")])
    use(monkeypatch, migrated_from_nothing)
    assert cli.main(["import", str(tmp_path / "club.json")]) == 0
    assert cli.main(["export", str(tmp_path / "again.json")]) == 0
    assert without_exported_at(tmp_path / "again.json") == without_exported_at(
        tmp_path / "club.json"
    )


def test_the_help_lists_the_data_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "backup" in out and "export" in out and "import" in out
