"""side results of a season indexed in the club's game order

A late finish counts, for each of its players' season lines, the games in the season
after it, up to the line's streak (services.aggregates._newer). With only an index on
season_id, PostgreSQL intersected the season's rows with the club's game-order range and
so read every side result of the season (2.3 ms after a busy night, growing with the
season); along (season_id, played_on, match_id) each count stops at its limit. The new
index also serves every lookup by season_id alone, so it replaces that one.

Revision ID: b9d3e5f7a1c2
Revises: d4a7c2e9f1b3
Create Date: 2026-12-04 13:40:00.000000
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "b9d3e5f7a1c2"
down_revision = "d4a7c2e9f1b3"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_side_results_season_order", "side_results", ["season_id", "played_on", "match_id"]
    )
    op.drop_index("ix_side_results_season_id", table_name="side_results")


def downgrade():
    op.create_index("ix_side_results_season_id", "side_results", ["season_id"])
    op.drop_index("ix_side_results_season_order", table_name="side_results")
