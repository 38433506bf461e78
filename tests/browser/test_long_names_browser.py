"""Every page on a phone (390 x 844) with names as long as the forms take, each one word
(no space to wrap at): twelve club players of 40 letters, a club, a season and a team of
80, the owner's username of 40. The page must not scroll sideways (a long name breaks
where it must), its tap targets stay 44 x 44 px, and no ordinary word breaks inside.

The club is built as test_pages_browser.py builds its own; that module's checks are reused.
"""

from __future__ import annotations

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
from test_pages_browser import BROKEN_WORDS, SMALL_TARGETS, Club, club_nights, pages

from scorekeeper.extensions import db
from scorekeeper.services import clubs
from scorekeeper.services.audit import Actor

pytestmark = pytest.mark.browser

#: The longest one-word names each form takes: W and M are the widest letters.
PLAYERS = tuple(c * 40 for c in "WMQGHNOBDKUX")
CLUB = "W" * 80
SEASON = "S" * 80
TEAM = "T" * 80
OWNER = "V" * 40  # the logged-in owner: the top bar, the account page, the history
MEMBER = "Y" * 40  # another member: a row of the members table with its buttons

#: A word shorter than this fits a phone's line, so breaking it is a fault.
SHORT_WORD = 20

#: What is folded on a page (a chart's numbers, a match's history), unfolded.
OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"

#: The innermost elements ending past the phone's right edge outside any box that scrolls
#: or clips them (what widens the page), and the tables a phone shows whole (standings in
#: six columns, a player's rivals) ending past it, each as "tag.class right-edge px".
TOO_WIDE = """
() => {
  const edge = document.documentElement.clientWidth + 0.5;
  const past = e => e.getClientRects().length && e.getBoundingClientRect().right > edge;
  const loose = e => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
                         if (getComputedStyle(a).overflowX !== 'visible') return false;
                       return true; };
  const wide = Array.from(document.querySelectorAll('body *')).filter(e => past(e) && loose(e));
  return [...wide.filter(e => !wide.some(c => c !== e && e.contains(c))).slice(0, 4),
          ...Array.from(document.querySelectorAll('.standings-table, .rivals')).filter(past)]
    .map(e => `${e.tagName.toLowerCase()}${e.className ? '.' : ''}`
              + `${String(e.className).split(' ').join('.')} `
              + `${Math.round(e.getBoundingClientRect().right)} px`);
}
"""


@dataclass(frozen=True)
class LongClub(Club):
    season_id: str
    onlooker_token: str


@pytest.fixture(scope="module")
def long_club(live_server: LiveServer) -> LongClub:
    """The club of test_pages_browser.py's ``club`` fixture with the longest names: three
    weeks of club nights, one match still being played, one team named, every deal
    entered by ``OWNER`` (the history names them), who owns the club. Members only: the
    other modules' pages (the public clubs) do not list it."""
    rng = random.Random(40)
    with live_server.app.app_context():
        club = clubs.create_club(CLUB, "classic", 1, "members")  # out of the public list
        for person in PLAYERS:
            clubs.add_player(club, person)
        today = date.today()
        season = clubs.add_season(club, SEASON, today - timedelta(days=30), today)
        playing, finished = club_nights(club, PLAYERS, rng, team=TEAM, actor=Actor(OWNER))
        player = clubs.search_players(club, PLAYERS[0], limit=1)[0]
        found = LongClub(
            club.public_id,
            player.public_id,
            playing.public_id,
            finished,
            season.public_id,
            playing.row.onlooker_token,
        )
        db.session.remove()
    give_role(live_server.app, found.club_id, OWNER, "owner")
    give_role(live_server.app, found.club_id, MEMBER, "scorer")
    return found


def long_pages(club: LongClub) -> list[str]:
    """test_pages_browser.py's pages and the rest that show a club's or a person's name."""
    home = f"/c/{club.club_id}"
    player = f"{home}/p/{club.player_id}"
    return [
        *pages(club),
        "/account",
        f"{home}?season={club.season_id}",
        f"{home}?season={club.season_id}&view=partnerships",
        f"{player}?view=rivals",
        f"{player}?season={club.season_id}",
        f"{home}/delete",
        f"/m/{club.finished_id}/rules",
        f"/watch/{club.onlooker_token}",
    ]


def visit(page: Any, club: LongClub) -> Iterator[str]:
    """Log in as the club's owner, then open every page in turn, everything unfolded."""
    page.goto("/login")
    page.get_by_label("Username").fill(OWNER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/(?!login)[^/]*$"))
    for path in long_pages(club):
        page.goto(path)
        page.evaluate(OPEN_DETAILS)
        yield path


def test_no_page_is_wider_than_a_phone_with_the_longest_one_word_names(
    page: Any, long_club: LongClub
) -> None:
    problems = {}
    for path in visit(page, long_club):
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate(TOO_WIDE)
        small = page.evaluate(SMALL_TARGETS)
        broken = [w for w in page.evaluate(BROKEN_WORDS) if len(w) < SHORT_WORD]
        if width > 390 or wide or small or broken:
            problems[path] = {"width": width, "wide": wide, "small": small, "broken": broken}
    assert problems == {}, json.dumps(problems, indent=1)
