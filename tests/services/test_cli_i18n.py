"""The ``scorekeeper`` command in Czech, Bosnian and Russian: every subcommand's ``--help``
and what ``seed-demo``, ``backup`` and ``export`` print (``cli_i18n``; the language from
``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` or ``LANG``).

A help text is checked against the English help of the same command: no three words in a
row of our English prose may be left in the translated one. argparse's own words ("usage:",
"options:", "show this help message and exit") stay English and are not ours.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorekeeper import cli

COMMANDS = ["", "serve", "migrate", "seed-demo", "club-owner", "backup", "export", "import"]
LANGUAGES = ["cs", "bs", "ru"]
#: argparse's own lines, kept in English in every language.
ARGPARSE = ("usage:", "options:", "positional arguments:", "-h, --help")
#: Words that are the same in every language: commands, options, names of files and tools.
SAME = {
    "scorekeeper", "serve", "migrate", "export", "import", "backup", "host", "port", "command",
    "help", "docs", "deploy", "md", "tls", "postgresql", "sqlite", "database_url", "json",
    "pg_dump", "pg_restore", "wal", "shm", "qr", "waitress", "gunicorn", "readme", "api",
    "tuesday", "instance", "config", "py",
}  # fmt: skip


def speak(monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGUAGE", lang)


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        cli.main([command, "--help"] if command else ["--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def phrases(text: str) -> set[tuple[str, str, str]]:
    """Every three words in a row of a help's prose, line by line: the usage block,
    argparse's lines and the example command lines left out."""
    prose = text.split("\n\n", 1)[1]  # after the usage block
    found = set()
    for line in prose.splitlines():
        bare = line.strip()
        if bare.startswith((*ARGPARSE, "scorekeeper ", "DATABASE_URL=", "flask ")):
            continue
        words = [w.lower() for w in re.findall(r"[^\W\d]+", bare)]
        triples = zip(words, words[1:], words[2:], strict=False)
        found |= {(a, b, c) for a, b, c in triples if not {a, b, c} & SAME}
    return found


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_help_is_translated(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: str, command: str
) -> None:
    speak(monkeypatch, "en")
    english = help_of(command, capsys)
    ours = phrases(english)
    assert len(ours) > 5, english  # the check has English to look for
    speak(monkeypatch, lang)
    translated = help_of(command, capsys)
    left = ours & phrases(translated)
    assert not left, f"English left in 'scorekeeper {command} --help' ({lang}): {left}"
    assert "show this help message and exit" in translated  # argparse's own, as it was


def test_help_fills_its_defaults_in_every_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse %-formats the translated help: the defaults are filled in, not broken."""
    for lang, default in (("cs", "výchozí"), ("bs", "podrazumijevano"), ("ru", "по умолчанию")):
        speak(monkeypatch, lang)
        shown = " ".join(help_of("seed-demo", capsys).split())
        assert f"{default} Tuesday Card Club" in shown
        assert f"{default} 0.0.0.0" in shown and f"{default} 8000" in shown
        assert "%(" not in shown


def test_a_bad_value_is_told_in_the_environments_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    speak(monkeypatch, "cs")
    with pytest.raises(SystemExit):
        cli.main(["seed-demo", "--weeks", "99"])
    assert "99 není od 1 do 52" in capsys.readouterr().err


def test_backup_and_export_speak_czech(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/club.sqlite3")
    speak(monkeypatch, "cs")
    assert cli.main(["seed-demo", "--weeks", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ukázkový klub Tuesday Card Club je vytvořen: osm hráčů a sezóna")
    assert "(na tomto počítači)" in out

    assert cli.main(["backup", str(tmp_path / "club-backup.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Databáze byla zálohována do {tmp_path}/club-backup.sqlite3 (")
    assert re.search(r"\(\d+,\d kB; kontrola integrity v pořádku\)\.$", out.strip()), out

    assert cli.main(["export", str(tmp_path / "club.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Do {tmp_path}/club.json (")
    assert (
        "exportováno: 1 klub, 8 hráčů, 1 sezóna, 0 uložených sad pravidel, 6 zápasů, 22 rozdání."
    ) in out
