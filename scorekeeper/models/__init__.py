"""SQLAlchemy models, one module per area; importing this package registers them all."""

from .audit import AuditEvent
from .clubs import Club, Player, RatingPoint, Season, SideResult, StandingLine
from .matches import (
    Deal,
    DealSide,
    KnownName,
    Match,
    MatchPlayer,
    MatchSide,
    is_public_id,
    new_public_id,
    utcnow,
)
from .rules import SavedRuleSet

__all__ = [
    "AuditEvent",
    "Club",
    "Deal",
    "DealSide",
    "KnownName",
    "Match",
    "MatchPlayer",
    "MatchSide",
    "Player",
    "RatingPoint",
    "SavedRuleSet",
    "Season",
    "SideResult",
    "StandingLine",
    "is_public_id",
    "new_public_id",
    "utcnow",
]
