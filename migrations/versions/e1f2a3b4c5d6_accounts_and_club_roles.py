"""accounts, server-side sessions, club memberships, invitations, reset links; owners

Revision ID: e1f2a3b4c5d6
Revises: e7a1d2c3b4f5
Create Date: 2026-12-01 03:20:00.000000

Clubs made before accounts have no owner: ``scorekeeper club-owner CLUB USERNAME`` (or
``flask club-owner``) gives them one. They keep being public (``visibility``), as they
were. Rule sets saved before accounts have no owner and are read-only until copied.
The audit trail's ``account_id`` (kept since e7a1d2c3b4f5, empty until now) gets its
foreign key to the account that made each change.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "e1f2a3b4c5d6"
down_revision = "e7a1d2c3b4f5"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=32), nullable=False),
        sa.Column("username", sa.String(length=40), nullable=False),
        sa.Column("username_key", sa.String(length=40), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("public_id"),
        sa.UniqueConstraint("username_key"),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("remember", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index(
        op.f("ix_account_sessions_account_id"), "account_sessions", ["account_id"], unique=False
    )
    op.create_table(
        "memberships",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("account_id", "club_id"),
    )
    op.create_index(op.f("ix_memberships_club_id"), "memberships", ["club_id"], unique=False)
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("uses_left", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by"], ["accounts.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("public_id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index(op.f("ix_invitations_club_id"), "invitations", ["club_id"], unique=False)
    op.create_table(
        "password_resets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by"], ["accounts.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index(
        op.f("ix_password_resets_account_id"), "password_resets", ["account_id"], unique=False
    )
    # Not in batch mode: on SQLite a batch copies and drops the clubs table, and dropping it
    # cascades to every player, season and result of the club (foreign keys are on).
    op.add_column(
        "clubs",
        sa.Column("visibility", sa.String(length=10), server_default="public", nullable=False),
    )
    with op.batch_alter_table("saved_rule_sets", schema=None) as batch_op:
        batch_op.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("club_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_saved_rule_sets_account_id"), ["account_id"])
        batch_op.create_index(batch_op.f("ix_saved_rule_sets_club_id"), ["club_id"])
        batch_op.create_foreign_key(
            "fk_saved_rule_sets_account_id", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_foreign_key(
            "fk_saved_rule_sets_club_id", "clubs", ["club_id"], ["id"], ondelete="CASCADE"
        )
    # A batch copy of audit_events is safe on SQLite: no table refers to it.
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.create_foreign_key(
            "fk_audit_events_account_id", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )


def downgrade():
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_constraint("fk_audit_events_account_id", type_="foreignkey")
    with op.batch_alter_table("saved_rule_sets", schema=None) as batch_op:
        batch_op.drop_constraint("fk_saved_rule_sets_club_id", type_="foreignkey")
        batch_op.drop_constraint("fk_saved_rule_sets_account_id", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_saved_rule_sets_club_id"))
        batch_op.drop_index(batch_op.f("ix_saved_rule_sets_account_id"))
        batch_op.drop_column("club_id")
        batch_op.drop_column("account_id")
    op.drop_column("clubs", "visibility")  # SQLite 3.35+ drops a column in place
    op.drop_index(op.f("ix_password_resets_account_id"), table_name="password_resets")
    op.drop_table("password_resets")
    op.drop_index(op.f("ix_invitations_club_id"), table_name="invitations")
    op.drop_table("invitations")
    op.drop_index(op.f("ix_memberships_club_id"), table_name="memberships")
    op.drop_table("memberships")
    op.drop_index(op.f("ix_account_sessions_account_id"), table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
