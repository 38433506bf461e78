"""SQLAlchemy models, one module per area; importing this package registers them all."""

from .matches import Deal, DealSide, KnownName, Match, MatchPlayer, MatchSide, new_public_id, utcnow
from .rules import SavedRuleSet

__all__ = [
    "Deal",
    "DealSide",
    "KnownName",
    "Match",
    "MatchPlayer",
    "MatchSide",
    "SavedRuleSet",
    "new_public_id",
    "utcnow",
]
