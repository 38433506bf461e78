"""indexes a save does not need: the match row updated in place

Every deal's save updates its match row (the count of deals, the time, at the end the
winner). ``ix_matches_finished_updated`` held ``updated_at``, so on PostgreSQL no such
update could be made in place (HOT): each added an entry to each of the table's seven
indexes. No query needs it: the home page finds a phone's matches by their public ids.
The three single-column ``club_id`` indexes are the first column of another index
(``ix_matches_club_played``, the players' unique ``(club_id, key)``,
``ix_rating_points_club_order``), which serves every query and foreign key that used
them; each insert paid for them all the same.

Revision ID: e4b8d1f6a2c9
Revises: f5c1a9e3d7b2
Create Date: 2026-12-06 10:00:00.000000
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "e4b8d1f6a2c9"
down_revision = "f5c1a9e3d7b2"
branch_labels = None
depends_on = None

#: (index, table, columns) dropped here and made again by the downgrade.
DROPPED = (
    ("ix_matches_finished_updated", "matches", ["finished", "updated_at"]),
    ("ix_matches_club_id", "matches", ["club_id"]),
    ("ix_players_club_id", "players", ["club_id"]),
    ("ix_rating_points_club_id", "rating_points", ["club_id"]),
)


def upgrade():
    for name, table, _columns in DROPPED:
        op.drop_index(name, table_name=table)


def downgrade():
    for name, table, columns in DROPPED:
        op.create_index(name, table, columns, unique=False)
