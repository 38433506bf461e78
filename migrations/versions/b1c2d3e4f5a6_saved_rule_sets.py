"""saved rule sets (house rules)

Revision ID: b1c2d3e4f5a6
Revises: ed2e2cc608a0
Create Date: 2026-11-29 16:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b1c2d3e4f5a6'
down_revision = 'ed2e2cc608a0'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('saved_rule_sets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('public_id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('public_id')
    )


def downgrade():
    op.drop_table('saved_rule_sets')
