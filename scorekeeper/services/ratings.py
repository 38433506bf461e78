"""OpenSkill ratings of club players: each side a team, PlackettLuce, kept from history.

A finished match that comes after every rated game of its own players, in the club's order
(date, then match), is rated on top of the current ratings (appended), whatever other
tables of the night finished before it. Any other change (a finished match corrected,
reopened, removed, or finished after a later game of one of its players) rates the club's
history again in order (date, then match) from that match on, starting from each player's
last rating point before it: in the request when at most ``IN_REQUEST`` finished matches
follow it (a night entered late), else the club is marked "ratings updating" from that
match and ``catch_up`` brings it up to date ``CHUNK`` matches a transaction, after the
answer is sent (``web.background``), on the next view of the club's pages, or with
``scorekeeper ratings``. No request's work grows with the club's history, and the result
is always the one computed from scratch (``recompute``, which data rebuilds use, and the
tests compare).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    Integer,
    and_,
    bindparam,
    delete,
    exists,
    false,
    func,
    or_,
    select,
    tuple_,
    union,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from ..extensions import db
from ..models import Club, MatchPlayer, Player, RatingPoint, SideResult
from . import locks, upserts
from .side_records import (
    SEAT_OF,
    SEAT_ORDER,
    Following,
    Seat,
    at_or_after,
    earlier_than,
    following,
)

if TYPE_CHECKING:
    from .aggregates import Probe

MODEL = PlackettLuce()  # default mu 25, sigma 25/3: deterministic, no randomness
START_MU, START_SIGMA = MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Standing:
    """A player's rating: mean skill, uncertainty, and the cautious ordinal shown."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the skill the player very likely has at least."""
        return self.mu - 3 * self.sigma


def ordinal(mu: float | None, sigma: float | None) -> float | None:
    """The ordinal of a stored rating (None when the player has no rated match)."""
    return None if mu is None or sigma is None else Standing(mu, sigma).ordinal


def team_ordinal(ratings: Iterable[float | None]) -> float | None:
    """A partnership's rating: the mean of its players' ordinals (None if any is unrated)."""
    values = list(ratings)
    if not values or any(v is None for v in values):
        return None
    return math.fsum(v for v in values if v is not None) / len(values)


#: A change with at most this many finished matches from it on is replayed in the request
#: (a night's tables finishing in any order, a player at two of them; last week's game
#: corrected): bounded work. Further back, the club's ratings are marked as updating from
#: that match and brought up to date after the answer (``catch_up``), never silently wrong
#: meanwhile.
IN_REQUEST = 24
#: Matches rated again per transaction while catching up: the club (on SQLite, the
#: database) is locked for one chunk at a time, so deals go on being saved meanwhile.
CHUNK = 50


def match_finished(
    club_id: int,
    match_id: int,
    played_on: date,
    was_rated: bool,
    seats: Sequence[Seat],
    after: Probe | None = None,
) -> None:
    """Rate a finished match: on top of the current ratings when it is the newest, else as
    a change of the history from it (``match_changed``). ``seats`` are its seats as
    ``_side_rows`` reads them (the caller has just written them).

    ``after``: for a match that was not finished when its transaction began (not
    ``was_rated``), what the standing lines' probe read (``aggregates.Probe``), in the
    same transaction under the club's lock: whether any of its players has a finished
    game after it (``later``), the club's stale ratings, and the players' ratings. When
    the club's ratings are current, that game is rated, so this is what
    ``_finished_statement`` would read, and its statement is saved; so is ``_players``'
    read of the players it rates. (Where the match was rated, which that statement also
    reads, is no matter here: a match that is not finished has no rating point once its
    change is rated, and while the club's ratings are stale, they are stale from before
    any point it still has.)"""
    seated = sorted({player for *_rest, player in seats if player is not None})
    if after is not None and not was_rated:
        found = _Found(None, after.ratings_stale_on, after.ratings_stale_match, after.later)
    else:
        values = {f"player{n}": player for n, player in enumerate(seated)}
        values.update(club=club_id, match=match_id, day=played_on)
        found = db.session.execute(_finished_statement(len(seated)), values).one_or_none()
    if was_rated or found is None or found.later or _stale_of(found) is not None:
        _changed(club_id, match_id, played_on, found, None if was_rated else after)
        return
    if after is not None and after.asked.issuperset(seated):  # read with the probe
        players = {p: Rated(*after.ratings[p]) for p in seated if p in after.ratings}
    else:
        players = _players(club_id, set(seated))
    _store(_rate(club_id, seats, players))
    _keep(players)


@dataclass(frozen=True)
class _Found:
    """What ``_finished_statement`` reads, as its row names it."""

    rated_on: date | None
    ratings_stale_on: date | None
    ratings_stale_match: int | None
    later: bool = False


@functools.lru_cache(maxsize=16)
def _finished_statement(players: int) -> Any:
    """``match_finished``'s one statement for a match of this many players, with the
    values as parameters (``club``, ``match``, ``day``, ``player0``…): built once per
    number of players, as building it took longer than running it. What it reads:
    whether one of its players has a later match rated already, where this one was
    rated (if it was: a correction), and whether the club's ratings are being brought up
    to date (any of these: it is not simply appended). A later match of other players
    does not count: a match's ratings are its own players' ratings before it, rated, so
    it is appended as a replay from it would rate it (two tables of a night finishing in
    either order). A probe a player, along the player's own index: with ``IN``,
    PostgreSQL read the club's every point instead. Each probe takes the player's newest
    point but this match's (one row, read newest first) and compares it with the match's
    place: a condition "any point from this place on" was read so by a plan made for the
    values, but PostgreSQL keeps one generic plan for a statement psycopg has prepared,
    and for it that was a scan of every point of the club, 3.5 ms a player at 10,000
    matches (two thirds of PostgreSQL's CPU a finish with 16 phones finishing at once).
    (``false()``: a match of guests alone has no probe, and nothing later.)"""
    match = bindparam("match", type_=Integer)
    place = (bindparam("day", type_=RatingPoint.played_on.type), match)
    newest = (  # from the match's day on: what is older cannot be later
        select(RatingPoint.played_on, RatingPoint.match_id)
        .where(RatingPoint.match_id != match, RatingPoint.played_on >= place[0])
        .order_by(RatingPoint.played_on.desc(), RatingPoint.match_id.desc())
        .limit(1)
    )
    later = or_(
        false(),
        *(
            exists().where(at_or_after(point.c, *place))
            for point in (
                newest.where(
                    RatingPoint.player_id == bindparam(f"player{n}", type_=Integer)
                ).subquery(f"newest{n}")
                for n in range(players)
            )
        ),
    ).label("later")
    return select(later, _rated_on(match), Club.ratings_stale_on, Club.ratings_stale_match).where(
        Club.id == bindparam("club", type_=Integer)
    )


def match_changed(club_id: int, match_id: int, played_on: date) -> None:
    """A match changed (corrected, reopened, removed, finished out of order): rate the
    club's history again from it (or from where it was rated, if that is earlier), in the
    request when little follows it, else after the answer (``catch_up``)."""
    # where it was rated and where the club's stale ratings start, in one statement
    found = db.session.execute(
        select(_rated_on(match_id), Club.ratings_stale_on, Club.ratings_stale_match).where(
            Club.id == club_id
        )
    ).one_or_none()
    _changed(club_id, match_id, played_on, found)


def _rated_on(match_id: Any) -> Any:
    """The day the match was rated for (by the match's own index: its points are the
    club's), or None when it has no rating point: a column ``rated_on``."""
    rated = select(func.min(RatingPoint.played_on)).where(RatingPoint.match_id == match_id)
    return rated.scalar_subquery().label("rated_on")


def _changed(
    club_id: int, match_id: int, played_on: date, found: Any, after: Probe | None = None
) -> None:
    """``match_changed`` once read (``found``: the match's ``rated_on`` and the club's
    stale ratings, None when the club is gone; ``after``: the standing lines' probe, with
    what follows the match if it read that: ``Probe.following``)."""
    rated_on = found.rated_on if found is not None else None
    since = (min(played_on, rated_on) if rated_on else played_on, match_id)
    stale = _stale_of(found)
    if stale is None:
        # the seats to rate again, read once (by the lines' probe, or here): more matches
        # than the request rates mean the club's ratings are brought up to date after
        # the answer instead
        window = after.following if after is not None else None
        if window is None or (window.place, window.count) != (since, IN_REQUEST):
            window = to_rate_again(db.session(), club_id, since)
        seats, upto = window.seats, window.upto
        if upto is None:
            _replay(club_id, since, None, seats)
            return
    _mark_stale(club_id, min(since, stale) if stale else since)


def to_rate_again(session: Session, club_id: int, since: tuple[date, int]) -> Following:
    """What a change of the club's history at ``since`` rates again in the request: the
    seats of the first ``IN_REQUEST`` finished matches from it (``side_records.following``:
    more follow when its ``upto`` is not None, and they are then rated after the answer)."""
    return following(session, club_id, since, IN_REQUEST)


def replay_from(
    club_id: int, played_on: date, match_id: int, limit: int
) -> tuple[tuple[date, int] | None, int]:
    """Rate the club's first ``limit`` finished matches from (``played_on``, ``match_id``)
    on again, in order, from each player's last rating before them. Returns where the
    next ones start (None when none is left) and how many were rated."""
    since = (played_on, match_id)
    found = following(db.session(), club_id, since, limit)
    return found.upto, _replay(club_id, since, found.upto, found.seats)


def _replay(
    club_id: int,
    since: tuple[date, int],
    upto: tuple[date, int] | None,
    seats: Sequence[Seat],
) -> int:
    """Rate again the matches of ``seats`` (as ``_side_rows``': every seat of the club's
    finished matches from ``since`` to before ``upto``, or on when None), from each
    player's last rating before them: how many matches it rated."""
    by_match: dict[int, list[Seat]] = {}
    for row in seats:
        by_match.setdefault(row[0], []).append(row)
    players = _unrate(club_id, since, upto, _rated_again(by_match))
    points = [point for sides in by_match.values() for point in _rate(club_id, sides, players)]
    _rewrite(points)
    _keep(players)
    return len(by_match)


def _rated_again(
    by_match: dict[int, list[Seat]],
) -> list[tuple[int, int]]:
    """The (player, match) of every point a replay of ``by_match``'s matches writes (as
    ``_rate`` does: each seated player of a match of two sides or more). A player seated
    in a club match is the club's, so rated: a point of this club is only ever a club
    player's."""
    return sorted(
        (player, match)
        for match, sides in by_match.items()
        if len({side for _match, side, *_rest in sides}) >= 2
        for *_seat, player in sides
        if player is not None
    )


def _unrate(
    club_id: int,
    since: tuple[date, int],
    upto: tuple[date, int] | None,
    again: list[tuple[int, int]],
) -> dict[int, Rated]:
    """Delete the rating points of the window (from ``since`` to before ``upto``) that
    the replay does not write again (``again``: its (player, match) pairs; those it does
    are rewritten in place, ``_rewrite``); the players they were of and those of
    ``again``, those of the club, each as rated by their last match before the window
    (``_last_before``). On PostgreSQL one statement (the ``DELETE`` a ``WITH`` part of
    the read: the read sees the points as they were, and those before the window are not
    deleted); on SQLite, which has no such part, two."""
    seated = sorted({player for player, _match in again})
    values = _window(club_id, since, upto)
    if db.session.get_bind().dialect.name == "postgresql":
        query = _unrate_and_last_before(upto is not None)
        values.update(
            seated=seated,
            again_players=[player for player, _match in again],
            again_matches=[match for _player, match in again],
        )
        return _to_write_back(db.session.execute(query, values))
    values["again"] = again
    touched = set(db.session.scalars(_unrate_statement(upto is not None, False), values))
    return _last_before(club_id, touched | set(seated), since)


@functools.lru_cache(maxsize=2)
def _unrate_and_last_before(upto: bool) -> Any:
    """``_unrate``'s one statement on PostgreSQL (``club``, ``since_…``, ``upto_…`` if
    ``upto``, and ``seated``, ``again_players`` and ``again_matches``, arrays): built
    once for each."""
    gone = _unrate_statement(upto, True).cte("gone")
    seated = select(func.unnest(bindparam("seated", type_=postgresql.ARRAY(Integer))))
    return _last_before_of(Player.id.in_(union(select(gone.c.player_id), seated)))


@functools.lru_cache(maxsize=4)
def _unrate_statement(upto: bool, arrays: bool) -> Any:
    """``replay_from``'s ``DELETE`` of the rating points from ``since_…`` (to before
    ``upto_…``) that it does not write again, returning whose they were: built once for
    each. What it writes again is bound as ``again`` (a list of (player, match)), or on
    PostgreSQL (``arrays``) as two arrays, ``again_players`` and ``again_matches``: one
    statement text however many points, which psycopg prepares once."""
    window = and_(
        RatingPoint.club_id == bindparam("club", type_=Integer),
        at_or_after(RatingPoint, *_place("since")),
    )
    if upto:
        window = and_(window, earlier_than(RatingPoint, *_place("upto")))
    point = tuple_(RatingPoint.player_id, RatingPoint.match_id)
    if arrays:
        pairs = (
            func.unnest(
                bindparam("again_players", type_=postgresql.ARRAY(Integer)),
                bindparam("again_matches", type_=postgresql.ARRAY(Integer)),
            )
            .table_valued("player_id", "match_id")
            .render_derived(name="again")
        )
        again: Any = select(pairs.c.player_id, pairs.c.match_id)
    else:
        again = bindparam("again", expanding=True)
    window = and_(window, point.not_in(again))
    return delete(RatingPoint.__table__).where(window).returning(RatingPoint.player_id)


def catch_up(club_id: int, chunk: int = CHUNK, chunks: int | None = None) -> int:
    """Bring a club's ratings up to date after a change far back (``match_changed``):
    ``chunk`` matches a transaction, each committed, until they are current (or after
    ``chunks`` transactions). Returns how many matches were rated again. Any process may
    run it at any time, any number of times: each chunk starts from where the club says
    the stale ratings start, under the club's lock."""
    rated = done = 0
    while chunks is None or done < chunks:
        locks.lock_club(db.session, club_id)
        stale = _stale_from(club_id)
        if stale is None:
            break
        upto, count = replay_from(club_id, *stale, limit=chunk)
        _mark_stale(club_id, upto)
        db.session.commit()
        rated, done = rated + count, done + 1
    db.session.commit()
    return rated


def updating(club_id: int) -> bool:
    """Whether the club's ratings are still being brought up to date."""
    return _stale_from(club_id) is not None


def stale_clubs() -> list[int]:
    """The clubs whose ratings are being brought up to date."""
    query = select(Club.id).where(Club.ratings_stale_on.is_not(None)).order_by(Club.id)
    return list(db.session.scalars(query))


def recompute(club_id: int) -> None:
    """Forget the club's ratings and replay every finished match in order."""
    db.session.execute(delete(RatingPoint).where(RatingPoint.club_id == club_id))
    db.session.execute(
        update(Player).where(Player.club_id == club_id).values(rating_mu=None, rating_sigma=None)
    )
    _mark_stale(club_id, None)
    players = _players(club_id)
    by_match: dict[int, list[Seat]] = {}
    for row in _side_rows(club_id):
        by_match.setdefault(row[0], []).append(row)
    _store([point for sides in by_match.values() for point in _rate(club_id, sides, players)])
    _keep(players)


def _stale_from(club_id: int) -> tuple[date, int] | None:
    """Where the club's stale ratings start (None: they are current)."""
    return _stale_of(
        db.session.execute(
            select(Club.ratings_stale_on, Club.ratings_stale_match).where(Club.id == club_id)
        ).one_or_none()
    )


def _stale_of(row: Any) -> tuple[date, int] | None:
    """Where stale ratings start, from a row with the club's two columns (None: current)."""
    if row is None or row.ratings_stale_on is None:
        return None
    return (row.ratings_stale_on, int(row.ratings_stale_match or 0))


def _mark_stale(club_id: int, since: tuple[date, int] | None) -> None:
    day, match = since if since is not None else (None, None)
    db.session.execute(
        update(Club)
        .where(Club.id == club_id)
        .values(ratings_stale_on=day, ratings_stale_match=match)
    )
    if since is not None:
        db.session.info.setdefault(STALE, set()).add(club_id)


#: ``session.info`` key: clubs whose ratings this session marked as stale (the web layer
#: brings them up to date after the answer: ``web.background``).
STALE = "ratings_stale_clubs"


def _place(name: str) -> tuple[Any, Any]:
    """A place in the club's order (date, then match) as two parameters, ``<name>_day``
    and ``<name>_match``, for the statements built once below."""
    return (
        bindparam(f"{name}_day", type_=SideResult.played_on.type),
        bindparam(f"{name}_match", type_=Integer),
    )


def _at(name: str, place: tuple[date, int]) -> dict[str, Any]:
    """The values of ``_place(name)``."""
    return {f"{name}_day": place[0], f"{name}_match": place[1]}


def _window(club_id: int, since: tuple[date, int], upto: tuple[date, int] | None) -> dict[str, Any]:
    """The values of ``_unrate_statement``: the club's games from ``since`` to before
    ``upto`` (or on, when None)."""
    values: dict[str, Any] = {"club": club_id, **_at("since", since)}
    if upto is not None:
        values.update(_at("upto", upto))
    return values


def _last_before_of(which: Any) -> Any:
    """The players of the club (``club``) that ``which`` picks, each with their last
    rating point before a place (``since_…``), if any, found along the player's own
    index."""
    last = (
        select(RatingPoint.id)
        .where(
            RatingPoint.player_id == Player.id,
            RatingPoint.club_id == bindparam("club", type_=Integer),
            earlier_than(RatingPoint, *_place("since")),
        )
        .order_by(RatingPoint.played_on.desc(), RatingPoint.match_id.desc())
        .limit(1)
        .correlate(Player)
        .scalar_subquery()
    )
    return (
        select(Player.id, RatingPoint.mu, RatingPoint.sigma)
        .outerjoin(RatingPoint, RatingPoint.id == last)
        .where(Player.club_id == bindparam("club", type_=Integer), which)
    )


#: ``_last_before``'s statement (``club``, ``players``, ``since_…``).
_LAST_BEFORE = _last_before_of(Player.id.in_(bindparam("players", expanding=True)))


def _last_before(club_id: int, player_ids: set[int], since: tuple[date, int]) -> dict[int, Rated]:
    """The players of the club among ``player_ids``, each rated as after their last rated
    match before ``since`` (unrated if none), to be written back (``changed``): one query,
    an index lookup per player. (It also stands for reading the players' rows: a replay
    sets every rating it touches.)"""
    if not player_ids:
        return {}
    values = {"club": club_id, "players": sorted(player_ids), **_at("since", since)}
    return _to_write_back(db.session.execute(_LAST_BEFORE, values))


def _to_write_back(rows: Any) -> dict[int, Rated]:
    """Rows of ``_last_before_of`` (player, mu, sigma) as ratings to be written back."""
    return {player_id: Rated(mu, sigma, changed=True) for player_id, mu, sigma in rows}


@dataclass
class Rated:
    """A player's rating as read from the player's row, then as rated here (``changed``:
    to be written back, ``_keep``)."""

    mu: float | None
    sigma: float | None
    changed: bool = False

    def set(self, mu: float | None, sigma: float | None) -> None:
        self.mu, self.sigma, self.changed = mu, sigma, True


#: ``_players``' statements (``club``; ``players``): the club's players, or some of them.
_PLAYERS = select(Player.id, Player.rating_mu, Player.rating_sigma).where(
    Player.club_id == bindparam("club", type_=Integer)
)
_SOME_PLAYERS = _PLAYERS.where(Player.id.in_(bindparam("players", expanding=True)))


def _players(club_id: int, only: set[int] | None = None) -> dict[int, Rated]:
    """The ratings of the club's players (``only``: those of these ids) as they are now
    (the club is locked: ``services.locks``), read as plain columns, not as an earlier
    statement of the transaction may have loaded their objects. A match appended, or a
    replay, reads the players it rates only: a club of hundreds of occasional players
    would otherwise load every one of them each time."""
    if only is None:
        rows = db.session.execute(_PLAYERS, {"club": club_id})
    else:
        rows = db.session.execute(_SOME_PLAYERS, {"club": club_id, "players": sorted(only)})
    return {player_id: Rated(mu, sigma) for player_id, mu, sigma in rows}


def _keep(players: dict[int, Rated]) -> None:
    """Write the changed ratings back to their players' rows, in one statement for them
    all (``upserts.update_rows``; the ORM's flush of loaded players cost about as much as
    the rating). A player's object the session holds, if any, reads its rating again
    when next used."""
    changed = [
        {"id": player_id, "rating_mu": rated.mu, "rating_sigma": rated.sigma}
        for player_id, rated in sorted(players.items())
        if rated.changed
    ]
    if not changed:
        return
    session = db.session()
    upserts.update_rows(session, Player.__table__, "id", changed)
    for row in changed:
        held = session.identity_map.get(session.identity_key(Player, row["id"]))
        if held is not None:
            session.expire(held, ["rating_mu", "rating_sigma"])


#: ``_side_rows``' statement (``club``).
_SEATS = (
    select(*SEAT_OF)
    .join(MatchPlayer, MatchPlayer.side_id == SideResult.side_id)
    .where(SideResult.club_id == bindparam("club", type_=Integer))
    .order_by(*SEAT_ORDER)
)


def _side_rows(club_id: int) -> Sequence[Seat]:
    """(match, side, date, points, player) for every seat of the club's finished matches."""
    return [tuple(row) for row in db.session.execute(_SEATS, {"club": club_id})]  # type: ignore[misc]


def _rate(
    club_id: int,
    seats: Sequence[Seat],
    players: dict[int, Rated],
) -> list[dict[str, Any]]:
    """Rate one match from its seats: each player's new rating (on the player) and the
    history points to store (``_store``)."""
    teams: dict[int, list[int | None]] = {}
    points: dict[int, int] = {}
    for _match, side, _day, side_points, player in seats:
        teams.setdefault(side, []).append(player)
        points[side] = side_points
    if len(teams) < 2:
        return []
    order = list(teams)
    ranks = [1 + sum(points[o] > points[s] for o in order) for s in order]
    before = [
        [MODEL.rating(*_current(players.get(p) if p is not None else None)) for p in teams[side]]
        for side in order
    ]
    after = MODEL.rate(before, ranks=ranks)
    match_id, played_on = seats[0][0], seats[0][2]
    found = []
    for side, ratings in zip(order, after, strict=True):
        for player_id, rating in zip(teams[side], ratings, strict=True):
            if player_id is None or player_id not in players:
                continue
            players[player_id].set(rating.mu, rating.sigma)
            found.append(
                {
                    "player_id": player_id,
                    "match_id": match_id,
                    "club_id": club_id,
                    "played_on": played_on,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                }
            )
    return found


def _rewrite(points: list[dict[str, Any]]) -> None:
    """Write a replay's rating points: each one the window had (the same player and
    match) is updated in place, the others inserted; one statement (``upserts.upsert``).
    Deleting a window's points and inserting them again cost PostgreSQL three times as
    much (psql, 100 points of a night entered late: 3.3 ms against 1.1): a deleted row
    and its new one, each new row's three foreign keys checked and six index entries,
    where an update that leaves the keys as they are checks none."""
    upserts.upsert(
        db.session(), RatingPoint.__table__, points, ("player_id", "match_id"), _rewritten
    )


def _rewritten(excluded: Any) -> dict[str, Any]:
    """What a replay changes of a point it writes again: its rating, and its day (the
    match's, should it differ from where the point was: ``_changed`` rates from the
    earlier of the two)."""
    return {"mu": excluded.mu, "sigma": excluded.sigma, "played_on": excluded.played_on}


def _store(points: list[dict[str, Any]]) -> None:
    """Insert rating points: one statement, however many matches they rate. Into the
    table itself, as the other kept rows are: the ORM's bulk path costs more per row and
    gives nothing here."""
    upserts.insert_rows(db.session(), RatingPoint.__table__, points)


def _current(player: Rated | None) -> tuple[float, float]:
    if player is None or player.mu is None or player.sigma is None:
        return (START_MU, START_SIGMA)
    return (player.mu, player.sigma)
