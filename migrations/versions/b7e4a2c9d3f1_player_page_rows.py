"""seat results and rival tallies: the player page's rows kept current

The player page sorted and counted every side of the player (best game, latest scores,
rivals and partners), so it grew with the club's history (issue 17). These two tables,
kept current by services.player_rows in the transaction of every changed club match,
answer it in bounded reads. The upgrade fills them for the clubs already there from
their side results, with the same code the app keeps them with.

Revision ID: b7e4a2c9d3f1
Revises: a7c3e9d2b5f1
Create Date: 2026-12-02 03:20:00.000000
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import Session

# revision identifiers, used by Alembic.
revision = "b7e4a2c9d3f1"
down_revision = "a7c3e9d2b5f1"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "seat_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("points_for", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_seat_results_best",
        "seat_results",
        ["player_id", "scope", "points_for", "played_on", "match_id"],
        unique=False,
    )
    op.create_index(
        "ix_seat_results_latest",
        "seat_results",
        ["player_id", "scope", "played_on", "match_id"],
        unique=False,
    )
    op.create_index("ix_seat_results_match", "seat_results", ["match_id"], unique=False)
    op.create_table(
        "rival_tallies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("relation", sa.String(length=7), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["other_id"], ["players.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "scope", "relation", "other_id"),
    )
    _fill()


def _fill():
    """Compute the rows of every club already in the database."""
    from scorekeeper.services import player_rows

    # The session joins the migration's transaction where there is one (PostgreSQL): its
    # commit then leaves the outer transaction to Alembic; on SQLite it owns its own.
    with Session(bind=op.get_bind()) as session:
        for club_id in session.scalars(sa.text("SELECT id FROM clubs ORDER BY id")).all():
            player_rows.rebuild(session, club_id)
        session.commit()


def downgrade():
    op.drop_table("rival_tallies")
    op.drop_index("ix_seat_results_match", table_name="seat_results")
    op.drop_index("ix_seat_results_latest", table_name="seat_results")
    op.drop_index("ix_seat_results_best", table_name="seat_results")
    op.drop_table("seat_results")
