"""Building a club's history quickly: finished club matches played through the services.

Matches are played from realistic numbers (``services.demo.realistic_deal``) through
``clubs.start_club_match`` and ``matches.record_deal``, so every aggregate the pages read
(side results, ratings) is written exactly as on a real club night.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func, select

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, MatchPlayer, SideResult
from scorekeeper.services import clubs, demo, matches

PEOPLE = (*demo.PEOPLE, "Ida", "Jon", "Kay", "Lou")  # twelve regulars, eight a night
TABLES = 2  # tables on each club night of the history
TONIGHT = 2  # today's tables (one finished, one still playing): club night's page


@dataclass(frozen=True)
class ClubHistory:
    """A club built for the benchmark, and the public ids its pages are reached by."""

    club_id: str
    player_id: str  # the regular with the most games
    match_id: str  # the most recent finished match of the history
    finished: int  # finished matches in the history (tonight's first table not counted)


def build_club(name: str, size: int, seed: int = 7, today: date | None = None) -> ClubHistory:
    """A club with ``size`` finished matches on past club nights, and tonight's tables.

    History nights are a week apart, ``TABLES`` tables a night, eight of the twelve
    regulars each night; the season holds the last 90 days. Tonight has ``TONIGHT``
    tables, the first finished, the last one deal short, so club night and the home page
    show both kinds whatever the size.
    """
    rng = random.Random(seed)
    today = today or date.today()
    nights = -(-size // TABLES)  # ceiling: the oldest night may have fewer tables
    club = clubs.create_club(name, "classic", 3)
    for person in PEOPLE:
        clubs.add_player(club, person)
    clubs.add_season(
        club, f"Season {today.year}", today - timedelta(days=90), today + timedelta(days=60)
    )
    last = None
    for index in range(size):
        night = nights - index // TABLES  # weeks before today, oldest first
        last = _play(club, rng, today - timedelta(weeks=night), complete=True)
    for table in range(TONIGHT):
        _play(club, rng, today, complete=table < TONIGHT - 1)
    regular = max(club.players, key=lambda p: (_games(club, p.id), p.name))
    return ClubHistory(club.public_id, regular.public_id, last.public_id if last else "", size)


def _play(club: Club, rng: random.Random, day: date, complete: bool) -> matches.LoadedMatch:
    """One two-against-two match of the classic rules, all its deals or all but one."""
    four = rng.sample(PEOPLE, 4)
    sides = [Side(tuple(four[:2])), Side(tuple(four[2:]))]
    loaded = clubs.start_club_match(club, PRESETS["classic"], sides, rng.randrange(4), day)
    deals = PRESETS["classic"].deals - (0 if complete else 1)
    for number in range(1, deals + 1):
        out = rng.randint(0, 1) if rng.random() < 0.9 else None
        entries = [demo.realistic_deal(rng, out == i) for i in range(2)]
        loaded, _ = matches.record_deal(loaded, entries, f"bench-{loaded.row.id}-{number}", number)
    return loaded


def _games(club: Club, player_id: int) -> int:
    """Finished matches the player took part in."""
    return (
        db.session.scalar(
            select(func.count())
            .select_from(SideResult)
            .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
            .where(SideResult.club_id == club.id, MatchPlayer.player_id == player_id)
        )
        or 0
    )
