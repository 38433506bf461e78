"""rate limit counts kept in the database, shared by every server process

Sign-in, sign-up and reset-link tries were counted in each process's memory: with
``serve --workers 2`` an address had twice the tries. ``rate_limits.DatabaseStorage``
keeps the counts here unless Redis is configured.

Revision ID: f5c1a9e3d7b2
Revises: b9d3e5f7a1c2
Create Date: 2026-12-05 10:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "f5c1a9e3d7b2"
down_revision = "b9d3e5f7a1c2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "rate_limit_counts",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_rate_limit_counts_expires_at", "rate_limit_counts", ["expires_at"])


def downgrade():
    op.drop_index("ix_rate_limit_counts_expires_at", table_name="rate_limit_counts")
    op.drop_table("rate_limit_counts")
