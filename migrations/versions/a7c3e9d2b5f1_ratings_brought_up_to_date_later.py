"""ratings brought up to date outside the request; rating points ordered by date, match

A change far back in a club's history marks the club's ratings as stale from that match
(``clubs.ratings_stale_on``/``ratings_stale_match``) instead of replaying everything after
it in the request (services.ratings.catch_up). Rating points are ordered by (date, match)
like everything else a club counts; their ``sequence`` (a count of every earlier finished
match, read at each finish) goes, and a player's points get an index in that order. A
player's seats are indexed by (player, side): whether a player sat on a side is one lookup.

Revision ID: a7c3e9d2b5f1
Revises: f3b8c2d1a9e7
Create Date: 2026-12-02 03:10:00.000000
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a7c3e9d2b5f1"
down_revision = "f3b8c2d1a9e7"
branch_labels = None
depends_on = None


# Plain ALTER TABLE, no batch mode: on SQLite (3.35 and later drop a column in place) a
# batch would copy the table, and dropping the old clubs table would cascade to every row
# that references a club.


def upgrade():
    op.add_column("clubs", sa.Column("ratings_stale_on", sa.Date(), nullable=True))
    op.add_column("clubs", sa.Column("ratings_stale_match", sa.Integer(), nullable=True))
    op.drop_column("rating_points", "sequence")
    op.create_index(
        "ix_rating_points_player_order",
        "rating_points",
        ["player_id", "played_on", "match_id"],
        unique=False,
    )
    # whether a player sat on a side: one lookup (the player's seats, in side order)
    op.create_index(
        "ix_match_players_player_side", "match_players", ["player_id", "side_id"], unique=False
    )
    op.drop_index("ix_match_players_player_id", table_name="match_players")


def downgrade():
    op.create_index("ix_match_players_player_id", "match_players", ["player_id"], unique=False)
    op.drop_index("ix_match_players_player_side", table_name="match_players")
    op.drop_index("ix_rating_points_player_order", table_name="rating_points")
    op.add_column(
        "rating_points", sa.Column("sequence", sa.Integer(), nullable=False, server_default="0")
    )
    # as the older code numbered them: the club's rated matches before each point's match
    op.execute(
        "UPDATE rating_points SET sequence = (SELECT count(DISTINCT r.match_id)"
        " FROM rating_points r WHERE r.club_id = rating_points.club_id"
        " AND (r.played_on < rating_points.played_on OR (r.played_on = rating_points.played_on"
        " AND r.match_id < rating_points.match_id)))"
    )
    op.drop_column("clubs", "ratings_stale_match")
    op.drop_column("clubs", "ratings_stale_on")
