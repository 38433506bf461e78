"""Every page on the phones the other browser tests do not hold: a 360 x 740 phone (many
Androids), the 390 px phone with its text enlarged to 130 % (older players), and the 390 px
phone in Bosnian, Czech and Russian (words longer than English ones). No page is wider than
the phone, no tap target under 44 x 44 px, no ordinary word (under 20 letters) broken inside.

Bigger text is approximated by a root font size of 130 % (Chrome on Android scales the text
of the page for its text-size setting). The stylesheets size text, spacing and most boxes in
rem, so they grow with it; the breakpoints (rem in media queries, the browser's default
16 px) and the 44/48 px tap sizes do not.

The club, its players and its nights are test_pages_browser.py's (its checks are reused),
with three matches more: two sides of two with the longest real names, three sides of one,
and two sides of two with short names.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from conftest import LiveServer
from support import PASSWORD, give_role
from test_long_names_browser import OPEN_DETAILS, SHORT_WORD
from test_pages_browser import (
    ANONYMOUS_PAGES,
    BROKEN_WORDS,
    PEOPLE,
    SMALL_TARGETS,
    Club,
    club_nights,
    pages,
)

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.services import clubs

pytestmark = pytest.mark.browser

OWNER = "NarrowOwner"

#: (width, height, language, text at 130 %) of each phone a test walks.
NARROW = [(360, 740, "en", False)]
BIG_TEXT = [(390, 844, "en", True)]
LANGUAGES = [(390, 844, lang, False) for lang in ("bs", "cs", "ru")]

#: The words of the players' names. With text at 130 % a long name in a column of the
#: scoreboard or of the standings breaks (only a smaller font on every phone would keep
#: it whole: a design question); the page's own words must not.
NAME_WORDS = frozenset(re.findall(r"[^\s\u2011-]{2,}", " ".join(PEOPLE)))


@dataclass(frozen=True)
class NarrowClub(Club):
    pairs_id: str  # two sides of two with the longest names, being played
    threes_id: str  # three sides of one, being played
    short_id: str  # two sides of two with short names (a one-line link back from its rules)


@pytest.fixture(scope="module")
def narrow_club(live_server: LiveServer) -> NarrowClub:
    """test_pages_browser.py's club (members only: no other module's page lists it) and
    three matches being played, their deal forms open."""
    rng = random.Random(12)  # test_pages_browser.py's nights: a streak of losses, four partners
    with live_server.app.app_context():
        club = clubs.create_club("Narrow Phones Hand and Foot Society", "classic", 1, "members")
        for person in PEOPLE:
            clubs.add_player(club, person)
        today = date.today()
        clubs.add_season(club, f"Season {today.year}", today - timedelta(days=30), today)
        playing, finished = club_nights(club, PEOPLE, rng)
        classic = PRESETS["classic"]
        pairs = clubs.start_club_match(
            club,
            classic,
            [
                Side(("Maximiliana Featherstonehaugh", "Bartholomew Higginbotham")),
                Side(("Dee", "Fay")),
            ],
            0,
            today,
        )
        threes = clubs.start_club_match(
            club,
            classic,
            [
                Side(("Bartholomew Higginbotham",)),
                Side(("Evangelina Montgomery-Smythe",)),
                Side(("Kimberley-Anne Oduya",)),
            ],
            0,
            today,
        )
        short = clubs.start_club_match(
            club, classic, [Side(("Ann", "Bob")), Side(("Dee", "Fay"))], 0, today
        )
        player = clubs.search_players(club, "Maximiliana", limit=1)[0]
        found = NarrowClub(
            club.public_id,
            player.public_id,
            playing.public_id,
            finished,
            pairs.public_id,
            threes.public_id,
            short.public_id,
        )
        db.session.remove()
    give_role(live_server.app, found.club_id, OWNER, "owner")
    return found


def standings(club: Club) -> set[str]:
    """The standings' pages: their six columns leave a name 140 px at 360 px and 111-129 px
    under the Bosnian, Czech and Russian heads (170 px in English at 390 px), so a long
    name's word breaks there (shorter heads or fewer columns would be a design decision);
    the pages' own words must not."""
    return {f"/c/{club.club_id}", f"/c/{club.club_id}?view=partnerships"}


def on_phone(page: Any, base_url: str, width: int, height: int, lang: str) -> None:
    """The phone's size, and its language chosen as the switcher chooses it (the cookie)."""
    page.set_viewport_size({"width": width, "height": height})
    page.context.add_cookies([{"name": "lang", "value": lang, "url": base_url}])


def log_in(page: Any) -> None:
    """Log in as the club's owner (by the fields' ids: their labels are in any language)."""
    page.goto("/login")
    page.fill("#username", OWNER)
    page.fill("#password", PASSWORD)
    page.locator("main form button.primary").click()
    page.wait_for_url(re.compile(r".*/(?!login)[^/]*$"))


def visit(
    page: Any, base_url: str, club: NarrowClub, phones: list[tuple[int, int, str, bool]]
) -> Iterator[str]:
    """Open every page on each phone in turn: the log-in pages, then (logged in as the
    club's owner) test_pages_browser.py's pages, the account, the two matches with long
    names and the rules of the one with short names."""
    for width, height, lang, big in phones:
        on_phone(page, base_url, width, height, lang)
        for path in ANONYMOUS_PAGES:
            yield opened(page, path, big, f"{width} {lang}")
    log_in(page)
    walk = [
        *pages(club),
        "/account",
        f"/m/{club.pairs_id}",
        f"/m/{club.threes_id}",
        f"/m/{club.short_id}/rules",
    ]
    for width, height, lang, big in phones:
        on_phone(page, base_url, width, height, lang)
        for path in walk:
            yield opened(page, path, big, f"{width} {lang}")


def opened(page: Any, path: str, big: bool, phone: str) -> str:
    """Open ``path``, its text at 130 % if ``big``, everything folded unfolded; its label."""
    page.goto(path)
    if big:  # a style property set by script: the pages' CSP refuses a <style> added
        page.evaluate("document.documentElement.style.fontSize = '130%'")
    page.evaluate(OPEN_DETAILS)
    return f"{phone}{' 130%' if big else ''} {path}"


def problems_on(page: Any, label: str, club: NarrowClub, *, names_may_break: bool) -> dict:
    """What is wrong with the page open: its width past the phone's, targets under 44 px,
    ordinary words broken."""
    path = label.split(" ")[-1]
    width = page.evaluate("document.documentElement.scrollWidth")
    small = page.evaluate(SMALL_TARGETS)
    if path == f"/m/{club.threes_id}":
        # three steppers a row: where − 0 + fit a column, the number between the two 44 px
        # keys is narrower (24 px at 390 px in English; the keys are the targets)
        small = [s for s in small if not (s[0] == "INPUT" and s[1].startswith("sides-"))]
    broken = [w for w in page.evaluate(BROKEN_WORDS) if len(w) < SHORT_WORD]
    if names_may_break or path in standings(club):
        broken = [w for w in broken if w not in NAME_WORDS]
    viewport = page.viewport_size["width"]
    if width > viewport or small or broken:
        return {label: {"width": width, "small": small, "broken": broken}}
    return {}


@pytest.mark.parametrize(
    ("phones", "names_may_break"),
    [
        pytest.param(NARROW, False, id="360px"),
        pytest.param(BIG_TEXT, True, id="text-130pc"),
        pytest.param(LANGUAGES, False, id="bs-cs-ru"),
    ],
)
def test_every_page_fits_with_big_targets_and_whole_words(
    page: Any,
    base_url: str,
    narrow_club: NarrowClub,
    phones: list[tuple[int, int, str, bool]],
    names_may_break: bool,
) -> None:
    found: dict[str, Any] = {}
    for label in visit(page, base_url, narrow_club, phones):
        found.update(problems_on(page, label, narrow_club, names_may_break=names_may_break))
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)


@pytest.mark.parametrize(
    "path", ["/rules/presets/classic", "/rules/presets/whitnack", "/rules/new"]
)
def test_the_rules_card_and_editor_fit_a_phone_with_text_at_200_percent(
    page: Any, path: str
) -> None:
    """Its columns were at least 16rem (512 px at 200 %), a value stayed beside its label
    and the editor's fieldsets kept their content's width: 483-536 px on a 390 px phone."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(path)
    page.evaluate("document.documentElement.style.setProperty('font-size', '200%', 'important')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


#: Each stepper of the page's rows: its box, and the boxes of its keys and its number.
STEPPERS = """() => [...document.querySelectorAll('.sheet .stepper-controls')].map(c => {
  const box = e => {
    const b = e.getBoundingClientRect();
    return [b.left, b.right, b.top, b.bottom];
  };
  return {row: c.closest('.sheet-row').querySelector('.row-head, legend').textContent.trim(),
          box: box(c), parts: [...c.children].map(e => [e.tagName, ...box(e)])};
})"""


@pytest.mark.parametrize(
    ("width", "text"), [(360, "100%"), (390, "130%"), (390, "200%"), (412, "200%"), (360, "200%")]
)
def test_three_sides_steppers_stay_in_their_columns_with_text_enlarged(
    page: Any, narrow_club: NarrowClub, width: int, text: str
) -> None:
    """Three sides' − 0 + took 44 + 24 + 44 px in columns of 102 px at 360 px (running 10 px
    into the next column) and of 95 px at 390 px with text at 200 % (the page 405 px wide).
    Where a column is too narrow, the number takes a line and − and + share the one under
    it; every key stays a 44 px target and a tap still counts."""
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page)
    page.goto(f"/m/{narrow_club.threes_id}")
    page.evaluate(f"document.documentElement.style.fontSize = '{text}'")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    steppers = page.evaluate(STEPPERS)
    assert len(steppers) >= 3 * 5, steppers  # books, red threes and cards left, three sides
    rows: dict[str, list[Any]] = {}
    for stepper in steppers:
        left, right, _top, _bottom = stepper["box"]
        for tag, p_left, p_right, p_top, p_bottom in stepper["parts"]:
            assert left - 0.5 <= p_left and p_right <= right + 0.5, stepper  # inside its column
            if tag == "BUTTON":
                assert p_right - p_left >= 44 and p_bottom - p_top >= 44, stepper
        rows.setdefault(stepper["row"], []).append(stepper["box"])
    for row, boxes in rows.items():
        assert len(boxes) == 3, row
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(boxes)), (row, boxes)
    plus = page.locator(".sheet .stepper-controls").first.locator("button").last
    plus.click()
    assert page.locator(".sheet .stepper-controls input").first.input_value() == "1"
