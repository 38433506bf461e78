"""Every main page on a phone (390 x 844), with a club of 12 players with long names:
no serious or critical axe-core violation in the light and the dark theme, no horizontal
overflow, no word broken inside a word, no tap target under 44 x 44 px outside running text.

axe-core is the copy shipped inside the axe-playwright-python package (injected from the
disk, never fetched from another host).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import LiveServer
from playwright.sync_api import expect
from support import PASSWORD, give_role

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.services import clubs, matches
from scorekeeper.services.audit import NOBODY, Actor
from scorekeeper.services.demo import realistic_deal

pytestmark = pytest.mark.browser

#: Twelve players, some with the long names real clubs have.
PEOPLE = (
    "Ann", "Bob", "Maximiliana Featherstonehaugh", "Dee", "Bartholomew Higginbotham",
    "Fay", "Gus", "Hal", "Evangelina Montgomery-Smythe", "Ike", "Jo", "Kimberley-Anne Oduya",
)  # fmt: skip

#: Interactive elements under 44 x 44 px, except links inside running text (a sentence).
#: (A heading given the focus by the script, tabindex="-1", is no target: no Tab or tap
#: reaches it.)
SMALL_TARGETS = """
() => Array.from(document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, summary, textarea,'
    + ' [tabindex]:not([tabindex="-1"])'))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
               && !e.classList.contains('skip') && !e.closest('[hidden], .visually-hidden'))
  .filter(e => !(e.tagName === 'A' && e.closest('p, li.prose, dd') &&
                 e.closest('p, li.prose, dd').textContent.trim() !== e.textContent.trim()))
  .map(e => ['radio', 'checkbox'].includes(e.type) && e.closest('label') ? e.closest('label') : e)
  .map(e => { const r = e.getBoundingClientRect();
              return [e.tagName, (e.id || e.textContent || e.name || '').trim().slice(0, 30),
                      Math.round(r.width), Math.round(r.height)]; })
  .filter(([, , w, h]) => w < 44 || h < 44)
"""

#: Words drawn on more than one line (broken inside the word).
BROKEN_WORDS = """
() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !parent.getClientRects().length ||
        parent.closest('.visually-hidden, script, style, option, svg')) continue;
    for (const m of node.textContent.matchAll(/[^\\s\\u2011-]{2,}/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects())
        .filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) found.push(m[0]);
    }
  }
  return found;
}
"""


#: axe's default rules and, beyond them, the experimental check that a control's accessible
#: name contains its visible text (voice control users say what they see).
AXE_OPTIONS = {"rules": {"label-content-name-mismatch": {"enabled": True}}}


@dataclass(frozen=True)
class Club:
    club_id: str
    player_id: str
    match_id: str
    finished_id: str


def club_nights(
    club: Any,
    people: Sequence[str],
    rng: random.Random,
    *,
    team: str = "",
    actor: Actor = NOBODY,
) -> tuple[matches.LoadedMatch, str]:
    """Three weekly club nights of ``club``, the last today: three tables of four of
    ``people``, two sides of two (the middle table's first side named ``team``), every
    deal entered by ``actor``. Every match has its four deals but the last night's first,
    two deals in: that match, still being played, and the last one finished (its id)."""
    today = date.today()
    playing, finished = None, ""
    for week in range(3):
        seated = list(people)
        rng.shuffle(seated)
        for table in range(3):
            four = seated[table * 4 : table * 4 + 4]
            loaded = clubs.start_club_match(
                club,
                PRESETS["classic"],
                [Side(tuple(four[:2]), team if table == 1 else ""), Side(tuple(four[2:]))],
                0,
                today - timedelta(days=14 - 7 * week),
            )
            deals = 2 if week == 2 and table == 0 else 4
            for number in range(1, deals + 1):
                out = rng.randint(0, 1)
                entries = [realistic_deal(rng, out == i) for i in range(2)]
                loaded, _ = matches.record_deal(
                    loaded, entries, f"nights-{loaded.row.id}-{number}", number, actor=actor
                )
            if deals == 2:
                playing = loaded
            else:
                finished = loaded.public_id
    assert playing is not None and finished
    return playing, finished


@pytest.fixture(scope="module")
def club(live_server: LiveServer) -> Club:
    """A club of 12 players, two weeks of club nights, one match still being played."""
    rng = random.Random(12)
    with live_server.app.app_context():
        club = clubs.create_club("Thursday Night Hand and Foot Society", "classic", 1)
        for person in PEOPLE:
            clubs.add_player(club, person)
        today = date.today()
        clubs.add_season(club, f"Season {today.year}", today - timedelta(days=30), today)
        playing, finished = club_nights(club, PEOPLE, rng)
        player = clubs.search_players(club, "Maximiliana", limit=1)[0]
        found = Club(club.public_id, player.public_id, playing.public_id, finished)
        db.session.remove()
    give_role(live_server.app, found.club_id, "owner", "owner")  # pages walked as its owner
    return found


#: Pages a visitor sees before logging in (the walk then logs in as the club's owner).
ANONYMOUS_PAGES = ["/login", "/signup"]


def visit(page: Any, club: Club) -> Iterator[str]:
    """Open every page in turn: the log-in pages, then the rest as the club's owner."""
    for path in ANONYMOUS_PAGES:
        page.goto(path)
        yield path
    page.goto("/login")
    page.get_by_label("Username").fill("owner")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/(?!login)[^/]*$"))
    for path in pages(club):
        page.goto(path)
        yield path
    yield from refused(page, club)


def refused(page: Any, club: Club) -> Iterator[str]:
    """The pages as a refusal leaves them: a deal whose side went out without its books, and
    house rules for one deck (their errors' colours and lists are checked too)."""
    page.goto(f"/m/{club.match_id}")
    page.locator("label.choice:has(input[name=went_out][value='0'])").click()
    page.fill("#sides-0-melded_points", "9999999")
    page.locator("#deal-entry button[type=submit]").first.click()
    expect(page.locator("#deal-entry [aria-invalid=true]").first).to_be_visible()
    yield f"/m/{club.match_id} (a deal refused)"
    page.goto("/rules/new?from=classic")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.fill("#name", "One deck")
    page.locator("input[name=decks_mode][value=fixed]").check()
    page.fill("#decks", "1")
    page.get_by_role("button", name="Save").first.click()
    expect(page.locator("#rule-form [aria-invalid=true]").first).to_be_attached()
    yield "/rules/new (house rules refused)"


def pages(club: Club) -> list[str]:
    return [
        "/",
        "/matches/new",
        "/matches/new?rules=classic&layout=1%2B1%2B1",
        f"/m/{club.match_id}",
        f"/m/{club.finished_id}",
        f"/m/{club.match_id}/deals/1/edit",
        f"/m/{club.match_id}/rules",
        f"/m/{club.match_id}/share",
        "/meld",
        "/rules",
        "/rules/new",
        "/rules/presets/classic",
        "/clubs",
        f"/c/{club.club_id}",
        f"/c/{club.club_id}?view=partnerships",
        f"/c/{club.club_id}/players",
        f"/c/{club.club_id}/p/{club.player_id}",
        f"/c/{club.club_id}/tonight",
        f"/c/{club.club_id}/settings",
        f"/c/{club.club_id}/members",
        f"/c/{club.club_id}/matches/new",
        f"/c/{club.club_id}/log",
        f"/c/{club.club_id}/leave",  # as the only owner: how to hand the club on
        "/account",
        "/account/close",
    ]


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation_on_any_page(
    page: Any, club: Club, axe: Axe, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    found = {}
    for path in visit(page, club):
        results = axe.run(page, options=AXE_OPTIONS)
        serious = [
            (v["id"], [n["target"] for n in v["nodes"]][:3])
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if serious:
            found[path] = serious
    assert found == {}, json.dumps(found, indent=1)


def test_every_page_fits_390_px_with_big_targets_and_whole_words(page: Any, club: Club) -> None:
    problems = {}
    for path in visit(page, club):
        width = page.evaluate("document.documentElement.scrollWidth")
        small = page.evaluate(SMALL_TARGETS)
        broken = page.evaluate(BROKEN_WORDS)
        if width > 390 or small or broken:
            problems[path] = {"width": width, "small": small, "broken": broken}
    assert problems == {}, json.dumps(problems, indent=1)


def test_standings_on_a_phone_show_six_columns_and_the_rest_one_tap_away(
    page: Any, club: Club
) -> None:
    page.goto(f"/c/{club.club_id}")
    headers = page.locator(".standings-table thead th:visible")
    assert [h.strip() for h in headers.all_inner_texts()] == [
        "#", "Name", "G", "Win %", "Form", "Rating",
    ]  # fmt: skip
    table = page.locator(".standings-table").bounding_box()
    assert table is not None and table["x"] + table["width"] <= 390
    page.get_by_text("Every column").click()
    expect(headers).to_have_count(18)
    page.set_viewport_size({"width": 1024, "height": 800})
    page.reload()
    expect(headers).to_have_count(18)
    expect(page.get_by_text("Every column")).to_be_hidden()
