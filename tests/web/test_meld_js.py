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

from scorekeeper.engine import Meld, RuleSet, check_meld
from scorekeeper.engine.presets import PRESETS

MELD_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "meld.js"
CHROMIUM = Path("/usr/bin/chromium")
RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "wild")


def variant(preset: str, **changes: Any) -> RuleSet:
    data = PRESETS[preset].to_dict()
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return RuleSet.from_dict(data)


#: Every preset, and house rules that turn each knob the meld check reads.
RULE_SETS: dict[str, RuleSet] = {
    **PRESETS,
    "pair-or-wild": variant("classic", discard_pickup={"pair": "natural_or_wild"}),
    "pile-of-9": variant("whitnack", discard_pickup={"pile_minimum": 9}),
    "no-cap": variant("classic", wild_limit={"max_wilds": None, "naturals_per_wild": 1}),
    "one-wild": variant("classic", wild_limit={"max_wilds": 1, "naturals_per_wild": 3}),
    "thresholds": variant("classic", minimum_meld=[[0, 50], [2500, 90], [5000, 120], [7500, 150]]),
    "six-deals": variant("four-books", deals=6, minimum_meld=[50, 90, 120, 150, 150, 200]),
}


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
    case("classic", 1, [("wild", 0, 3, 0, True)]),  # wild on top
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
    """Random cases over every rule set, rank, count, top card, pile size and total."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        name = rng.choice(sorted(RULE_SETS))
        rules = RULE_SETS[name]
        melds = []
        top = rng.randrange(-1, 4)
        for i in range(rng.randrange(0, 5)):
            rank = rng.choice(RANKS)
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


def script_answers(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run every case through meld.js, fed each rule set's JSON."""
    rules = {name: r.to_dict() for name, r in RULE_SETS.items()}
    program = (
        "const M = require(process.argv[1]);"
        "const {rules, cases} = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(c =>"
        " M.checkMeld(rules[c.rules], c.deal, c.melds, c.total, c.pile))));"
    )
    payload = json.dumps({"rules": rules, "cases": cases})
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
            "([rules, cases]) => cases.map(c =>"
            " ScorekeeperMeld.checkMeld(rules[c.rules], c.deal, c.melds, c.total, c.pile))",
            [rules, cases],
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


def test_the_generated_cases_reach_every_verdict(answers: dict[str, Any]) -> None:
    """The comparison means something: legal and illegal melds, enough and short."""
    reasons = {
        r.split(";")[0].split(" ")[0]
        for a in answers["script"]
        for m in a["melds"]
        for r in m["reasons"]
    }
    assert {"A", "This", "The", "Taking"} <= reasons
    assert {a["enough"] for a in answers["script"]} == {True, False}
    assert len({a["minimum"] for a in answers["script"]}) >= 4
