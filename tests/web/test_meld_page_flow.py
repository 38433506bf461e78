"""The checker's flows: plain GET form with no JavaScript, htmx fragments, URL state.

Without JavaScript every tap is a button of one GET form; the server answers with a
redirect to the canonical state URL. With htmx the same request returns the fragment and
an ``HX-Push-Url`` with that URL, so back, forward and a shared link show the same check.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from flask.testing import FlaskClient
from htmltree import errors_beside, parse
from test_meld_page_rules import check, read_check

HX = {"HX-Request": "true"}


def form_fields(html: str) -> list[tuple[str, str]]:
    """The fields the checker form sends, as a browser would (buttons left out)."""
    form = parse(html).find_all("form")[0]
    return [
        (n.attrs["name"], n.attrs.get("value", ""))
        for n in form.find_all("input")
        if "name" in n.attrs
    ]


def tap(client: FlaskClient, url: str, op: str | None = None, **typed: str) -> str:
    """Open ``url``, type into fields, press a button (or Check) with no JavaScript.

    Returns the canonical URL the server redirects to.
    """
    page = client.get(url)
    assert page.status_code == 200, page.get_data(as_text=True)[:300]
    html = page.get_data(as_text=True)
    if op is not None:
        assert parse(html).find_all("button", value=op), f"no button {op!r} on the page"
    fields = [(k, typed.get(k, v)) for k, v in form_fields(html)]
    if op is not None:
        fields.append(("op", op))
    response = client.get("/meld", query_string=fields)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return response.headers["Location"]


def query_of(url: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of a URL's query string."""
    return parse_qsl(urlsplit(url).query)


def test_the_page_is_a_get_form_with_a_check_button(client: FlaskClient) -> None:
    html = client.get("/meld").get_data(as_text=True)
    form = parse(html).find_all("form")[0]
    assert form.attrs["method"] == "get"
    assert form.attrs["action"] == "/meld"
    assert any(b.text == "Check" for b in form.find_all("button", cls="meld-check"))
    assert "csrf_token" not in html.split('id="meld-checker"')[1]


def test_tapping_kings_then_a_joker_turns_short_by_into_enough_without_javascript(
    client: FlaskClient,
) -> None:
    url = "/meld?rules=classic&deal=1"
    assert "Short by 50" in check(client, "rules=classic&deal=1").verdict
    url = tap(client, url, "add:K")
    assert query_of(url) == [("rules", "classic"), ("deal", "1"), ("m", "K.3.0.0")]
    shown = read_check(client.get(url).get_data(as_text=True))
    assert "Short by 20" in shown.verdict
    url = tap(client, url, "inc:0:jokers")
    assert query_of(url)[-1] == ("m", "K.3.1.0")
    shown = read_check(client.get(url).get_data(as_text=True))
    assert shown.enough
    assert "Enough: 80 of 50" in shown.verdict


def test_typed_counts_are_checked_with_the_check_button(client: FlaskClient) -> None:
    url = tap(client, "/meld?rules=classic&deal=3&m=A.3.0.0&m=K.3.0.0", None,
              **{"melds-0-naturals": "4", "melds-1-twos": "1"})  # fmt: skip
    assert query_of(url) == [
        ("rules", "classic"),
        ("deal", "3"),
        ("m", "A.4.0.0"),
        ("m", "K.3.0.1"),
    ]
    shown = read_check(client.get(url).get_data(as_text=True))
    assert (shown.counted, shown.minimum, shown.enough) == (130, 120, True)


def test_typed_counts_are_kept_when_a_button_is_tapped(client: FlaskClient) -> None:
    url = tap(client, "/meld?rules=classic&deal=1&m=A.3.0.0", "add:Q", **{"melds-0-naturals": "5"})
    assert query_of(url)[2:] == [("m", "A.5.0.0"), ("m", "Q.3.0.0")]


def test_a_typed_count_that_is_not_a_number_is_refused_beside_its_field(
    client: FlaskClient,
) -> None:
    fields = {
        "f": "1",
        "rules": "classic",
        "deal": "1",
        "melds-0-rank": "K",
        "melds-0-naturals": "three",
        "melds-1-rank": "A",
        "melds-1-naturals": "3",
        "melds-1-jokers": "-1",
        "op": "add:Q",
    }
    response = client.get("/meld", query_string=fields)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert errors_beside(html, "melds-0-naturals") == ["This must be a whole number."]
    assert errors_beside(html, "melds-1-jokers") == ["This cannot be negative."]
    tree = parse(html)
    assert tree.find_all("input", name="melds-0-naturals")[0].attrs["value"] == "three"
    assert not tree.find_all("input", name="melds-2-rank"), "the tap waits for the fix"


@pytest.mark.parametrize(
    ("start", "op", "expected"),
    [
        ("m=K.3.0.0", "dec:0:naturals", ["K.2.0.0"]),
        ("m=K.3.0.0", "inc:0:twos", ["K.3.0.1"]),
        ("m=K.3.1.0&m=Q.3.0.0", "remove:0", ["Q.3.0.0"]),
        ("m=K.3.0.0", "add:wild", ["K.3.0.0", "wild.0.0.0"]),
        ("m=K.3.0.0", "top:K", ["K.3.0.0.t"]),
        ("m=K.3.0.0", "top:Q", ["K.3.0.0", "Q.3.0.0.t"]),
        ("m=K.3.0.0.t&m=Q.3.0.0", "top:Q", ["K.3.0.0", "Q.3.0.0.t"]),
        ("m=K.3.0.0.t", "top:none", ["K.3.0.0"]),
        ("m=K.3.0.0.t", "top:3", ["K.3.0.0"]),
        ("m=K.3.0.0&m=wild.0.2.1", "clear", []),
    ],
)
def test_each_button_makes_the_next_state(
    client: FlaskClient, start: str, op: str, expected: list[str]
) -> None:
    url = tap(client, f"/meld?rules=classic&deal=2&{start}", op)
    assert [v for k, v in query_of(url) if k == "m"] == expected


def test_the_minus_button_is_disabled_at_zero_so_no_count_goes_negative(
    client: FlaskClient,
) -> None:
    html = client.get("/meld?rules=classic&deal=1&m=K.3.0.0").get_data(as_text=True)
    assert "disabled" in parse(html).find_all("button", value="dec:0:jokers")[0].attrs
    assert "disabled" not in parse(html).find_all("button", value="dec:0:naturals")[0].attrs
    response = client.get("/meld?f=1&rules=classic&deal=1&melds-0-rank=K&op=dec:0:jokers")
    assert query_of(response.headers["Location"])[-1] == ("m", "K.0.0.0")


def test_a_three_on_top_is_remembered_and_a_rank_on_top_forgets_it(client: FlaskClient) -> None:
    url = tap(client, "/meld?rules=classic&deal=1&m=A.3.0.0", "top:3")
    assert ("top", "3") in query_of(url)
    url = tap(client, url, "top:A")
    assert ("top", "3") not in query_of(url)
    assert ("m", "A.3.0.0.t") in query_of(url)


def test_the_pile_size_steps_up_from_nothing_under_whitnack(client: FlaskClient) -> None:
    url = tap(client, "/meld?rules=whitnack&deal=1&m=K.3.0.0.t", "inc:size")
    assert ("size", "1") in query_of(url)
    url = tap(client, url, None, size="7")
    assert ("size", "7") in query_of(url)
    assert read_check(client.get(url).get_data(as_text=True)).enough is False  # 30 of 50


@pytest.mark.parametrize(
    ("op", "expected"),
    [("rules:four-books", ("rules", "four-books")), ("deal:4", ("deal", "4"))],
)
def test_the_rule_set_and_the_deal_are_one_tap_each(
    client: FlaskClient, op: str, expected: tuple[str, str]
) -> None:
    url = tap(client, "/meld?rules=classic&deal=1&m=K.3.0.0", op)
    assert expected in query_of(url)
    assert ("m", "K.3.0.0") in query_of(url)


def test_a_tap_with_htmx_answers_the_fragment_and_pushes_the_state_url(
    client: FlaskClient,
) -> None:
    fields = {"f": "1", "rules": "classic", "deal": "1", "op": "add:K"}
    response = client.get("/meld", query_string=fields, headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="meld-checker"')
    assert response.headers["HX-Push-Url"] == "/meld?rules=classic&deal=1&m=K.3.0.0"
    assert "HX-Request" in response.headers["Vary"]
    assert "Short by 20" in read_check(html).verdict
    # said aloud through the page's lasting live region (the swapped verdict is new each
    # time, and a new live region is not read out)
    said = parse(html).find_all("p", id="meld-said")[0]
    assert said.attrs["hx-swap-oob"] == "innerHTML" and said.text == "Short by 20"
    page = parse(client.get("/meld").get_data(as_text=True))
    lasting = page.find_all("p", id="meld-said")[0]
    assert lasting.attrs["aria-live"] == "polite" and not lasting.closest("#meld-checker")


def test_the_form_carries_htmx_attributes_that_swap_the_checker(client: FlaskClient) -> None:
    form = parse(client.get("/meld").get_data(as_text=True)).find_all("form")[0]
    assert form.attrs["hx-get"] == "/meld"
    assert form.attrs["hx-target"] == "#meld-checker"
    assert form.attrs["hx-swap"] == "outerHTML"


def test_an_htmx_request_with_a_mistake_swaps_in_the_errors_without_pushing(
    client: FlaskClient,
) -> None:
    fields = {"f": "1", "rules": "classic", "deal": "1", "melds-0-rank": "K",
              "melds-0-naturals": "x"}  # fmt: skip
    response = client.get("/meld", query_string=fields, headers=HX)
    assert response.status_code == 200  # htmx swaps 200 only
    assert response.headers["HX-Push-Url"] == "false"
    assert errors_beside(response.get_data(as_text=True), "melds-0-naturals")


def test_a_history_restore_gets_the_whole_page(client: FlaskClient) -> None:
    headers = {**HX, "HX-History-Restore-Request": "true"}
    html = client.get("/meld?rules=classic&deal=1&m=K.3.0.0", headers=headers).get_data(
        as_text=True
    )
    assert "<html" in html and "meld.css" in html


def test_a_shared_state_url_shows_the_same_check(client: FlaskClient) -> None:
    url = "/meld?rules=whitnack&deal=2&m=K.3.0.1&m=Q.3.0.0.t&m=wild.0.2.1&size=8"
    first = client.get(url).get_data(as_text=True)
    again = client.get(url).get_data(as_text=True)
    assert read_check(first).verdict == read_check(again).verdict
    fields = dict(form_fields(first))
    assert fields["melds-1-top_card"] == "1"
    assert fields["size"] == "8"
    assert tap(client, url, None) == url  # checking it again changes nothing


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("rules=nope&deal=1", "There is no rule set called “nope”; showing the Classic rules."),
        ("rules=classic&deal=9", "A game has deals 1 to 4; showing deal 1."),
        ("rules=classic&deal=-1", "A game has deals 1 to 4"),
        ("rules=classic&deal=1e9", "A game has deals 1 to 4"),
        ("rules=classic&m=K.-2.0.0", "Meld 1 was left out: This cannot be negative."),
        ("rules=classic&m=K.99999999999999999999.0.0", "Meld 1 was left out: This must be at most"),
        ("rules=classic&m=K.3.0.0&m=%3Cscript%3E", "Meld 2 could not be read"),
        ("rules=classic&m=K.3.0", "Meld 1 could not be read"),
        ("rules=classic&m=Z.3.0.0", "Choose a rank from 4 to A, or wild."),
        ("rules=classic&m=wild.3.1.0", "A wild meld holds only jokers and twos."),
        ("rules=classic&m=K.3.0.0.x", "Meld 1 could not be read"),
        ("rules=classic&top=K", "Only a three or a wild card blocks the pile"),
        ("rules=classic&size=lots", "Count the cards in the discard pile"),
        ("rules=classic&match=no-such-match", "No match has this link"),
        ("rules=classic&" + "&".join(["m=K.3.0.0"] * 13), "At most 12 melds"),
        ("rules=classic&m=K.3.0.0&op=explode", "That button could not be understood"),
        ("rules=classic&m=K.3.0.0&op=remove:5", "That button could not be understood"),
    ],
)
def test_bad_url_state_shows_a_clear_message_and_falls_back(
    client: FlaskClient, query: str, message: str
) -> None:
    shown = check(client, query)
    assert shown.status == 422
    assert any(message in notice for notice in shown.notices), shown.notices


def test_bad_url_state_keeps_the_melds_that_can_be_read(client: FlaskClient) -> None:
    shown = check(client, "rules=classic&deal=1&m=K.3.0.0&m=K.-1.0.0&m=garbage&m=A.3.0.0")
    assert [m.rank for m in shown.melds] == ["K", "A"]
    assert shown.counted == 90
    assert any("Meld 2 was left out" in n for n in shown.notices)
    assert any("Meld 3 could not be read" in n for n in shown.notices)


def test_a_nul_character_in_the_state_is_refused_calmly(client: FlaskClient) -> None:
    shown = check(client, "rules=classic%00&match=%00&m=K%00.3.0.0")
    assert shown.status == 422
    assert shown.minimum == 50
