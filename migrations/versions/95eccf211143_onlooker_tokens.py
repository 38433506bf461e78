"""onlooker links: each match gets its own unguessable read-only token (issue 14)

Revision ID: 95eccf211143
Revises: a7c3e9d1f2b4
Create Date: 2026-12-01 11:00:00.000000

The onlooker link (``/watch/<token>``) shows a match's scoreboard and deals read-only.
Its token is random and unrelated to the match's public id, so it cannot be turned into
the scoring link. Matches made before this migration get a token here.

Added in place: the column NOT NULL with an empty default (which SQLite's ADD COLUMN
accepts), each match's token written, then a unique index; never by SQLite's batch copy of
``matches``, whose old copy could not be dropped while deals, sides and the audit trail
refer to it (a foreign key would delete or refuse their rows).
"""

import secrets

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "95eccf211143"
down_revision = "a7c3e9d1f2b4"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column(
        "matches",
        sa.Column("onlooker_token", sa.String(length=43), nullable=False, server_default=""),
    )
    bind = op.get_bind()
    matches = sa.table("matches", sa.column("id", sa.Integer), sa.column("onlooker_token"))
    ids = [row.id for row in bind.execute(sa.select(matches.c.id))]
    for match_id in ids:
        bind.execute(
            matches.update()
            .where(matches.c.id == match_id)
            .values(onlooker_token=secrets.token_urlsafe(24))
        )
    op.create_index("uq_matches_onlooker_token", "matches", ["onlooker_token"], unique=True)


def downgrade():
    op.drop_index("uq_matches_onlooker_token", table_name="matches")
    op.drop_column("matches", "onlooker_token")
