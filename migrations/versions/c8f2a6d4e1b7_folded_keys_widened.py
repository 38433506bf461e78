"""folded name keys widened to 120: a name of 40 characters can fold to three times as many

A username, a club player's name and a name typed at a match's start are unique whatever
their case, by a key: the name case-folded. Unicode's full case folding turns one
character into as many as three ("ﬃ" is "ffi", "ß" is "ss"), so a name of 40 characters
(the most a form takes) has a key of up to 120. The keys were 40 wide: on PostgreSQL
such a name was refused by the database (a server error); SQLite, which checks no length,
kept it, and the log-in then looked the username up by a key it took for too long.

PostgreSQL widens each column in place (a longer ``varchar`` needs no rewrite, nor its
indexes). SQLite keeps a column's declared type only as the text of its table's
``CREATE TABLE``, and a table copy (Alembic's batch mode) would drop ``accounts`` and
``players``, which other tables refer to: with foreign keys on, that deletes or
orphans their rows. So the text alone is changed, as SQLite's documentation describes for
changes that leave the stored rows as they are (``PRAGMA writable_schema``, the schema's
version moved on); ``VARCHAR(40)`` and ``VARCHAR(120)`` are the same to SQLite's storage.
An SQLite built "defensive" refuses that edit: there the declared widths stay as they
were, which SQLite never enforces, and the migration says so in its log.

Revision ID: c8f2a6d4e1b7
Revises: e4b8d1f6a2c9
Create Date: 2026-12-06 21:00:00.000000
"""

import logging
import re

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c8f2a6d4e1b7"
down_revision = "e4b8d1f6a2c9"
branch_labels = None
depends_on = None

#: (table, column) of every folded key.
KEYS = (("accounts", "username_key"), ("players", "key"), ("known_names", "key"))
NARROW, WIDE = 40, 120


def upgrade():
    _widths(NARROW, WIDE)


def downgrade():
    # A key longer than 40 would not fit: refused, not cut (two names' keys could then be
    # the same, and neither name found again by its own).
    bind = op.get_bind()
    for table, column in KEYS:
        longest = bind.execute(sa.text(f'SELECT max(length("{column}")) FROM {table}')).scalar()
        if longest is not None and longest > NARROW:
            raise RuntimeError(
                f"{table}.{column} holds a key of {longest} characters: "
                f"it cannot be narrowed to {NARROW}"
            )
    _widths(WIDE, NARROW)


def _widths(old: int, new: int) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        for table, column in KEYS:
            op.alter_column(
                table,
                column,
                existing_type=sa.String(length=old),
                type_=sa.String(length=new),
                existing_nullable=False,
            )
        return
    tables = {}
    for table, column in KEYS:
        sql = bind.execute(
            sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table"),
            {"table": table},
        ).scalar_one()
        # the column's own line of the CREATE TABLE: its name (quoted or not), its type
        line = rf'(\n\s*"?{column}"? )VARCHAR\(%d\)( NOT NULL)'
        if re.search(line % new, sql):  # already so (an SQLite that refused the edit)
            continue
        tables[table], found = re.subn(line % old, rf"\1VARCHAR({new})\2", sql)
        if found != 1:
            raise RuntimeError(f"{table}.{column}: not declared VARCHAR({old}) as expected")
    if not tables:
        return
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar()
    bind.exec_driver_sql("PRAGMA writable_schema=ON")
    try:
        for table, sql in tables.items():
            bind.execute(
                sa.text("UPDATE sqlite_master SET sql = :sql WHERE type = 'table' AND name = :t"),
                {"sql": sql, "t": table},
            )
        # every connection, this one too, reads the schema again at its next statement
        bind.exec_driver_sql(f"PRAGMA schema_version={int(version) + 1}")
    except sa.exc.DatabaseError as error:
        # An SQLite built "defensive" refuses any edit of its schema's text (the first
        # UPDATE, before anything changed). It checks no width either: the keys fit as
        # they are, and only the declared type stays behind the models'.
        logging.getLogger("alembic.runtime.migration").warning(
            "SQLite refused to change the keys' declared width (%s); it enforces none, "
            "so they are kept as they are",
            error.orig,
        )
        return
    finally:
        bind.exec_driver_sql("PRAGMA writable_schema=OFF")
    problems = bind.exec_driver_sql("PRAGMA integrity_check").scalars().all()
    if problems != ["ok"]:
        raise RuntimeError(f"SQLite's integrity check after the change: {problems}")
