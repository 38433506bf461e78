"""The audit trail: every change to a match's deals, kept as an event (issue 9).

Written by ``services.audit`` in the same transaction as the change it describes, read
only for the match page's history. Standings and totals never read it: they come from
the deals.

Choices worth knowing:

- ``match_id`` refuses the deletion of a match that has a history (``RESTRICT``), rather
  than cascading: the trail exists to show what happened, so it must not vanish as a
  side effect. Whatever deletes a match decides, in its own code, what becomes of its
  trail: an owner deleting a club deletes its matches and their trails on purpose
  (``services.clubs.delete_club``); left behind, they would become casual matches.
- ``account_id`` is the logged-in account that made the change (NULL for a device without
  one); the accounts migration (e1f2a3b4c5d6) added its key, ``ON DELETE SET NULL``: a
  closed account keeps its ``actor`` label (the username at the time) in the trail.
- ``before`` and ``after`` hold the deal as stored: ``{"sides": [{"entry": DealSide.entry,
  "total": DealSide.total}, ...]}``; ``before`` is NULL for ``recorded`` and ``restored``,
  ``after`` is NULL for ``removed``, both are NULL for ``reopened`` (a match event).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..extensions import db
from .matches import utcnow

RECORDED = "recorded"
CORRECTED = "corrected"
REMOVED = "removed"
RESTORED = "restored"
REOPENED = "reopened"
KINDS = (RECORDED, CORRECTED, REMOVED, RESTORED, REOPENED)

#: Longest actor label kept (a device's name, or an account's display name later).
ACTOR_LENGTH = 80


class AuditEvent(db.Model):  # type: ignore[name-defined,misc]
    """One change to a match: a deal recorded, corrected, removed or restored, or a reopen."""

    __tablename__ = "audit_events"
    __table_args__ = (
        # A match's events in the order they happened (the id grows with each commit).
        Index("ix_audit_events_match", "match_id", "id"),
        CheckConstraint(
            "kind IN ('recorded', 'corrected', 'removed', 'restored', 'reopened')",
            name="ck_audit_events_kind",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="RESTRICT"))
    deal_number: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: reopened
    kind: Mapped[str] = mapped_column(String(12))
    at: Mapped[datetime] = mapped_column(db.DateTime(timezone=True), default=utcnow)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    actor: Mapped[str] = mapped_column(String(ACTOR_LENGTH), default="")
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
    )
