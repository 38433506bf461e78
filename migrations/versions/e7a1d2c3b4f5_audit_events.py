"""audit trail: one event per change to a match's deals

Revision ID: e7a1d2c3b4f5
Revises: d1e2f3a4b5c6
Create Date: 2026-12-01 03:15:00.000000

Every deal recorded, corrected, removed or restored and every reopened match becomes a
row of ``audit_events`` (issue 9). Matches already in the database start with an empty
trail: what happened before this revision was never kept, and inventing "recorded"
events for old deals would state a time and a device that nobody knows.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e7a1d2c3b4f5"
down_revision = "d1e2f3a4b5c6"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("deal_number", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('recorded', 'corrected', 'removed', 'restored', 'reopened')",
            name="ck_audit_events_kind",
        ),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.create_index("ix_audit_events_match", ["match_id", "id"], unique=False)


def downgrade():
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_index("ix_audit_events_match")
    op.drop_table("audit_events")
