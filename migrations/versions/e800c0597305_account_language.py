"""an account's chosen language (en, cs, bs, ru), empty for the browser's

Revision ID: e800c0597305
Revises: 95eccf211143
Create Date: 2026-12-01 11:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e800c0597305"
down_revision = "95eccf211143"
branch_labels = None
depends_on = None


def upgrade():
    # in place (ADD COLUMN): SQLite's batch copy of accounts would drop the table its
    # sessions, memberships and audit events refer to
    op.add_column("accounts", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade():
    op.drop_column("accounts", "language")
