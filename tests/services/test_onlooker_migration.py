"""The onlooker-token migration (issue 14) gives every match made before it its own token."""

from __future__ import annotations

from pathlib import Path

from flask_migrate import downgrade, upgrade
from sqlalchemy import text
from test_migrations import _empty_app

ONLOOKERS = "95eccf211143"


def test_matches_made_before_the_migration_each_get_their_own_token(
    tmp_path: Path, dburi: str | None
) -> None:
    app = _empty_app(tmp_path, dburi)
    with app.app_context():
        from scorekeeper.extensions import db

        upgrade(revision="e1f2a3b4c5d6")
        with db.engine.begin() as connection:
            for public_id in ("old-match-one", "old-match-two"):
                connection.execute(
                    text(
                        "INSERT INTO matches (public_id, rules, rules_origin, first_dealer,"
                        " deal_count, finished, reopened, created_at, updated_at)"
                        " VALUES (:p, '{}', 'classic', 0, 0, false, false,"
                        " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                    ),
                    {"p": public_id},
                )
        upgrade(revision=ONLOOKERS)
        with db.engine.connect() as connection:
            rows = connection.execute(
                text("SELECT public_id, onlooker_token FROM matches ORDER BY public_id")
            ).all()
        tokens = [token for _public_id, token in rows]
        assert len(rows) == 2 and all(tokens) and len(set(tokens)) == 2
        assert all(len(token) == 32 and public_id not in token for public_id, token in rows)
        downgrade(revision="base")
        db.engine.dispose()
