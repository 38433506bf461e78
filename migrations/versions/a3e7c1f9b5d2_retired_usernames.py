"""retired usernames: a closed account's name is not taken again

The match trails and club logs name who did something by the account's username at the
time (their ``actor``). Closing an account deleted it, and its username was free again:
someone new could sign up as it and read in the old logs as the one who did those
things. A closed account's casefolded username is kept here, and sign-up refuses it.

Accounts closed before this revision are found where they left a trace: closing logs
"… left the club." in each of the account's clubs (``member_removed`` with ``left``), by
the account itself, whose id the log then loses (``ON DELETE SET NULL``). Such a name
that no account holds now is retired too. An account closed while in no club left no
trace of its name.

Revision ID: a3e7c1f9b5d2
Revises: d2b6f8a4c1e9
Create Date: 2026-12-07 20:40:00.000000
"""

from datetime import datetime

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "a3e7c1f9b5d2"
down_revision = "d2b6f8a4c1e9"
branch_labels = None
depends_on = None


def upgrade():
    retired = op.create_table(
        "retired_usernames",
        sa.Column("username_key", sa.String(length=120), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("username_key"),
    )
    events = sa.table(
        "club_events",
        sa.column("kind", sa.String),
        sa.column("at", sa.DateTime(timezone=True)),
        sa.column("account_id", sa.Integer),
        sa.column("details", sa.JSON),
    )
    bind = op.get_bind()
    held = set(bind.execute(sa.text("SELECT username_key FROM accounts")).scalars())
    closed: dict[str, datetime] = {}
    left = sa.select(events.c.details, events.c.at).where(
        events.c.kind == "member_removed", events.c.account_id.is_(None)
    )
    for details, at in bind.execute(left):
        name = (details or {}).get("member") if (details or {}).get("left") else None
        if isinstance(name, str) and name.strip():
            key = " ".join(name.split()).casefold()  # services.accounts.username_key
            if key not in held:
                closed[key] = max(closed.get(key, at), at)
    if closed:
        op.bulk_insert(retired, [{"username_key": k, "retired_at": t} for k, t in closed.items()])


def downgrade():
    op.drop_table("retired_usernames")
