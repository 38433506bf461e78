"""Deal scoring (RULES.md section 2) and its validation (section 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ._read import read_int, read_list, read_mapping, unknown_keys
from .entries import ENTRY_KEYS, PartlyRead, SideEntry, read_side_partly
from .errors import EntryError, Problems, phrase, phrase_n
from .resolve import resolve_rules
from .rules import RuleSet, layout_label
from .supply import check_books, check_supply


@dataclass(frozen=True)
class Breakdown:
    """A side's deal score and its parts; left amounts are the (positive) amounts taken off."""

    card_points: int
    book_bonus: int
    red_threes: int
    going_out: int
    exact_draws: int
    left_points: int
    red_threes_left: int
    total: int

    def as_dict(self) -> dict[str, int]:
        """The JSON shape of RULES.md section 6."""
        return asdict(self)


@dataclass(frozen=True)
class DealScore:
    """A scored deal: its number, its minimum meld and each side's breakdown, in order."""

    deal: int
    minimum_meld: int
    sides: tuple[Breakdown, ...]

    def as_dict(self) -> dict[str, Any]:
        """The JSON response of ``POST /api/v1/score``."""
        return {
            "deal": self.deal,
            "minimum_meld": self.minimum_meld,
            "sides": [b.as_dict() for b in self.sides],
        }


def score_side(rules: RuleSet, entry: SideEntry, opponent_out: bool = False) -> Breakdown:
    """Score one side's entry under ``rules`` without validating it (see ``score_deal``).

    ``opponent_out``: another side went out this deal, which some rule sets need before
    a red three left in an unpicked foot counts (``red_three.foot_only_if_opponent_out``).
    """
    card_points = entry.melded.value(rules)
    book_bonus = sum(n * rules.book_bonus_of(kind) for kind, n in entry.books.items())
    per_three = rules.red_three.laid if entry.has_melded() else rules.red_three.laid_without_meld
    red_threes = entry.red_threes * per_three
    going_out = rules.going_out_bonus if entry.went_out else 0
    exact_draws = entry.exact_draws * rules.exact_draw_bonus
    left_points = entry.left.value(rules)
    red_threes_left = -rules.red_three.left_penalty(
        entry.red_threes_left, entry.red_threes_left_in_foot, opponent_out
    )
    total = (
        card_points + book_bonus + red_threes + going_out + exact_draws
        - left_points - red_threes_left
    )  # fmt: skip
    return Breakdown(
        card_points=card_points,
        book_bonus=book_bonus,
        red_threes=red_threes,
        going_out=going_out,
        exact_draws=exact_draws,
        left_points=left_points,
        red_threes_left=red_threes_left,
        total=total,
    )


def score_deal(
    rules: RuleSet,
    deal: Any,
    players: Any,
    sides: Any,
    side_sizes: Sequence[int] | None = None,
) -> DealScore:
    """Validate a whole deal (see ``read_deal_entries``) and score every side."""
    deal_no, entries = read_deal_entries(rules, deal, players, sides, side_sizes)
    return score_entries(rules, deal_no, entries)


def score_entries(rules: RuleSet, deal: int, entries: Sequence[SideEntry]) -> DealScore:
    """Score entries that are already valid (read by ``read_deal_entries``, or stored)."""
    return DealScore(
        deal=deal,
        minimum_meld=rules.minimum_meld.for_deal(deal),
        sides=tuple(
            score_side(rules, e, any(o.went_out for j, o in enumerate(entries) if j != i))
            for i, e in enumerate(entries)
        ),
    )


def read_deal_entries(
    rules: RuleSet,
    deal: Any,
    players: Any,
    sides: Any,
    side_sizes: Sequence[int] | None = None,
) -> tuple[int, tuple[SideEntry, ...]]:
    """Read and validate a whole deal: its number, the players and every side's entry.

    ``sides`` holds a ``SideEntry`` or a JSON-like dict per side. Every problem is collected
    (RULES.md section 3) and raised together as ``EntryError``. ``side_sizes`` are how
    many players each side has, when the caller knows them (a recorded match does);
    otherwise they are worked out from the players and the sides where only one seating
    fits (see ``_side_sizes``). Known sizes add the check that the seating is one the rule
    set allows and that a player who went out alone has nothing left.
    """
    problems = Problems()
    deal_no = read_deal(problems, rules, deal)
    count = _read_players(problems, rules, players)
    raw_sides = read_list(problems, sides, "sides")
    read = _read_sides(problems, rules, raw_sides or [], count)
    # A side stands in with what could be read of its entry (a part with a problem empty),
    # so that every problem is listed at once (RULES.md section 6), the other sides' and
    # the rest of its own: the supply's sums only lose the cards left out. Its books are
    # checked against its cards only when both were read, and its going out only when its
    # books were (else they would report a problem the entry does not have).
    entries = [r.entry if r is not None else SideEntry() for r in read]
    unread = [r.unread if r is not None else frozenset({"books", "melded"}) for r in read]
    if len(entries) >= 2 and count is not None:
        sizes = (
            _side_sizes(problems, rules, count, len(entries), side_sizes)
            if len(entries) <= count  # more sides than players is already refused
            else None
        )
        check_supply(problems, rules, rules.deck_count(count), entries)
        for i, entry in enumerate(entries):
            if not unread[i] & {"books", "melded"}:
                check_books(problems, rules, entry, f"sides[{i}]")
        _check_going_out(problems, rules, entries, sizes, unread)
    problems.raise_if_any(EntryError)
    assert deal_no is not None
    return deal_no, tuple(entries)


def read_deal(
    problems: Problems, rules: RuleSet | None, deal: Any, field: str = "deal"
) -> int | None:
    """Read a deal number of this game (1 to ``rules.deals``; only a whole number when the
    rules could not be read, so that its problem is listed with theirs)."""
    number = read_int(problems, deal, field, what=phrase("The deal number"), required=True)
    if number is not None and rules is not None and not 1 <= number <= rules.deals:
        problems.add(
            field,
            phrase_n(
                "This game has %(num)d deal; there is no deal %(number)s.",
                "This game has %(num)d deals; there is no deal %(number)s.",
                rules.deals,
                number=number,
            ),
        )
        return None
    return number


def _read_players(problems: Problems, rules: RuleSet | None, players: Any) -> int | None:
    count = read_int(
        problems,
        players,
        "players",
        low=1,
        high=100,
        what=phrase("The number of players"),
        required=True,
    )
    if count is not None and rules is not None and count not in rules.player_counts:
        problems.add(
            "players",
            phrase(
                "%(rules)s is played by %(counts)s players, not %(count)s.",
                rules=phrase(rules.name),
                counts=_or_list(rules.player_counts),
                count=count,
            ),
        )
        return None
    return count


def _or_list(numbers: Sequence[int]) -> str:
    """``(2, 3, 4)`` -> ``"2, 3 or 4"``."""
    words = [str(n) for n in numbers]
    if len(words) == 1:
        return words[0]
    return phrase("%(some)s or %(last)s", some=", ".join(words[:-1]), last=words[-1])


def _side_sizes(
    problems: Problems,
    rules: RuleSet,
    players: int,
    side_count: int,
    known: Sequence[int] | None,
) -> Sequence[int] | None:
    """Each side's number of players, when known or when only one seating fits.

    The scoring request gives the players and the sides, not who sits where: a seating is
    refused when no layout the rule set allows has that many players in that many sides
    (``four-books`` refuses four players alone and three players in two sides). When
    every side then has one player, or every allowed layout of that shape gives all sides
    one size (two teams of two), the sizes are known; a mixed layout (a pair against one
    player) leaves them unknown, and the check of a player alone is skipped.
    """
    if known is not None:
        layout = tuple(sorted(known))
        allowed = any(tuple(sorted(lay)) == layout for lay in rules.layouts)
        shape = layout_label(layout)
        sizes: Sequence[int] | None = known
    else:
        fitting = {
            tuple(sorted(lay))
            for lay in rules.layouts
            if sum(lay) == players and len(lay) == side_count
        }
        allowed = bool(fitting)
        shape = phrase("%(players)s players in %(sides)s sides", players=players, sides=side_count)
        if side_count == players:
            shape = layout_label((1,) * players)
        uniform = {lay for lay in fitting if len(set(lay)) == 1}
        sizes = next(iter(uniform)) if len(fitting) == 1 and uniform else None
    if not allowed:
        problems.add(
            "sides",
            phrase(
                "%(rules)s is not played with %(shape)s.", rules=phrase(rules.name), shape=shape
            ),
        )
    return sizes


def _read_sides(
    problems: Problems, rules: RuleSet, raw: list[Any], players: int | None
) -> list[PartlyRead | None]:
    """What could be read of each side's entry (None: not an object at all)."""
    _read_sides_count(problems, raw, players)
    return [
        PartlyRead(item, frozenset())
        if isinstance(item, SideEntry)
        else read_side_partly(problems, item, f"sides[{i}]", rules)
        for i, item in enumerate(raw)
    ]


def _read_sides_count(problems: Problems, raw: list[Any], players: int | None) -> None:
    if len(raw) < 2:
        problems.add("sides", phrase("At least two sides play a deal."))
    elif players is not None and len(raw) > players:
        problems.add(
            "sides",
            phrase(
                "%(players)s players cannot make %(sides)s sides.", players=players, sides=len(raw)
            ),
        )


def _check_going_out(
    problems: Problems,
    rules: RuleSet,
    entries: list[SideEntry],
    side_sizes: Sequence[int] | None,
    unread: Sequence[frozenset[str]],
) -> None:
    gone = [i for i, e in enumerate(entries) if e.went_out]
    for i in gone[1:]:
        problems.add(f"sides[{i}].went_out", phrase("Only one side can go out in a deal."))
    for i in gone:
        entry = entries[i]
        # books that could not be read are not known to be missing
        required = rules.going_out_requires if "books" not in unread[i] else {}
        for kind, needed in required.items():
            have = entry.books.get(kind, 0)
            if have < needed:
                name = rules.book_name(kind)
                problems.add(
                    f"sides[{i}].books.{kind}",
                    phrase_n(
                        "Going out needs %(num)d %(kind)s book; this side has %(have)s.",
                        "Going out needs %(num)d %(kind)s books; this side has %(have)s.",
                        needed,
                        kind=phrase(name),
                        have=have,
                    ),
                )
        alone = side_sizes is not None and side_sizes[i] == 1
        if alone and not entry.left.is_empty():
            problems.add(f"sides[{i}].left", phrase("A player who went out has no cards left."))
        for name in ("red_threes_left", "red_threes_left_in_foot"):
            if alone and getattr(entry, name):
                problems.add(
                    f"sides[{i}].{name}", phrase("A player who went out has no red threes left.")
                )


REQUEST_KEYS = ("rules", "deal", "players", "sides")


def score_request(data: Any) -> DealScore:
    """Answer the JSON request of ``POST /api/v1/score``; raise EntryError listing problems."""
    problems = Problems()
    request = read_mapping(problems, data, "request")
    if request is None:
        raise EntryError(problems.items)
    unknown_keys(problems, request, REQUEST_KEYS, "")
    rules = resolve_rules(problems, request.get("rules"))
    if rules is None:
        _read_without_rules(problems, request)
        raise EntryError(problems.items)
    try:
        score = score_deal(rules, request.get("deal"), request.get("players"), request.get("sides"))
    except EntryError as error:
        raise EntryError([*problems.items, *error.problems]) from None
    problems.raise_if_any(EntryError)
    return score


def _read_without_rules(problems: Problems, request: Mapping[str, Any]) -> None:
    """What a request says that can be checked without its rule set (which has a problem
    of its own): the deal's number, the players', the sides' list and each side's keys, so
    that every problem is listed at once (RULES.md 6). A side's cards and books are read by
    the rules (their kinds, their ranges' values) and wait for them."""
    read_deal(problems, None, request.get("deal"))
    _read_players(problems, None, request.get("players"))
    raw = read_list(problems, request.get("sides"), "sides")
    if raw is not None:
        _read_sides_count(problems, raw, None)
        for i, side in enumerate(raw):
            entry = read_mapping(problems, side, f"sides[{i}]")
            if entry is not None:
                unknown_keys(problems, entry, ENTRY_KEYS, f"sides[{i}]")
