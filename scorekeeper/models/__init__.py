"""SQLAlchemy models, one module per area; importing this package registers them all."""

from .accounts import (
    ROLES,
    Account,
    AccountSession,
    Invitation,
    Membership,
    PasswordReset,
    RateLimitCount,
    RetiredUsername,
)
from .audit import AuditEvent
from .club_trail import ClubEvent
from .clubs import (
    Club,
    Player,
    RatingPoint,
    RivalTally,
    Season,
    SeatResult,
    SideResult,
    StandingLine,
)
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
    "ROLES",
    "Account",
    "AccountSession",
    "AuditEvent",
    "Club",
    "ClubEvent",
    "Deal",
    "DealSide",
    "Invitation",
    "KnownName",
    "Match",
    "MatchPlayer",
    "MatchSide",
    "Membership",
    "PasswordReset",
    "Player",
    "RateLimitCount",
    "RatingPoint",
    "RetiredUsername",
    "RivalTally",
    "SavedRuleSet",
    "Season",
    "SeatResult",
    "SideResult",
    "StandingLine",
    "is_public_id",
    "new_public_id",
    "utcnow",
]
