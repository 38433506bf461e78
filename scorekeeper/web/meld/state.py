"""The meld checker's state as it travels in the URL, and the taps that change it.

A state is a plain value: the rule set (or the match it comes from), the deal, the
side's running total, the melds, and what lies on the discard pile. Its canonical query
string is short enough to share::

    /meld?rules=classic&deal=2&m=K.3.0.1&m=Q.3.0.0.t&m=wild.0.2.1

A rule set is named by its origin key, as a match records it: a preset id
(``rules=classic``) or a saved house rule set (``rules=saved:<public_id>``), never by
the rule set's own ``id`` (for a saved rule set only a slug of its name).

Each ``m`` is ``rank.naturals.jokers.twos``, with ``.t`` when that meld is made with the
top card of the discard pile. Reading never judges a meld: the engine does
(``read_melds`` for what can be read at all, ``check_meld`` for what is legal).
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, replace
from typing import Any, Final

from ...engine import NATURAL_RANKS, Meld
from ...engine.meld import WILD

RANKS: Final = (*NATURAL_RANKS, WILD)
COUNT_FIELDS: Final = ("naturals", "jokers", "twos")
TOP_FLAG: Final = "t"
#: Cards that, on top of the discard pile, may block it (RULES.md 4 and 6). A three always
#: does (threes are never melded, so no pair could take it); a wild card only where the
#: rule set's ``pile_blocked_by`` holds ``wild`` (elsewhere it starts a wild-only meld).
BLOCKING_TOPS: Final = ("3", WILD)
MAX_MELDS: Final = 12
#: A natural meld starts as three of its rank; a meld with the top card holds the top card
#: and the pair from hand, which is the same three.
STARTING_NATURALS: Final = 3
NUMBER = re.compile(r"-?\d{1,30}")


@dataclass(frozen=True)
class CheckerState:
    """Everything the checker shows, as it is written in the URL."""

    rules: str = "classic"  # the rule set's origin: a preset id or "saved:<public_id>"
    deal: int = 1
    total: int = 0  # the side's running total (rule sets with thresholds)
    melds: tuple[Meld, ...] = ()
    top: str | None = None  # a card that blocks the discard pile: "3" or "wild"
    size: int | None = None  # cards in the discard pile (rule sets with a pile minimum)
    match: str | None = None  # the public id of the match the check was opened from
    side: int = 0  # the side of that match whose running total sets the minimum

    def query(self) -> list[tuple[str, str]]:
        """The canonical query string, as (name, value) pairs in a stable order."""
        pairs: list[tuple[str, str]] = []
        if self.match:
            pairs.append(("match", self.match))
            if self.side:
                pairs.append(("side", str(self.side)))
        else:
            pairs.append(("rules", self.rules))
        pairs.append(("deal", str(self.deal)))
        if self.total and not self.match:
            pairs.append(("total", str(self.total)))
        pairs.extend(("m", meld_token(m)) for m in self.melds)
        if self.top:
            pairs.append(("top", self.top))
        if self.size is not None:
            pairs.append(("size", str(self.size)))
        return pairs

    @property
    def top_meld(self) -> int | None:
        """The index of the meld made with the top card of the discard pile, if any."""
        return next((i for i, m in enumerate(self.melds) if m.top_card), None)


def meld_token(meld: Meld) -> str:
    """``Meld("K", 3, 0, 1)`` -> ``"K.3.0.1"`` (``".t"`` added for the top card)."""
    token = f"{meld.rank}.{meld.naturals}.{meld.jokers}.{meld.twos}"
    return f"{token}.{TOP_FLAG}" if meld.top_card else token


def token_dict(token: str) -> dict[str, Any] | None:
    """A meld token as the engine's meld dict (RULES.md 6), or None when unreadable.

    Counts that are not numbers stay strings, so that the engine names the problem.
    """
    parts = token.strip().split(".")
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4] != TOP_FLAG):
        return None
    rank = parts[0].upper() if parts[0].upper() in NATURAL_RANKS else parts[0].lower()
    data: dict[str, Any] = {"rank": rank, "top_card": len(parts) == 5}
    for key, part in zip(COUNT_FIELDS, parts[1:4], strict=True):
        data[key] = int(part) if NUMBER.fullmatch(part) else part
    return data


def whole(value: str | None, low: int, high: int) -> int | None:
    """``value`` as a whole number in ``[low, high]``, or None."""
    text = (value or "").strip()
    if not NUMBER.fullmatch(text):
        return None
    number = int(text)
    return number if low <= number <= high else None


def new_meld(rank: str, top_card: bool = False) -> Meld:
    """A meld as a tap starts it: three of a natural rank, or an empty wild meld."""
    return Meld(rank, 0 if rank == WILD else STARTING_NATURALS, top_card=top_card)


def apply_op(
    state: CheckerState,
    op: str,
    origins: Container[str],
    deals: int,
    wild_blocks: bool = True,
) -> CheckerState:
    """The state after one tap; raises ValueError for a tap that makes no sense.

    ``origins`` holds the rule sets that may be chosen, by origin key: a preset id or
    ``saved:<public_id>`` (so ``rules:saved:AbC`` chooses a saved rule set).
    ``wild_blocks``: a wild card on top blocks the pile (else it marks a wild meld).
    """
    verb, _, arg = op.partition(":")
    if verb in ("inc", "dec"):
        return _step(state, arg, 1 if verb == "inc" else -1)
    if verb == "add" and arg in RANKS and len(state.melds) < MAX_MELDS:
        return replace(state, melds=(*state.melds, new_meld(arg)))
    if verb == "remove":
        index = _index(arg, state)
        return replace(state, melds=state.melds[:index] + state.melds[index + 1 :])
    if verb == "top":
        return _top(state, arg, wild_blocks)
    if verb == "clear":
        return replace(state, melds=(), top=None, size=None)
    if verb == "rules" and not state.match and arg in origins:
        return replace(state, rules=arg)
    if verb == "deal" and whole(arg, 1, deals) is not None:
        return replace(state, deal=int(arg))
    if verb == "side" and whole(arg, 0, 99) is not None:
        return replace(state, side=int(arg))
    raise ValueError(op)


def _index(arg: str, state: CheckerState) -> int:
    index = whole(arg, 0, len(state.melds) - 1)
    if index is None:
        raise ValueError(arg)
    return index


def _step(state: CheckerState, arg: str, delta: int) -> CheckerState:
    if arg == "size":
        return replace(state, size=max(0, (state.size or 0) + delta))
    where, _, field = arg.partition(":")
    index = _index(where, state)
    if field not in COUNT_FIELDS:
        raise ValueError(arg)
    meld = state.melds[index]
    count = max(0, getattr(meld, field) + delta)
    melds = list(state.melds)
    melds[index] = replace(meld, **{field: count})
    return replace(state, melds=tuple(melds))


def _top(state: CheckerState, arg: str, wild_blocks: bool = True) -> CheckerState:
    """Choose the top card: a rank marks its meld (starting one), a three blocks the pile;
    a wild card blocks it too, or (where it does not block) marks a wild-only meld."""
    unmarked = tuple(replace(m, top_card=False) for m in state.melds)
    if arg == "none":
        return replace(state, melds=unmarked, top=None)
    if arg == "3" or (arg == WILD and wild_blocks):
        return replace(state, melds=unmarked, top=arg)
    if arg not in RANKS:
        raise ValueError(arg)
    index = next((i for i, m in enumerate(unmarked) if m.rank == arg), None)
    if index is None:
        if len(unmarked) >= MAX_MELDS:
            raise ValueError(arg)
        return replace(state, melds=(*unmarked, new_meld(arg, top_card=True)), top=None)
    melds = list(unmarked)
    melds[index] = replace(melds[index], top_card=True)
    return replace(state, melds=tuple(melds), top=None)
