"""Derived values of an import, recomputed from the deals as entered.

``score_matches`` runs over the rows read from an export file, before anything is
written: it restores each match with the engine (as ``match_reads.game_of`` does for a
stored match), so an entry the app could not read back is refused with the match and deal
it belongs to, and fills in the derived columns (each deal side's score, each side's total,
a match's progress and winner). ``rebuild_tables`` then writes the derived tables with the
services that keep them current: side results (``standings.side_results``), standing
lines (``aggregates.rebuild``), the player page's seats and rivals (``player_rows.rebuild``)
and ratings (``ratings.recompute``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from ..engine import Match, RuleSet, Side
from ..engine.errors import EngineError, phrase
from ..engine.scoring import read_deal_entries
from ..models import Match as MatchRow
from ..models import RatingPoint, SideResult, StandingLine
from . import aggregates, player_rows, ratings, standings, upserts
from .data_tables import Refused
from .match_reads import stored_entry

Rows = dict[str, list[dict[str, Any]]]


def _by(rows: Sequence[dict[str, Any]], key: str, order: str) -> dict[Any, list[dict[str, Any]]]:
    grouped: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: r[order]):
        grouped[row[key]].append(row)
    return grouped


def score_matches(tables: Rows, source: str) -> dict[int, Match]:
    """Restore every match with the engine and fill in the derived columns of its rows."""
    sides_of = _by(tables["match_sides"], "match_id", "position")
    seats_of = _by(tables["match_players"], "side_id", "position")
    deals_of = _by(tables["deals"], "match_id", "number")
    entries_of = _by(tables["deal_sides"], "deal_id", "position")
    games = {}
    for match in tables["matches"]:
        where: dict[str, int | str] = {"source": source, "match": match["public_id"]}
        sides = sides_of.get(match["id"], [])
        deals = deals_of.get(match["id"], [])
        if not _numbered([s["position"] for s in sides], 0):
            raise Refused(
                phrase(
                    "%(source)s: match %(match)s: its sides are not numbered %(first)s,"
                    " %(second)s, ... in order.",
                    first=0,
                    second=1,
                    **where,
                )
            )
        if not _numbered([d["number"] for d in deals], 1):
            raise Refused(
                phrase(
                    "%(source)s: match %(match)s: its deals are not numbered %(first)s,"
                    " %(second)s, ... in order.",
                    first=1,
                    second=2,
                    **where,
                )
            )
        for deal in deals:
            positions = [e["position"] for e in entries_of.get(deal["id"], [])]
            if positions != list(range(len(sides))):
                raise Refused(
                    phrase(
                        "%(source)s: match %(match)s, deal %(deal)s: it needs one entry per side.",
                        deal=deal["number"],
                        **where,
                    )
                )
        try:
            rules = RuleSet.from_dict(match["rules"])
            game = Match.restore(
                rules,
                [
                    Side(tuple(p["name"] for p in seats_of.get(s["id"], [])), s["name"])
                    for s in sides
                ],
                match["first_dealer"],
                [[stored_entry(rules, e["entry"]) for e in entries_of[d["id"]]] for d in deals],
            )
        except (EngineError, TypeError, ValueError, KeyError) as error:
            raise Refused(
                phrase(
                    "%(source)s: match %(match)s: it cannot be read back (%(why)s).",
                    why=_why(error),
                    **where,
                )
            ) from None
        _check_deals(game, where)
        games[match["id"]] = game
        _fill(match, sides, [entries_of[d["id"]] for d in deals], game)
    return games


def _why(error: Exception) -> str:
    """Why the engine (or the file's shape) refused: the engine's problems in the
    caller's language, anything else as it is."""
    return error.said() if isinstance(error, EngineError) else str(error)


def _check_deals(game: Match, where: dict[str, int | str]) -> None:
    """Refuse a deal the app would not have saved (a side out without its books, more
    jokers than the decks hold...): a file edited by hand, read back without a word, put
    it in the standings."""
    for number, deal in enumerate(game.deals, start=1):
        try:
            read_deal_entries(game.rules, number, game.player_count, deal.entries, game.side_sizes)
        except EngineError as error:
            raise Refused(
                phrase(
                    "%(source)s: match %(match)s, deal %(deal)s cannot be scored: %(why)s",
                    deal=number,
                    why=_why(error),
                    **where,
                )
            ) from None


def check_rule_sets(tables: Rows, source: str) -> None:
    """Refuse a saved rule set the engine would not accept (the app never saves one)."""
    for row in tables["saved_rule_sets"]:
        try:
            RuleSet.from_dict(row["rules"])
        except (EngineError, TypeError, ValueError, KeyError) as error:
            raise Refused(
                phrase(
                    "%(source)s: saved rule set %(name)s is not valid (%(why)s).",
                    source=source,
                    name=repr(row["name"]),
                    why=_why(error),
                )
            ) from None


def _numbered(numbers: list[int], first: int) -> bool:
    """Whether ``numbers`` are ``first``, ``first + 1``, ... in order."""
    return numbers == list(range(first, first + len(numbers)))


def _fill(
    match: dict[str, Any],
    sides: list[dict[str, Any]],
    entries: list[list[dict[str, Any]]],
    game: Match,
) -> None:
    """The derived columns, exactly as ``services.matches`` writes them."""
    match.update(deal_count=len(game.deals), finished=game.finished, winner_position=game.winner)
    for side, total in zip(sides, game.totals, strict=True):
        side["total"] = total
    for rows, recorded in zip(entries, game.deals, strict=True):
        for row, entry, score in zip(rows, recorded.entries, recorded.score.sides, strict=True):
            row.update(went_out=entry.went_out, **score.as_dict())


def rebuild_tables(session: Session, games: dict[int, Match]) -> dict[str, int]:
    """Write every derived table from the imported rows; return the rows written."""
    finished = session.scalars(
        select(MatchRow)
        .where(MatchRow.club_id.is_not(None), MatchRow.finished.is_(True))
        .options(selectinload(MatchRow.sides))
        .order_by(MatchRow.id)
    ).all()
    results = [r for row in finished for r in standings.side_results(row, games[row.id])]
    # every match's rows in one statement (one execution on PostgreSQL), not one a match
    upserts.insert_rows(session, SideResult.__table__, results)
    clubs = {row.club_id for row in finished}
    for club_id in sorted(clubs):
        aggregates.rebuild(session, club_id)
        player_rows.rebuild(session, club_id)
        ratings.recompute(club_id)
    session.flush()
    return {
        model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
        for model in (SideResult, StandingLine, RatingPoint)
    }
