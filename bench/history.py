"""Building a club's history quickly: finished club matches played through the services.

Matches are played from realistic numbers (``services.demo.realistic_deal``) through
``clubs.start_club_match`` and ``matches.record_deal``, so every aggregate the pages read
(side results, ratings) is written exactly as on a real club night.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, MatchPlayer, SideResult, new_public_id
from scorekeeper.models.matches import new_onlooker_token
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


#: Tables of an export that hold a match or hang from one (``services.data_export``).
MATCH_TABLES = ("matches", "match_sides", "match_players", "deals", "deal_sides", "audit_events")


def replicated(doc: dict[str, Any], size: int, today: date | None = None) -> dict[str, Any]:
    """An export document (``services.data_export.document``) of a club history grown to
    ``size`` finished matches by copying its finished past matches further into the past.

    Building a history through the services costs a transaction per deal: thousands of
    matches take most of an hour on a busy machine. ``scorekeeper import`` of this
    document (``services.data_import.load``) inserts the rows at once and rebuilds the
    totals, side results, standing lines and ratings exactly as the app computes them.
    Each copy of the past matches is played as many weeks earlier as the originals span,
    with new ids, new random public ids and submission keys ending ``-c<copy>``; tonight's
    tables are not copied.
    """
    today = today or date.today()
    tables = {name: [dict(row) for row in rows] for name, rows in doc["tables"].items()}
    matches_ = tables["matches"]
    past = [m for m in matches_ if date.fromisoformat(m["played_on"] or today.isoformat()) < today]
    if not past:
        raise ValueError("the document holds no past club match to copy")
    if size < len(past):
        raise ValueError(f"the document already holds {len(past)} past matches, not {size}")
    ids = {name: max((row["id"] for row in rows), default=0) for name, rows in tables.items()}
    first = min(date.fromisoformat(m["played_on"]) for m in past)
    span = timedelta(weeks=(today - first).days // 7 + 1)
    by_match = _rows_by_match(tables, {m["id"] for m in past})
    used = {m["public_id"] for m in matches_}
    copies = 0
    while len(past) * (copies + 1) < size:
        copies += 1
        wanted = min(len(past), size - len(past) * copies)
        for original in past[:wanted]:
            rows = by_match[original["id"]]
            _copy_match(tables, ids, original, rows, span * copies, copies, used)
    return {**doc, "tables": tables}


def _rows_by_match(
    tables: dict[str, list[dict[str, Any]]], match_ids: set[int]
) -> dict[int, dict[str, list[dict[str, Any]]]]:
    """For each match: its sides, seats, deals, deal sides and audit events."""
    found: dict[int, dict[str, list[dict[str, Any]]]] = {
        m: {name: [] for name in MATCH_TABLES[1:]} for m in match_ids
    }
    side_match = {}
    for side in tables["match_sides"]:
        if side["match_id"] in match_ids:
            found[side["match_id"]]["match_sides"].append(side)
            side_match[side["id"]] = side["match_id"]
    for seat in tables["match_players"]:
        if seat["side_id"] in side_match:
            found[side_match[seat["side_id"]]]["match_players"].append(seat)
    deal_match = {}
    for deal in tables["deals"]:
        if deal["match_id"] in match_ids:
            found[deal["match_id"]]["deals"].append(deal)
            deal_match[deal["id"]] = deal["match_id"]
    for deal_side in tables["deal_sides"]:
        if deal_side["deal_id"] in deal_match:
            found[deal_match[deal_side["deal_id"]]]["deal_sides"].append(deal_side)
    for event in tables.get("audit_events", []):
        if event["match_id"] in match_ids:
            found[event["match_id"]]["audit_events"].append(event)
    return found


def _copy_match(
    tables: dict[str, list[dict[str, Any]]],
    ids: dict[str, int],
    original: dict[str, Any],
    rows: dict[str, list[dict[str, Any]]],
    earlier: timedelta,
    copy: int,
    used: set[str],
) -> None:
    """One more copy of a match and its rows, ``earlier`` in time, with new ids."""
    new: dict[str, dict[int, int]] = {name: {} for name in MATCH_TABLES}

    def add(name: str, row: dict[str, Any], **changes: Any) -> None:
        ids[name] += 1
        new[name][row["id"]] = ids[name]
        tables[name].append({**row, **_earlier(row, earlier), **changes, "id": ids[name]})

    public_id = new_public_id()
    while public_id in used:  # a fresh random id, as the app makes one
        public_id = new_public_id()
    used.add(public_id)
    # its own onlooker link, and no rematch link (a copy is the rematch of nothing)
    add(
        "matches",
        original,
        public_id=public_id,
        onlooker_token=new_onlooker_token(),
        rematch_of_id=None,
    )
    match_id = new["matches"][original["id"]]
    for side in rows["match_sides"]:
        add("match_sides", side, match_id=match_id)
    for seat in rows["match_players"]:
        add("match_players", seat, side_id=new["match_sides"][seat["side_id"]])
    for deal in rows["deals"]:
        add("deals", deal, match_id=match_id, submission_key=f"{deal['submission_key']}-c{copy}")
    for deal_side in rows["deal_sides"]:
        add("deal_sides", deal_side, deal_id=new["deals"][deal_side["deal_id"]])
    for event in rows["audit_events"]:
        add("audit_events", event, match_id=match_id)


TIMES = ("played_on", "created_at", "updated_at", "finished_at", "at")


def _earlier(row: dict[str, Any], earlier: timedelta) -> dict[str, Any]:
    """The row's dates and timestamps moved ``earlier``."""
    moved: dict[str, Any] = {}
    for name in TIMES:
        value = row.get(name)
        if isinstance(value, str):
            kind = date if name == "played_on" else datetime
            moved[name] = (kind.fromisoformat(value) - earlier).isoformat()
    return moved
