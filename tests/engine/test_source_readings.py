"""What the three rule sources say, as the presets now read them (issue 10, RULES.md 2-6).

Each test quotes its source (``shared/seeds/``: Bosnian 000_, Czech 002_, Russian 004_)
with an English translation, and works the number out by hand.
"""

from typing import Any

import pytest

from scorekeeper.engine import (
    PRESETS,
    EntryError,
    Match,
    MatchError,
    Meld,
    RuleSet,
    RuleSetError,
    Side,
    check_meld,
    read_deal_entries,
    score_deal,
)
from scorekeeper.engine.meld import meld_reasons

CLASSIC = PRESETS["classic"]
FOUR_BOOKS = PRESETS["four-books"]
WHITNACK = PRESETS["whitnack"]

GONE_OUT = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900}
GONE_OUT_FOUR = {"went_out": True, "books": {"clean": 2, "dirty": 2}, "melded_points": 900}
#: Side B of the standard deal: 185 on the table, a clean book, 75 left in hand.
SIDE_B = {"books": {"clean": 1}, "melded_points": 185, "left_points": 75}


def totals(rules: RuleSet, sides: list[dict[str, Any]], players: int = 4) -> list[int]:
    return [b.total for b in score_deal(rules, 2, players, sides).sides]


def old_shaped(rules: RuleSet) -> dict[str, Any]:
    """A rule-set dict as it was saved before issue 10: no new knobs at all."""
    data = rules.to_dict()
    del data["pile_blocked_by"], data["one_open_meld_per_rank"]
    del data["red_three"]["left_in_foot"], data["red_three"]["foot_only_if_opponent_out"]
    return data


# -- red threes in a foot nobody picked up ---------------------------------------------


def test_classic_charges_a_red_three_in_an_unpicked_foot_when_the_opponents_went_out() -> None:
    """Bosnian: "Ako vaši protivnici 'izađu' (oslobodite se svih karata) prije nego što ste
    zgrabili svoju 'nogu', a postoji crvena trojka, ta tri se računa protiv vas." (If your
    opponents go out before you picked up your foot, and there is a red three in it, that
    three counts against you.)

    Side B of the standard deal, side A went out: 185 + 500 - 75 - 100 = 510.
    """
    side_b = {**SIDE_B, "red_threes_left_in_foot": 1}
    assert totals(CLASSIC, [GONE_OUT, side_b])[1] == 510


def test_classic_does_not_charge_the_foot_when_nobody_went_out() -> None:
    """The same source charges the foot only "if your opponents go out": when the stock ran
    out, nobody did. Side B: 185 + 500 - 75 - 0 = 610 (RULES.md 5, note (3))."""
    side_b = {**SIDE_B, "red_threes_left_in_foot": 1}
    assert totals(CLASSIC, [{}, side_b]) == [0, 610]


def test_classic_does_not_charge_a_side_its_own_foot_when_it_went_out_itself() -> None:
    """A partnership that went out with an unpicked foot (a partner's foot): no opponent
    went out, so the foot's red three costs nothing: 900 + 3100 + 100 - 0 = 4100."""
    side_a = {**GONE_OUT, "red_threes_left_in_foot": 1}
    assert totals(CLASSIC, [side_a, {}]) == [4100, 0]


def test_classic_always_charges_a_red_three_left_in_a_hand() -> None:
    """Bosnian: "Crvene trojke računaju 100 poena u vaš rezultat ako su na tabeli i 100 poena
    protiv vašeg rezultata ako su u ruci." (Red threes count 100 for you on the table and
    100 against you in the hand.) Nobody went out: 185 + 500 - 75 - 100 = 510."""
    side_b = {**SIDE_B, "red_threes_left": 1}
    assert totals(CLASSIC, [{}, side_b]) == [0, 510]


def test_four_books_charges_every_red_three_left_in_an_unpicked_foot() -> None:
    """Czech: "Každá červená trojka, která zůstala v noze, kterou nikdo nezvedl, stojí 100."
    (Every red three left in a foot nobody picked up costs 100.) Nobody went out, two such
    red threes: 185 + 500 - 75 - 2x100 = 410."""
    side_b = {**SIDE_B, "red_threes_left_in_foot": 2}
    assert totals(FOUR_BOOKS, [{}, side_b]) == [0, 410]


def test_whitnack_names_no_penalty_for_a_red_three_not_laid() -> None:
    """Russian: "при отсутствии этой красной тройки партнеры не получат за них бонусные
    баллы" (without this red three laid the partners do not get bonus points for it): a
    lost bonus, no penalty (RULES.md 5, note (2)). One red three in hand, one in the foot,
    side A went out: 185 + 500 - 75 - 0 - 0 = 610."""
    side_b = {**SIDE_B, "red_threes_left": 1, "red_threes_left_in_foot": 1}
    assert totals(WHITNACK, [GONE_OUT, side_b]) == [4100 - 1500 + 150, 610]


def test_the_breakdown_sums_both_red_three_penalties() -> None:
    """RULES.md 6: the response's ``red_threes_left`` sums both penalties. Four books, one
    red three in hand and one in the foot: 100 + 100 = 200 taken off."""
    side_b = {**SIDE_B, "red_threes_left": 1, "red_threes_left_in_foot": 1}
    breakdown = score_deal(FOUR_BOOKS, 2, 4, [GONE_OUT_FOUR, side_b]).sides[1]
    assert (breakdown.red_threes_left, breakdown.total) == (200, 410)


@pytest.mark.parametrize(
    ("rules", "alike"), [(CLASSIC, False), (FOUR_BOOKS, True), (WHITNACK, True)]
)
def test_a_rule_set_says_whether_hand_and_foot_red_threes_cost_the_same(
    rules: RuleSet, alike: bool
) -> None:
    """The deal form keeps one stepper where they do (RULES.md 2)."""
    assert rules.red_three.hand_and_foot_alike is alike


def test_red_threes_in_a_foot_count_against_the_supply() -> None:
    """Five decks hold 10 red threes: 4 laid + 4 in hand + 3 in a foot = 11 is refused."""
    sides = [{"red_threes": 4, "red_threes_left": 4}, {"red_threes_left_in_foot": 3}]
    with pytest.raises(EntryError) as error:
        score_deal(FOUR_BOOKS, 1, 4, sides)
    assert [p.field for p in error.value.problems] == ["sides[1].red_threes_left_in_foot"]
    assert "report 11" in error.value.problems[0].message


def test_a_player_alone_who_went_out_has_no_red_three_left_in_a_foot() -> None:
    """Bosnian: going out is "'izađu' (oslobodite se svih karata)" (go out: rid yourselves
    of all cards), and a red three comes up when found: a player alone who went out holds
    none in a hand or a foot. Two such red threes are two errors, one per field."""
    side = {**GONE_OUT_FOUR, "red_threes_left_in_foot": 1, "red_threes_left": 1}
    with pytest.raises(EntryError) as error:
        score_deal(FOUR_BOOKS, 1, 2, [side, {}])
    assert [p.field for p in error.value.problems] == [
        "sides[0].red_threes_left",
        "sides[0].red_threes_left_in_foot",
    ]


# -- seatings the scoring request did not check -----------------------------------------


@pytest.mark.parametrize(
    ("rules", "players", "sides", "message"),
    [
        (FOUR_BOOKS, 4, 4, "Four books is not played with 4 players alone."),
        (FOUR_BOOKS, 3, 2, "Four books is not played with 3 players in 2 sides."),
        (WHITNACK, 4, 3, "Whitnack is not played with 4 players in 3 sides."),
    ],
)
def test_a_seating_the_rule_set_does_not_allow_is_refused(
    rules: RuleSet, players: int, sides: int, message: str
) -> None:
    """Czech: "čtyři hrají ve dvou dvojicích ..., dva nebo tři hrají každý sám" (four play
    in two pairs, two or three each alone); Russian: "Сколько игроков 4 (2*2)"."""
    with pytest.raises(EntryError) as error:
        score_deal(rules, 1, players, [{} for _ in range(sides)])
    assert [(p.field, p.message) for p in error.value.problems] == [("sides", message)]


def test_a_known_seating_the_rule_set_does_not_allow_is_refused() -> None:
    with pytest.raises(EntryError) as error:
        score_deal(FOUR_BOOKS, 1, 4, [{}, {}], side_sizes=(1, 3))
    assert error.value.problems[0].message == "Four books is not played with 1 + 3 players."


@pytest.mark.parametrize("left", [{"left_points": 5}, {"left": {"black3": 1}}])
def test_a_player_alone_who_went_out_is_refused_cards_left_without_a_match(
    left: dict[str, Any],
) -> None:
    """Bosnian: "'izađu' (oslobodite se svih karata)" (go out: rid yourselves of all
    cards). Two players in two sides are two players alone: the request alone shows that
    5 points, or a black three (5), left beside the player who went out cannot be."""
    with pytest.raises(EntryError) as error:
        score_deal(FOUR_BOOKS, 1, 2, [{**GONE_OUT_FOUR, **left}, {}])
    assert [p.field for p in error.value.problems] == ["sides[0].left"]


def test_two_teams_of_two_may_go_out_with_a_partner_still_holding_cards() -> None:
    """Four players in two sides can only be two pairs: 900 + 1000 + 600 + 100 - 40."""
    side = {**GONE_OUT_FOUR, "left_points": 40}
    assert totals(FOUR_BOOKS, [side, {}]) == [2560, 0]


def test_a_mixed_seating_leaves_the_player_alone_unknown() -> None:
    """A pair against one player: the request does not say who sits alone, so cards left
    beside a side that went out are scored, not refused: 900 + 500 + 100 - 40 = 1460."""
    data = {**CLASSIC.to_dict(), "players": {"layouts": [[1, 2]]}, "going_out_requires": {}}
    rules = RuleSet.from_dict(data)
    side = {"went_out": True, "books": {"clean": 1}, "melded_points": 900, "left_points": 40}
    assert totals(rules, [side, {}], players=3) == [1460, 0]


# -- the discard pile ------------------------------------------------------------------


def test_classic_takes_a_wild_card_on_top_with_two_wild_cards_from_hand() -> None:
    """Bosnian: "Gornja karta odbačene ne može biti (crna) trojka" (the top card of the
    discard cannot be a (black) three), and "spoj se može u potpunosti napraviti od
    džokera" (a meld may be made entirely of wild cards): the joker on top and two jokers
    from hand make a wild meld of 3 x 50 = 150, enough for deal 2 (90)."""
    check = check_meld(CLASSIC, 2, [Meld("wild", jokers=3, top_card=True)])
    assert (check.melds[0].legal, check.counted, check.enough) == (True, 150, True)


def test_a_wild_card_on_top_needs_two_wild_cards_from_hand() -> None:
    """The top joker and one two from hand: one wild card from hand, not two."""
    reasons = meld_reasons(CLASSIC, Meld("wild", jokers=1, twos=1, top_card=True))
    assert (
        "Taking the pile with a wild card on top needs two wild cards from your hand;"
        " this meld has 1." in reasons
    )


def test_four_books_never_takes_the_pile_with_a_wild_card_on_top() -> None:
    """Czech: "nikdy, když je navrchu divoká karta nebo trojka" (never when a wild card or
    a three is on top)."""
    assert "The discard pile cannot be taken with a wild card on top." in meld_reasons(
        FOUR_BOOKS, Meld("wild", jokers=3, top_card=True)
    )


def test_whitnack_takes_a_wild_card_on_top_only_from_a_pile_of_seven() -> None:
    """Russian: "верхняя карта стопки сброса не должна быть тройкой" (the top card must not
    be a three) and "при условии, что в стопке сброса есть не менее 7-и карт" (provided the
    pile holds at least 7 cards). A joker and two twos: 50 + 2 x 20 = 90."""
    meld = Meld("wild", jokers=1, twos=2, top_card=True)
    assert check_meld(WHITNACK, 2, [meld], pile_size=7).enough
    assert meld_reasons(WHITNACK, meld, pile_size=6) == (
        "The pile can only be taken when it holds 7 cards; it holds 6.",
    )


def test_an_old_rule_set_still_refuses_a_wild_card_on_top() -> None:
    """Saved before ``pile_blocked_by``: it blocked a black three and a wild card alike."""
    rules = RuleSet.from_dict(old_shaped(CLASSIC))
    assert rules.pile_blocked_by == ("black3", "wild")
    assert not check_meld(rules, 2, [Meld("wild", jokers=3, top_card=True)]).enough


# -- one unfinished meld per rank ------------------------------------------------------


def test_a_second_unfinished_meld_of_a_rank_is_illegal_and_the_first_stays_legal() -> None:
    """Bosnian: "Partnerima nije dozvoljeno da imaju dvije nepotpune kombinacije jednakog
    ranga." (Partners may not have two unfinished melds of equal rank.) Czech: "strana
    staví od každé hodnoty vždy jen jednu nedokončenou knihu" (a side builds only one
    unfinished book of each rank).

    Deal 2 (90): kings 3 x 10 = 30, a second kings meld 30 (illegal), queens 30: counted
    60, short by 30.
    """
    check = check_meld(CLASSIC, 2, [Meld("K", 3), Meld("K", 3), Meld("Q", 3)])
    assert [m.legal for m in check.melds] == [True, False, True]
    assert check.melds[1].reasons == (
        "Your side already starts a meld of kings: add these cards to it. A meld must"
        " become a book of 7 before another meld of that rank starts.",
    )
    assert (check.counted, check.short_by, check.enough) == (60, 30, False)


def test_whitnack_reads_one_meld_at_a_time_as_one_unfinished_meld_per_rank() -> None:
    """Russian: "Нельзя собирать сразу несколько мелд" (one may not build several melds at
    once), read as one unfinished meld per rank (RULES.md 5, note (5)): two wild melds at
    once are refused like two of kings. 3 jokers = 150 counted, the second not."""
    check = check_meld(WHITNACK, 1, [Meld("wild", jokers=3), Meld("wild", twos=3)])
    assert [m.legal for m in check.melds] == [True, False]
    assert "meld of wild cards" in check.melds[1].reasons[0]
    assert check.counted == 150


def test_a_closed_book_lets_another_meld_of_its_rank_start() -> None:
    """Bosnian: "Knjiga mora biti dovršena prije nego što se započne nova kombinacija
    jednake vrijednosti." (A book must be completed before a new meld of equal value is
    started.) Seven kings are a closed book, so three more may start: 70 + 30 = 100."""
    check = check_meld(CLASSIC, 2, [Meld("K", 7), Meld("K", 3)])
    assert (check.enough, check.counted) == (True, 100)


def test_a_rule_set_without_the_knob_accepts_two_melds_of_a_rank() -> None:
    rules = RuleSet.from_dict(old_shaped(CLASSIC))
    assert check_meld(rules, 2, [Meld("K", 3), Meld("K", 3), Meld("Q", 3)]).enough


# -- the number of deals ---------------------------------------------------------------

SIDES = [Side(("Ana", "Ben")), Side(("Cleo", "Dan"))]


def test_the_table_agrees_on_the_number_of_deals_when_the_match_starts() -> None:
    """Russian: "О количестве игр игроки договариваются перед первой игрой" (the players
    agree on the number of games before the first game). Six deals: the minimum-meld table
    repeats its last value, 50 / 90 / 120 / 150 / 150 / 150."""
    game = Match.start(WHITNACK, SIDES, deals=6)
    assert game.rules.deals == 6
    assert game.rules.minimum_meld.per_deal == (50, 90, 120, 150, 150, 150)
    assert game.rules.to_dict()["minimum_meld"] == [50, 90, 120, 150, 150, 150]
    for _ in range(5):
        game = game.record([{}, {}])
    assert (game.finished, game.minimum_meld(0)) == (False, 150)
    assert game.record([{}, {}]).finished


def test_a_shorter_match_cuts_the_minimum_meld_table() -> None:
    """Two deals: 50 / 90; deal 3 does not exist."""
    game = Match.start(CLASSIC, SIDES, deals=2)
    assert game.rules.minimum_meld.per_deal == (50, 90)
    with pytest.raises(EntryError, match="This game has 2 deals; there is no deal 3"):
        score_deal(game.rules, 3, 4, [{}, {}])


def test_the_rule_sets_number_of_deals_is_the_default() -> None:
    assert Match.start(FOUR_BOOKS, SIDES).rules == FOUR_BOOKS
    assert Match.start(FOUR_BOOKS, SIDES, deals=4).rules == FOUR_BOOKS


@pytest.mark.parametrize(
    ("deals", "message"),
    [
        (0, "The number of deals must be at least 1."),
        (21, "The number of deals must be at most 20."),
        ("six", "The number of deals must be a whole number."),
        (True, "The number of deals must be a whole number."),
    ],
)
def test_a_number_of_deals_outside_1_to_20_is_refused(deals: Any, message: str) -> None:
    with pytest.raises(MatchError) as error:
        Match.start(CLASSIC, SIDES, deals=deals)
    assert [(p.field, p.message) for p in error.value.problems] == [("deals", message)]


def test_thresholds_on_the_running_total_need_no_fitting() -> None:
    data = {**CLASSIC.to_dict(), "minimum_meld": [[0, 50], [2500, 90]]}
    rules = RuleSet.from_dict(data).with_deals(7)
    assert (rules.deals, rules.minimum_meld.thresholds) == (7, ((0, 50), (2500, 90)))


# -- going-out conditions --------------------------------------------------------------


def test_classic_asks_to_meld_all_cards_but_one_and_discard_the_last() -> None:
    """Bosnian: "Morate dobiti dozvolu od svog partnera da izađete, spojite preostale karte
    osim jedne i odbacite posljednju kartu." (You must get your partner's permission to go
    out, meld your remaining cards but one and discard the last card.)"""
    assert CLASSIC.going_out_conditions[-1] == "Meld all your cards but one and discard the last."


def test_four_books_asks_you_to_play_from_your_own_foot() -> None:
    """Czech: "K ukončení musíte hrát ze své nohy" (to go out you must play from your own
    foot)."""
    assert FOUR_BOOKS.going_out_conditions[0] == "You are playing from your own foot."


@pytest.mark.parametrize("preset_id", ["classic", "four-books", "whitnack"])
def test_a_preset_cites_its_source_by_title_and_language(preset_id: str) -> None:
    source = PRESETS[preset_id].source
    assert "seeds" not in source and ".txt" not in source
    assert source.endswith(("(Bosnian)", "(Czech)", "(Russian)"))


@pytest.mark.parametrize(
    ("preset_id", "said"),
    [
        ("classic", ["only when another side went out", "only a black three",
                     "as the Bosnian source words them"]),
        ("four-books", ["A wild card or a three on top blocks the pile",
                        "every red three left in a foot nobody picked up costs 100",
                        "exactly four deals"]),
        ("whitnack", ["the source names no penalty", "worth 150 as the Russian source",
                      "agrees on the number of deals", "the Russian text gives none",
                      "read as one unfinished meld per rank"]),
    ],
)  # fmt: skip
def test_a_presets_description_says_what_is_its_sources_and_what_a_reading(
    preset_id: str, said: list[str]
) -> None:
    """RULES.md 5: each preset's description says where a value is the source's and where
    it is a reading or a default (notes (1) to (7))."""
    description = PRESETS[preset_id].description
    for words in said:
        assert words in description, words


# -- rule sets and matches saved before these knobs -------------------------------------


@pytest.mark.parametrize("preset_id", ["classic", "four-books", "whitnack"])
def test_an_old_shaped_rule_set_reads_with_the_defaults(preset_id: str) -> None:
    """RULES.md 4: ``left_in_foot`` defaults to ``left``, ``foot_only_if_opponent_out`` to
    false, ``pile_blocked_by`` to both, ``one_open_meld_per_rank`` to false."""
    data = old_shaped(PRESETS[preset_id])
    rules = RuleSet.from_dict(data)
    red = rules.red_three
    assert (red.left_in_foot, red.foot_only_if_opponent_out) == (red.left, False)
    assert (rules.pile_blocked_by, rules.one_open_meld_per_rank) == (("black3", "wild"), False)
    again = rules.to_dict()
    assert RuleSet.from_dict(again) == rules and RuleSet.from_dict(again).to_dict() == again


def test_an_old_match_scores_as_it_did() -> None:
    """Whitnack as it was saved before (red three left -100, one count for hand and foot),
    deal 1 entered then: side B 250 - 35 - 100 = 115; side A 900 + 1750 + 100 + 100 = 2850.
    Restored from its frozen copy and its stored entries, it still says 2850 and 115."""
    data = old_shaped(WHITNACK)
    data["red_three"]["left"] = -100
    stored = [
        {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "red_threes": 1,
         "red_threes_left": 0, "melded_points": 900, "left": {}},
        {"went_out": False, "books": {}, "red_threes": 0, "red_threes_left": 1,
         "melded_points": 250, "left_points": 35},
    ]  # fmt: skip
    rules = RuleSet.from_dict(data)
    entries = score_deal(rules, 1, 4, stored)  # the entries read as they were saved
    assert [b.total for b in entries.sides] == [2850, 115]
    game = Match.start(rules, SIDES).record(stored)
    restored = Match.restore(rules, SIDES, 0, [game.deals[0].entries])
    assert restored.totals == (2850, 115)


# -- the reader refuses wrong values of the new knobs ---------------------------------


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"red_three": {"laid": 1, "laid_without_meld": 1, "left": 0, "left_in_foot": 0.5}},
         "red_three.left_in_foot", "This must be a whole number."),
        ({"red_three": {"laid": 1, "laid_without_meld": 1, "left": 0,
                        "foot_only_if_opponent_out": 1}},
         "red_three.foot_only_if_opponent_out", "Say true or false."),
        ({"pile_blocked_by": "black3"}, "pile_blocked_by", "This must be a list."),
        ({"pile_blocked_by": ["red3"]}, "pile_blocked_by[0]",
         "The pile can be blocked by black3 or wild only."),
        ({"pile_blocked_by": [["wild"]]}, "pile_blocked_by[0]",
         "The pile can be blocked by black3 or wild only."),
        ({"pile_blocked_by": ["wild", "wild"]}, "pile_blocked_by[1]", "This card is listed twice."),
        ({"one_open_meld_per_rank": "yes"}, "one_open_meld_per_rank", "Say true or false."),
    ],
)  # fmt: skip
def test_a_wrong_value_of_a_new_knob_is_refused_with_its_field(
    change: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(RuleSetError) as error:
        RuleSet.from_dict({**CLASSIC.to_dict(), **change})
    assert [(p.field, p.message) for p in error.value.problems] == [(field, message)]


def test_an_empty_pile_blocked_by_blocks_nothing() -> None:
    rules = RuleSet.from_dict({**FOUR_BOOKS.to_dict(), "book_bonus": {"clean": 500,
                               "dirty": 300, "wild": 150}, "pile_blocked_by": []})  # fmt: skip
    assert rules.pile_blocked_by == ()
    assert check_meld(rules, 1, [Meld("wild", twos=3, top_card=True)]).enough


def test_an_entry_with_a_red_three_in_a_foot_reads_back_from_its_dict() -> None:
    """Stored entries name the foot's red threes only when there are some (older entries
    have no such field and read as 0)."""
    _, (entry, other) = read_deal_entries(CLASSIC, 1, 4, [{"red_threes_left_in_foot": 2}, {}])
    assert entry.to_dict()["red_threes_left_in_foot"] == 2
    assert "red_threes_left_in_foot" not in other.to_dict()
    assert read_deal_entries(CLASSIC, 1, 4, [entry.to_dict(), {}])[1][0] == entry
