"""The retired-usernames migration finds the accounts closed before it: each left a
"… left the club." in its clubs' logs, by itself, whose id the log then lost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade
from test_migrations import _empty_app

BEFORE, RETIRED = "d2b6f8a4c1e9", "a3e7c1f9b5d2"


def test_names_closed_before_the_migration_are_retired_and_no_other(
    tmp_path: Path, dburi: str | None
) -> None:
    app = _empty_app(tmp_path, dburi)
    with app.app_context():
        from scorekeeper.extensions import db

        upgrade(revision=BEFORE)
        now = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
        # rows as that revision's schema holds them, written without today's services
        clubs = sa.table(
            "clubs",
            *(sa.column(c) for c in ("public_id", "name", "default_rules", "visibility")),
            sa.column("min_games", sa.Integer),
            sa.column("created_at", sa.DateTime(timezone=True)),
        )
        accounts = sa.table(
            "accounts",
            *(sa.column(c) for c in ("public_id", "username", "username_key", "password_hash")),
            sa.column("created_at", sa.DateTime(timezone=True)),
            sa.column("password_changed_at", sa.DateTime(timezone=True)),
        )
        events = sa.table(
            "club_events",
            sa.column("club_id", sa.Integer),
            sa.column("kind", sa.String),
            sa.column("at", sa.DateTime(timezone=True)),
            sa.column("actor", sa.String),
            sa.column("account_id", sa.Integer),
            sa.column("details", sa.JSON),
        )
        with db.engine.begin() as connection:
            connection.execute(
                clubs.insert(),
                {"public_id": "tuesday-id", "name": "Tuesday", "default_rules": "classic",
                 "visibility": "public", "min_games": 3, "created_at": now},
            )  # fmt: skip
            club = connection.scalar(sa.text("SELECT id FROM clubs"))
            connection.execute(
                accounts.insert(),
                [
                    {"public_id": "owner-id", "username": "Owner", "username_key": "owner",
                     "password_hash": "x", "created_at": now, "password_changed_at": now},
                    {"public_id": "back-id", "username": "Bo", "username_key": "bo",
                     "password_hash": "x", "created_at": now, "password_changed_at": now},
                ],
            )  # fmt: skip
            owner = connection.scalar(
                sa.text("SELECT id FROM accounts WHERE username_key = 'owner'")
            )

            def removed(actor: str, account: int | None, **details: object) -> dict[str, Any]:
                row = {"club_id": club, "kind": "member_removed", "at": now, "actor": actor}
                return {**row, "account_id": account, "details": {"role": "member", **details}}

            connection.execute(
                events.insert(),
                [
                    # closed: left by itself, its id lost with the account (twice: two clubs)
                    removed("Gone  Girl", None, member="Gone  Girl", left=True),
                    removed("Gone  Girl", None, member="Gone  Girl", left=True),
                    # left, and an account of that name is open (it signed up again before)
                    removed("Bo", None, member="Bo", left=True),
                    # taken out by an owner: not closed by it
                    removed("Owner", owner, member="Kicked"),
                    # an owner's account since closed took someone out: that one is not it
                    removed("Owner Gone", None, member="Someone"),
                    # a log's other event by a closed account
                    {"club_id": club, "kind": "settings", "at": now, "actor": "Other",
                     "account_id": None, "details": {}},
                ],
            )  # fmt: skip
        upgrade(revision=RETIRED)
        with db.engine.connect() as connection:
            kept = connection.execute(sa.text("SELECT username_key FROM retired_usernames")).all()
        assert [key for (key,) in kept] == ["gone girl"]

        from scorekeeper.services import accounts as account_service
        from scorekeeper.services.accounts import AccountError

        with pytest.raises(AccountError, match="belonged to an account that was closed"):
            account_service.sign_up("GONE girl", "a long password")
        db.session.rollback()
        downgrade(revision=BEFORE)
        assert "retired_usernames" not in sa.inspect(db.engine).get_table_names()
        downgrade(revision="base")
        db.engine.dispose()
