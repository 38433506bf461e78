"""the club's log: who changed a club's settings, seasons, members and links

The match trail (``audit_events``) keeps every change to a match's deals; nothing kept
who changed the club itself: its name, default rules or visibility, a season, a member's
role, a member taken out, an invitation or a password reset link made, a finished match
reopened for corrections. ``club_events`` keeps those, written with the change. Clubs
existing before it start with an empty log.

Revision ID: d2b6f8a4c1e9
Revises: c8f2a6d4e1b7
Create Date: 2026-12-07 11:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "d2b6f8a4c1e9"
down_revision = "c8f2a6d4e1b7"
branch_labels = None
depends_on = None

#: The kinds of event, as this revision knows them (models/club_trail.py: KINDS).
KINDS = (
    "created",
    "settings",
    "season_added",
    "invited",
    "invitation_revoked",
    "joined",
    "role_changed",
    "member_removed",
    "player_linked",
    "reset_link",
    "owner_assigned",
    "match_reopened",
)


def upgrade():
    op.create_table(
        "club_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.CheckConstraint(
            "kind IN (" + ", ".join(f"'{kind}'" for kind in KINDS) + ")",
            name="ck_club_events_kind",
        ),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_club_events_club", "club_events", ["club_id", "id"], unique=False)


def downgrade():
    op.drop_index("ix_club_events_club", table_name="club_events")
    op.drop_table("club_events")
