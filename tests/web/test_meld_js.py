"""The meld check in the browser (static/js/meld.js) gives the engine's answers: the same
cases run through both, a table of chosen ones and many generated ones, every answer
compared (issue 13: the meld check works offline).

The script runs in Node when it is installed, else in Chromium (tests/browser's).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorekeeper.engine import Meld, RuleSet, check_meld
from scorekeeper.engine.presets import PRESETS
from scorekeeper.web.i18n import translated_check
from scorekeeper.web.pwa import MELD_KNOBS, meld_words

MELD_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "meld.js"
CHROMIUM = Path("/usr/bin/chromium")
RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "wild")


def variant(preset: str, *, without: tuple[str, ...] = (), **changes: Any) -> dict[str, Any]:
    """A preset's JSON with some knobs changed (or, ``without``, left out)."""
    data = PRESETS[preset].to_dict()
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    for key in without:
        del data[key]
    return data


#: Every preset, and house rules that turn each knob the meld check reads, as the JSON
#: meld.js is fed; the engine reads the same JSON (so a knob left out gets the reader's
#: default on both sides).
RULE_DATA: dict[str, dict[str, Any]] = {
    **{name: rules.to_dict() for name, rules in PRESETS.items()},
    "pair-or-wild": variant("classic", discard_pickup={"pair": "natural_or_wild"}),
    "pile-of-9": variant("whitnack", discard_pickup={"pile_minimum": 9}),
    "no-cap": variant("classic", wild_limit={"max_wilds": None, "naturals_per_wild": 1}),
    "one-wild": variant("classic", wild_limit={"max_wilds": 1, "naturals_per_wild": 3}),
    "thresholds": variant("classic", minimum_meld=[[0, 50], [2500, 90], [5000, 120], [7500, 150]]),
    "six-deals": variant("four-books", deals=6, minimum_meld=[50, 90, 120, 150, 150, 200]),
    # pile_blocked_by and one_open_meld_per_rank, each way round the presets do not go
    "classic-wild-blocks": variant("classic", pile_blocked_by=["black3", "wild"]),
    "four-books-wild-free": variant("four-books", pile_blocked_by=["black3"]),
    "whitnack-melds-free": variant("whitnack", one_open_meld_per_rank=False),
    "nothing-blocks": variant("whitnack", pile_blocked_by=[]),
    # a rule set saved before those knobs existed: the reader's defaults
    "saved-before": variant("classic", without=("pile_blocked_by", "one_open_meld_per_rank")),
}
RULE_SETS: dict[str, RuleSet] = {name: RuleSet.from_dict(d) for name, d in RULE_DATA.items()}


def case(
    rules: str,
    deal: int,
    melds: list[tuple[Any, ...]],
    total: int = 0,
    pile: int | None = None,
) -> dict[str, Any]:
    """A case: melds as (rank, naturals, jokers, twos[, top_card])."""
    return {
        "rules": rules,
        "deal": deal,
        "total": total,
        "pile": pile,
        "melds": [
            {
                "rank": m[0],
                "naturals": m[1],
                "jokers": m[2],
                "twos": m[3],
                "top_card": m[4:] == (True,),
            }
            for m in melds
        ],
    }


TABLE = [
    case("classic", 1, []),
    case("classic", 2, [("K", 3, 0, 1), ("Q", 3, 0, 0, True), ("wild", 0, 2, 1)]),  # RULES.md 6
    case("classic", 1, [("A", 2, 0, 0)]),  # too few cards
    case("classic", 1, [("A", 6, 1, 1)]),  # too many cards
    case("classic", 1, [("8", 2, 1, 0)]),  # one wild with two naturals: legal
    case("classic", 1, [("8", 2, 0, 2)]),  # two wilds in four cards
    case("classic", 1, [("8", 4, 2, 1)]),  # three wilds
    case("four-books", 1, [("wild", 0, 2, 1)]),  # no wild books
    case("classic", 1, [("wild", 0, 3, 0, True)]),  # wild on top, two wilds from hand
    case("classic", 1, [("wild", 0, 2, 0, True)]),  # wild on top, one from hand
    case("classic", 1, [("wild", 0, 0, 0, True)]),  # wild on top, none at all
    case("whitnack", 2, [("wild", 0, 1, 2, True)], pile=3),  # wild on top, pile too small
    case("whitnack", 2, [("wild", 0, 1, 2, True)], pile=7),
    case("four-books", 1, [("wild", 0, 3, 0, True)]),  # wild blocks: every reason
    case("classic-wild-blocks", 1, [("wild", 0, 3, 0, True)]),
    case("four-books-wild-free", 1, [("wild", 0, 1, 1, True)]),  # no wild books, one from hand
    case("nothing-blocks", 1, [("wild", 0, 3, 0, True)], pile=2),
    case("saved-before", 1, [("wild", 0, 3, 0, True)]),  # old rule sets: a wild blocks
    case("classic", 1, [("K", 3, 0, 0), ("K", 4, 0, 0)]),  # a second unfinished meld of kings
    case("classic", 1, [("K", 3, 0, 0), ("K", 3, 1, 0), ("K", 3, 0, 0)]),  # and a third
    case("classic", 1, [("K", 7, 0, 0), ("K", 3, 0, 0)]),  # after a book of 7: legal
    case("classic", 1, [("K", 5, 1, 1), ("K", 3, 0, 0), ("K", 3, 0, 0)]),  # dirty book first
    case("classic", 1, [("K", 8, 0, 0), ("K", 3, 0, 0)]),  # too big, yet not unfinished
    case("classic", 1, [("K", 2, 0, 0), ("K", 3, 0, 0)]),  # an illegal first still counts
    case("classic", 1, [("wild", 0, 3, 0), ("wild", 0, 0, 3)]),  # two wild melds
    case("whitnack", 1, [("Q", 3, 0, 0), ("Q", 2, 1, 0, True)], pile=8),
    case("four-books", 1, [("A", 3, 0, 0), ("A", 3, 0, 0)]),
    case("whitnack-melds-free", 1, [("A", 3, 0, 0), ("A", 3, 0, 0)]),
    case("saved-before", 1, [("A", 3, 0, 0), ("A", 3, 0, 0)]),  # old rule sets: allowed
    case("classic", 3, [("J", 3, 0, 0, True)]),  # the pair from hand
    case("classic", 3, [("J", 2, 1, 0, True)]),  # only one natural from hand
    case("pair-or-wild", 3, [("J", 2, 1, 0, True)]),  # one and a wild: enough
    case("pair-or-wild", 3, [("J", 1, 2, 0, True)]),  # none from hand
    case("whitnack", 2, [("K", 3, 0, 0, True)], pile=6),  # pile too small
    case("whitnack", 2, [("K", 3, 0, 0, True)], pile=7),
    case("whitnack", 2, [("K", 3, 0, 0, True)]),  # pile size not given
    case("pile-of-9", 2, [("K", 1, 0, 0, True)], pile=0),  # every reason at once
    case("no-cap", 1, [("5", 3, 3, 0)]),
    case("one-wild", 1, [("5", 2, 1, 0)]),  # "no wild card" at three cards
    case("thresholds", 1, [("A", 3, 0, 0)], total=-500),  # below the first threshold
    case("thresholds", 1, [("A", 3, 0, 0)], total=2500),
    case("thresholds", 1, [("A", 3, 2, 0)], total=9000),
    case("six-deals", 6, [("A", 3, 1, 1), ("K", 5, 0, 0)]),
    case("classic", 4, [("A", 3, 0, 0), ("A", 3, 0, 0), ("K", 3, 0, 0)]),  # enough exactly
    case("classic", 2, [("7", 0, 0, 0)]),  # an empty meld
]


def generated(count: int, seed: int) -> list[dict[str, Any]]:
    """Random cases over every rule set, rank, count, top card, pile size and total.

    Half the cases draw their ranks from two only (one of them wild half the time), so a
    second meld of a rank and a wild card on top come often; counts reach past a book.
    """
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        name = rng.choice(sorted(RULE_SETS))
        rules = RULE_SETS[name]
        melds = []
        top = rng.randrange(-1, 4)
        ranks: tuple[str, ...] = RANKS
        if rng.random() < 0.5:
            ranks = (rng.choice(RANKS[:-1]), rng.choice((*RANKS[:-1], "wild", "wild")))
        for i in range(rng.randrange(0, 5)):
            rank = rng.choice(ranks)
            naturals = 0 if rank == "wild" else rng.randrange(0, 9)
            melds.append((rank, naturals, rng.randrange(0, 4), rng.randrange(0, 4), i == top))
        cases.append(
            case(
                name,
                rng.randrange(1, rules.deals + 1),
                melds,
                total=rng.choice([0, rng.randrange(-2000, 12000)]),
                pile=rng.choice([None, rng.randrange(0, 15)]),
            )
        )
    return cases


def engine_answer(data: dict[str, Any]) -> dict[str, Any]:
    melds = [Meld(**m) for m in data["melds"]]
    rules = RULE_SETS[data["rules"]]
    return check_meld(rules, data["deal"], melds, data["total"], data["pile"]).as_dict()


def script_answers(
    cases: list[dict[str, Any]], words: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Run every case through meld.js, fed each rule set's JSON (and the page's words for
    its language) as the meld page does."""
    rules = {  # what the meld page gives the script: the knobs the meld check reads
        name: {key: data[key] for key in MELD_KNOBS if key in data}
        for name, data in RULE_DATA.items()
    }
    program = (
        "const M = require(process.argv[1]);"
        "const {rules, cases, words} = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(c =>"
        " M.checkMeld(rules[c.rules], c.deal, c.melds, c.total, c.pile, words))));"
    )
    payload = json.dumps({"rules": rules, "cases": cases, "words": words})
    node = shutil.which("node")
    if node:
        done = subprocess.run(
            [node, "-e", program, str(MELD_JS)],
            input=payload,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return json.loads(done.stdout)
    if not CHROMIUM.exists():
        pytest.skip("meld.js needs Node or Chromium to run")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        page.add_script_tag(content=MELD_JS.read_text())
        answers = page.evaluate(
            "([rules, cases, words]) => cases.map(c =>"
            " ScorekeeperMeld.checkMeld(rules[c.rules], c.deal, c.melds, c.total, c.pile, words))",
            [rules, cases, words],
        )
        browser.close()
        return answers


@pytest.fixture(scope="module")
def answers() -> dict[str, Any]:
    cases = TABLE + generated(3000, seed=13)
    return {"cases": cases, "script": script_answers(cases)}


@pytest.mark.parametrize("index", range(len(TABLE)))
def test_the_script_answers_each_chosen_case_as_the_engine_does(
    answers: dict[str, Any], index: int
) -> None:
    assert answers["script"][index] == engine_answer(TABLE[index])


def test_the_script_answers_three_thousand_generated_cases_as_the_engine_does(
    answers: dict[str, Any],
) -> None:
    cases = answers["cases"][len(TABLE) :]
    different = [
        (c, s, e)
        for c, s, e in zip(
            cases, answers["script"][len(TABLE) :], map(engine_answer, cases), strict=True
        )
        if s != e
    ]
    assert not different, different[:3]


@pytest.mark.parametrize("language", ["cs", "bs", "ru"])
def test_without_a_connection_the_reasons_are_in_the_page_s_language_as_the_server_says_them(
    app: Flask, language: str
) -> None:
    """The meld page gives meld.js its language's words (``meld_words``): every reason the
    script gives is the one the server gives in that language, and none is left English."""
    cases = TABLE + generated(600, seed=29)
    with app.test_request_context(headers={"Accept-Language": language}):
        words = meld_words()
        expected = [translated_check(engine_answer(c)) for c in cases]
    said = script_answers(cases, words)
    assert said == expected
    reasons = {r for answer in said for m in answer["melds"] for r in m["reasons"]}
    english = {
        r for answer in map(engine_answer, cases) for m in answer["melds"] for r in m["reasons"]
    }
    assert len(reasons) > 40 and not reasons & english


def situations(case: dict[str, Any], answer: dict[str, Any]) -> set[tuple[str, str]]:
    """What a case shows, as (rule set, situation) pairs."""
    name = case["rules"]
    found = set()
    for meld, verdict in zip(case["melds"], answer["melds"], strict=True):
        reasons = verdict["reasons"]
        second = any(r.startswith("Your side already starts") for r in reasons)
        if meld["rank"] == "wild" and meld["top_card"]:
            found.add((name, "wild on top, legal" if verdict["legal"] else "wild on top, refused"))
            if any(r.startswith("The discard pile cannot be taken") for r in reasons):
                found.add((name, "wild on top blocks"))
            if any(r.startswith("Taking the pile with a wild card") for r in reasons):
                found.add((name, "wild on top, too few from hand"))
        if second:
            found.add((name, "second wild meld" if meld["rank"] == "wild" else "second meld"))
    ranks = [m["rank"] for m in case["melds"]]
    for i, meld in enumerate(case["melds"]):
        if meld["rank"] in ranks[:i] and answer["melds"][i]["legal"]:
            found.add((name, "another meld of a rank, legal"))
    return found


def test_the_generated_cases_reach_every_verdict(answers: dict[str, Any]) -> None:
    """The comparison means something: legal and illegal melds, enough and short, every
    reason, and under each rule set the situations its pile and meld knobs decide."""
    generated_answers = answers["script"][len(TABLE) :]
    reasons = {
        " ".join(r.split(" ")[:4])
        for a in generated_answers
        for m in a["melds"]
        for r in m["reasons"]
    }
    assert {
        "A meld needs at",
        "A meld holds at",
        "This rule set has",
        "The discard pile cannot",
        "Taking the pile needs",
        "Taking the pile with",
        "The pile can only",
        "Your side already starts",
    } <= reasons
    assert {a["enough"] for a in generated_answers} == {True, False}
    assert len({a["minimum"] for a in generated_answers}) >= 4
    found = set().union(
        *(
            situations(c, a)
            for c, a in zip(answers["cases"][len(TABLE) :], generated_answers, strict=True)
        )
    )
    for name in ("classic", "whitnack", "nothing-blocks"):
        assert {(name, "wild on top, legal"), (name, "wild on top, too few from hand")} <= found
    assert ("four-books-wild-free", "wild on top, too few from hand") in found
    for name in ("four-books", "classic-wild-blocks", "saved-before"):
        assert (name, "wild on top blocks") in found
        assert (name, "wild on top, legal") not in found
    for name in ("classic", "whitnack", "four-books", "classic-wild-blocks"):
        assert {(name, "second meld"), (name, "another meld of a rank, legal")} <= found
    assert {("classic", "second wild meld"), ("whitnack", "second wild meld")} <= found
    for name in ("whitnack-melds-free", "saved-before"):
        assert (name, "another meld of a rank, legal") in found
        assert (name, "second meld") not in found
