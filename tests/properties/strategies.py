"""Reusable Hypothesis strategies: rule-set dicts, whole valid deals, JSON-like junk.

Valid deals are dealt from a real card supply (``decks`` x 54 cards plus nothing else),
so every entry they produce is possible and the engine must accept it; books are drawn
within the inequalities of RULES.md section 3 so the book checks pass too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from scorekeeper.engine import NATURAL_RANKS, PRESETS, RuleSet

BOOK_KINDS = ("clean", "dirty", "wild")
CARD_KEYS = ("joker", "2", *NATURAL_RANKS, "black3")
WILDS = ("joker", "2")
BOOK_SIZE = 7


# -- rule-set dicts ---------------------------------------------------------------------

slugs = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)


def clean_text(max_size: int, *, required: bool = True) -> st.SearchStrategy[str]:
    """Text the engine keeps as given: no NUL, no surrounding whitespace."""
    text = st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        max_size=max_size,
    ).map(str.strip)
    return text.map(lambda t: t or "x") if required else text


def _layouts() -> st.SearchStrategy[list[list[int]]]:
    layout = st.lists(st.integers(1, 3), min_size=2, max_size=6).map(_at_most_eight)
    return st.lists(layout, min_size=1, max_size=5, unique_by=tuple)


def _at_most_eight(sizes: list[int]) -> list[int]:
    """Drop sides until at most 8 players sit at the table (two sides always fit)."""
    while sum(sizes) > 8:
        sizes = sizes[:-1]
    return sizes


def _minimum_meld(draw: st.DrawFn, deals: int, wide: bool) -> list[Any]:
    top = 10_000 if wide else 300
    if draw(st.booleans()):
        return draw(st.lists(st.integers(0, top), min_size=deals, max_size=deals))
    ats = draw(st.lists(st.integers(-1_000_000 if wide else -5000, 1_000_000), min_size=1,
                        max_size=5, unique=True))  # fmt: skip
    return [[at, draw(st.integers(0, top))] for at in sorted(ats)]


def _card_values(draw: st.DrawFn, base: dict[str, int], wide: bool) -> dict[str, int]:
    values = dict(base)
    changed = draw(st.lists(st.sampled_from(CARD_KEYS), unique=True, max_size=len(CARD_KEYS)))
    for key in changed:
        # Mostly values a table could use; the same value often, so ranges stay possible.
        values[key] = draw(
            st.integers(0, 10_000) if wide else st.sampled_from((0, 1, 5, 10, 15, 20, 25, 50))
        )
    return values


@st.composite
def rule_set_dicts(draw: st.DrawFn, wide: bool = True) -> dict[str, Any]:
    """A valid rule-set dict: a preset with random knobs changed.

    ``wide`` reaches the engine's bounds (huge bonuses, 20 decks, 20 required books);
    without it the values stay where a table could actually play a deal with them.
    """
    preset_id = draw(st.sampled_from(sorted(PRESETS)))
    d = PRESETS[preset_id].to_dict()
    change = set(draw(st.lists(st.sampled_from(KNOBS), unique=True)))
    bonus_top = 100_000 if wide else 2000

    if "id" in change:
        d["id"] = draw(slugs)
    if "text" in change:
        d["name"] = draw(clean_text(80))
        d["description"] = draw(clean_text(300, required=False))
        d["source"] = draw(clean_text(200, required=False))
        d["going_out_conditions"] = draw(st.lists(clean_text(100), max_size=3))
    if "players" in change:
        d["players"] = {"layouts": draw(_layouts())}
    if "decks" in change:
        d["decks"] = draw(st.one_of(st.just("players+1"), st.integers(1, 20 if wide else 8)))
    if "table" in change:
        d["hand_size"] = draw(st.integers(1, 30))
        d["foot_size"] = draw(st.integers(0, 30))
        d["draw"] = draw(st.integers(1, 10))
        d["discard_pickup"] = {
            "cards": draw(st.integers(0, 100)),
            "pile_minimum": draw(st.integers(0, 100)),
            "pair": draw(st.sampled_from(("natural", "natural_or_wild"))),
        }
    if "deals" in change:
        d["deals"] = draw(st.integers(1, 20 if wide else 6))
    if "deals" in change or "minimum_meld" in change:
        d["minimum_meld"] = _minimum_meld(draw, d["deals"], wide)
    if "card_values" in change:
        d["card_values"] = _card_values(draw, d["card_values"], wide)
    if "wild_limit" in change:
        d["wild_limit"] = {
            "max_wilds": draw(st.one_of(st.none(), st.integers(0, 7))),
            "naturals_per_wild": draw(st.integers(0, 6)),
        }
    if "book_bonus" in change:
        d["book_bonus"] = {
            "clean": draw(st.integers(0, bonus_top)),
            "dirty": draw(st.one_of(st.none(), st.integers(0, bonus_top))),
            "wild": draw(st.one_of(st.none(), st.integers(0, bonus_top))),
        }
    limit = d["wild_limit"]
    most = _most_wilds(limit["max_wilds"], limit["naturals_per_wild"])
    if most < 1:
        d["book_bonus"]["dirty"] = None  # no book could hold a wild card
    if "special_books" in change:
        keys = draw(st.lists(slugs.filter(lambda k: k not in BOOK_KINDS), max_size=3, unique=True))
        d["special_books"] = [
            {
                "key": key,
                "name": draw(clean_text(60)),
                "rank": draw(st.sampled_from(NATURAL_RANKS)),
                "bonus": draw(st.integers(0, bonus_top)),
                "wilds": draw(st.booleans()),
            }
            for key in keys
        ]
    if "red_three" in change:
        d["red_three"] = {
            n: draw(st.integers(-bonus_top, bonus_top))
            for n in ("laid", "laid_without_meld", "left", "left_in_foot")
        }
        d["red_three"]["foot_only_if_opponent_out"] = draw(st.booleans())
    if "pile" in change:
        d["pile_blocked_by"] = draw(st.lists(st.sampled_from(("black3", "wild")), unique=True))
        d["one_open_meld_per_rank"] = draw(st.booleans())
    if "going_out" in change:
        d["going_out_bonus"] = draw(st.integers(0, bonus_top))
    if "exact_draw_bonus" in change:
        d["exact_draw_bonus"] = draw(st.integers(0, bonus_top))
    allowed = [k for k in BOOK_KINDS if d["book_bonus"][k] is not None]
    allowed += [s["key"] for s in d["special_books"]]
    if "going_out" in change or any(n and k not in allowed for k, n in _requires(d)):
        kinds = draw(st.lists(st.sampled_from(allowed), unique=True))
        d["going_out_requires"] = {k: draw(st.integers(0, 20 if wide else 2)) for k in kinds}
        # A kind the rule set lacks may still be listed with 0 books.
        for kind in BOOK_KINDS:
            if kind not in allowed and draw(st.booleans()):
                d["going_out_requires"][kind] = 0
    return d


KNOBS = (
    "id", "text", "players", "decks", "table", "deals", "minimum_meld", "card_values",
    "wild_limit", "book_bonus", "special_books", "red_three", "going_out", "exact_draw_bonus",
    "pile",
)  # fmt: skip


def _requires(d: dict[str, Any]) -> list[tuple[str, int]]:
    return list(d["going_out_requires"].items())


def _most_wilds(max_wilds: int | None, per: int) -> int:
    """Reference for RULES.md section 3's ``w``: the most wild cards a 7-card book holds."""
    best = 0
    for w in range(BOOK_SIZE + 1):
        if (max_wilds is None or w <= max_wilds) and BOOK_SIZE - w >= per * w:
            best = w
    return best


def rule_sets(wide: bool = False) -> st.SearchStrategy[RuleSet]:
    """Presets half of the time, otherwise a playable variation of one."""
    varied = rule_set_dicts(wide=wide).map(RuleSet.from_dict)
    return st.one_of(st.sampled_from([PRESETS[k] for k in sorted(PRESETS)]), varied)


# -- valid deals --------------------------------------------------------------------------


@dataclass
class SideCards:
    """One side's true cards, before they are written as an entry."""

    table: dict[str, int] = field(default_factory=dict)  # joker, 2, natural ranks
    left: dict[str, int] = field(default_factory=dict)  # joker, 2, natural ranks, black3
    red_threes: int = 0
    red_threes_left: int = 0  # in hand
    red_threes_left_in_foot: int = 0  # in a foot never picked up
    books: dict[str, int] = field(default_factory=dict)
    went_out: bool = False
    exact_draws: int = 0


@dataclass
class Deal:
    """A valid deal: the rule set, the table and every side's entry as JSON."""

    rules: RuleSet
    rules_ref: Any  # what a request sends as "rules": a preset id or the whole dict
    deal: int
    players: int
    layout: tuple[int, ...]
    decks: int
    cards: list[SideCards]
    sides: list[dict[str, Any]]
    stock: dict[str, int]  # cards no side reported, by key (red3 for red threes)

    def request(self) -> dict[str, Any]:
        """The ``POST /api/v1/score`` request of this deal."""
        return {"rules": self.rules_ref, "deal": self.deal, "players": self.players,
                "sides": self.sides}  # fmt: skip


def face_value(rules: RuleSet, counts: dict[str, int]) -> int:
    """Reference face value of cards counted by single key (no ranges)."""
    return sum(n * rules.card_values[key] for key, n in counts.items())


def books_possible(rules: RuleSet, books: dict[str, int], table: dict[str, int]) -> bool:
    """The three book inequalities of RULES.md section 3, for a table counted by rank."""
    most = _most_wilds(rules.wild_limit.max_wilds, rules.wild_limit.naturals_per_wild)
    wilds = sum(table.get(k, 0) for k in WILDS)
    naturals = sum(table.get(r, 0) for r in NATURAL_RANKS)
    naturals_needed = BOOK_SIZE * books.get("clean", 0) + (BOOK_SIZE - most) * books.get("dirty", 0)
    for special in rules.special_books:
        per = BOOK_SIZE - most if special.wilds else BOOK_SIZE
        naturals_needed += per * books.get(special.key, 0)
    return (
        BOOK_SIZE * sum(books.values()) <= wilds + naturals
        and wilds >= BOOK_SIZE * books.get("wild", 0) + books.get("dirty", 0)
        and naturals >= naturals_needed
    )


def _take(stock: dict[str, int], keys: tuple[str, ...], n: int, into: dict[str, int]) -> bool:
    """Move ``n`` cards of ``keys`` from the stock, largest piles first; False if short."""
    for _ in range(n):
        key = max(keys, key=lambda k: stock[k])
        if stock[key] == 0:
            return False
        stock[key] -= 1
        into[key] = into.get(key, 0) + 1
    return True


def _prepare_going_out(rules: RuleSet, stock: dict[str, int], side: SideCards) -> bool:
    """Put on the table the cards the books needed to go out are made of."""
    most = _most_wilds(rules.wild_limit.max_wilds, rules.wild_limit.naturals_per_wild)
    naturals = wilds = 0
    for kind, needed in rules.going_out_requires.items():
        if kind == "wild":
            wilds += BOOK_SIZE * needed
        elif kind == "dirty":
            naturals, wilds = naturals + (BOOK_SIZE - most) * needed, wilds + most * needed
        else:
            naturals += BOOK_SIZE * needed
    return _take(stock, WILDS, wilds, side.table) and _take(
        stock, NATURAL_RANKS, naturals, side.table
    )


def _draw_books(
    draw: st.DrawFn, rules: RuleSet, side: SideCards, minimum: dict[str, int]
) -> dict[str, int]:
    kinds = list(rules.book_kinds())
    books = {k: minimum.get(k, 0) for k in kinds}
    assert books_possible(rules, books, side.table)
    for kind in draw(st.permutations(kinds)):
        extra = 0
        while extra < 6 and books_possible(rules, {**books, kind: books[kind] + extra + 1},
                                           side.table):  # fmt: skip
            extra += 1
        books[kind] += draw(st.integers(0, extra))
    return books


def _ranges(draw: st.DrawFn, rules: RuleSet, counts: dict[str, int]) -> dict[str, int]:
    """Write natural ranks of equal value as ranges (``8-K``) where the draw says so."""
    out = {k: n for k, n in counts.items() if k not in NATURAL_RANKS}
    run: list[str] = []
    runs: list[list[str]] = []
    for rank in NATURAL_RANKS:
        if run and rules.card_values[run[-1]] != rules.card_values[rank]:
            runs.append(run)
            run = []
        run.append(rank)
    runs.append(run)
    for run in runs:
        if len(run) > 1 and draw(st.booleans()):
            total = sum(counts.get(r, 0) for r in run)
            if total:
                out[f"{run[0]}-{run[-1]}"] = total
        else:
            out.update({r: counts[r] for r in run if r in counts})
    return out


def _block(draw: st.DrawFn, rules: RuleSet, name: str, counts: dict[str, int]) -> dict[str, Any]:
    how = draw(st.sampled_from(("counts", "ranges", "points")))
    if how == "points":
        return {f"{name}_points": face_value(rules, counts)}
    shown = _ranges(draw, rules, counts) if how == "ranges" else dict(counts)
    if draw(st.booleans()):
        shown = {k: n for k, n in shown.items() if n}
    return {name: shown} if shown or draw(st.booleans()) else {}


def side_json(draw: st.DrawFn, rules: RuleSet, side: SideCards) -> dict[str, Any]:
    """One side's entry as the JSON contract, written one of the allowed ways."""
    entry: dict[str, Any] = {}
    full = draw(st.booleans())  # omitted fields are 0 / false
    if side.went_out or full:
        entry["went_out"] = side.went_out
    books = {k: n for k, n in side.books.items() if n or full}
    if books or full:
        entry["books"] = books
    for name in ("red_threes", "red_threes_left", "red_threes_left_in_foot", "exact_draws"):
        if getattr(side, name) or full:
            entry[name] = getattr(side, name)
    entry.update(_block(draw, rules, "melded", side.table))
    entry.update(_block(draw, rules, "left", side.left))
    return entry


@st.composite
def deals(
    draw: st.DrawFn,
    rules: RuleSet | None = None,
    layout: tuple[int, ...] | None = None,
    deal: int | None = None,
) -> Deal:
    """A valid deal, dealt from the real supply of ``decks`` decks."""
    if rules is None:
        rules = draw(rule_sets())
    rules_ref: Any = rules.to_dict()
    if PRESETS.get(rules.id) == rules and draw(st.booleans()):
        rules_ref = rules.id
    if layout is None:
        layout = tuple(draw(st.sampled_from(rules.layouts)))
    players = sum(layout)
    decks = rules.deck_count(players)
    if deal is None:
        deal = draw(st.integers(1, rules.deals))
    stock = {r: 4 * decks for r in NATURAL_RANKS}
    stock |= {"2": 4 * decks, "joker": 2 * decks, "black3": 2 * decks, "red3": 2 * decks}
    cards = [SideCards() for _ in layout]
    goer = draw(st.one_of(st.none(), st.integers(0, len(layout) - 1)))
    if goer is not None and not _prepare_going_out(rules, stock, cards[goer]):
        goer = None
        for side in cards:  # give back what was taken
            for key, n in side.table.items():
                stock[key] += n
            side.table.clear()
    share = max(1, 4 * decks // len(layout))
    for i, side in enumerate(cards):
        scale = draw(st.sampled_from((0, 2, share)))  # no draw per card when 0: small examples
        for key in ("joker", "2", *NATURAL_RANKS) if scale else ():
            n = draw(st.integers(0, min(stock[key], scale)))
            stock[key] -= n
            if n:
                side.table[key] = side.table.get(key, 0) + n
        alone_out = i == goer and layout[i] == 1
        if not alone_out and draw(st.booleans()):
            for key in ("joker", "2", *NATURAL_RANKS, "black3"):
                n = draw(st.integers(0, min(stock[key], 2)))
                stock[key] -= n
                if n:
                    side.left[key] = n
        side.red_threes = draw(st.integers(0, min(stock["red3"], 2)))
        stock["red3"] -= side.red_threes
        if not alone_out:
            side.red_threes_left = draw(st.integers(0, min(stock["red3"], 1)))
            stock["red3"] -= side.red_threes_left
            side.red_threes_left_in_foot = draw(st.integers(0, min(stock["red3"], 1)))
            stock["red3"] -= side.red_threes_left_in_foot
        minimum = dict(rules.going_out_requires) if i == goer else {}
        side.books = _draw_books(draw, rules, side, minimum)
        side.went_out = i == goer
        side.exact_draws = draw(st.integers(0, 2))
    sides = [side_json(draw, rules, side) for side in cards]
    return Deal(rules, rules_ref, deal, players, layout, decks, cards, sides, stock)


# -- JSON-like junk ---------------------------------------------------------------------

PLAUSIBLE_KEYS = (
    "rules", "deal", "players", "sides", "went_out", "books", "red_threes", "red_threes_left",
    "red_threes_left_in_foot", "left_in_foot", "foot_only_if_opponent_out", "pile_blocked_by",
    "one_open_meld_per_rank", "black3",
    "melded", "left", "melded_points", "left_points", "exact_draws", "clean", "dirty", "wild",
    "joker", "2", "A", "K", "8-K", "4-7", "K-8", "3", "black3", "red3", "running_total",
    "melds", "rank", "naturals", "jokers", "twos", "top_card", "pile_size", *KNOBS,
    "layouts", "max_wilds", "naturals_per_wild", "laid", "laid_without_meld", "key", "bonus",
    "name", "hand_size", "foot_size", "discard_pickup", "cards", "pile_minimum", "pair",
    "going_out_bonus", "going_out_requires", "going_out_conditions", "tie", "classic",
)  # fmt: skip

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from((0, 1, -1, 7, 2**31, 2**63, 10**6, 10**6 + 1, 2000, 2001)),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from((math.nan, math.inf, -math.inf, 3.0, 2.5, -0.0, 1e300)),
    st.text(),
    st.sampled_from(("", "\x00", "classic", "four-books", "players+1", "draw", "K", "wild")),
    st.sampled_from(PLAUSIBLE_KEYS),
)
keys = st.one_of(st.text(max_size=12), st.sampled_from(PLAUSIBLE_KEYS))

json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(keys, children, max_size=6),
    ),
    max_leaves=25,
)


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one to three random changes deep inside: replaced, dropped or added."""
    for _ in range(draw(st.integers(1, 3))):
        value = _mutate_once(draw, value)
    return value


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*path, i))
    return found


def _mutate_once(draw: st.DrawFn, value: Any) -> Any:
    path = draw(st.sampled_from(_paths(value)))
    if not path:
        return draw(json_values)
    root = _copy(value)
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = draw(st.sampled_from(("replace", "drop", "add", "wrap")))
    if action == "replace":
        parent[last] = draw(json_values)
    elif action == "drop":
        del parent[last]
    elif action == "wrap":
        parent[last] = [parent[last]]
    elif isinstance(parent, dict):
        parent[draw(keys)] = draw(json_values)
    else:
        parent.insert(last, draw(json_values))
    return root


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


@st.composite
def meld_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed ``POST /api/v1/meld`` request (the melds may well be illegal)."""
    rules = draw(rule_sets())
    melds = []
    for _ in range(draw(st.integers(0, 4))):
        rank = draw(st.sampled_from((*NATURAL_RANKS, "wild")))
        meld: dict[str, Any] = {"rank": rank, "jokers": draw(st.integers(0, 3)),
                                "twos": draw(st.integers(0, 3))}  # fmt: skip
        if rank != "wild":
            meld["naturals"] = draw(st.integers(0, 8))
        melds.append(meld)
    if melds and melds[0]["rank"] != "wild" and draw(st.booleans()):
        melds[0]["top_card"] = True
    return {
        "rules": rules.id if PRESETS.get(rules.id) == rules else rules.to_dict(),
        "deal": draw(st.integers(1, rules.deals)),
        "running_total": draw(st.integers(-5000, 20_000)),
        "melds": melds,
    }
