"""What a rules card shows, computed from a RuleSet (no arithmetic in templates).

The card is the table's reference sheet; the match page and the rules pages both render
it from ``templates/rules/_card.html`` through the ``rules_card`` template global.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _
from flask_babel import ngettext

from ...engine import RuleSet, value_groups
from ...engine.cards import BOOK_KINDS, rank_span
from ...engine.entries import key_value
from ...engine.rules import PLAYERS_PLUS_ONE
from ..i18n import text
from ..templating import signed
from .sources import notes, source_text


@dataclass(frozen=True)
class Line:
    """One row of a card table: what, and its value as shown."""

    label: str
    value: str


@dataclass(frozen=True)
class RulesCard:
    """The sections of a rules card, each a list of lines."""

    rules: RuleSet
    card_values: tuple[Line, ...]
    minimum_meld: tuple[Line, ...]
    minimum_by_total: bool
    books: tuple[Line, ...]
    wild_limit: tuple[Line, ...]
    threes: tuple[Line, ...]
    going_out: tuple[Line, ...]
    conditions: tuple[str, ...]
    table: tuple[Line, ...]
    source: str
    notes: tuple[str, ...]


def kind_name(rules: RuleSet, kind: str) -> str:
    """A player's name for a book kind, translated for the standard kinds."""
    names = {"clean": _("Clean book"), "dirty": _("Dirty book"), "wild": _("Wild book")}
    return names.get(kind) or rules.book_name(kind)


def layout_text(layout: tuple[int, ...]) -> str:
    """``(1, 1, 1)`` -> "3 players alone", ``(2, 2)`` -> "2 teams of 2"."""
    sizes = set(layout)
    if sizes == {1}:
        return ngettext("%(num)s player alone", "%(num)s players alone", len(layout))
    if len(sizes) == 1:
        return ngettext(
            "%(num)s team of %(size)s", "%(num)s teams of %(size)s", len(layout), size=layout[0]
        )
    return _("%(sizes)s players", sizes=" + ".join(str(n) for n in layout))


def rules_card(rules: RuleSet) -> RulesCard:
    """Everything the rules card shows for ``rules``."""
    return RulesCard(
        rules=rules,
        card_values=_card_values(rules),
        minimum_meld=_minimum_meld(rules),
        minimum_by_total=not rules.minimum_meld.per_deal,
        books=_books(rules),
        wild_limit=_wild_limit(rules),
        threes=_threes(rules),
        going_out=_going_out(rules),
        conditions=tuple(text(c) for c in rules.going_out_conditions),
        table=_table(rules),
        source=source_text(rules),
        notes=notes(rules),
    )


def _card_values(rules: RuleSet) -> tuple[Line, ...]:
    lines = [
        Line(_("Joker"), str(rules.card_values["joker"])),
        Line(_("Two"), str(rules.card_values["2"])),
    ]
    for key in value_groups(rules):
        span = rank_span(key) or (key,)
        label = span[0] if len(span) == 1 else _("%(low)s to %(high)s", low=span[0], high=span[-1])
        lines.append(Line(label, str(key_value(rules, key))))
    lines.append(Line(_("Black three"), str(rules.card_values["black3"])))
    return tuple(lines)


def _minimum_meld(rules: RuleSet) -> tuple[Line, ...]:
    meld = rules.minimum_meld
    if meld.per_deal:
        return tuple(
            Line(_("Deal %(n)s", n=n), str(value)) for n, value in enumerate(meld.per_deal, 1)
        )
    lines = []
    for i, (at, value) in enumerate(meld.thresholds):
        if i == 0:
            label = (
                _("Below %(next)s", next=meld.thresholds[1][0])
                if len(meld.thresholds) > 1
                else _("Always")
            )
        elif i + 1 < len(meld.thresholds):
            label = _("%(low)s to %(high)s", low=at, high=meld.thresholds[i + 1][0] - 1)
        else:
            label = _("%(low)s and more", low=at)
        lines.append(Line(label, str(value)))
    return tuple(lines)


def _books(rules: RuleSet) -> tuple[Line, ...]:
    lines = []
    for kind in BOOK_KINDS:
        bonus = rules.book_bonus.get(kind)
        lines.append(
            Line(kind_name(rules, kind), _("not allowed") if bonus is None else str(bonus))
        )
    for special in rules.special_books:
        what = _("%(name)s (%(rank)s, wild cards allowed)", name=special.name, rank=special.rank)
        if not special.wilds:
            what = _("%(name)s (%(rank)s, no wild cards)", name=special.name, rank=special.rank)
        lines.append(Line(what, str(special.bonus)))
    return tuple(lines)


def _wild_limit(rules: RuleSet) -> tuple[Line, ...]:
    """The most wild cards per meld size, 3 to 7 cards, sizes with the same limit merged."""
    limit = rules.wild_limit
    spans: list[list[int]] = []
    for size in range(3, 8):
        most = limit.most_wilds(size)
        if spans and spans[-1][2] == most:
            spans[-1][1] = size
        else:
            spans.append([size, size, most])
    lines = []
    for low, high, most in spans:
        label = (
            _("%(n)s cards", n=low)
            if low == high
            else _("%(low)s to %(high)s cards", low=low, high=high)
        )
        value = ngettext("at most %(num)s wild card", "at most %(num)s wild cards", most)
        lines.append(Line(label, value if most else _("no wild cards")))
    return tuple(lines)


def _threes(rules: RuleSet) -> tuple[Line, ...]:
    red = rules.red_three
    return (
        Line(_("Red three laid"), signed(red.laid)),
        Line(_("Red three laid by a side that never melded"), signed(red.laid_without_meld)),
        *_red_threes_left(rules),
        Line(
            _("Black three left in hand"),
            signed(-rules.card_values["black3"]) if rules.card_values["black3"] else "0",
        ),
    )


def _red_threes_left(rules: RuleSet) -> tuple[Line, ...]:
    red = rules.red_three
    if red.hand_and_foot_alike:
        return (Line(_("Red three left in hand or unpicked foot"), signed(red.left)),)
    foot = signed(red.left_in_foot)
    if red.foot_only_if_opponent_out:
        foot = _("%(value)s if another side went out, else 0", value=foot)
    return (
        Line(_("Red three left in a hand"), signed(red.left)),
        Line(_("Red three in a foot nobody picked up"), foot),
    )


def _pile_text(rules: RuleSet) -> str:
    """Which top cards block the pile, and how a wild card on top is taken otherwise."""
    blocked = set(rules.pile_blocked_by)
    if blocked == {"black3", "wild"}:
        return _("blocked by a three or a wild card on top")
    if blocked == {"wild"}:
        return _("blocked by a wild card on top")
    text = _("blocked by a three on top") if blocked else _("no top card blocks it")
    if rules.book_bonus.get("wild") is not None:
        text += _("; a wild card on top is taken with two wild cards from hand")
    return text


def _going_out(rules: RuleSet) -> tuple[Line, ...]:
    needs = [
        _("%(n)s × %(kind)s", n=n, kind=kind_name(rules, kind))
        for kind, n in rules.going_out_requires.items()
        if n > 0
    ]
    lines = [
        Line(_("Going-out bonus"), signed(rules.going_out_bonus)),
        Line(_("Books needed"), ", ".join(needs) if needs else _("none")),
    ]
    if rules.exact_draw_bonus:
        lines.append(Line(_("Exact-draw bonus"), signed(rules.exact_draw_bonus)))
    return tuple(lines)


def _table(rules: RuleSet) -> tuple[Line, ...]:
    pickup = rules.discard_pickup
    take = (
        _("the whole pile")
        if pickup.cards == 0
        else _("the top %(n)s cards (the whole pile if fewer)", n=pickup.cards)
    )
    pair = (
        _("a natural pair from hand")
        if pickup.pair == "natural"
        else _("a pair from hand (wild cards allowed)")
    )
    pickup_text = _("take %(take)s with %(pair)s", take=take, pair=pair)
    if pickup.pile_minimum:
        pickup_text += _("; the pile must hold at least %(n)s cards", n=pickup.pile_minimum)
    decks = _("one more than players") if rules.decks == PLAYERS_PLUS_ONE else str(rules.decks)
    return (
        Line(_("Players"), ", ".join(layout_text(layout) for layout in rules.layouts)),
        Line(_("Decks (54 cards each)"), decks),
        Line(_("Hand and foot"), _("%(h)s and %(f)s cards", h=rules.hand_size, f=rules.foot_size)),
        Line(_("Draw"), ngettext("%(num)s card a turn", "%(num)s cards a turn", rules.draw)),
        Line(_("Discard pile"), pickup_text),
        Line(_("Top card"), _pile_text(rules)),
        Line(
            _("Unfinished melds of one rank"),
            _("one at a time") if rules.one_open_meld_per_rank else _("any number"),
        ),
        Line(_("Deals in a game"), str(rules.deals)),
        Line(_("Tie for first"), _("a draw")),
    )
