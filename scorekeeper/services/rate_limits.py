"""Rate-limit counts kept in the app's own database (``RATELIMIT_STORAGE_URI=database://``).

Flask-Limiter counts the sign-in, sign-up and reset-link tries of each address. In
memory, each server process counted its own, so ``serve --workers 2`` gave an address
twice the tries; Redis shares them but is one more server to run. This storage keeps
the counts in the table ``rate_limit_counts`` of the database the app already has, so
every process (``serve --workers``, gunicorn's) counts the same tries, with nothing more
to install. It is the default; ``memory://`` and ``redis://`` still work.

Only the fixed window is kept (Flask-Limiter's default strategy): a key's row holds its
count and when its window ends. A try deletes the rows whose window has ended (so
addresses that come once do not pile up, and a key's next try starts a new window), then
inserts its key's row or adds to it and reads the count back in the same statement,
atomically on SQLite and PostgreSQL (``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``).
The count is written in a transaction of its own, committed even when the request that
counted it fails.
"""

from __future__ import annotations

import time
from typing import Any

from limits.storage import Storage
from sqlalchemy import Float, bindparam, delete, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from ..database import READ_ONLY
from ..extensions import db
from ..models import RateLimitCount
from . import upserts

TABLE = RateLimitCount.__table__
NOW = bindparam("now", type_=Float())

_ENDED = delete(TABLE).where(TABLE.c.expires_at <= NOW)
_COUNT = select(TABLE.c.count).where(TABLE.c.key == bindparam("key"), TABLE.c.expires_at > NOW)
_ENDS = select(TABLE.c.expires_at).where(TABLE.c.key == bindparam("key"), TABLE.c.expires_at > NOW)


def _added(excluded: Any) -> dict[str, Any]:
    """A try at a key already counted adds to its count (the window stays). The rows whose
    window ended were deleted just before, in the same transaction: a row found is in its
    window."""
    return {"count": TABLE.c.count + excluded.count}


class DatabaseStorage(Storage):
    """``limits`` storage in the app's database (see the module's docstring). It uses the
    engine of the app handling the request, so one limiter serves every app."""

    STORAGE_SCHEME = ["database"]  # noqa: RUF012  (the type limits declares; its registry reads it)

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        with db.engine.begin() as connection:
            # The ended rows go first: PostgreSQL then takes each writer's row locks in
            # one order (the ended rows by the index, then its own key's row).
            connection.execute(_ENDED, {"now": now})
            add = upserts.statement(connection.dialect.name, TABLE, ("key",), _added)
            count = connection.scalar(
                add.returning(TABLE.c.count),
                {"key": key, "count": amount, "expires_at": now + expiry},
            )
        return int(count or 0)

    def get(self, key: str) -> int:
        with _reading() as connection:
            return int(connection.scalar(_COUNT, {"key": key, "now": time.time()}) or 0)

    def get_expiry(self, key: str) -> float:
        now = time.time()
        with _reading() as connection:
            ends = connection.scalar(_ENDS, {"key": key, "now": now})
        return float(ends) if ends is not None else now

    def check(self) -> bool:
        try:
            with _reading() as connection:
                connection.scalar(select(TABLE.c.key).limit(1))
        except SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        with db.engine.begin() as connection:
            return connection.execute(delete(TABLE)).rowcount

    def clear(self, key: str) -> None:
        with db.engine.begin() as connection:
            connection.execute(delete(TABLE).where(TABLE.c.key == key))


def _reading() -> Connection:
    """A connection that only reads: on SQLite it begins a plain ``BEGIN``, not a writer's
    turn (``database.tune_sqlite``)."""
    return db.engine.connect().execution_options(**{READ_ONLY: True})
