"""The ``scorekeeper`` command in Czech, Bosnian and Russian: every subcommand's ``--help``
and what ``seed-demo``, ``backup`` and ``export`` print, and why ``backup``, ``export`` and
``import`` refuse (``cli_i18n``; the language from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``
or ``LANG``).

A help text is checked against the English help of the same command: no three words in a
row of our English prose may be left in the translated one. argparse's own words ("usage:",
"options:", "show this help message and exit") stay English and are not ours.
"""

from __future__ import annotations

import ast
import copy
import gettext
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from scorekeeper import cli
from scorekeeper.cli_i18n import TRANSLATIONS, say
from scorekeeper.engine.errors import Phrase, phrase, phrase_n
from scorekeeper.services import backup, data_import
from scorekeeper.services.data_rebuild import score_matches
from scorekeeper.services.data_tables import BadValueError, Refused

COMMANDS = [
    "",
    "serve",
    "migrate",
    "seed-demo",
    "club-owner",
    "reset-link",
    "backup",
    "export",
    "import",
]
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


# -- refusals of backup, export and import ---------------------------------------------------
#
# The services raise ``Refused`` with an engine phrase (English ``str()``, msgid and
# parameters); ``cli_data`` says it in the environment's language. Each path is run
# through ``cli.main`` as a person types it: the translated sentence is on stderr and the
# English one is not.

SERVICES = Path(__file__).resolve().parents[2] / "scorekeeper" / "services"
#: The modules whose refusals reach the command line.
REFUSING = ("backup.py", "data_export.py", "data_import.py", "data_rebuild.py", "data_tables.py")


def refused_in(
    lang: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """Run ``scorekeeper argv`` in ``lang``; check it failed and said why; what it wrote on
    stderr (an import that loads migrates first, and alembic logs that there too)."""
    speak(monkeypatch, lang)
    capsys.readouterr()
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    error = {"cs": "chyba", "bs": "greška", "ru": "ошибка"}[lang]
    assert [line for line in lines if line.startswith(f"scorekeeper: {error}: ")], captured.err
    assert "scorekeeper: error:" not in captured.err
    return captured.err


@pytest.fixture(scope="module")
def export_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A seeded club's export (one week of play), as JSON."""
    folder = tmp_path_factory.mktemp("club")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCOREKEEPER_SECRET_KEY", "test")
        patch.setenv("DATABASE_URL", f"sqlite:///{folder}/club.sqlite3")
        patch.setenv("LANGUAGE", "en")
        assert cli.main(["seed-demo", "--weeks", "1"]) == 0
        assert cli.main(["export", str(folder / "club.json")]) == 0
    return json.loads((folder / "club.json").read_text(encoding="utf-8"))


def _with(doc: dict[str, Any], change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    other = copy.deepcopy(doc)
    change(other)
    return other


def _set(table: str, row: int, **values: Any) -> Callable[[dict[str, Any]], object]:
    return lambda doc: doc["tables"][table][row].update(values)


def _add_table(name: str, rows: Any) -> Callable[[dict[str, Any]], object]:
    return lambda doc: doc["tables"].update({name: rows})


def _saved_rules(doc: dict[str, Any]) -> None:
    when = doc["tables"]["clubs"][0]["created_at"]
    doc["tables"]["saved_rule_sets"] = [
        {
            "id": 1,
            "public_id": "r" * 12,
            "name": "Our house rules",
            "rules": {"decks": 0},
            "created_at": when,
            "updated_at": when,
        }
    ]


#: (language, the change to a good export, what is said, the English it replaces)
IMPORT_REFUSALS: list[tuple[str, Any, str, str]] = [
    ("ru", [1, 2], 'не экспорт scorekeeper (в нём нет "format": "scorekeeper-export")',
     "is not a scorekeeper export"),
    ("bs", {"format": "scorekeeper-export"}, 'nema ispravnu "version": nije izvoz scorekeepera',
     'has no valid "version"'),
    ("cs", {"format": "scorekeeper-export", "version": 2, "tables": {}},
     "je export verze 2; tento scorekeeper čte jen verzi 1: aktualizujte scorekeeper",
     "upgrade scorekeeper"),
    ("ru", {"format": "scorekeeper-export", "version": 1}, 'нет "tables": это не полный экспорт',
     "not a complete export"),
    ("bs", _add_table("side_results", []),
     "tabela side_results se pri uvozu ponovo izračunava, ne može se učitati",
     "is rebuilt on import"),
    ("cs", _add_table("invitations", []),
     "tabulka invitations se nikdy neimportuje (odkaz s pozvánkou platí týden: vlastník",
     "invitation link works"),
    ("ru", _add_table("account_sessions", []),
     "таблица account_sessions никогда не импортируется (импорт завершает все входы",
     "everyone logs in again"),
    ("bs", _add_table("password_resets", []),
     "tabela password_resets se nikad ne uvozi (link za obnovu lozinke", "reset link"),
    ("ru", _add_table("trophies", []), "неизвестная таблица 'trophies' (её записал более новый",
     "unknown table"),
    ("bs", _add_table("clubs", {}), "tabela clubs nije lista redova", "is not a list of rows"),
    ("cs", _add_table("clubs", [7]), "řádek 1 tabulky clubs není objekt", "is not an object"),
    ("ru", _set("match_sides", 0, total=99999),
     "строка 1 таблицы match_sides: столбец total пересчитывается при импорте",
     "is rebuilt on import"),
    ("bs", _set("clubs", 0, colour="red"), "red 1 tabele clubs: nepoznata kolona 'colour'",
     "unknown column"),
    ("cs", _set("clubs", 0, name=None),
     "řádek 1 tabulky clubs, sloupec name: hodnota nesmí být prázdná (null).",
     "must not be empty"),
    ("cs", _set("clubs", 0, name="x" * 81),
     "sloupec name: hodnota smí mít nejvýše 80 znaků.", "at most 80 characters"),
    ("ru", _set("clubs", 0, name=5), "столбец name: значение должно быть текстом.",
     "must be text"),
    ("bs", _set("clubs", 0, name="Tues\x00day"), "kolona name: vrijednost ne smije sadržavati",
     "must not contain"),
    ("ru", _set("clubs", 0, min_games="3"), "значение должно быть целым числом",
     "must be a whole number"),
    ("cs", _set("clubs", 0, min_games=10**310), "sloupec min_games: hodnota je příliš velká.",
     "is too large"),
    ("bs", _set("clubs", 0, created_at="yesterday"),
     "vrijednost mora biti vremenska oznaka poput 2024-03-05T20:15:00+00:00",
     "must be a timestamp"),
    ("ru", _set("matches", 0, played_on="2024-13-01"), "должно быть датой вида 2024-03-05",
     "must be a date"),
    ("cs", _set("matches", 0, reopened=1), "hodnota musí být true nebo false",
     "must be true or false"),
    ("bs", lambda doc: doc["tables"]["clubs"][0].pop("name"),
     "red 1 tabele clubs: nedostaje kolona name", "is missing"),
    ("cs", lambda doc: doc["tables"]["players"].append(dict(doc["tables"]["players"][0])),
     "řádek 9 tabulky players opakuje id 1", "repeats the id"),
    # refused while loading, after the database was migrated
    ("ru", _set("match_players", 0, player_id=999),
     "столбец player_id: ссылается на players 999, которого в файле нет", "which the file"),
    ("cs", _set("match_sides", 1, position=5),
     "jeho strany nejsou očíslovány 0, 1, ... po sobě", "are not numbered"),
    ("bs", _set("deals", 1, number=7), "njegova dijeljenja nisu numerisana 1, 2, ... redom",
     "are not numbered"),
    ("ru", lambda doc: doc["tables"]["deal_sides"].pop(1),
     "сдача 1: нужна одна запись на каждую сторону", "one entry per side"),
    ("cs", _set("deal_sides", 0, entry={"melded_points": "lots"}), ": nelze ho znovu načíst (",
     "cannot be read back"),
    ("bs", _saved_rules, "sačuvani skup pravila 'Our house rules' nije ispravan (",
     "is not valid"),
    # the engine's reasons too, not only the sentence around them (they were English)
    ("ru", _set("deal_sides", 0, entry={"went_out": True, "books": {"clean": 0},
                                        "melded_points": 400}),
     "сдача 1 не может быть подсчитана: sides[0].books.clean: Для выхода нужны 2 кучи (чистые)",
     "Going out needs"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "change", "said", "english"),
    IMPORT_REFUSALS,
    ids=[f"{lang}-{english}" for lang, _c, _s, english in IMPORT_REFUSALS],
)
def test_an_import_refusal_is_told_in_the_environments_language(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    export_doc: dict[str, Any],
    lang: str,
    change: Any,
    said: str,
    english: str,
) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/new.sqlite3")
    doc = _with(export_doc, change) if callable(change) else change
    (tmp_path / "club.json").write_text(json.dumps(doc), encoding="utf-8")
    err = refused_in(lang, ["import", str(tmp_path / "club.json")], monkeypatch, capsys)
    assert f"{tmp_path}/club.json" in err
    assert said in err
    assert english not in err


def test_an_unreadable_file_and_a_full_database_are_refused_in_the_environments_language(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    export_doc: dict[str, Any],
) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/club.sqlite3")
    (tmp_path / "photo.json").write_bytes(b"\x89PNG\r\n")
    err = refused_in("cs", ["import", str(tmp_path / "photo.json")], monkeypatch, capsys)
    assert f"{tmp_path}/photo.json není export scorekeeperu: není to JSON (" in err
    assert "is not a scorekeeper export" not in err
    err = refused_in("ru", ["import", str(tmp_path / "missing.json")], monkeypatch, capsys)
    assert f"Не удаётся прочитать {tmp_path}/missing.json: " in err
    assert "Cannot read" not in err

    (tmp_path / "club.json").write_text(json.dumps(export_doc), encoding="utf-8")
    speak(monkeypatch, "en")
    assert cli.main(["seed-demo", "--weeks", "1"]) == 0
    err = refused_in("bs", ["import", str(tmp_path / "club.json")], monkeypatch, capsys)
    assert "Baza podataka nije prazna (" in err and " clubs 1, " in err
    assert "uvoz učitava samo u praznu bazu podataka; usmjerite DATABASE_URL" in err
    assert "The database is not empty" not in err and "import again" not in err


def test_the_file_a_refusal_names_by_default_is_said_in_the_language(
    monkeypatch: pytest.MonkeyPatch, export_doc: dict[str, Any]
) -> None:
    """``load`` without a file name calls it "the file": in Czech, "soubor"."""
    tables = data_import.parse(_with(export_doc, _set("deals", 1, number=7)), "club.json")
    with pytest.raises(Refused) as refused:
        score_matches(tables, data_import.THE_FILE)
    assert str(refused.value).startswith("the file: match ")  # English for the web and logs
    speak(monkeypatch, "cs")
    assert say(refused.value.message).startswith("soubor: zápas ")
    speak(monkeypatch, "ru")
    assert say(refused.value.message).startswith("файл: матч ")


def _backup_env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")
    monkeypatch.setenv("DATABASE_URL", url)


def test_a_backup_refusal_is_told_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _backup_env(monkeypatch, "sqlite://")
    err = refused_in("cs", ["backup", str(tmp_path / "x.sqlite3")], monkeypatch, capsys)
    assert "Tato databáze existuje jen v paměti: není co zálohovat." in err
    assert "in memory" not in err

    # no MySQL driver here: the app is never made, the backup is given the URL
    mysql = SimpleNamespace(config={"SQLALCHEMY_DATABASE_URI": "mysql://u@h/db"})
    monkeypatch.setattr("scorekeeper.app.create_app", lambda: mysql)
    err = refused_in("ru", ["backup", str(tmp_path / "x.sqlite3")], monkeypatch, capsys)
    assert "scorekeeper делает резервные копии SQLite и PostgreSQL, но не mysql." in err
    assert "backs up" not in err
    monkeypatch.undo()

    _backup_env(monkeypatch, f"sqlite:///{tmp_path}/gone/club.sqlite3")
    err = refused_in("bs", ["backup", str(tmp_path / "x.sqlite3")], monkeypatch, capsys)
    assert f"Na {tmp_path}/gone/club.sqlite3 nema baze podataka." in err
    assert "There is no database" not in err

    live = tmp_path / "club.sqlite3"
    _backup_env(monkeypatch, f"sqlite:///{live}")
    speak(monkeypatch, "en")
    assert cli.main(["migrate"]) == 0
    (tmp_path / "monday.sqlite3").write_text("last week's backup")
    cases = [
        ("cs", [str(tmp_path)], f"{tmp_path} je složka: zadejte název souboru", "is a folder"),
        ("ru", [str(tmp_path / "monday.sqlite3")],
         f"{tmp_path}/monday.sqlite3 уже существует: выберите другое имя или добавьте --force.",
         "already exists"),
        ("bs", [str(tmp_path / "no" / "x.sqlite3")], f"Folder {tmp_path}/no ne postoji.",
         "does not exist"),
        ("cs", ["--force", str(live)], f"{live} je samotná používaná databáze: zvolte jiný soubor.",
         "live database"),
    ]  # fmt: skip
    for lang, argv, said, english in cases:
        err = refused_in(lang, ["backup", *argv], monkeypatch, capsys)
        assert said in err and english not in err, err
    assert (tmp_path / "monday.sqlite3").read_text() == "last week's backup"

    monkeypatch.setattr(backup, "_copy_pages", lambda _source, _temporary: "page 3 is never used")
    err = refused_in("ru", ["backup", str(tmp_path / "y.sqlite3")], monkeypatch, capsys)
    assert f"Копия {live} не прошла проверку целостности: page 3 is never used" in err
    assert "integrity check" not in err
    monkeypatch.undo()

    (tmp_path / "notes.txt").write_text("not a database, but long enough to look like one" * 99)
    _backup_env(monkeypatch, f"sqlite:///{tmp_path}/notes.txt")
    err = refused_in("cs", ["backup", str(tmp_path / "z.sqlite3")], monkeypatch, capsys)
    assert f"{tmp_path}/notes.txt nelze zálohovat: file is not a database." in err
    assert "Could not back up" not in err


def test_export_refuses_to_write_over_a_file_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _backup_env(monkeypatch, f"sqlite:///{tmp_path}/club.sqlite3")
    speak(monkeypatch, "en")
    assert cli.main(["migrate"]) == 0
    (tmp_path / "club.json").write_text("{}")
    err = refused_in("bs", ["export", str(tmp_path / "club.json")], monkeypatch, capsys)
    assert f"{tmp_path}/club.json već postoji: izaberite drugo ime ili dodajte --force." in err
    assert "already exists" not in err


POSTGRESQL = "postgresql+psycopg://club:s3cret@db.example:5433/league"


def test_pg_dump_missing_or_failing_is_told_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _backup_env(monkeypatch, POSTGRESQL)
    monkeypatch.setattr(backup.shutil, "which", lambda _name: None)
    err = refused_in("cs", ["backup", str(tmp_path / "league.dump")], monkeypatch, capsys)
    assert "pg_dump nebyl v PATH nalezen" in err and "Zálohujte tuto databázi příkazem:" in err
    assert "pg_dump --format=custom --no-owner --host db.example --port 5433" in err
    assert "was not found" not in err and "s3cret" not in err
    monkeypatch.undo()

    _backup_env(monkeypatch, POSTGRESQL)
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "pg_dump").write_text(
        '#!/bin/sh\nfor a; do last=$a; done\necho half > "$last"\nexit 3\n'
    )
    (folder / "pg_dump").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    err = refused_in("ru", ["backup", str(tmp_path / "league.dump")], monkeypatch, capsys)
    assert "pg_dump завершился с ошибкой: код завершения 3" in err
    assert "failed" not in err and "exit status" not in err
    assert not (tmp_path / "league.dump").exists()


def _refusal_calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("Refused", "BadValueError")
    ]


def _phrases(path: Path) -> list[tuple[str, ...]]:
    """The msgids (with the plural) of every ``phrase``/``phrase_n`` in ``path``."""
    found: list[tuple[str, ...]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "phrase":
                found.append((ast.literal_eval(node.args[0]),))
            elif node.func.id == "phrase_n":
                found.append((ast.literal_eval(node.args[0]), ast.literal_eval(node.args[1])))
    return found


def test_every_refusal_of_the_services_is_a_phrase_the_catalogs_translate() -> None:
    """A new ``raise Refused(f"...")`` would reach the command line in English: every
    refusal of these modules is made of a ``phrase`` (or ``phrase_n``) with a literal msgid,
    and each of those is translated in every language."""
    calls = {name: _refusal_calls(SERVICES / name) for name in REFUSING}
    assert sum(len(found) for found in calls.values()) > 40
    for name, found in calls.items():
        for call in found:
            assert len(call.args) == 1, f"{name}:{call.lineno}"
            made = call.args[0]
            assert isinstance(made, ast.Call) and isinstance(made.func, ast.Name), (
                f"{name}:{call.lineno}: a refusal that is not a phrase"
            )
            assert made.func.id in ("phrase", "phrase_n"), f"{name}:{call.lineno}"
    msgids = [found for name in REFUSING for found in _phrases(SERVICES / name)]
    assert len(msgids) > 40
    for lang in LANGUAGES:
        translations = gettext.translation("messages", TRANSLATIONS, [lang])
        for msgid in msgids:
            if len(msgid) == 1:
                assert translations.gettext(msgid[0]) != msgid[0], (lang, msgid)
            else:
                singular, plural = msgid
                for num in (1, 2, 5):
                    said = translations.ngettext(singular, plural, num)
                    assert said not in msgid, (lang, msgid)


def test_a_refusal_keeps_its_english_without_a_language() -> None:
    """The web and the tests read ``str()``: English, whatever the environment says."""
    refusal = Refused(phrase("The folder %(folder)s does not exist.", folder="/srv/x"))
    assert str(refusal) == "The folder /srv/x does not exist."
    assert isinstance(refusal.message, Phrase)
    assert refusal.message.msgid == "The folder %(folder)s does not exist."
    assert str(BadValueError(phrase_n("must be at most %(num)d character",
                                      "must be at most %(num)d characters", 80))) == (
        "must be at most 80 characters"
    )  # fmt: skip


def _migrated_with_ana(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *clubs: str) -> Any:
    """A migrated database with the account "ana" and ``clubs`` (by name); its app."""
    from scorekeeper.app import create_app
    from scorekeeper.extensions import db
    from scorekeeper.services import accounts
    from scorekeeper.services import clubs as club_service

    _backup_env(monkeypatch, f"sqlite:///{tmp_path / 'club.sqlite3'}")
    speak(monkeypatch, "en")
    assert cli.main(["migrate"]) == 0
    app = create_app()
    with app.app_context():
        for name in clubs:
            club_service.create_club(name)
        accounts.sign_up("ana", "a long enough password")
        db.session.remove()
    return app


def test_club_owner_speaks_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _migrated_with_ana(tmp_path, monkeypatch, "Old club", "Twins", "Twins")

    err = refused_in("cs", ["club-owner", "Nowhere", "ana"], monkeypatch, capsys)
    assert "Žádný klub nemá id ani název 'Nowhere'." in err and "No club" not in err
    err = refused_in("ru", ["club-owner", "Twins", "ana"], monkeypatch, capsys)
    assert "Несколько клубов называются 'Twins'; укажите один из id: " in err
    assert "Several clubs" not in err
    err = refused_in("bs", ["club-owner", "Old club", "nobody"], monkeypatch, capsys)
    assert "Nijedan račun se ne zove 'nobody'; prvo se registrujte u aplikaciji." in err
    assert "No account" not in err

    speak(monkeypatch, "cs")
    capsys.readouterr()
    assert cli.main(["club-owner", "Old club", "ana"]) == 0
    assert capsys.readouterr().out.strip() == "ana je nyní vlastníkem klubu Old club."


def test_settings_and_key_file_troubles_are_told_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper import config
    from scorekeeper.secret_key import instance_secret

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/club.sqlite3")
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "test")  # not the checkout's instance/ key
    monkeypatch.setenv("SCOREKEEPER_PUBLIC_BASE_URL", "scores.example.org")
    err = refused_in("bs", ["migrate"], monkeypatch, capsys)
    assert "SCOREKEEPER_PUBLIC_BASE_URL mora biti adresa na kojoj telefoni" in err
    assert "(ne 'scores.example.org')" in err and "must be where" not in err
    monkeypatch.delenv("SCOREKEEPER_PUBLIC_BASE_URL")

    (tmp_path / "secret_key").write_bytes(b"short")
    monkeypatch.delenv("SCOREKEEPER_SECRET_KEY", raising=False)
    monkeypatch.setattr(config, "instance_secret", lambda _instance: instance_secret(tmp_path))
    err = refused_in("ru", ["migrate"], monkeypatch, capsys)
    assert f"Файл секретного ключа {tmp_path}/secret_key не содержит ключа" in err
    assert "не короче 16 букв и цифр" in err and "does not hold" not in err


def test_a_server_that_keeps_crashing_is_told_in_the_environments_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import sys

    from scorekeeper import keeper

    speak(monkeypatch, "cs")
    crash = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    monkeypatch.setattr(keeper, "worker_command", lambda fd, threads, balance=None: crash)
    said = io.StringIO()
    given_up = pytest.raises(keeper.KeeperError, match="server se zastavil 5× během 60 sekund")
    with keeper.listen("127.0.0.1", 0) as sock, given_up:
        keeper.keep_serving(sock, 1, err=said)
    assert said.getvalue().count("spouští se znovu. Už uložená rozdání zůstávají.") == 4
    assert "started again" not in said.getvalue()


def test_every_settings_and_key_file_trouble_is_a_phrase_the_catalogs_translate() -> None:
    """What ``explain`` tells of a ``SecretKeyError`` or ``SettingsError`` is their message:
    each is a ``phrase`` with a literal msgid, translated in every language."""
    package = Path(cli.__file__).parent
    raised = 0
    for name in ("secret_key.py", "config.py"):
        tree = ast.parse((package / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if called and node.func.id in ("SecretKeyError", "SettingsError"):
                raised += 1
                made = node.args[0]
                assert isinstance(made, ast.Call) and isinstance(made.func, ast.Name)
                assert made.func.id == "phrase", f"{name}:{node.lineno}"
        for lang in LANGUAGES:
            translations = gettext.translation("messages", TRANSLATIONS, [lang])
            for (msgid,) in _phrases(package / name):
                assert translations.gettext(msgid) != msgid, (lang, msgid)
    assert raised >= 6


def test_the_flask_club_owner_command_speaks_the_environments_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorekeeper.app import create_app
    from scorekeeper.extensions import db
    from scorekeeper.services import clubs

    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "test"})
    with app.app_context():
        db.create_all()
        clubs.create_club("Old club")
        runner = app.test_cli_runner()
        speak(monkeypatch, "ru")
        result = runner.invoke(args=["club-owner", "Old club", "nobody"])
    assert result.exit_code != 0
    assert "Нет аккаунта с именем 'nobody'" in result.output and "No account" not in result.output


def test_several_processes_where_sockets_cannot_be_inherited_are_refused_in_the_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper import keeper

    monkeypatch.setattr(keeper, "CAN_KEEP", False)  # as on Windows
    err = refused_in("ru", ["serve", "--workers", "2"], monkeypatch, capsys)
    assert "--workers 2: для нескольких процессов сервера нужен Linux" in err


def test_reset_link_makes_a_one_time_link_for_any_account_in_the_environments_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The person who runs the server helps an owner, or a member of several clubs, whose
    # password no club's owner may reset.
    from scorekeeper.extensions import db
    from scorekeeper.services import accounts

    app = _migrated_with_ana(tmp_path, monkeypatch)
    err = refused_in("ru", ["reset-link", "nobody"], monkeypatch, capsys)
    assert "'nobody'" in err and "No account" not in err
    speak(monkeypatch, "cs")
    capsys.readouterr()
    assert cli.main(["reset-link", "--host", "127.0.0.1", "--port", "8123", "ANA"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Jednorázový odkaz, kterým si ana zvolí nové heslo, platí 24 hodin.")
    link = re.search(r"http://127\.0\.0\.1:8123(/reset/[\w-]+)", out)
    assert link is not None, out
    with app.app_context():
        reset = accounts.reset_of(link.group(1).removeprefix("/reset/"))
        assert reset is not None and reset.account.username == "ana" and reset.created_by is None
        accounts.use_reset(reset, "a brand new password")
        assert accounts.authenticate("ana", "a brand new password") is not None
        db.session.remove()


def test_release_username_frees_a_closed_accounts_name_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The person who runs the server, for someone who closed their account and comes back.
    from sqlalchemy import func, select

    from scorekeeper.extensions import db
    from scorekeeper.models import RetiredUsername
    from scorekeeper.services import accounts, memberships
    from scorekeeper.services.accounts import AccountError

    app = _migrated_with_ana(tmp_path, monkeypatch)
    err = refused_in("ru", ["release-username", "ANA"], monkeypatch, capsys)
    assert "Аккаунт с именем 'ANA' существует" in err  # an open account's name: kept
    assert "An account is called" not in err
    with app.app_context():
        ana = accounts.find("ana")
        assert ana is not None
        memberships.close_account(ana, "a long enough password")
        db.session.remove()
    err = refused_in("cs", ["release-username", "bo"], monkeypatch, capsys)
    assert "Žádný zrušený účet se nejmenoval 'bo'" in err and "No closed account" not in err
    with app.app_context(), pytest.raises(AccountError, match="patřilo účtu, který byl zrušen"):
        accounts.sign_up("Ana", "another long password")

    speak(monkeypatch, "bs")
    capsys.readouterr()
    assert cli.main(["release-username", " Ana "]) == 0
    out = capsys.readouterr().out
    assert out.startswith("S imenom ' Ana ' se ponovo može registrovati.")
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(RetiredUsername)) == 0
        assert accounts.sign_up("Ana", "another long password").username == "Ana"
        db.session.remove()
    err = refused_in("ru", ["release-username", "ana"], monkeypatch, capsys)  # held again
    assert "Аккаунт с именем 'ana' существует" in err
