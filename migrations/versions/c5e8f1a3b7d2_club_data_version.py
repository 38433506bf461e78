"""clubs.data_version: what the club's kept pages are keyed by

A club's standings, player pages and match pages are kept rendered in the
server process (web.page_cache), keyed by this number, which every transaction that
changes anything of the club moves on (services.club_versions). Existing clubs start at
a random number, as new ones do.

Revision ID: c5e8f1a3b7d2
Revises: b7e4a2c9d3f1
Create Date: 2026-12-02 07:20:00.000000
"""

import secrets

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c5e8f1a3b7d2"
down_revision = "b7e4a2c9d3f1"
branch_labels = None
depends_on = None


def upgrade():
    # plain ALTER, not batch: a batch rebuild of clubs on SQLite cascades deletes
    op.add_column(
        "clubs", sa.Column("data_version", sa.Integer(), nullable=False, server_default="0")
    )
    op.execute(sa.text("UPDATE clubs SET data_version = :start").bindparams(
        start=secrets.randbelow(2**30)
    ))


def downgrade():
    op.drop_column("clubs", "data_version")
