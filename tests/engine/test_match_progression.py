"""A match as a value: deals recorded, corrected and removed; totals, dealer, winner."""

from typing import Any

import pytest

from scorekeeper.engine import (
    PRESETS,
    EntryError,
    Match,
    MatchError,
    RuleSet,
    Side,
    going_out_checklist,
    layout_label,
)

CLASSIC = PRESETS["classic"]
TEAMS = [Side(("Ana", "Ben")), Side(("Cleo", "Dan"))]


def points(total: int, left: int = 0) -> dict[str, Any]:
    """An entry by points: ``total`` on the table, or held in hand when negative."""
    if total < 0:
        return {"left_points": left - total}
    return {"melded_points": total, "left_points": left}


def new_match(**kwargs: Any) -> Match:
    return Match.start(CLASSIC, TEAMS, **kwargs)


def played(*deals: tuple[int, int]) -> Match:
    match = new_match()
    for a, b in deals:
        match = match.record([points(a), points(b)])
    return match


# -- starting ---------------------------------------------------------------------------


def test_a_new_match_has_no_deal_and_starts_at_deal_one() -> None:
    match = new_match()
    assert (match.deals, match.current_deal, match.finished) == ((), 1, False)
    assert match.totals == (0, 0)
    assert match.running_totals() == ()
    assert (match.winner, match.is_draw) == (None, False)
    assert (match.side_sizes, match.player_count) == ((2, 2), 4)


def test_starting_trims_player_and_side_names() -> None:
    match = Match.start(CLASSIC, [Side((" Ana ", "Ben"), " Reds "), Side(("Cleo", "Dan"))])
    assert match.sides == (Side(("Ana", "Ben"), "Reds"), Side(("Cleo", "Dan")))
    assert [s.label for s in match.sides] == ["Reds", "Cleo & Dan"]


@pytest.mark.parametrize(
    ("rules", "sides", "first_dealer", "expected"),
    [
        (
            PRESETS["whitnack"],
            [Side(("Ana",)), Side(("Ben",)), Side(("Cleo",))],
            0,
            [("sides", "Whitnack is not played with 3 players alone.")],
        ),
        (
            CLASSIC,
            [Side(("Ana", "Ben", "Cleo", "Dan"))],
            0,
            [("sides", "Classic is not played with 1 team of 4.")],
        ),
        (
            CLASSIC,
            [Side(("Ana",)), Side(("Ben", "Cleo"))],
            0,
            [("sides", "Classic is not played with 1 + 2 players.")],
        ),
        (
            CLASSIC,
            [Side(("Ana", "Ben")), Side(("ana", "Dan"))],
            0,
            [("sides[1].players[0]", "ana already plays in this match.")],
        ),
        (
            CLASSIC,
            [Side(("Ana", " ")), Side(("Cleo", "Dan"))],
            0,
            [("sides[0].players[1]", "This cannot be empty.")],
        ),
        (
            CLASSIC,
            [Side(("Ana", 7)), Side(("Cleo", "Dan"))],
            0,
            [("sides[0].players[1]", "This must be text.")],
        ),  # type: ignore[arg-type]
        (CLASSIC, TEAMS, 4, [("first_dealer", "Choose the first dealer among the players.")]),
        (CLASSIC, TEAMS, -1, [("first_dealer", "Choose the first dealer among the players.")]),
        (CLASSIC, TEAMS, True, [("first_dealer", "Choose the first dealer among the players.")]),
        (CLASSIC, TEAMS, "0", [("first_dealer", "Choose the first dealer among the players.")]),
        (
            CLASSIC,
            [],
            0,
            [("sides", "Classic is not played with no players.")],
        ),
    ],
)
def test_a_match_that_cannot_be_played_is_refused(
    rules: RuleSet, sides: list[Side], first_dealer: Any, expected: list[tuple[str, str]]
) -> None:
    with pytest.raises(MatchError) as caught:
        Match.start(rules, sides, first_dealer)
    assert [(p.field, p.message) for p in caught.value.problems] == expected


@pytest.mark.parametrize(
    ("layout", "label"),
    [
        ((1, 1, 1), "3 players alone"),
        ((1,), "1 player alone"),
        ((2, 2), "2 teams of 2"),
        ((3, 3), "2 teams of 3"),
        ((3,), "1 team of 3"),
        ((1, 2), "1 + 2 players"),
        ((), "no players"),
    ],
)
def test_a_layout_is_named_in_words(layout: tuple[int, ...], label: str) -> None:
    assert layout_label(layout) == label


# -- seats and dealers --------------------------------------------------------------------


def test_partners_sit_apart_in_the_interleaved_seating() -> None:
    assert new_match().seating == ((0, "Ana"), (1, "Cleo"), (0, "Ben"), (1, "Dan"))


@pytest.mark.parametrize(
    ("first_dealer", "dealers"),
    [
        (0, ["Ana", "Cleo", "Ben", "Dan"]),
        (1, ["Cleo", "Ben", "Dan", "Ana"]),
        (3, ["Dan", "Ana", "Cleo", "Ben"]),
    ],
)
def test_the_deal_passes_left_from_the_first_dealer(first_dealer: int, dealers: list[str]) -> None:
    match = new_match(first_dealer=first_dealer)
    assert [match.dealer(d) for d in (1, 2, 3, 4)] == dealers


def test_the_deal_goes_round_the_table_again_when_there_are_more_deals_than_players() -> None:
    match = Match.start(CLASSIC, [Side(("Ana",)), Side(("Ben",))], first_dealer=1)
    assert [match.dealer(d) for d in (1, 2, 3, 4)] == ["Ben", "Ana", "Ben", "Ana"]


def test_a_smaller_side_leaves_no_empty_seat() -> None:
    data = {**CLASSIC.to_dict(), "id": "odd", "name": "Odd", "players": {"layouts": [[1, 2]]}}
    rules = RuleSet.from_dict(data)
    match = Match.start(rules, [Side(("Ana",)), Side(("Ben", "Cleo"))])
    assert match.seating == ((0, "Ana"), (1, "Ben"), (1, "Cleo"))
    assert [match.dealer(d) for d in (1, 2, 3, 4)] == ["Ana", "Ben", "Cleo", "Ana"]


# -- recording ------------------------------------------------------------------------------


def test_recording_a_deal_scores_it_and_moves_to_the_next() -> None:
    """Deal 1: Ana & Ben 200 - 50 = 150; Cleo & Dan 100."""
    match = new_match().record([points(200, 50), points(100)])
    assert match.current_deal == 2
    assert [s.total for s in match.deals[0].score.sides] == [150, 100]
    assert match.totals == (150, 100)


def test_recording_returns_a_new_match_and_leaves_the_old_one_alone() -> None:
    match = new_match()
    match.record([points(100), points(50)])
    assert match.deals == ()


def test_running_totals_add_up_deal_by_deal() -> None:
    match = played((150, 100), (300, -50), (0, 400))
    assert match.running_totals() == ((150, 100), (450, 50), (450, 450))
    assert match.totals == (450, 450)
    assert match.leaders() == (0, 1)


def test_a_match_is_finished_after_its_last_deal_and_names_the_winner() -> None:
    match = played((150, 100), (300, 50), (100, 400), (500, 0))
    assert (match.finished, match.current_deal) == (True, None)
    assert match.totals == (1050, 550)
    assert (match.winner, match.is_draw) == (0, False)


def test_a_tie_for_first_is_a_draw_without_a_winner() -> None:
    match = played((100, 100), (200, 100), (0, 100), (50, 50))
    assert match.totals == (350, 350)
    assert (match.finished, match.winner, match.is_draw) == (True, None, True)


def test_a_leader_is_not_the_winner_before_the_last_deal() -> None:
    match = played((500, 0))
    assert (match.leaders(), match.winner, match.is_draw) == ((0,), None, False)


def test_a_finished_match_refuses_another_deal() -> None:
    match = played((5, 5), (5, 5), (5, 5), (5, 5))
    with pytest.raises(MatchError) as caught:
        match.record([points(100), points(100)])
    assert caught.value.as_dicts() == [
        {"field": "deal", "message": "The match is finished; correct a deal instead."}
    ]


def test_an_impossible_entry_is_refused_with_its_field() -> None:
    with pytest.raises(EntryError) as caught:
        new_match().record([points(12), points(100)])
    assert caught.value.problems[0].field == "sides[0].melded_points"


def test_an_entry_must_have_one_side_per_side_of_the_match() -> None:
    """Four players could make three sides, but this match has two teams."""
    with pytest.raises(EntryError) as caught:
        new_match().record([points(100), points(50), points(20)])
    assert caught.value.as_dicts() == [
        {"field": "sides", "message": "This match has 2 sides; the entry has 3."}
    ]


def test_a_player_alone_who_went_out_can_have_no_cards_left() -> None:
    match = Match.start(CLASSIC, [Side(("Ana",)), Side(("Ben",))])
    gone = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "melded_points": 900}
    with pytest.raises(EntryError) as caught:
        match.record([{**gone, "left_points": 10}, points(100)])
    assert caught.value.as_dicts() == [
        {"field": "sides[0].left", "message": "A player who went out has no cards left."}
    ]
    assert match.record([gone, points(100)]).totals == (4100, 100)


# -- correcting and removing -------------------------------------------------------------


def test_correcting_an_earlier_deal_changes_the_totals_that_follow() -> None:
    match = played((150, 100), (300, 50))
    corrected = match.correct(1, [points(100), points(400)])
    assert corrected.running_totals() == ((100, 400), (400, 450))
    assert corrected.current_deal == 3
    assert corrected.deals[1] == match.deals[1]


def test_correcting_the_last_deal_of_a_finished_match_is_allowed() -> None:
    match = played((5, 5), (5, 5), (5, 5), (5, 5)).correct(4, [points(100), points(0)])
    assert (match.totals, match.winner) == ((115, 15), 0)


@pytest.mark.parametrize("deal", [0, 3, -1])
def test_a_deal_not_yet_played_cannot_be_corrected(deal: int) -> None:
    with pytest.raises(MatchError) as caught:
        played((150, 100), (300, 50)).correct(deal, [points(5), points(5)])
    assert caught.value.as_dicts() == [
        {"field": "deal", "message": f"Deal {deal} has not been played."}
    ]


def test_a_correction_is_validated_like_an_entry() -> None:
    with pytest.raises(EntryError) as caught:
        played((150, 100)).correct(1, [{"melded": {"joker": 11}}, {}])
    assert caught.value.problems[0].field == "sides[0].melded.joker"


def test_removing_the_last_deal_reopens_it() -> None:
    match = played((150, 100), (300, 50), (5, 5), (5, 5))
    removed = match.remove_last()
    assert (removed.finished, removed.current_deal, removed.totals) == (False, 4, (455, 155))
    assert removed.remove_last().remove_last().remove_last() == new_match()


def test_nothing_can_be_removed_from_a_match_without_deals() -> None:
    with pytest.raises(MatchError) as caught:
        new_match().remove_last()
    assert caught.value.as_dicts() == [
        {"field": "deal", "message": "No deal has been recorded yet."}
    ]


# -- restoring and the minimum meld --------------------------------------------------------


def test_a_restored_match_equals_the_match_as_recorded() -> None:
    match = played((150, 100), (300, 50), (0, 400))
    entries = [recorded.entries for recorded in match.deals]
    assert Match.restore(CLASSIC, TEAMS, 0, entries) == match


def test_the_minimum_meld_follows_the_deal_under_classic() -> None:
    match = played((150, 100))
    assert (match.minimum_meld(0), match.minimum_meld(1)) == (90, 90)
    assert played((5, 5), (5, 5), (5, 5), (5, 5)).minimum_meld(0) is None


def test_the_minimum_meld_follows_each_sides_own_total_under_thresholds() -> None:
    data = {
        **CLASSIC.to_dict(),
        "id": "thresholds",
        "name": "Thresholds",
        "minimum_meld": [[0, 50], [2500, 90], [5000, 120], [7500, 150]],
    }
    rules = RuleSet.from_dict(data)
    match = Match.start(rules, TEAMS).record([points(2600), points(-100)])
    assert match.totals == (2600, -100)
    assert (match.minimum_meld(0), match.minimum_meld(1)) == (90, 50)


# -- going out ----------------------------------------------------------------------------------


def test_the_going_out_checklist_shows_books_needed_against_books_held() -> None:
    checklist = going_out_checklist(CLASSIC, {"clean": 2, "dirty": 1})
    assert [(i.kind, i.required, i.have, i.met) for i in checklist.items] == [
        ("clean", 2, 2, True),
        ("dirty", 2, 1, False),
        ("wild", 1, 0, False),
    ]
    assert [i.needed for i in checklist.items] == ["2 clean", "2 dirty", "1 wild"]
    # each is a phrase with its plural, so that a catalog makes the word agree with the count
    assert [(i.needed.msgid, i.needed.num) for i in checklist.items] == [
        ("%(num)d clean", 2),
        ("%(num)d dirty", 2),
        ("%(num)d wild", 1),
    ]
    assert checklist.books_met is False
    assert checklist.conditions == CLASSIC.going_out_conditions


def test_a_side_with_every_required_book_may_go_out_under_four_books() -> None:
    checklist = going_out_checklist(PRESETS["four-books"], {"clean": 3, "dirty": 2, "wild": 0})
    assert [i.kind for i in checklist.items] == ["clean", "dirty"]
    assert checklist.books_met is True


def test_the_checklist_names_special_books_and_skips_kinds_required_zero_times() -> None:
    data = {
        **CLASSIC.to_dict(),
        "id": "sevens",
        "name": "Sevens",
        "special_books": [
            {"key": "sevens", "name": "sevens", "rank": "7", "bonus": 1000, "wilds": False}
        ],
        "going_out_requires": {"clean": 1, "dirty": 0, "sevens": 1},
        "going_out_conditions": [],
    }
    checklist = going_out_checklist(RuleSet.from_dict(data), {"sevens": 1})
    assert [(i.kind, i.name, i.met) for i in checklist.items] == [
        ("clean", "clean", False),
        ("sevens", "sevens", True),
    ]
    # a special book is named as the rule set names it (the club's own word, not a phrase)
    assert [i.needed for i in checklist.items] == ["1 clean", "1 sevens"]
    assert not hasattr(checklist.items[1].needed, "msgid")
    assert checklist.conditions == ()
