"""The migration that widens the folded name keys keeps every row and every reference.

On SQLite it changes the tables' declared types in place (a table copy would drop
``accounts`` and ``players``, which other tables refer to, with foreign keys on), so this
checks that nothing referring to them was lost or orphaned, and that it goes back.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import event, func, inspect, select, text
from test_migrations import _empty_app

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Account, Club, KnownName, MatchPlayer, Player, RatingPoint
from scorekeeper.services import accounts, clubs, matches
from scorekeeper.services.demo import four_deals, play

BEFORE, WIDENED = "e4b8d1f6a2c9", "c8f2a6d4e1b7"
KEYS = (("accounts", "username_key"), ("players", "key"), ("known_names", "key"))
FOLDS = "\ufb03" * 40  # 40 characters, 120 folded


def _widths() -> dict[tuple[str, str], int]:
    inspector = inspect(db.engine)
    return {
        (table, column): next(
            c["type"].length for c in inspector.get_columns(table) if c["name"] == column
        )
        for table, column in KEYS
    }


def _counts() -> dict[str, int]:
    return {
        model.__name__: db.session.scalar(select(func.count()).select_from(model))
        for model in (Account, Player, KnownName, MatchPlayer, RatingPoint)
    }


def _account(username: str, password: str) -> Account:
    """An account as the schema of these revisions holds it (``accounts.sign_up`` also
    looks for the name among the retired ones, a later revision's table)."""
    account = Account(username=username, username_key=accounts.username_key(username))
    account.password_hash = accounts.HASHER.hash(password)
    db.session.add(account)
    db.session.commit()
    return account


def _club(name: str) -> Club:
    """A club as the schema of these revisions holds it (``clubs.create_club`` also
    writes the club's log, a later revision's table)."""
    club = Club(name=name)
    db.session.add(club)
    db.session.commit()
    return club


def test_the_keys_widen_keeping_every_row_and_reference_and_narrow_again(
    tmp_path: Path, dburi: str | None, capfd: pytest.CaptureFixture[str]
) -> None:
    app = _empty_app(tmp_path, dburi)
    with app.app_context():
        upgrade(revision=BEFORE)
        assert set(_widths().values()) == {40}
        club = _club("Tuesday")
        club_id = club.public_id
        play(club, [("Ann", "Bob"), ("Cid", "Dee")], four_deals(500, 300))
        sides = [Side(("Eve", "Fay")), Side(("Gus", "Hal"))]
        matches.start_match(PRESETS["classic"], "classic", sides, 0)  # names offered again
        account = _account("Ana", "eight chars")
        token = accounts.start_session(account)
        before = _counts()
        # the casual match's four names are offered again (a club match's are not)
        assert before["Player"] == 4 and before["RatingPoint"] == 4 and before["KnownName"] == 4
        db.session.remove()

        upgrade(revision=WIDENED)
        assert set(_widths().values()) == {120}
        if db.engine.dialect.name == "sqlite":
            with db.engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA foreign_key_check").all() == []
                assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        assert _counts() == before
        found = accounts.account_of_session(token)
        assert found is not None and found.username == "Ana"
        assert accounts.authenticate("ANA", "eight chars") is not None
        club = clubs.get_club(club_id)
        assert club is not None
        clubs.add_player(club, FOLDS)  # a key of 120 characters
        assert clubs.search_players(club, FOLDS)[0].key == "ffi" * 40
        db.session.remove()

        # back: refused while a key is too long for 40, then done once none is
        with pytest.raises(SystemExit):  # Flask-Migrate logs the error and exits
            downgrade(revision=BEFORE)
        assert "players.key holds a key of 120 characters" in capfd.readouterr().err
        db.session.remove()
        assert set(_widths().values()) == {120}
        with db.engine.begin() as connection:
            connection.execute(text("DELETE FROM players WHERE length(key) > 40"))
        downgrade(revision=BEFORE)
        assert set(_widths().values()) == {40}
        assert _counts() == before
        db.session.remove()
        downgrade(revision="base")
        db.engine.dispose()


def test_an_sqlite_that_refuses_to_edit_its_schema_keeps_the_widths_and_works(
    tmp_path: Path, dburi: str | None, capfd: pytest.CaptureFixture[str]
) -> None:
    """An SQLite built "defensive" refuses ``writable_schema`` edits; simulated here by an
    authorizer that denies every change of ``sqlite_master``. The migration must not
    fail (the app would not start): SQLite enforces no width, so the keys fit anyway."""
    if dburi:
        pytest.skip("SQLite's own schema text")
    app = _empty_app(tmp_path, None)
    with app.app_context():
        upgrade(revision=BEFORE)
        db.engine.dispose()  # the migration's connection is a new one, refusing

        def defensive(connection: sqlite3.Connection, _record: object) -> None:
            def authorize(action: int, table: str | None, *_rest: object) -> int:
                schema = action == sqlite3.SQLITE_UPDATE and table == "sqlite_master"
                return sqlite3.SQLITE_DENY if schema else sqlite3.SQLITE_OK

            connection.set_authorizer(authorize)

        event.listen(db.engine, "connect", defensive)
        try:
            upgrade(revision=WIDENED)
        finally:
            event.remove(db.engine, "connect", defensive)
            db.engine.dispose()
        assert "refused to change the keys' declared width" in capfd.readouterr().err
        assert set(_widths().values()) == {40}
        with db.engine.connect() as connection:
            version = connection.execute(text("SELECT version_num FROM alembic_version"))
            assert version.scalar_one() == WIDENED
        club = _club("Tuesday")
        clubs.add_player(club, FOLDS)  # 120 characters in a column declared 40 wide
        assert clubs.search_players(club, FOLDS)[0].key == "ffi" * 40
        db.session.remove()
        with db.engine.begin() as connection:
            connection.execute(text("DELETE FROM players WHERE length(key) > 40"))
        downgrade(revision=BEFORE)  # nothing to narrow: the widths never changed
        assert set(_widths().values()) == {40}
        downgrade(revision="base")
        db.engine.dispose()
