"""After the soak: does the database hold exactly what the phones were told it saved?

Run with the server stopped, in an app context on the soak's database:

- ``saves``: every acknowledged new deal is stored once under its submission key, with
  the numbers sent; every acknowledged correction is in the deal's version history (the
  deal is at least at the version the correction made, and if exactly there, holds its
  numbers); no deal the phones never sent; deal numbers 1..n with no gap.
- ``totals``: each match's stored totals, deal scores, status and winner equal the engine's
  replay of its stored entries.
- ``standings``: the club result rows, standing lines, the player page's rows (seats and
  rival tallies) and ratings equal a rebuild through
  the services from the deals, made in a transaction that is rolled back.
- ``integrity``: SQLite's ``PRAGMA integrity_check`` and ``foreign_key_check``; on
  PostgreSQL, queries that every row's parents and children are there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from sqlalchemy import inspect, select, text
from sqlalchemy.orm import selectinload

from bench.soak_client import Write
from scorekeeper.engine import RuleSet
from scorekeeper.engine.entries import read_side
from scorekeeper.engine.errors import EngineError, Problems
from scorekeeper.extensions import db
from scorekeeper.models import (
    Deal,
    MatchSide,
    Player,
    RatingPoint,
    RivalTally,
    SeatResult,
    SideResult,
    StandingLine,
)
from scorekeeper.models import Match as MatchRow
from scorekeeper.services import aggregates, player_rows, ratings, standings
from scorekeeper.services.match_reads import game_of


@dataclass
class Findings:
    """What the checks found: counts, and a few examples of each for the summary."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    matches: int = 0
    deals: int = 0
    integrity: str = "ok"
    ratings_caught_up: int = 0  # clubs left "ratings updating" when the server stopped

    def found(self, what: str, example: str) -> None:
        self.counts[what] += 1
        shown = self.examples.setdefault(what, [])
        if len(shown) < 5:
            shown.append(example)


def check(writes: Iterable[Write], baseline: set[str]) -> Findings:
    """Every check on the database of the current app; ``baseline``: keys stored before."""
    findings = Findings()
    rows = list(
        db.session.scalars(
            select(MatchRow).options(
                selectinload(MatchRow.sides).selectinload(MatchSide.players),
                selectinload(MatchRow.deals).selectinload(Deal.sides),
            )
        )
    )
    findings.matches = len(rows)
    findings.deals = sum(len(row.deals) for row in rows)
    for row in rows:
        _totals(row, findings)
    _saves(rows, list(writes), baseline, findings)
    _standings(rows, findings)
    findings.integrity = integrity()
    return findings


def _canonical(rules: RuleSet, entry: dict[str, Any]) -> dict[str, Any] | None:
    """An entry as the engine stores it (None when the engine refuses it)."""
    read = read_side(Problems(), entry, "entry", rules)
    return read.to_dict() if read is not None else None


def _totals(row: MatchRow, findings: Findings) -> None:
    numbers = [deal.number for deal in row.deals]
    if numbers != list(range(1, len(numbers) + 1)) or row.deal_count != len(numbers):
        findings.found("gaps", f"match {row.public_id}: deals {numbers}, count {row.deal_count}")
    try:
        game = game_of(row)
    except EngineError as error:
        findings.found("wrong_totals", f"match {row.public_id}: unreadable deals ({error})")
        return
    stored = [side.total for side in row.sides]
    summed = [sum(d.sides[i].total for d in row.deals) for i in range(len(row.sides))]
    scores = [[s.total for s in deal.sides] for deal in row.deals]
    replayed = [[b.total for b in recorded.score.sides] for recorded in game.deals]
    if stored != list(game.totals) or summed != list(game.totals) or scores != replayed:
        findings.found(
            "wrong_totals",
            f"match {row.public_id}: stored {stored}, sum of deals {summed}, "
            f"replayed {list(game.totals)}",
        )
    elif (row.finished, row.winner_position) != (game.finished, game.winner):
        findings.found(
            "wrong_totals",
            f"match {row.public_id}: stored finished={row.finished} winner="
            f"{row.winner_position}, replayed {game.finished} {game.winner}",
        )


def _saves(rows: list[MatchRow], writes: list[Write], baseline: set[str], f: Findings) -> None:
    stored: dict[tuple[str, int], Deal] = {}
    by_key: Counter[tuple[str, str]] = Counter()
    rules: dict[str, RuleSet] = {}
    for row in rows:
        rules[row.public_id] = RuleSet.from_dict(row.rules)
        for deal in row.deals:
            stored[(row.public_id, deal.number)] = deal
            by_key[(row.public_id, deal.submission_key)] += 1
    sent = {(w.match, w.key) for w in writes if w.kind == "record"}
    for (match, key), n in by_key.items():
        if (match, key) not in sent and key not in baseline:
            f.found("phantom", f"match {match}: deal key {key} was never sent")
        if n > 1:
            f.found("duplicated", f"match {match}: key {key} stored {n} times")
    numbered = {(row.public_id, d.submission_key): d for row in rows for d in row.deals}
    for write in writes:
        if write.outcome != "acked":
            continue
        if write.kind == "record":
            deal = numbered.get((write.match, write.key))
            made = 1
        else:
            deal = stored.get((write.match, write.deal))
            made = write.base + 1
        what = f"{write.kind} of deal {write.deal} of match {write.match}"
        if deal is None or deal.version < made:
            f.found("lost", f"{what}: not stored")
            continue
        if deal.version == made:
            expected = [_canonical(rules[write.match], e) for e in write.entries]
            if [side.entry for side in deal.sides] != expected:
                f.found("lost", f"{what}: stored numbers differ at version {made}")


# -- standings: the stored rows against a rebuild from the deals ------------------------------


def _columns(model: Any, skip: tuple[str, ...]) -> list[str]:
    return [c.key for c in inspect(model).columns if c.key not in ("id", *skip)]


def _snapshot() -> dict[str, dict[Any, tuple[Any, ...]]]:
    """Side results by side, standing lines by their key, ratings by player (and match)."""
    result_cols = _columns(SideResult, ("side_id",))
    line_cols = _columns(StandingLine, ("club_id", "scope", "kind", "members"))
    point_cols = ("played_on", "mu", "sigma")
    return {
        "side results": {
            r.side_id: tuple(getattr(r, c) for c in result_cols)
            for r in db.session.scalars(select(SideResult))
        },
        "standing lines": {
            (r.club_id, r.scope, r.kind, r.members): tuple(getattr(r, c) for c in line_cols)
            for r in db.session.scalars(select(StandingLine))
        },
        "player page rows": {
            **{
                ("seat", r.player_id, r.scope, r.match_id): (r.played_on, r.points_for)
                for r in db.session.scalars(select(SeatResult))
            },
            **{
                ("rival", r.player_id, r.scope, r.relation, r.other_id): (r.wins, r.draws, r.losses)
                for r in db.session.scalars(select(RivalTally))
            },
        },
        "ratings": {
            p.id: (_round(p.rating_mu), _round(p.rating_sigma))
            for p in db.session.scalars(select(Player))
        },
        "rating points": {
            (p.player_id, p.match_id): tuple(_round(getattr(p, c)) for c in point_cols)
            for p in db.session.scalars(select(RatingPoint))
        },
    }


def _round(value: Any) -> Any:
    return round(value, 9) if isinstance(value, float) else value


def _standings(rows: list[MatchRow], findings: Findings) -> None:
    """Rebuild every club's rows in a transaction that is rolled back, and compare.

    A club whose ratings the server marked as updating (a change far back: the pages say
    so) and had not caught up when it stopped is caught up first, as the next page view or
    ``scorekeeper ratings`` would; ratings left stale without the mark still count."""
    for club_id in ratings.stale_clubs():
        findings.ratings_caught_up += 1
        ratings.catch_up(club_id)
    before = _snapshot()
    club_rows = [row for row in rows if row.club_id is not None]
    skip = mock.Mock(return_value=None)
    try:
        with (
            mock.patch.object(ratings, "match_finished", skip),
            mock.patch.object(ratings, "recompute", skip),
            mock.patch.object(aggregates, "refresh", skip),
            mock.patch.object(player_rows, "refresh", skip),
        ):
            for row in club_rows:
                standings.write_results(db.session, row, game_of(row))
        for club_id in sorted({row.club_id for row in club_rows if row.club_id}):
            aggregates.rebuild(db.session, club_id)
            player_rows.rebuild(db.session, club_id)
            ratings.recompute(club_id)
        db.session.flush()
        after = _snapshot()
    finally:
        db.session.rollback()
    side_match = {side.id: row.public_id for row in club_rows for side in row.sides}
    wrong_matches: set[str] = set()
    for side_id in before["side results"].keys() | after["side results"].keys():
        if before["side results"].get(side_id) != after["side results"].get(side_id):
            wrong_matches.add(side_match.get(side_id, f"side {side_id}"))
    for match in sorted(wrong_matches):
        findings.found("wrong_side_results", f"match {match}: result rows differ from its deals")
    for kind, what in (
        ("standing lines", "wrong_lines"),
        ("player page rows", "wrong_lines"),
        ("ratings", "wrong_ratings"),
    ):
        for key in sorted(before[kind].keys() | after[kind].keys(), key=str):
            if before[kind].get(key) != after[kind].get(key):
                findings.found(
                    what,
                    f"{kind} {key}: stored {before[kind].get(key)}, rebuilt {after[kind].get(key)}",
                )
    stored, rebuilt = before["rating points"], after["rating points"]
    differ = [k for k in stored.keys() | rebuilt.keys() if stored.get(k) != rebuilt.get(k)]
    if differ:
        findings.found("wrong_ratings", f"{len(differ)} rating points differ from a replay")


# -- integrity ----------------------------------------------------------------------------------

POSTGRES_SANITY = {
    "deals without their match": (
        "SELECT count(*) FROM deals d LEFT JOIN matches m ON m.id = d.match_id WHERE m.id IS NULL"
    ),
    "deals whose sides do not match the match's": (
        "SELECT count(*) FROM deals d WHERE (SELECT count(*) FROM deal_sides s WHERE "
        "s.deal_id = d.id) <> (SELECT count(*) FROM match_sides ms WHERE ms.match_id = d.match_id)"
    ),
    "side results without their side": (
        "SELECT count(*) FROM side_results r LEFT JOIN match_sides s ON s.id = r.side_id "
        "WHERE s.id IS NULL"
    ),
    "matches with fewer than two sides": (
        "SELECT count(*) FROM matches m WHERE (SELECT count(*) FROM match_sides s WHERE "
        "s.match_id = m.id) < 2"
    ),
    "deal numbers stored twice": (
        "SELECT count(*) FROM (SELECT match_id, number FROM deals GROUP BY match_id, number "
        "HAVING count(*) > 1) AS twice"
    ),
}


def integrity() -> str:
    """ "ok", or what is wrong with the database file or its rows."""
    connection = db.session.connection()
    if connection.dialect.name == "sqlite":
        found = [row[0] for row in connection.exec_driver_sql("PRAGMA integrity_check")]
        keys = list(connection.exec_driver_sql("PRAGMA foreign_key_check"))
        db.session.rollback()
        if found != ["ok"]:
            return "; ".join(str(f) for f in found[:5])
        return f"{len(keys)} rows break a foreign key" if keys else "ok"
    problems = []
    for what, query in POSTGRES_SANITY.items():
        n = db.session.scalar(text(query))
        if n:
            problems.append(f"{n} {what}")
    db.session.rollback()
    return "; ".join(problems) or "ok"
