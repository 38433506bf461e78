"""``scorekeeper backup``: SQLite's online backup (WAL included), and pg_dump for PostgreSQL."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from scorekeeper.services import backup
from scorekeeper.services.data_tables import Refused


def live_database(folder: Path, rows: int = 500) -> tuple[Path, sqlite3.Connection]:
    """A WAL database whose last rows are only in its -wal file (nothing checkpointed)."""
    path = folder / "live.sqlite3"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE deals (id INTEGER PRIMARY KEY, points INTEGER)")
    writer.executemany("INSERT INTO deals (points) VALUES (?)", [(n,) for n in range(rows)])
    writer.commit()
    return path, writer


def count(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("SELECT count(*) FROM deals").fetchone()[0])
    finally:
        connection.close()


def test_a_backup_holds_the_rows_still_in_the_wal_file_that_a_plain_copy_misses(
    tmp_path: Path,
) -> None:
    live, writer = live_database(tmp_path)
    assert Path(f"{live}-wal").stat().st_size > 0
    shutil.copyfile(live, tmp_path / "plain.sqlite3")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        count(tmp_path / "plain.sqlite3")  # the table and its rows are only in the -wal
    written = backup.backup_sqlite(live, tmp_path / "backup.sqlite3")
    writer.close()
    assert written.path == tmp_path / "backup.sqlite3"
    assert written.size == written.path.stat().st_size and "integrity check ok" in written.note
    assert count(written.path) == 500
    copy = sqlite3.connect(written.path)
    assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
    copy.close()
    assert sorted(p.name for p in tmp_path.iterdir() if "backup" in p.name) == ["backup.sqlite3"]


def test_a_backup_never_overwrites_a_file_unless_forced(tmp_path: Path) -> None:
    live, writer = live_database(tmp_path, rows=3)
    target = tmp_path / "monday.sqlite3"
    target.write_text("last week's backup")
    with pytest.raises(Refused, match=r"monday.sqlite3 already exists: .* add --force"):
        backup.backup_sqlite(live, target)
    assert target.read_text() == "last week's backup"
    backup.backup_sqlite(live, target, force=True)
    writer.close()
    assert count(target) == 3
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_a_backup_refuses_to_write_over_the_live_database(tmp_path: Path) -> None:
    live, writer = live_database(tmp_path, rows=3)
    with pytest.raises(Refused, match="is the live database itself"):
        backup.backup_sqlite(live, live, force=True)
    writer.close()
    assert count(live) == 3


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("missing.sqlite3", "out.sqlite3", "There is no database at"),
        ("live.sqlite3", "no/such/folder/out.sqlite3", "The folder .* does not exist"),
        ("live.sqlite3", ".", "is a folder: give the name of the file"),
        ("notes.txt", "out.sqlite3", "Could not back up .*notes.txt: file is not a database"),
    ],
)
def test_a_backup_that_cannot_be_made_says_why(
    tmp_path: Path, source: str, target: str, message: str
) -> None:
    _live, writer = live_database(tmp_path, rows=1)
    (tmp_path / "notes.txt").write_text("not a database, but long enough to look like one" * 99)
    with pytest.raises(Refused, match=message):
        backup.backup_sqlite(tmp_path / source, tmp_path / target)
    writer.close()
    assert not (tmp_path / "out.sqlite3").exists()


def test_backup_picks_the_way_by_the_database_url(tmp_path: Path) -> None:
    live, writer = live_database(tmp_path, rows=2)
    backup.backup(f"sqlite:///{live}", tmp_path / "by-url.sqlite3")
    writer.close()
    assert count(tmp_path / "by-url.sqlite3") == 2
    with pytest.raises(Refused, match="in memory only"):
        backup.backup("sqlite://", tmp_path / "x")
    with pytest.raises(Refused, match="SQLite and PostgreSQL, not mysql"):
        backup.backup("mysql://u@h/db", tmp_path / "x")


URL = "postgresql+psycopg://club:s3cret@db.example:5433/league"


def test_the_pg_dump_command_has_the_url_parts_and_keeps_the_password_out_of_it() -> None:
    command, env = backup.pg_dump_command(make_url(URL), Path("/backups/league.dump"))
    assert command == [
        "pg_dump", "--format=custom", "--no-owner", "--host", "db.example", "--port", "5433",
        "--username", "club", "--dbname", "league", "--file", "/backups/league.dump",
    ]  # fmt: skip
    assert env == {"PGPASSWORD": "s3cret"}
    shown = backup.shown(command, env)
    assert "s3cret" not in shown and shown.startswith("PGPASSWORD='<the password in")


def test_without_pg_dump_the_backup_prints_the_command_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backup.shutil, "which", lambda _name: None)
    with pytest.raises(Refused) as refused:
        backup.backup(URL, tmp_path / "league.dump")
    assert "pg_dump was not found" in str(refused.value)
    assert "pg_dump --format=custom --no-owner --host db.example --port 5433" in str(refused.value)
    assert "s3cret" not in str(refused.value)


def fake_pg_dump(folder: Path, script: str) -> None:
    """A ``pg_dump`` on the PATH that runs ``script`` (a shell body)."""
    folder.mkdir()
    program = folder / "pg_dump"
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(program.stat().st_mode | stat.S_IXUSR)


def test_with_pg_dump_the_backup_runs_it_with_the_password_in_its_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_pg_dump(
        tmp_path / "bin",
        'for a; do last=$a; done\nprintf "PGDMP %s %s" "$PGPASSWORD" "$*" > "$last"\n',
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    written = backup.backup(URL, tmp_path / "league.dump")
    text = (tmp_path / "league.dump").read_text()
    assert text.startswith("PGDMP s3cret --format=custom") and "--dbname league" in text
    assert written.size == len(text) and "pg_restore" in written.note
    with pytest.raises(Refused, match="already exists"):
        backup.backup(URL, tmp_path / "league.dump")


def test_a_failing_pg_dump_leaves_no_file_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_pg_dump(
        tmp_path / "bin",
        'for a; do last=$a; done\necho half > "$last"\n'
        'echo "pg_dump: error: connection refused" >&2\nexit 1\n',
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(Refused, match="pg_dump failed: pg_dump: error: connection refused"):
        backup.backup(URL, tmp_path / "league.dump")
    assert [p.name for p in tmp_path.iterdir()] == ["bin"]


def test_a_real_pg_dump_of_the_suites_postgresql_database(
    tmp_path: Path, dburi: str | None
) -> None:
    if not dburi or not dburi.startswith("postgresql") or shutil.which("pg_dump") is None:
        pytest.skip("needs TEST_DATABASE_URL on PostgreSQL and pg_dump on the PATH")
    written = backup.backup(dburi, tmp_path / "suite.dump")
    assert written.path.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
