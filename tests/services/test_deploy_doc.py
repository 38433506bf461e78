"""docs/deploy.md: every command block is either marked as an example or run here, as written.

The commands it runs (``.venv/bin/scorekeeper``, ``flask --app scorekeeper.app db ...``,
``gunicorn``) run in document order against a scratch SQLite database, with a scratch
folder in place of the backups folder; a server command is started on a free port in
place of 8001, asked for its home page, and stopped.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import free_port

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
PROGRAMS = {
    ".venv/bin/scorekeeper": [sys.executable, "-m", "scorekeeper.cli"],
    ".venv/bin/flask": [sys.executable, "-m", "flask"],
    ".venv/bin/gunicorn": [sys.executable, "-m", "gunicorn"],
}
SERVERS = (".venv/bin/gunicorn ", ".venv/bin/scorekeeper serve ")
DOC_PORT = "8001"
DOC_BACKUPS = "/var/backups/scorekeeper"


@dataclass
class Block:
    info: str
    lines: list[str]
    before: str  # the paragraph just before the block

    @property
    def example(self) -> bool:
        return re.search(r"\bExample\b[,:( ]", self.before) is not None


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text (fences may be indented inside a list)."""
    found: list[Block] = []
    paragraph: list[str] = []  # the text lines read since the last block
    current: Block | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if current is None:
                current = Block(stripped[3:].strip(), [], " ".join(paragraph))
            else:
                found.append(current)
                current, paragraph = None, []
        elif current is not None:
            if stripped:
                current.lines.append(stripped)
        elif stripped:
            if not paragraph or paragraph[-1] == "":
                paragraph = []
            paragraph.append(stripped)
        elif paragraph:
            paragraph.append("")  # a blank line ends it: the next text starts anew
    assert current is None, "a fenced block is never closed"
    return found


def commands_run_here() -> list[str]:
    return [line for block in blocks(DOC.read_text()) if not block.example for line in block.lines]


def test_the_readme_links_the_deployment_guide() -> None:
    assert "](docs/deploy.md)" in (ROOT / "README.md").read_text()


def test_every_block_is_an_example_or_a_command_this_module_runs() -> None:
    found = blocks(DOC.read_text())
    assert len(found) >= 10
    for block in found:
        if block.example:
            continue
        assert block.info == "sh", f"unmarked block after {block.before!r} is not sh"
        for line in block.lines:
            assert line.split()[0] in PROGRAMS, f"{line!r} is neither run here nor an example"
    assert any(line.startswith(SERVERS[0]) for line in commands_run_here())
    assert any(line.startswith(SERVERS[1]) for line in commands_run_here())


def test_the_example_unit_runs_the_tested_commands_and_always_restarts() -> None:
    (unit,) = [b for b in blocks(DOC.read_text()) if b.info == "ini"]
    settings = dict(line.split("=", 1) for line in unit.lines if "=" in line)
    assert settings["Restart"] == "always"
    tested = commands_run_here()
    prefix = settings["WorkingDirectory"] + "/"
    assert settings["ExecStartPre"].removeprefix(prefix) in tested
    assert settings["ExecStart"].removeprefix(prefix) in tested
    assert settings["ExecStart"].removeprefix(prefix).startswith(SERVERS[0])


def run_server(argv: list[str], env: dict[str, str], port: int) -> None:
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
                    assert page.status == 200
                    return
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    _, err = process.communicate()
                    pytest.fail(f"{shlex.join(argv)} never answered:\n{err}")
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGINT)  # quick shutdown, for gunicorn and waitress alike
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_guide_s_commands_run_as_written(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'club.sqlite3'}",
        "SCOREKEEPER_SECRET_KEY": "test",
    }
    backups = tmp_path / "backups"
    backups.mkdir()
    outputs: dict[str, str] = {}
    for line in commands_run_here():
        words = [word.replace(DOC_BACKUPS, str(backups)) for word in shlex.split(line)]
        argv = PROGRAMS[words[0]] + words[1:]
        if line.startswith(SERVERS):
            port = free_port()
            argv = [re.sub(rf"\b{DOC_PORT}\b", str(port), word) for word in argv]
            assert str(port) in " ".join(argv), f"{line!r} does not listen on {DOC_PORT}"
            run_server(argv, env, port)
            continue
        done = subprocess.run(
            argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        outputs[line] = done.stdout
    head = outputs[".venv/bin/scorekeeper migrate"].split("migration ")[1][:12]
    assert head in outputs[".venv/bin/flask --app scorekeeper.app db current"]
    assert head in outputs[".venv/bin/flask --app scorekeeper.app db history"]
    written = sorted(backups.iterdir())
    assert [path.name for path in written] == ["before-upgrade.dump", "by-hand.dump"]
    for path in written:  # on SQLite, the backup is a database holding the same tables
        with sqlite3.connect(path) as copy:
            names = {row[0] for row in copy.execute("SELECT name FROM sqlite_master")}
        assert {"matches", "deals", "alembic_version"} <= names
