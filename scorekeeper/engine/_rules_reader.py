"""Reading a rule-set dict into a RuleSet, with every problem and its field path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._read import join, read_int, read_list, read_mapping, read_text, unknown_keys
from .cards import BOOK_KINDS, CARD_KEYS, NATURAL_RANKS
from .errors import Problems, RuleSetError, phrase, phrase_n
from .rules import (
    DEFAULT_PILE_BLOCKED_BY,
    MAX_DEALS,
    MAX_PLAYERS,
    MIN_DEALS,
    OPTIONAL_KEYS,
    PAIR_KINDS,
    PILE_BLOCKERS,
    PLAYERS_PLUS_ONE,
    REQUIRED_KEYS,
    SLUG,
    TIE_RULES,
    DiscardPickup,
    MinimumMeld,
    RedThree,
    RuleSet,
    SpecialBook,
    WildLimit,
    frozen_map,
)

BONUS_BOUND = 100_000
VALUE_BOUND = 10_000
SANE = 1_000_000  # the largest running-total threshold


def read_rule_set(data: Any) -> RuleSet:
    """Validate ``data`` as a rule-set dict (RULES.md section 4) and build the RuleSet."""
    problems = Problems()
    root = read_mapping(problems, data, "rules")
    if root is None:
        raise RuleSetError(problems.items)
    unknown_keys(problems, root, REQUIRED_KEYS + OPTIONAL_KEYS, "")
    for key in REQUIRED_KEYS:
        # A JSON null is as good as missing: the readers below skip None values.
        if root.get(key) is None:
            problems.add(key, phrase("This field is required."))
    get = root.get

    ident = _identity(problems, root)
    layouts = _layouts(problems, get("players"))
    decks = _decks(problems, get("decks"))
    hand_size = _small(problems, get("hand_size"), "hand_size", 1, 30, phrase("The hand size"))
    foot_size = _small(problems, get("foot_size"), "foot_size", 0, 30, phrase("The foot size"))
    draw = _small(problems, get("draw"), "draw", 1, 10, phrase("The number of cards drawn"))
    pickup = _pickup(problems, get("discard_pickup"))
    deals = _small(
        problems, get("deals"), "deals", MIN_DEALS, MAX_DEALS, phrase("The number of deals")
    )
    minimum = _minimum_meld(problems, get("minimum_meld"), deals)
    values = _card_values(problems, get("card_values"))
    bonus = _book_bonus(problems, get("book_bonus"))
    specials = _special_books(problems, get("special_books", []))
    wild_limit = _wild_limit(problems, get("wild_limit"))
    red_three = _red_three(problems, get("red_three"))
    going_out = _value(problems, get("going_out_bonus"), "going_out_bonus", 0, BONUS_BOUND)
    conditions = _conditions(problems, get("going_out_conditions", []))
    exact = read_int(problems, get("exact_draw_bonus", 0), "exact_draw_bonus", high=BONUS_BOUND)
    blocked = _pile_blocked_by(problems, get("pile_blocked_by", list(DEFAULT_PILE_BLOCKED_BY)))
    one_open = _flag(problems, get("one_open_meld_per_rank", False), "one_open_meld_per_rank")
    tie = get("tie")
    if tie is not None and tie not in TIE_RULES:
        problems.add("tie", phrase("A tie for first can only be a draw."))

    kinds = [*(k for k in BOOK_KINDS if bonus and bonus.get(k) is not None)]
    kinds += [s.key for s in specials or ()]
    requires = _requires(problems, get("going_out_requires"), kinds, bonus is not None)
    if bonus and wild_limit and bonus.get("dirty") is not None and wild_limit.most_wilds(7) < 1:
        problems.add(
            "book_bonus.dirty",
            phrase(
                "Dirty books are allowed, but the wild-card limit lets no book hold a wild card."
            ),
        )

    problems.raise_if_any(RuleSetError)
    assert ident is not None and layouts is not None and decks is not None
    assert hand_size is not None and foot_size is not None and draw is not None
    assert pickup is not None and deals is not None and minimum is not None
    assert values is not None and bonus is not None and specials is not None
    assert wild_limit is not None and red_three is not None and going_out is not None
    assert conditions is not None and exact is not None and requires is not None
    assert blocked is not None and one_open is not None
    return RuleSet(
        id=ident[0],
        name=ident[1],
        description=ident[2],
        source=ident[3],
        layouts=layouts,
        decks=decks,
        hand_size=hand_size,
        foot_size=foot_size,
        draw=draw,
        discard_pickup=pickup,
        deals=deals,
        minimum_meld=minimum,
        card_values=frozen_map(values),
        book_bonus=frozen_map(bonus),
        special_books=specials,
        wild_limit=wild_limit,
        red_three=red_three,
        going_out_bonus=going_out,
        going_out_requires=frozen_map(requires),
        going_out_conditions=conditions,
        exact_draw_bonus=exact,
        tie=str(tie),
        pile_blocked_by=blocked,
        one_open_meld_per_rank=one_open,
    )


def _identity(problems: Problems, root: Mapping[str, Any]) -> tuple[str, str, str, str] | None:
    ident = root.get("id")
    if ident is not None and (not isinstance(ident, str) or not SLUG.match(ident)):
        problems.add("id", phrase("The id must be lower-case letters, digits and dashes."))
        ident = None
    name = root.get("name")
    if name is not None:
        name = read_text(problems, name, "name", max_length=80)
    description = read_text(
        problems, root.get("description", ""), "description", max_length=4000, required=False
    )
    source = read_text(problems, root.get("source", ""), "source", max_length=500, required=False)
    if ident is None or name is None or description is None or source is None:
        return None
    return str(ident), name, description, source


def _small(
    problems: Problems, value: Any, field: str, low: int, high: int, what: str
) -> int | None:
    return (
        None if value is None else read_int(problems, value, field, low=low, high=high, what=what)
    )


def _value(problems: Problems, value: Any, field: str, low: int, high: int) -> int | None:
    return None if value is None else read_int(problems, value, field, low=low, high=high)


def _layouts(problems: Problems, value: Any) -> tuple[tuple[int, ...], ...] | None:
    if value is None:
        return None
    players = read_mapping(problems, value, "players")
    if players is None:
        return None
    unknown_keys(problems, players, ("layouts",), "players")
    raw = read_list(problems, players.get("layouts"), "players.layouts")
    if raw is None:
        return None
    if not raw:
        problems.add("players.layouts", phrase("Allow at least one way to seat the players."))
    layouts: list[tuple[int, ...]] = []
    for i, item in enumerate(raw):
        field = f"players.layouts[{i}]"
        sizes = read_list(problems, item, field)
        if sizes is None:
            continue
        read = [read_int(problems, s, f"{field}[{j}]", low=1, high=3) for j, s in enumerate(sizes)]
        if any(s is None for s in read):
            continue
        layout = tuple(s for s in read if s is not None)
        if len(layout) < 2:
            problems.add(field, phrase("A game needs at least two sides."))
        elif sum(layout) > MAX_PLAYERS:
            problems.add(
                field,
                phrase_n(
                    "At most %(num)d player can sit at one table.",
                    "At most %(num)d players can sit at one table.",
                    MAX_PLAYERS,
                ),
            )
        elif layout in layouts:
            problems.add(field, phrase("This layout is listed twice."))
        else:
            layouts.append(layout)
    return tuple(layouts)


def _decks(problems: Problems, value: Any) -> int | str | None:
    if value is None:
        return None
    if value == PLAYERS_PLUS_ONE and isinstance(value, str):
        return PLAYERS_PLUS_ONE
    if isinstance(value, str):
        problems.add("decks", phrase('Decks must be a number or "players+1".'))
        return None
    return read_int(problems, value, "decks", low=1, high=20, what=phrase("The number of decks"))


def _pickup(problems: Problems, value: Any) -> DiscardPickup | None:
    if value is None:
        return None
    data = read_mapping(problems, value, "discard_pickup")
    if data is None:
        return None
    unknown_keys(problems, data, ("cards", "pile_minimum", "pair"), "discard_pickup")
    cards = read_int(problems, data.get("cards", 0), "discard_pickup.cards", high=100)
    pile = read_int(problems, data.get("pile_minimum", 0), "discard_pickup.pile_minimum", high=100)
    pair = data.get("pair", "natural")
    if pair not in PAIR_KINDS:
        problems.add("discard_pickup.pair", phrase("The pair must be natural or natural_or_wild."))
        return None
    if cards is None or pile is None:
        return None
    return DiscardPickup(cards=cards, pile_minimum=pile, pair=str(pair))


def _minimum_meld(problems: Problems, value: Any, deals: int | None) -> MinimumMeld | None:
    if value is None:
        return None
    raw = read_list(problems, value, "minimum_meld")
    if raw is None:
        return None
    if not raw:
        problems.add("minimum_meld", phrase("Give a minimum meld for every deal."))
        return None
    if all(isinstance(item, list | tuple) for item in raw):
        return _thresholds(problems, raw)
    values = [
        read_int(problems, v, f"minimum_meld[{i}]", high=VALUE_BOUND) for i, v in enumerate(raw)
    ]
    if deals is not None and len(raw) != deals:
        problems.add(
            "minimum_meld",
            phrase_n(
                "The game has %(num)d deal, so it needs %(num)d minimum meld, not %(given)s.",
                "The game has %(num)d deals, so it needs %(num)d minimum melds, not %(given)s.",
                deals,
                given=len(raw),
            ),
        )
    if any(v is None for v in values):
        return None
    return MinimumMeld(per_deal=tuple(v for v in values if v is not None))


def _thresholds(problems: Problems, raw: list[Any]) -> MinimumMeld | None:
    pairs: list[tuple[int, int]] = []
    for i, item in enumerate(raw):
        field = f"minimum_meld[{i}]"
        if len(item) != 2:
            problems.add(field, phrase("A threshold is a running total and its minimum meld."))
            continue
        at = read_int(problems, item[0], f"{field}[0]", low=-SANE, high=SANE)
        minimum = read_int(problems, item[1], f"{field}[1]", high=VALUE_BOUND)
        if at is None or minimum is None:
            continue
        if pairs and at <= pairs[-1][0]:
            problems.add(f"{field}[0]", phrase("Thresholds must increase from one to the next."))
            continue
        pairs.append((at, minimum))
    if len(pairs) != len(raw):
        return None
    return MinimumMeld(thresholds=tuple(pairs))


def _card_values(problems: Problems, value: Any) -> dict[str, int] | None:
    if value is None:
        return None
    data = read_mapping(problems, value, "card_values")
    if data is None:
        return None
    unknown_keys(problems, data, CARD_KEYS, "card_values")
    values: dict[str, int] = {}
    for key in CARD_KEYS:
        field = join("card_values", key)
        if key not in data:
            problems.add(field, phrase("Every card needs a value."))
            continue
        number = read_int(problems, data[key], field, high=VALUE_BOUND, what=phrase("A card value"))
        if number is not None:
            values[key] = number
    return values if len(values) == len(CARD_KEYS) else None


def _book_bonus(problems: Problems, value: Any) -> dict[str, int | None] | None:
    if value is None:
        return None
    data = read_mapping(problems, value, "book_bonus")
    if data is None:
        return None
    unknown_keys(problems, data, BOOK_KINDS, "book_bonus")
    bonus: dict[str, int | None] = {}
    ok = True
    for kind in BOOK_KINDS:
        field = join("book_bonus", kind)
        raw = data.get(kind)
        if raw is None and kind != "clean":
            bonus[kind] = None
            continue
        number = read_int(problems, raw, field, high=BONUS_BOUND, what=phrase("A book bonus"))
        ok = ok and number is not None
        bonus[kind] = number
    return bonus if ok else None


def _special_books(problems: Problems, value: Any) -> tuple[SpecialBook, ...] | None:
    raw = read_list(problems, value, "special_books")
    if raw is None:
        return None
    books: list[SpecialBook] = []
    for i, item in enumerate(raw):
        field = f"special_books[{i}]"
        data = read_mapping(problems, item, field)
        if data is None:
            continue
        unknown_keys(problems, data, ("key", "name", "rank", "bonus", "wilds"), field)
        key = data.get("key")
        if not isinstance(key, str) or not SLUG.match(key):
            problems.add(
                join(field, "key"), phrase("The key must be lower-case letters and digits.")
            )
            key = None
        elif key in BOOK_KINDS:
            problems.add(join(field, "key"), phrase("This name is a standard kind."))
            key = None
        elif any(b.key == key for b in books):
            problems.add(join(field, "key"), phrase("Two special books have this key."))
            key = None
        name = read_text(problems, data.get("name"), join(field, "name"), max_length=60)
        rank = data.get("rank")
        if rank not in NATURAL_RANKS:
            problems.add(
                join(field, "rank"), phrase("A special book is of one natural rank, 4 to A.")
            )
        bonus = read_int(problems, data.get("bonus"), join(field, "bonus"), high=BONUS_BOUND)
        wilds = data.get("wilds", False)
        if not isinstance(wilds, bool):
            problems.add(join(field, "wilds"), phrase("Say true or false."))
        elif key and name and rank in NATURAL_RANKS and bonus is not None:
            books.append(SpecialBook(key=key, name=name, rank=str(rank), bonus=bonus, wilds=wilds))
    return tuple(books) if len(books) == len(raw) else None


def _wild_limit(problems: Problems, value: Any) -> WildLimit | None:
    if value is None:
        return None
    data = read_mapping(problems, value, "wild_limit")
    if data is None:
        return None
    unknown_keys(problems, data, ("max_wilds", "naturals_per_wild"), "wild_limit")
    raw_max = data.get("max_wilds")
    most = None if raw_max is None else read_int(problems, raw_max, "wild_limit.max_wilds", high=7)
    per = read_int(
        problems, data.get("naturals_per_wild", 0), "wild_limit.naturals_per_wild", high=6
    )
    if per is None or (raw_max is not None and most is None):
        return None
    return WildLimit(max_wilds=most, naturals_per_wild=per)


def _red_three(problems: Problems, value: Any) -> RedThree | None:
    """Read ``red_three``; ``left_in_foot`` and ``foot_only_if_opponent_out`` came later,
    so a rule set without them keeps its old meaning: the foot costs what a hand costs,
    whoever went out (RULES.md section 4)."""
    if value is None:
        return None
    data = read_mapping(problems, value, "red_three")
    if data is None:
        return None
    names = ("laid", "laid_without_meld", "left")
    unknown_keys(problems, data, (*names, "left_in_foot", "foot_only_if_opponent_out"), "red_three")
    read = [
        read_int(problems, data.get(n), join("red_three", n), low=-BONUS_BOUND, high=BONUS_BOUND)
        for n in names
    ]
    raw_foot = data.get("left_in_foot")
    foot = (
        None
        if raw_foot is None
        else read_int(
            problems, raw_foot, "red_three.left_in_foot", low=-BONUS_BOUND, high=BONUS_BOUND
        )
    )
    only = _flag(
        problems,
        data.get("foot_only_if_opponent_out", False),
        "red_three.foot_only_if_opponent_out",
    )
    if any(v is None for v in read) or (raw_foot is not None and foot is None) or only is None:
        return None
    laid, without, left = (int(v or 0) for v in read)
    return RedThree(
        laid=laid,
        laid_without_meld=without,
        left=left,
        left_in_foot=left if foot is None else foot,
        foot_only_if_opponent_out=only,
    )


def _flag(problems: Problems, value: Any, field: str) -> bool | None:
    if not isinstance(value, bool):
        problems.add(field, phrase("Say true or false."))
        return None
    return value


def _pile_blocked_by(problems: Problems, value: Any) -> tuple[str, ...] | None:
    raw = read_list(problems, value, "pile_blocked_by")
    if raw is None:
        return None
    blockers: list[str] = []
    for i, item in enumerate(raw):
        field = f"pile_blocked_by[{i}]"
        if item not in PILE_BLOCKERS or not isinstance(item, str):
            problems.add(field, phrase("The pile can be blocked by black3 or wild only."))
        elif item in blockers:
            problems.add(field, phrase("This card is listed twice."))
        else:
            blockers.append(item)
    return tuple(blockers) if len(blockers) == len(raw) else None


def _conditions(problems: Problems, value: Any) -> tuple[str, ...] | None:
    raw = read_list(problems, value, "going_out_conditions")
    if raw is None:
        return None
    texts = [
        read_text(problems, v, f"going_out_conditions[{i}]", max_length=300)
        for i, v in enumerate(raw)
    ]
    return tuple(t for t in texts if t is not None) if all(texts) else None


def _requires(
    problems: Problems, value: Any, kinds: list[str], kinds_known: bool
) -> dict[str, int] | None:
    if value is None:
        return None
    data = read_mapping(problems, value, "going_out_requires")
    if data is None:
        return None
    requires: dict[str, int] = {}
    for kind, raw in data.items():
        field = join("going_out_requires", kind)
        number = read_int(problems, raw, field, high=20, what=phrase("A number of books"))
        if number is None:
            continue
        if kinds_known and kind not in kinds and number > 0:
            problems.add(
                field,
                phrase(
                    "Going out requires %(kind)s books, but this rule set has none.",
                    kind=phrase(kind),
                ),
            )
            continue
        requires[kind] = number
    return requires
