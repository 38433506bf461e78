"""Saved rule sets: a table's house rules, kept under a name until a match copies them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..extensions import db
from .matches import new_public_id, utcnow


class SavedRuleSet(db.Model):  # type: ignore[name-defined,misc]
    """A named rule set (``RuleSet.to_dict()``); matches copy it and never point at it.

    ``version`` is SQLAlchemy's version counter: an update whose row changed since it was
    read (two phones editing the same house rules) fails instead of overwriting.
    """

    __tablename__ = "saved_rule_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(32), unique=True, default=new_public_id)
    name: Mapped[str] = mapped_column(String(80))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)  # RuleSet.to_dict(), validated
    version: Mapped[int] = mapped_column(Integer, default=1)
    # Who may edit or delete it: an account, or a club's owners. Rule sets saved before
    # accounts have neither and are read-only (copy them to change them).
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True, index=True
    )
    club_id: Mapped[int | None] = mapped_column(
        ForeignKey("clubs.id", ondelete="CASCADE"), nullable=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        db.DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
