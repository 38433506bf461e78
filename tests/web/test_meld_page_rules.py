"""Every rule of the minimum-meld check, as the /meld page shows it, under each preset.

The page only renders what the engine decides; these tests read the verdict and each
meld's card back from the HTML, the way a player reads the screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from flask.testing import FlaskClient
from htmltree import parse

PRESET_IDS = ("classic", "four-books", "whitnack")
MINIMUMS = (50, 90, 120, 150)


@dataclass(frozen=True)
class MeldCard:
    """One meld as the page shows it."""

    rank: str
    legal: bool | None
    value: int | None
    text: str


@dataclass(frozen=True)
class Shown:
    """The checker page as a player sees it."""

    status: int
    enough: bool
    counted: int
    minimum: int
    short_by: int
    verdict: str
    melds: list[MeldCard]
    notices: list[str]
    html: str

    @property
    def text(self) -> str:
        """All the page's text."""
        return parse(self.html).text


def read_check(html: str, status: int = 200) -> Shown:
    """Read the verdict, the melds and the notices from a checker page or fragment."""
    tree = parse(html)
    verdict = tree.find_all("section", id="meld-verdict")
    assert len(verdict) == 1, "the page shows one verdict"
    v = verdict[0].attrs
    cards = [
        MeldCard(
            rank=li.attrs["data-rank"],
            legal={"true": True, "false": False}.get(li.attrs.get("data-legal", "")),
            value=int(li.attrs["data-value"]) if "data-value" in li.attrs else None,
            text=li.text,
        )
        for li in tree.find_all("li", cls="meld-card")
    ]
    notices = [
        li.text for div in tree.find_all("div", cls="meld-notices") for li in div.find_all("li")
    ]
    return Shown(
        status=status,
        enough=v["data-enough"] == "true",
        counted=int(v["data-counted"]),
        minimum=int(v["data-minimum"]),
        short_by=int(v["data-short-by"]),
        verdict=verdict[0].text,
        melds=cards,
        notices=notices,
        html=html,
    )


def check(client: FlaskClient, query: str, **headers: str) -> Shown:
    """GET /meld?query and read what it shows."""
    response = client.get(f"/meld?{query}", headers=headers)
    assert response.status_code in (200, 422), response.status_code
    return read_check(response.get_data(as_text=True), response.status_code)


@pytest.mark.parametrize("rules", PRESET_IDS)
@pytest.mark.parametrize("deal", [1, 2, 3, 4])
def test_the_minimum_is_the_deals_minimum_meld(client: FlaskClient, rules: str, deal: int) -> None:
    shown = check(client, f"rules={rules}&deal={deal}")
    assert shown.minimum == MINIMUMS[deal - 1]
    assert shown.counted == 0
    assert not shown.enough
    assert f"Short by {MINIMUMS[deal - 1]}" in shown.verdict


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_the_rules_section_6_example_is_enough_with_its_three_melds(
    client: FlaskClient, rules: str
) -> None:
    """K 3+1 two = 50, Q with the top card 3x10 = 30, wild 2 jokers + 1 two = 120."""
    shown = check(client, f"rules={rules}&deal=2&m=K.3.0.1&m=Q.3.0.0.t&m=wild.0.2.1")
    assert [m.value for m in shown.melds] == [50, 30, 120]
    if rules == "four-books":  # no wild books: the wild meld does not count
        assert [m.legal for m in shown.melds] == [True, True, False]
        assert "no wild books" in shown.melds[2].text
        assert (shown.counted, shown.enough, shown.short_by) == (80, False, 10)
        assert "Short by 10" in shown.verdict
    else:
        assert [m.legal for m in shown.melds] == [True, True, True]
        assert (shown.counted, shown.enough) == (200, True)
        assert "Enough: 200 of 90" in shown.verdict


@pytest.mark.parametrize("rules", PRESET_IDS)
@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("K.2.0.0", "A meld needs at least 3 cards; this one has 2."),
        ("K.0.0.0", "A meld needs at least 3 cards; this one has 0."),
        ("K.8.0.0", "A meld holds at most 7 cards; this one has 8."),
        ("K.6.0.2", "A meld holds at most 7 cards; this one has 8."),
    ],
)
def test_a_meld_has_three_to_seven_cards(
    client: FlaskClient, rules: str, token: str, reason: str
) -> None:
    shown = check(client, f"rules={rules}&deal=1&m={token}")
    assert shown.melds[0].legal is False
    assert reason in shown.melds[0].text
    assert shown.counted == 0


@pytest.mark.parametrize("rules", PRESET_IDS)
@pytest.mark.parametrize(
    ("naturals", "jokers", "twos", "legal"),
    [
        (3, 0, 0, True),
        (7, 0, 0, True),
        (2, 1, 0, True),  # 3 cards, 1 wild
        (4, 0, 1, True),  # 5 cards, 1 wild
        (3, 1, 1, False),  # 5 cards, 2 wilds: below 6 cards only 1 wild
        (4, 1, 1, True),  # 6 cards, 2 wilds
        (5, 2, 0, True),  # 7 cards, 2 wilds
        (4, 2, 1, False),  # 7 cards, 3 wilds: never more than 2
        (1, 2, 0, False),  # 3 cards, 2 wilds
    ],
)
def test_the_wild_card_limit_holds_at_every_size(
    client: FlaskClient, rules: str, naturals: int, jokers: int, twos: int, legal: bool
) -> None:
    """All three presets: at most 2 wilds, and naturals at least twice the wilds."""
    shown = check(client, f"rules={rules}&deal=1&m=A.{naturals}.{jokers}.{twos}")
    meld = shown.melds[0]
    assert meld.legal is legal
    assert meld.value == naturals * 20 + jokers * 50 + twos * 20
    if not legal:
        assert f"may hold at most 1 wild card; this one has {jokers + twos}" in meld.text or (
            f"may hold at most 2 wild cards; this one has {jokers + twos}" in meld.text
        )
    assert shown.counted == (meld.value if legal else 0)


@pytest.mark.parametrize(
    ("rules", "allowed"), [("classic", True), ("four-books", False), ("whitnack", True)]
)
def test_a_wild_only_meld_is_allowed_only_with_wild_books(
    client: FlaskClient, rules: str, allowed: bool
) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=wild.0.1.2")
    assert shown.melds[0].legal is allowed
    assert shown.melds[0].value == 90
    assert shown.enough is allowed
    add_wild = parse(shown.html).find_all("button", value="add:wild")[0]
    assert ("disabled" in add_wild.attrs) is not allowed
    if not allowed:
        assert "Four books has no wild books" in shown.text


@pytest.mark.parametrize("rules", ["classic", "whitnack"])
def test_a_wild_only_meld_needs_three_cards_too(client: FlaskClient, rules: str) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=wild.0.2.0")
    assert shown.melds[0].legal is False
    assert "at least 3 cards" in shown.melds[0].text


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_threes_are_never_melded(client: FlaskClient, rules: str) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=3.3.0.0&m=K.5.0.0")
    assert shown.status == 422
    assert any("Meld 1 was left out: Threes are never melded." in n for n in shown.notices)
    assert [m.rank for m in shown.melds] == ["K"]
    assert shown.counted == 50


@pytest.mark.parametrize("rules", PRESET_IDS)
@pytest.mark.parametrize(
    ("token", "legal"),
    [
        ("K.3.0.0.t", True),  # the top card and a natural pair from hand
        ("K.4.0.1.t", True),  # more from hand is fine
        ("K.2.0.0.t", False),  # one king from hand: no pair
        ("K.2.1.0.t", False),  # a king and a joker from hand: the pair must be natural
    ],
)
def test_taking_the_pile_needs_a_natural_pair_from_hand(
    client: FlaskClient, rules: str, token: str, legal: bool
) -> None:
    query = f"rules={rules}&deal=1&m={token}" + ("&size=7" if rules == "whitnack" else "")
    shown = check(client, query)
    meld = shown.melds[0]
    assert meld.legal is legal
    if not legal:
        assert "Taking the pile needs two natural kings from your hand" in meld.text
    assert "Made with the top card of the discard pile" in meld.text


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_only_the_top_card_and_its_hand_cards_count_from_the_pile(
    client: FlaskClient, rules: str
) -> None:
    """Three queens with the top card count 30; what else came up with the pile is not entered."""
    query = f"rules={rules}&deal=1&m=Q.3.0.0.t&m=A.3.0.0" + (
        "&size=9" if rules == "whitnack" else ""
    )
    shown = check(client, query)
    assert shown.counted == 30 + 60
    assert shown.enough
    assert "the other cards picked up do not" in shown.text


@pytest.mark.parametrize(
    ("rules", "size", "legal"),
    [
        ("whitnack", 6, False),
        ("whitnack", 7, True),
        ("whitnack", 0, False),
        ("classic", 1, True),
        ("four-books", 2, True),
    ],
)
def test_whitnack_takes_the_pile_only_when_it_holds_seven_cards(
    client: FlaskClient, rules: str, size: int, legal: bool
) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=K.3.0.0.t&size={size}")
    assert shown.melds[0].legal is legal
    if not legal:
        assert f"only be taken when it holds 7 cards; it holds {size}" in shown.melds[0].text
    size_fields = parse(shown.html).find_all("input", name="size")
    assert bool(size_fields) is (rules == "whitnack")


@pytest.mark.parametrize(
    ("rules", "top", "name"),
    [
        *((rules, "3", "A three") for rules in PRESET_IDS),
        ("four-books", "wild", "A wild card"),
    ],
)
def test_a_three_or_where_the_rules_say_so_a_wild_card_on_top_blocks_the_pile(
    client: FlaskClient, rules: str, top: str, name: str
) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=A.3.0.0&top={top}")
    assert f"{name} on top blocks the discard pile: it cannot be taken." in shown.text
    assert shown.counted == 60  # melds from hand still count
    pressed = parse(shown.html).find_all("button", value=f"top:{top}")[0]
    assert pressed.attrs["aria-pressed"] == "true"


def test_four_books_cannot_make_a_wild_meld_with_the_top_card(client: FlaskClient) -> None:
    """Czech: "nikdy, když je navrchu divoká karta nebo trojka" (never with a wild card or a
    three on top)."""
    shown = check(client, "rules=four-books&deal=1&m=wild.0.2.1.t")
    assert shown.melds[0].legal is False
    assert "cannot be taken with a wild card on top" in shown.melds[0].text


@pytest.mark.parametrize("rules", ["classic", "whitnack"])
def test_a_wild_card_on_top_is_taken_with_two_wild_cards_from_hand(
    client: FlaskClient, rules: str
) -> None:
    """Bosnian: "Gornja karta odbačene ne može biti (crna) trojka" (the top card cannot be a
    (black) three); a wild card on top makes a wild meld with two from hand: 2 jokers and
    a two = 50 + 50 + 20 = 120 (whitnack: from a pile of 7)."""
    shown = check(client, f"rules={rules}&deal=1&m=wild.0.2.1.t&size=7")
    assert (shown.melds[0].legal, shown.counted, shown.enough) == (True, 120, True)
    short = check(client, f"rules={rules}&deal=1&m=wild.0.1.1.t&size=7")
    assert "needs two wild cards from your hand; this meld has 1" in short.melds[0].text


@pytest.mark.parametrize("rules", ["classic", "whitnack"])
def test_tapping_wild_as_the_top_card_starts_a_wild_meld_where_it_does_not_block(
    client: FlaskClient, rules: str
) -> None:
    response = client.get(f"/meld?rules={rules}&deal=1&op=top:wild")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"rules={rules}&deal=1&m=wild.0.0.0.t")
    shown = check(client, f"rules={rules}&deal=1&m=wild.0.0.0.t")
    pressed = parse(shown.html).find_all("button", value="top:wild")[0]
    assert pressed.attrs["aria-pressed"] == "true"
    assert "taken with two wild cards from your hand" in shown.text


def test_a_wild_top_card_in_the_url_is_ignored_where_it_does_not_block(
    client: FlaskClient,
) -> None:
    shown = check(client, "rules=classic&deal=1&m=A.3.0.0&top=wild")
    assert shown.status == 422
    assert any("does not block the pile" in n for n in shown.notices)
    assert shown.counted == 60


def test_a_second_meld_of_kings_is_not_legal_and_the_first_still_counts(
    client: FlaskClient,
) -> None:
    """Bosnian: "Partnerima nije dozvoljeno da imaju dvije nepotpune kombinacije jednakog
    ranga." (Partners may not have two unfinished melds of equal rank.) 30 + 0 = 30."""
    shown = check(client, "rules=classic&deal=1&m=K.3.0.0&m=K.3.0.0")
    assert [m.legal for m in shown.melds] == [True, False]
    assert "already starts a meld of kings" in shown.melds[1].text
    assert shown.counted == 30


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_only_one_meld_can_hold_the_top_card(client: FlaskClient, rules: str) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=K.3.0.0.t&m=Q.3.0.0.t&size=8")
    assert shown.status == 422
    assert any("Only one meld can be made with the top card" in n for n in shown.notices)


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_an_illegal_meld_keeps_the_answer_at_not_yet_even_when_the_rest_is_enough(
    client: FlaskClient, rules: str
) -> None:
    shown = check(client, f"rules={rules}&deal=1&m=A.3.0.0&m=K.2.0.0")
    assert (shown.counted, shown.short_by, shown.enough) == (60, 0, False)
    assert "Not yet" in shown.verdict
    assert "Meld 2 is not legal, so it does not count" in shown.verdict


@pytest.mark.parametrize("rules", PRESET_IDS)
def test_red_threes_and_book_bonuses_are_said_never_to_count(
    client: FlaskClient, rules: str
) -> None:
    shown = check(client, f"rules={rules}&deal=4&m=K.7.0.0")
    assert "Red threes and book bonuses never count toward the minimum" in shown.text
    # A closed book of seven kings counts its cards (70), never its 500 bonus.
    assert (shown.counted, shown.short_by) == (70, 80)


@pytest.mark.parametrize(
    ("query", "minimum", "enough"),
    [("deal=1&m=K.3.0.0&m=Q.2.0.0", 50, False), ("deal=1&m=K.3.0.0&m=Q.3.0.0", 50, True)],
)
def test_short_by_turns_into_enough_at_the_minimum(
    client: FlaskClient, query: str, minimum: int, enough: bool
) -> None:
    shown = check(client, f"rules=classic&{query}")
    assert shown.minimum == minimum
    assert shown.enough is enough
    if enough:
        assert "Enough: 60 of 50" in shown.verdict
    else:
        assert "Short by 20" in shown.verdict and "Meld 2 is not legal" in shown.verdict
