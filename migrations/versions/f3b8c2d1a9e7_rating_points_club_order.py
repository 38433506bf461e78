"""rating points indexed in the club's rating order (date, then match)

Finishing a match asks whether any rated match follows it, and a late finish or a
correction replays only what follows it (services.ratings): both read rating points by
(club, date, match), which this index answers without a scan of the club's history.

Revision ID: f3b8c2d1a9e7
Revises: e800c0597305
Create Date: 2026-12-01 19:00:00.000000
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "f3b8c2d1a9e7"
down_revision = "e800c0597305"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_rating_points_club_order",
        "rating_points",
        ["club_id", "played_on", "match_id"],
        unique=False,
    )


def downgrade():
    op.drop_index("ix_rating_points_club_order", table_name="rating_points")
