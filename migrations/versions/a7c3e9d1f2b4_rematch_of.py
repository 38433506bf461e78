"""a match remembers the finished match it is the rematch of (one rematch each)

Revision ID: a7c3e9d1f2b4
Revises: e1f2a3b4c5d6
Create Date: 2026-12-01 11:00:00.000000

A second tap on Rematch (or a second phone tapping it) finds the rematch already made and
opens it, instead of starting another match with the same players.

Added in place (ALTER TABLE ... ADD COLUMN and a unique index), never by SQLite's batch
copy of the table: ``matches`` is referenced by deals, sides, results and the audit trail,
and dropping the old copy would delete or refuse their rows. The column is a plain id, not
a foreign key (matches are never deleted), so SQLite can drop it again in a downgrade.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a7c3e9d1f2b4"
down_revision = "e1f2a3b4c5d6"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("matches", sa.Column("rematch_of_id", sa.Integer(), nullable=True))
    op.create_index("uq_matches_rematch_of_id", "matches", ["rematch_of_id"], unique=True)


def downgrade():
    op.drop_index("uq_matches_rematch_of_id", table_name="matches")
    op.drop_column("matches", "rematch_of_id")
