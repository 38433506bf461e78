"""The minimum-meld check (RULES.md sections 1 and 6): is a first meld enough to go down?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._read import join, read_int, read_list, read_mapping, unknown_keys
from .cards import NATURAL_RANKS, RANK_NAMES
from .errors import MeldError, Problems, phrase, phrase_n
from .resolve import resolve_rules
from .rules import RuleSet
from .scoring import read_deal

WILD: Final = "wild"
MELD_KEYS: Final = ("rank", "naturals", "jokers", "twos", "top_card")
REQUEST_KEYS: Final = ("rules", "deal", "running_total", "melds", "pile_size")
MIN_MELD, MAX_MELD = 3, 7


@dataclass(frozen=True)
class Meld:
    """One group a side means to lay down: a rank (or ``"wild"``) and its cards."""

    rank: str
    naturals: int = 0
    jokers: int = 0
    twos: int = 0
    top_card: bool = False  # made with the top card of the discard pile (counted in naturals)

    @property
    def wilds(self) -> int:
        """How many wild cards (jokers and twos) the meld holds."""
        return self.jokers + self.twos

    @property
    def size(self) -> int:
        """How many cards the meld holds."""
        return self.naturals + self.wilds

    def value(self, rules: RuleSet) -> int:
        """The face value of the meld's cards."""
        natural = 0 if self.rank == WILD else self.naturals * rules.card_values[self.rank]
        return (
            natural + self.jokers * rules.card_values["joker"] + self.twos * rules.card_values["2"]
        )


@dataclass(frozen=True)
class MeldVerdict:
    """Whether one meld is legal, its value, and the reasons when it is not."""

    legal: bool
    value: int
    reasons: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of RULES.md section 6."""
        return {"legal": self.legal, "value": self.value, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class MeldCheck:
    """The answer to "is this enough to go down?"."""

    deal: int
    minimum: int
    counted: int
    enough: bool
    short_by: int
    melds: tuple[MeldVerdict, ...]

    def as_dict(self) -> dict[str, Any]:
        """The JSON response of ``POST /api/v1/meld``."""
        return {
            "deal": self.deal,
            "minimum": self.minimum,
            "counted": self.counted,
            "enough": self.enough,
            "short_by": self.short_by,
            "melds": [m.as_dict() for m in self.melds],
        }


def meld_reasons(rules: RuleSet, meld: Meld, pile_size: int | None = None) -> tuple[str, ...]:
    """Every reason ``meld`` is not a legal meld under ``rules`` (empty when it is)."""
    reasons: list[str] = []
    if meld.size < MIN_MELD:
        reasons.append(
            phrase(
                "A meld needs at least %(least)s cards; this one has %(size)s.",
                least=MIN_MELD,
                size=meld.size,
            )
        )
    elif meld.size > MAX_MELD:
        reasons.append(
            phrase(
                "A meld holds at most %(most)s cards; this one has %(size)s.",
                most=MAX_MELD,
                size=meld.size,
            )
        )
    if meld.rank == WILD:
        if rules.book_bonus.get("wild") is None:
            reasons.append(
                phrase(
                    "This rule set has no wild books, so a meld of only wild cards is not allowed."
                )
            )
        if meld.top_card:
            reasons.extend(_wild_pickup_reasons(rules, meld, pile_size))
        return tuple(reasons)
    if meld.wilds and not rules.wild_limit.allows(meld.naturals, meld.wilds):
        most = rules.wild_limit.most_wilds(meld.size)
        allowed = (
            phrase("no wild card")
            if most == 0
            else phrase_n("at most %(num)d wild card", "at most %(num)d wild cards", most)
        )
        reasons.append(
            phrase(
                "A meld of %(size)s cards may hold %(allowed)s; this one has %(wilds)s.",
                size=meld.size,
                allowed=allowed,
                wilds=meld.wilds,
            )
        )
    if meld.top_card:
        reasons.extend(_pickup_reasons(rules, meld, pile_size))
    return tuple(reasons)


def _wild_pickup_reasons(rules: RuleSet, meld: Meld, pile_size: int | None) -> list[str]:
    """A wild card on top: refused where it blocks the pile; elsewhere it is taken with
    two wild cards from hand as a wild-only meld (RULES.md section 5, note (4))."""
    if "wild" in rules.pile_blocked_by:
        return [phrase("The discard pile cannot be taken with a wild card on top.")]
    reasons: list[str] = []
    from_hand = max(0, meld.wilds - 1)  # the top card is one of the meld's wild cards
    if from_hand < 2:
        reasons.append(
            phrase(
                "Taking the pile with a wild card on top needs two wild cards from your hand;"
                " this meld has %(from_hand)s.",
                from_hand=from_hand,
            )
        )
    reasons.extend(_pile_size_reasons(rules, pile_size))
    return reasons


def _pile_size_reasons(rules: RuleSet, pile_size: int | None) -> list[str]:
    minimum = rules.discard_pickup.pile_minimum
    if pile_size is not None and pile_size < minimum:
        return [
            phrase(
                "The pile can only be taken when it holds %(minimum)s cards; it holds %(size)s.",
                minimum=minimum,
                size=pile_size,
            )
        ]
    return []


def _pickup_reasons(rules: RuleSet, meld: Meld, pile_size: int | None) -> list[str]:
    reasons: list[str] = []
    pickup = rules.discard_pickup
    name = RANK_NAMES[meld.rank]
    from_hand = meld.naturals - 1
    if pickup.pair == "natural" and from_hand < 2:
        reasons.append(
            phrase(
                "Taking the pile needs two natural %(name)s from your hand with the top card;"
                " this meld has %(from_hand)s.",
                name=name,
                from_hand=from_hand,
            )
        )
    elif pickup.pair == "natural_or_wild" and (from_hand < 1 or from_hand + meld.wilds < 2):
        reasons.append(
            phrase(
                "Taking the pile needs a pair from your hand with the top card: two %(name)s,"
                " or one and a wild card.",
                name=name,
            )
        )
    reasons.extend(_pile_size_reasons(rules, pile_size))
    return reasons


def check_meld(
    rules: RuleSet,
    deal: int,
    melds: Sequence[Meld],
    running_total: int = 0,
    pile_size: int | None = None,
) -> MeldCheck:
    """Check a side's intended first meld against the minimum for ``deal``.

    Only legal melds count; red threes and book bonuses never do. Where the rule set
    allows one unfinished meld per rank, a meld of a rank that already has an unfinished
    meld (fewer than 7 cards) earlier in ``melds`` is illegal; the first one stays legal,
    and a rank whose earlier meld is a closed book of 7 may start again. Wild-only melds
    count as one rank, ``wild``: the sources forbid two unfinished melds "of equal rank"
    and a table reads two growing wild melds the same way. With a discard-pile
    pickup, the meld marked ``top_card`` holds only the top card and the hand cards
    melded with it, so the other cards taken from the pile are never counted.
    """
    verdicts = []
    open_ranks: set[str] = set()
    for meld in melds:
        reasons = meld_reasons(rules, meld, pile_size)
        if rules.one_open_meld_per_rank and meld.rank in open_ranks:
            reasons += (_second_meld_reason(meld.rank),)
        if meld.size < MAX_MELD:
            open_ranks.add(meld.rank)
        verdicts.append(MeldVerdict(legal=not reasons, value=meld.value(rules), reasons=reasons))
    minimum = rules.minimum_meld.for_deal(deal, running_total)
    counted = sum(v.value for v in verdicts if v.legal)
    return MeldCheck(
        deal=deal,
        minimum=minimum,
        counted=counted,
        enough=all(v.legal for v in verdicts) and counted >= minimum,
        short_by=max(0, minimum - counted),
        melds=tuple(verdicts),
    )


def _second_meld_reason(rank: str) -> str:
    name = phrase("wild cards") if rank == WILD else RANK_NAMES[rank]
    return phrase(
        "Your side already starts a meld of %(name)s: add these cards to it. A meld must"
        " become a book of 7 before another meld of that rank starts.",
        name=name,
    )


def read_melds(problems: Problems, value: Any, path: str = "melds") -> list[Meld]:
    """Read a list of meld dicts (RULES.md 6); record problems with field paths."""
    raw = read_list(problems, value, path)
    melds: list[Meld] = []
    for i, item in enumerate(raw or []):
        field = f"{path}[{i}]"
        data = read_mapping(problems, item, field)
        if data is None:
            continue
        unknown_keys(problems, data, MELD_KEYS, field)
        rank = data.get("rank")
        if rank not in (*NATURAL_RANKS, WILD):
            problems.add(
                join(field, "rank"),
                phrase("Threes are never melded.")
                if rank == "3"
                else phrase("Choose a rank from 4 to A, or wild."),
            )
        counts = [
            read_int(problems, data.get(k, 0), join(field, k), high=MAX_MELD * 4)
            for k in ("naturals", "jokers", "twos")
        ]
        top = data.get("top_card", False)
        if not isinstance(top, bool):
            problems.add(join(field, "top_card"), phrase("Say true or false."))
        if rank == WILD and counts[0]:
            problems.add(join(field, "naturals"), phrase("A wild meld holds only jokers and twos."))
        if rank in (*NATURAL_RANKS, WILD) and None not in counts and isinstance(top, bool):
            naturals, jokers, twos = (int(c or 0) for c in counts)
            melds.append(Meld(str(rank), naturals, jokers, twos, top))
    if sum(m.top_card for m in melds) > 1:
        problems.add(
            path, phrase("Only one meld can be made with the top card of the discard pile.")
        )
    return melds


def check_meld_request(data: Any) -> MeldCheck:
    """Answer the JSON request of ``POST /api/v1/meld``; raise MeldError listing problems."""
    problems = Problems()
    request = read_mapping(problems, data, "request")
    if request is None:
        raise MeldError(problems.items)
    unknown_keys(problems, request, REQUEST_KEYS, "")
    rules = resolve_rules(problems, request.get("rules"))
    deal = read_deal(problems, rules, request.get("deal"), "deal")
    total = read_int(
        problems, request.get("running_total", 0), "running_total", low=-(10**7), high=10**7
    )
    pile = request.get("pile_size")
    pile_size = None if pile is None else read_int(problems, pile, "pile_size", high=10_000)
    melds = read_melds(problems, request.get("melds", []))
    problems.raise_if_any(MeldError)
    assert rules is not None and deal is not None and total is not None
    return check_meld(rules, deal, melds, total, pile_size)
