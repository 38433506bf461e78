"""The scoring engine: rule sets, presets, deal scoring, validation, meld check, matches.

Standard library only: importing it loads no Flask, SQLAlchemy or WTForms module.
"""

from .cards import CARD_KEYS, NATURAL_RANKS
from .entries import CardBlock, SideEntry, value_groups
from .errors import EngineError, EntryError, MatchError, MeldError, Problem, RuleSetError
from .going_out import ChecklistItem, GoingOutChecklist, going_out_checklist
from .match import Match, RecordedDeal, Side, layout_label
from .meld import Meld, MeldCheck, MeldVerdict, check_meld, check_meld_request
from .presets import PRESETS, preset
from .rules import RuleSet
from .scoring import (
    Breakdown,
    DealScore,
    read_deal_entries,
    score_deal,
    score_entries,
    score_request,
    score_side,
)

__all__ = [
    "CARD_KEYS",
    "NATURAL_RANKS",
    "PRESETS",
    "Breakdown",
    "CardBlock",
    "ChecklistItem",
    "DealScore",
    "EngineError",
    "EntryError",
    "GoingOutChecklist",
    "Match",
    "MatchError",
    "Meld",
    "MeldCheck",
    "MeldError",
    "MeldVerdict",
    "Problem",
    "RecordedDeal",
    "RuleSet",
    "RuleSetError",
    "Side",
    "SideEntry",
    "check_meld",
    "check_meld_request",
    "going_out_checklist",
    "layout_label",
    "preset",
    "read_deal_entries",
    "score_deal",
    "score_entries",
    "score_request",
    "score_side",
    "value_groups",
]
