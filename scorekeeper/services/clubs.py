"""Clubs, their players and seasons, and starting a match inside a club.

Writes that read club-wide rows first lock the club row (a new season also locks every
match of the club, before the club): see ``services.locks`` for the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, func, select, update
from sqlalchemy.orm import selectinload

from ..engine import PRESETS, Problem, RuleSet, Side
from ..engine.errors import EngineError
from ..extensions import db
from ..models import Account, Club, Match, MatchSide, Membership, Player, Season, is_public_id
from . import aggregates, club_trail, locks, matches, player_rows, standings
from .audit import NOBODY, Actor


class ClubError(EngineError):
    """A club, player or season that cannot be saved as typed."""


def create_club(
    name: str,
    default_rules: str = "classic",
    min_games: int = 3,
    visibility: str = "public",
    *,
    owner: Account | None = None,
    actor: Actor = NOBODY,
) -> Club:
    """Save a new club (the web form asks who may see it, members-only by default), with
    ``owner`` as its first owner; its log starts with who made it."""
    _check_visibility(visibility)
    club = Club(
        name=name.strip(),
        default_rules=_rules_id(default_rules),
        min_games=min_games,
        visibility=visibility,
    )
    db.session.add(club)
    db.session.flush()
    if owner is not None:
        db.session.add(Membership(account_id=owner.id, club_id=club.id, role="owner"))
    club_trail.record(club.id, club_trail.CREATED, actor, **_settings(club))
    db.session.commit()
    return club


def update_settings(
    club: Club,
    name: str,
    default_rules: str,
    min_games: int,
    visibility: str | None = None,
    *,
    actor: Actor = NOBODY,
) -> Club:
    """Change the club's name, default rule set, minimum games to be ranked and (when
    given) who may see it: ``public``, standings, player pages and club night readable
    without logging in; ``members``, only by the club's accounts. The club's log keeps
    what changed, from what to what; a save that changes nothing writes nothing."""
    if visibility is not None:
        _check_visibility(visibility)
    # read again under the club's lock: two owners saving at once are logged each from
    # what the other left
    locks.lock_club(db.session, club.id)
    db.session.refresh(club)
    before = _settings(club)
    club.name, club.default_rules = name.strip(), _rules_id(default_rules)
    club.min_games = max(0, min_games)
    if visibility is not None:
        club.visibility = visibility
    changed = club_trail.changes(before, _settings(club))
    if changed:
        club_trail.record(club.id, club_trail.SETTINGS, actor, changes=changed)
    db.session.commit()
    return club


def _check_visibility(visibility: str) -> None:
    if visibility not in ("public", "members"):
        raise ClubError([Problem("visibility", _("Choose who can see the club."))])


def _settings(club: Club) -> dict[str, Any]:
    """The settings the club's log follows, by the name its page says them with."""
    return {
        "name": club.name,
        "default_rules": club.default_rules,
        "min_games": club.min_games,
        "visibility": club.visibility,
    }


def delete_club(club: Club) -> None:
    """Delete the club with its players, seasons, matches and standings.

    Its matches go too: left behind without a club they would become casual matches that
    anyone holding their link could change. So do their audit trails: the owner deletes the
    club's whole history on purpose (the trail refuses to vanish as a side effect of
    anything else, ``models/audit.py``).
    """
    from sqlalchemy import delete

    from ..models import AuditEvent

    club_matches = select(Match.id).where(Match.club_id == club.id)
    db.session.execute(delete(AuditEvent).where(AuditEvent.match_id.in_(club_matches)))
    db.session.execute(delete(Match).where(Match.club_id == club.id))
    db.session.delete(club)
    db.session.commit()


def _rules_id(rules_id: str) -> str:
    if rules_id not in PRESETS:
        raise ClubError([Problem("default_rules", _("There is no rule set %(id)r.", id=rules_id))])
    return rules_id


def all_clubs() -> list[Club]:
    """Every club, by name."""
    return list(db.session.scalars(select(Club).order_by(func.lower(Club.name))))


#: Every club page reads its club, a player's page its player too: statements built once
#: (on a kept page, building one cost about what running it did).
_CLUB = select(Club).where(Club.public_id == bindparam("public_id"))
_PLAYER = select(Player).where(
    Player.club_id == bindparam("club_id"), Player.public_id == bindparam("public_id")
)


def get_club(public_id: str) -> Club | None:
    """The club with this public id, or None."""
    if not is_public_id(public_id):
        return None
    return db.session.scalar(_CLUB, {"public_id": public_id})


def get_club_by_id(club_id: int) -> Club:
    """The club with this primary key (it must exist)."""
    club = db.session.get(Club, club_id)
    assert club is not None
    return club


def get_player(club: Club, public_id: str) -> Player | None:
    """The club's player with this public id, or None."""
    if not is_public_id(public_id):
        return None
    return db.session.scalar(_PLAYER, {"club_id": club.id, "public_id": public_id})


def add_player(club: Club, name: str) -> Player:
    """Add a player; a name already in the club (any case) is refused."""
    locks.lock_club(db.session, club.id)  # two phones adding the same name take turns
    player = _new_player(club, name)
    db.session.commit()
    return player


def _new_player(club: Club, name: str) -> Player:
    name = " ".join(name.split())
    if not name:
        raise ClubError([Problem("name", _("Type a name."))])
    if _by_key(club, name) is not None:
        raise ClubError([Problem("name", _("%(name)s is already in this club.", name=name))])
    player = Player(club=club, name=name, key=name.casefold())
    db.session.add(player)
    db.session.flush()
    return player


def _by_key(club: Club, name: str) -> Player | None:
    return db.session.scalar(
        select(Player).where(Player.club_id == club.id, Player.key == name.strip().casefold())
    )


def search_players(club: Club, text: str, limit: int = 20) -> list[Player]:
    """Players whose name contains ``text`` (any case), names starting with it first."""
    key = " ".join(text.split()).casefold()
    query = select(Player).where(Player.club_id == club.id)
    if key:
        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(Player.key.like(f"%{escaped}%", escape="\\"))
    starts = Player.key.like(f"{key}%") if key else Player.key.is_not(None)
    rows = db.session.scalars(query.order_by(starts.desc(), Player.key).limit(limit))
    return list(rows)


def add_season(
    club: Club, name: str, starts_on: date, ends_on: date, *, actor: Actor = NOBODY
) -> Season:
    """Add a season; it must end on or after its start and overlap no other season.

    Every match of the club changes season, so all of them are locked, then the club.
    """
    locks.lock_club_matches(db.session, club.id)
    locks.lock_club(db.session, club.id)
    if ends_on < starts_on:
        raise ClubError([Problem("ends_on", _("A season cannot end before it starts."))])
    for other in club.seasons:
        if starts_on <= other.ends_on and other.starts_on <= ends_on:
            raise ClubError(
                [
                    Problem(
                        "starts_on", _("These dates overlap the season %(name)s.", name=other.name)
                    )
                ]
            )
    season = Season(club=club, name=name.strip(), starts_on=starts_on, ends_on=ends_on)
    db.session.add(season)
    db.session.flush()
    _reassign_seasons(club)
    club_trail.record(
        club.id,
        club_trail.SEASON_ADDED,
        actor,
        name=season.name,
        starts_on=starts_on.isoformat(),
        ends_on=ends_on.isoformat(),
    )
    db.session.commit()
    return season


def _reassign_seasons(club: Club) -> None:
    """Give every club match and its results the season their date falls in
    (``standings.season_of``), and rewrite the lines, seats and tallies of each season
    that gained or lost a game (the all-time ones stay as they are).

    A statement for the matches and one for their results, each writing only the rows
    whose season changes: loaded as objects, one by one, the rows of 10,000 matches took
    3.7 s and 200 MB (and the lines of every scope were rebuilt)."""
    from ..models import SideResult

    session = db.session()
    session.flush()  # the new season is in the table the statements read
    matches_table, results = Match.__table__, SideResult.__table__
    match_season = _season_holding(club.id, matches_table.c.played_on)
    session.execute(
        update(matches_table)
        .where(
            matches_table.c.club_id == club.id,
            matches_table.c.played_on.is_not(None),
            matches_table.c.season_id.is_distinct_from(match_season),
        )
        .values(season_id=match_season)
    )
    # a match with no date of play (none is started so in a club) goes by its creation
    undated = select(Match).where(Match.club_id == club.id, Match.played_on.is_(None))
    for match in session.scalars(undated):
        season = standings.season_of(match.created_at.date(), club.seasons)
        match.season_id = season.id if season else None
    result_season = _season_holding(club.id, results.c.played_on)
    moving = and_(results.c.club_id == club.id, results.c.season_id.is_distinct_from(result_season))
    # the seasons results leave and join: those whose rows are rebuilt below
    moved = session.execute(select(results.c.season_id, result_season).where(moving).distinct())
    seasons = {season for pair in moved for season in pair if season is not None}
    session.execute(update(results).where(moving).values(season_id=result_season))
    if seasons:
        aggregates.rebuild(session, club.id, seasons)
        player_rows.rebuild(session, club.id, seasons)


def _season_holding(club_id: int, day: Any) -> Any:
    """The id of the club's season whose dates hold ``day`` (a column of the row being
    updated), the latest starting if several do, as ``standings.season_of`` picks it;
    NULL for none."""
    return (
        select(Season.id)
        .where(Season.club_id == club_id, Season.starts_on <= day, Season.ends_on >= day)
        .order_by(Season.starts_on.desc())
        .limit(1)
        .scalar_subquery()
    )


def get_season(club: Club, public_id: str | None) -> Season | None:
    """The club's season with this public id, or None."""
    if not public_id or not is_public_id(public_id):
        return None
    return db.session.scalar(
        select(Season).where(Season.club_id == club.id, Season.public_id == public_id)
    )


def start_club_match(
    club: Club,
    rules: RuleSet,
    sides: Sequence[Side],
    first_dealer: int,
    played_on: date,
    deals: int | None = None,
    rematch_of: int | None = None,
) -> matches.LoadedMatch:
    """Start a match in the club: names become club players (new ones are added).

    The club is locked first: its players and seasons are read, then added to.
    ``rematch_of``: as for :func:`services.matches.start_match`.
    """
    locks.lock_club(db.session, club.id)
    ids: list[list[int | None]] = []
    for side in sides:
        seat_ids: list[int | None] = []
        for name in side.players:
            clean = " ".join(str(name).split())
            player = _by_key(club, clean) if clean else None
            if player is None and clean and len(clean) <= 40:
                player = _new_player(club, clean)
            seat_ids.append(player.id if player else None)
        ids.append(seat_ids)
    season = standings.season_of(played_on, club.seasons)
    place = matches.ClubMatch(club.id, season.id if season else None, played_on, ids)
    try:
        return matches.start_match(
            rules, rules.id, sides, first_dealer, club=place, deals=deals, rematch_of=rematch_of
        )
    except EngineError:
        db.session.rollback()  # players added for a match that was refused
        raise


def matches_on(club: Club, day: date) -> list[Match]:
    """The club's matches of one day (club night), newest first, with sides and players."""
    return list(
        db.session.scalars(
            select(Match)
            .where(Match.club_id == club.id, Match.played_on == day)
            .options(selectinload(Match.sides).selectinload(MatchSide.players))
            .order_by(Match.created_at.desc(), Match.id.desc())
        )
    )


def recent_matches(club: Club, limit: int = 20) -> list[Match]:
    """The club's most recent matches, with sides and players."""
    return list(
        db.session.scalars(
            select(Match)
            .where(Match.club_id == club.id)
            .options(selectinload(Match.sides).selectinload(MatchSide.players))
            .order_by(Match.played_on.desc(), Match.id.desc())
            .limit(limit)
        )
    )
