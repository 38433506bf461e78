"""``scorekeeper backup``: a consistent copy of the live database, safe while it serves.

SQLite: the online backup API (``sqlite3.Connection.backup``) copies every page as one
snapshot, including what is still in the ``-wal`` file that a plain file copy of the
database misses; the copy is switched to a single self-contained file (rollback journal)
and checked with ``PRAGMA integrity_check`` before it takes its name. PostgreSQL: the
backup is ``pg_dump``'s custom format, run when ``pg_dump`` is on the PATH; otherwise the
command to run is printed. A backup is written to a temporary file beside the target and
then renamed, so an existing file is never half overwritten (and only with ``force``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from ..engine.errors import phrase
from .data_tables import Refused


@dataclass(frozen=True)
class Written:
    """A backup file written: where, its size, and what was checked."""

    path: Path
    size: int
    note: str


def backup(url: str, target: Path, *, force: bool = False) -> Written:
    """Back up the database at ``url`` to ``target`` (see the module's docstring)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise Refused(
                phrase("This database lives in memory only: there is nothing to back up.")
            )
        return backup_sqlite(Path(parsed.database), target, force=force)
    if parsed.get_backend_name() == "postgresql":
        return backup_postgresql(parsed, target, force=force)
    raise Refused(
        phrase(
            "scorekeeper backs up SQLite and PostgreSQL, not %(backend)s.",
            backend=parsed.get_backend_name(),
        )
    )


def check_target(target: Path, force: bool) -> None:
    """Refuse a target that exists (without ``force``) or whose folder does not."""
    if target.is_dir():
        raise Refused(
            phrase(
                "%(target)s is a folder: give the name of the file to write.", target=str(target)
            )
        )
    if target.exists() and not force:
        raise already_exists(target)
    if not target.parent.is_dir():
        raise Refused(phrase("The folder %(folder)s does not exist.", folder=str(target.parent)))


def already_exists(target: Path) -> Refused:
    """The refusal to write over ``target`` without ``force``."""
    return Refused(
        phrase(
            "%(target)s already exists: choose another name, or add --force.", target=str(target)
        )
    )


def temporary_beside(target: Path) -> Path:
    """A temporary name in the target's folder (so the final rename is atomic)."""
    return target.with_name(f".{target.name}.{os.getpid()}.partial")


def place(temporary: Path, target: Path, force: bool) -> None:
    """Give the finished file its name: replace only with ``force``, else never clobber."""
    try:
        if force:
            os.replace(temporary, target)
        elif not _link(temporary, target):
            raise already_exists(target)
    finally:
        temporary.unlink(missing_ok=True)


def _link(temporary: Path, target: Path) -> bool:
    """Name the file ``target`` unless that exists (atomically where links are supported)."""
    try:
        os.link(temporary, target)
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links
        if target.exists():
            return False
        os.replace(temporary, target)
    return True


def backup_sqlite(source: Path, target: Path, *, force: bool = False) -> Written:
    """Copy a live SQLite database with the online backup API, WAL content included."""
    if not source.is_file():
        raise Refused(phrase("There is no database at %(source)s.", source=str(source)))
    check_target(target, force)
    if target.exists() and target.resolve() == source.resolve():
        raise Refused(
            phrase(
                "%(target)s is the live database itself: choose another file.", target=str(target)
            )
        )
    temporary = temporary_beside(target)
    temporary.unlink(missing_ok=True)
    try:
        result = _copy_pages(source, temporary)
    except sqlite3.Error as error:
        temporary.unlink(missing_ok=True)
        raise Refused(
            phrase("Could not back up %(source)s: %(why)s.", source=str(source), why=str(error))
        ) from None
    if result != "ok":
        temporary.unlink(missing_ok=True)
        raise Refused(
            phrase(
                "The copy of %(source)s failed its integrity check: %(why)s",
                source=str(source),
                why=result,
            )
        )
    size = temporary.stat().st_size
    place(temporary, target, force)
    return Written(target, size, "integrity check ok")


def _copy_pages(source: Path, temporary: Path) -> str:
    """Copy every page of ``source`` in one step; return the copy's integrity check."""
    live = sqlite3.connect(source)
    try:
        live.execute("PRAGMA busy_timeout=10000")
        copy = sqlite3.connect(temporary)
        try:
            live.backup(copy)  # one step: a consistent snapshot, WAL frames included
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            return str(copy.execute("PRAGMA integrity_check").fetchone()[0])
        finally:
            copy.close()
    finally:
        live.close()


def pg_dump_command(url: URL, target: Path) -> tuple[list[str], dict[str, str]]:
    """The ``pg_dump`` command line for ``url`` and the environment it needs (password)."""
    command = ["pg_dump", "--format=custom", "--no-owner"]
    host = url.host or url.query.get("host")
    if host:
        command += ["--host", str(host)]
    if url.port:
        command += ["--port", str(url.port)]
    if url.username:
        command += ["--username", url.username]
    command += ["--dbname", url.database or "postgres", "--file", str(target)]
    env = {"PGPASSWORD": url.password} if url.password else {}
    return command, env


def shown(command: list[str], env: dict[str, str]) -> str:
    """The command as one shell line, the password left for the reader to fill in."""
    prefix = "PGPASSWORD='<the password in DATABASE_URL>' " if env else ""
    return prefix + shlex.join(command)


def backup_postgresql(url: URL, target: Path, *, force: bool = False) -> Written:
    """Run ``pg_dump`` (custom format) when it is installed; else say how to back up."""
    check_target(target, force)
    if shutil.which("pg_dump") is None:
        command, env = pg_dump_command(url, target)
        raise Refused(
            phrase(
                "pg_dump was not found on the PATH (it comes with PostgreSQL's client tools)."
                " Back up this database with:\n  %(command)s",
                command=shown(command, env),
            )
        )
    temporary = temporary_beside(target)
    command, env = pg_dump_command(url, temporary)
    done = subprocess.run(
        command, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        temporary.unlink(missing_ok=True)
        last = done.stderr.strip().splitlines()[-1:]
        reason = last[0] if last else phrase("exit status %(status)s", status=done.returncode)
        raise Refused(phrase("pg_dump failed: %(why)s", why=reason))
    size = temporary.stat().st_size
    place(temporary, target, force)
    return Written(target, size, "pg_dump custom format: restore it with pg_restore")
