"""standing lines per club, season and player or partnership; indexes for club reads

Revision ID: d1e2f3a4b5c6
Revises: c1d2e3f4a5b6
Create Date: 2026-11-29 18:10:00.000000

The standings and player pages read one stored line per entry instead of summing every
side result of the club on each request (issue 6). The upgrade fills the lines of the
clubs already there from their side results, with the same code the app keeps them with.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import Session

# revision identifiers, used by Alembic.
revision = "d1e2f3a4b5c6"
down_revision = "c1d2e3f4a5b6"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "standing_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("members", sa.String(length=200), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("points_for", sa.Integer(), nullable=False),
        sa.Column("points_against", sa.Integer(), nullable=False),
        sa.Column("deals", sa.Integer(), nullable=False),
        sa.Column("went_out", sa.Integer(), nullable=False),
        sa.Column("books_clean", sa.Integer(), nullable=False),
        sa.Column("books_dirty", sa.Integer(), nullable=False),
        sa.Column("books_wild", sa.Integer(), nullable=False),
        sa.Column("books_other", sa.Integer(), nullable=False),
        sa.Column("red_threes", sa.Integer(), nullable=False),
        sa.Column("red_threes_left", sa.Integer(), nullable=False),
        sa.Column("streak_outcome", sa.String(length=5), nullable=False),
        sa.Column("streak_length", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("club_id", "scope", "kind", "members"),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(
            "ix_matches_club_played", ["club_id", "played_on", "id"], unique=False
        )
    with op.batch_alter_table("side_results", schema=None) as batch_op:
        batch_op.create_index("ix_side_results_match", ["match_id"], unique=False)
    _fill_lines()


def _fill_lines():
    """Compute the lines of every club already in the database."""
    from scorekeeper.services import aggregates

    # The session joins the migration's transaction where there is one (PostgreSQL): its
    # commit then leaves the outer transaction to Alembic; on SQLite it owns its own.
    with Session(bind=op.get_bind()) as session:
        for club_id in session.scalars(sa.text("SELECT id FROM clubs ORDER BY id")).all():
            aggregates.rebuild(session, club_id)
        session.commit()


def downgrade():
    with op.batch_alter_table("side_results", schema=None) as batch_op:
        batch_op.drop_index("ix_side_results_match")

    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_club_played")

    op.drop_table("standing_lines")
