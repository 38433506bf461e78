"""Playing whole club matches from numbers: the demo club (``flask seed-demo``) and tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, select

from ..engine import PRESETS, Side
from ..extensions import db
from ..models import Club
from . import clubs, matches


def play(
    club: Club,
    sides: Sequence[Sequence[str]],
    deals: Sequence[Sequence[int]],
    day: date = date(2024, 3, 5),
    extra: dict[int, dict[str, Any]] | None = None,
) -> matches.LoadedMatch:
    """Start a classic club match and record ``deals`` (points on the table per side).

    ``extra`` adds entry fields to a side in every deal (books, red threes...).
    """
    loaded = clubs.start_club_match(
        club, PRESETS["classic"], [Side(tuple(s)) for s in sides], 0, day
    )
    for number, points in enumerate(deals, start=1):
        entries = [{"melded_points": p, **(extra or {}).get(i, {})} for i, p in enumerate(points)]
        loaded, _ = matches.record_deal(loaded, entries, f"k{loaded.row.id}-{number}", number)
    return loaded


def four_deals(a: int, b: int) -> list[list[int]]:
    """Four deals whose totals come to ``a`` and ``b``."""
    return [[a, b], [0, 0], [0, 0], [0, 0]]


PEOPLE = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")


def realistic_deal(rng: random.Random, went_out: bool) -> dict[str, Any]:
    """One side's plausible entry under ``classic``: books, cards on the table, leftovers."""
    if went_out:
        return {
            "went_out": True,
            "books": {"clean": 2 + rng.randint(0, 1), "dirty": 2 + rng.randint(0, 1), "wild": 1},
            "red_threes": rng.randint(0, 2),
            "melded_points": rng.randrange(500, 900, 5),
        }
    return {
        "books": {"clean": rng.randint(0, 2), "dirty": rng.randint(0, 2)},
        "red_threes": rng.randint(0, 2),
        "red_threes_left": rng.choice((0, 0, 0, 1)),
        "melded_points": rng.randrange(150, 600, 5),
        "left_points": rng.randrange(0, 150, 5),
    }


def seed(name: str = "Tuesday Card Club", weeks: int = 10, seed_value: int = 7) -> Club:
    """A club with eight players, a season and ``weeks`` club nights of two tables each."""
    rng = random.Random(seed_value)
    today = date.today()
    first = today - timedelta(weeks=weeks)
    club = clubs.create_club(name, "classic", 3)
    for person in PEOPLE:
        clubs.add_player(club, person)
    clubs.add_season(club, f"Season {first.year}", first, today + timedelta(days=60))
    for week in range(weeks + 1):
        day = first + timedelta(weeks=week)
        people = list(PEOPLE)
        rng.shuffle(people)
        for table in range(2):
            four = people[table * 4 : table * 4 + 4]
            sides = [four[:2], four[2:]]
            deals = 4 if week < weeks or table == 0 else 2  # tonight: one table still playing
            loaded = clubs.start_club_match(
                club, PRESETS["classic"], [Side(tuple(s)) for s in sides], 0, day
            )
            for number in range(1, deals + 1):
                out = rng.randint(0, 1) if rng.random() < 0.9 else None
                entries = [realistic_deal(rng, out == i) for i in range(2)]
                loaded, _ = matches.record_deal(
                    loaded, entries, f"demo-{loaded.row.id}-{number}", number
                )
    return club


def find_club(name: str) -> Club | None:
    """The oldest club called ``name`` (any case, spaces trimmed), if there is one."""
    query = select(Club).where(func.lower(Club.name) == name.strip().lower())
    return db.session.scalars(query.order_by(Club.id).limit(1)).first()


def seed_once(name: str = "Tuesday Card Club", weeks: int = 10) -> tuple[Club, bool]:
    """The demo club called ``name``, made unless it exists; and whether it was made now."""
    existing = find_club(name)
    if existing is not None:
        return existing, False
    return seed(name, weeks), True
