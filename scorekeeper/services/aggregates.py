"""Standing lines kept current: a row per (club, season or all-time, player or partnership).

``refresh`` runs in the transaction of a changed club match (from the ``before_commit``
hook of ``services.standings``): it rewrites the lines of that match's players and
partnerships only. A match that has just finished is added to their stored lines (the
engine's ``add``): after every other game of its players (tonight's tables, whichever
finishes first) it costs one match whatever the history; before some of them (a table
that finished after a later-numbered one, a night entered late) it also counts the games
after it, as far as each streak needs, to place it in the streak. Any other change (a
correction, a reopening, a removal: ``replace_match``) takes the match's old records out
of the stored lines and puts its new ones in, reading only the games around it that the
streak needs. A page reads one row per entry.
``rebuild`` recomputes a whole club: after its seasons change (a rare write), in the
migration that adds the table, and as the reference the tests compare the running lines
with. The sums themselves are the engine's (``line_of``).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    tuple_,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from ..engine.standings import (
    Key,
    Line,
    SideRecord,
    Tally,
    add,
    extend,
    line_of,
    lines,
    partnership,
    partnership_keys,
    player_keys,
    retract,
    streak,
)
from ..models import Club, MatchPlayer, MatchSide, Player, SideResult, StandingLine
from . import upserts
from .ratings import to_rate_again
from .side_records import (
    ALL_TIME,
    Following,
    at_or_after,
    earlier_than,
    in_scope,
    records_of,
    seats_query,
)

__all__ = ["ALL_TIME", "PARTNERSHIP", "PLAYER", "read_line", "read_lines", "rebuild", "refresh"]

PLAYER, PARTNERSHIP = "player", "partnership"
#: Every kind of line: always true of a line, this condition lets a read of lines by their
#: members seek each by its whole unique key (club, scope, kind, members). Without it,
#: SQLite, which keeps no statistics here, read every line of the club's scope, and lines
#: grow with a club's people: six members' lines in two scopes took sqlite3 0.57 ms among
#: 2,000 lines and 4.4 ms among 20,000, against 0.06 ms sought.
_KINDS = (PLAYER, PARTNERSHIP)
WIDTH = 3  # the most players a side has (teams of two or three), for ``_newer_as_arrays``
BOOKS = {
    "clean": "books_clean",
    "dirty": "books_dirty",
    "wild": "books_wild",
    "other": "books_other",
}


def members_text(key: Key) -> str:
    """The stored form of a line's key: player ids joined by commas."""
    return ",".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))


def key_of(kind: str, members: str) -> Key:
    """The engine key of a stored line: a player id, or a partnership's tuple of ids."""
    ids = tuple(int(k) for k in members.split(","))
    return ids[0] if kind == PLAYER else ids


def row_values(club_id: int, scope: int, kind: str, line: Line) -> dict[str, Any]:
    """The columns of a standing line."""
    return {
        "club_id": club_id,
        "scope": scope,
        "kind": kind,
        "members": members_text(line.key),
        "wins": line.tally.wins,
        "draws": line.tally.draws,
        "losses": line.tally.losses,
        "points_for": line.points_for,
        "points_against": line.points_against,
        "deals": line.deals,
        "went_out": line.went_out,
        **{column: line.books.get(kind_, 0) for kind_, column in BOOKS.items()},
        "red_threes": line.red_threes,
        "red_threes_left": line.red_threes_left,
        "streak_outcome": line.streak[0],
        "streak_length": line.streak[1],
    }


def line_from(row: Any) -> Line:
    """The engine line a stored row holds (a ``StandingLine``, or a row of its table)."""
    return Line(
        key=key_of(row.kind, row.members),
        tally=Tally(row.wins, row.draws, row.losses),
        points_for=row.points_for,
        points_against=row.points_against,
        deals=row.deals,
        went_out=row.went_out,
        books={kind: getattr(row, column) for kind, column in BOOKS.items()},
        red_threes=row.red_threes,
        red_threes_left=row.red_threes_left,
        streak=(row.streak_outcome, row.streak_length),
    )


def refresh(
    session: Session,
    club_id: int,
    match_id: int,
    season_id: int | None,
    appended: date | None = None,
    own: Sequence[SideRecord] | None = None,
) -> Probe | None:
    """Rewrite the all-time and season lines of the match's players and partnerships.

    ``appended``: the day of a match that has just finished (it had no result rows
    before): its records are added to their lines, wherever it falls among its players'
    games (a table that finished after a later one, a night entered late); the games after
    it are only counted, to place it in the streak (``own``: the match's records, when the
    caller has them: the rows it has just written). Otherwise the lines are summed again
    from the players' side results (``replace_match`` is the bounded way for a change of a
    counted match).

    Returns, for a match appended, what its probe read (``Probe``: whether any of its
    players has a game after it, the club's ratings' state and the players' ratings,
    which ``ratings`` takes from it), else None.
    """
    scopes = tuple(dict.fromkeys((ALL_TIME, season_id or ALL_TIME)))
    if appended is not None:
        if own is None:  # the match's records, unless the caller has them
            own = [r for _season, r in records_of(session.execute(_seats_of(match_id)))]
        return _append(session, club_id, match_id, scopes, appended, own)
    seated: dict[int, list[int]] = {}
    for side_id, player_id in session.execute(
        select(MatchSide.id, MatchPlayer.player_id)
        .join(MatchPlayer, MatchPlayer.side_id == MatchSide.id)
        .where(MatchSide.match_id == match_id)
        .order_by(MatchSide.position, MatchPlayer.position)
    ):
        if player_id is not None:
            seated.setdefault(side_id, []).append(player_id)
    players = [p for ids in seated.values() for p in ids]
    pairs = [partnership(ids) for ids in seated.values() if len(ids) > 1]
    if not players:
        return None
    their_sides = select(MatchPlayer.side_id).where(MatchPlayer.player_id.in_(players))
    found: list[Found] = []
    for scope in scopes:
        query = seats_query().where(
            SideResult.club_id == club_id, SideResult.side_id.in_(their_sides)
        )
        records = [
            record for _season, record in records_of(session.execute(in_scope(query, scope)))
        ]
        found += [
            (scope, PLAYER, line_of(p, [r for r in records if p in r.players])) for p in players
        ] + [
            (
                scope,
                PARTNERSHIP,
                line_of(pair, [r for r in records if partnership(r.players) == pair]),
            )
            for pair in pairs
        ]
    _replace(session, club_id, found)
    return None


def _append(
    session: Session,
    club_id: int,
    match_id: int,
    scopes: tuple[int, ...],
    day: date,
    own: Sequence[SideRecord],
) -> Probe | None:
    """Add a just-finished match's records (``own``) to its players' and partnerships'
    lines in each scope: two statements whatever the history (the lines with whether any
    of its players has a game after the match, the lines written), and a third when one
    has (how many of each line's games: no more than the lines' streaks need). Returns
    what the probe read (``Probe``), or None for a match of guests alone."""
    players = [p for record in own for p in record.players]
    if not players:
        return None
    pairs = [key for record in own for key in partnership_keys(record)]
    # tonight's table, or a table of other players than those of the night's tables that
    # finished first: none of its players has a game after it, and nothing is counted (a
    # probe along the club's game order, 0.1 ms on PostgreSQL; the counts cost it 0.5 ms)
    stored, after = _read_after(session, club_id, scopes, players, pairs, (day, match_id))
    wanted = [
        (scope, kind, stored.get((scope, kind, key)) or line_of(key, []), record)
        for scope in scopes
        for record in own
        for kind, keys in ((PLAYER, player_keys), (PARTNERSHIP, partnership_keys))
        for key in keys(record)
    ]
    newer = [0] * len(wanted)
    if after.later:
        stored = [found[:3] for found in wanted]
        counted = None
        if after.ratings_stale_on is None:
            # the ratings rate again what follows the match (``ratings.match_finished``):
            # read it once for both, and count the lines' later games from it when it is
            # all that follows (or already has each line's cap); else count them apart
            window = to_rate_again(session, club_id, (day, match_id))
            after = replace(after, following=window)
            counted = _counted(window, match_id, stored)
        if counted is None:
            counted = _newer(session, club_id, (day, match_id), stored)
        newer = counted
    _replace(
        session,
        club_id,
        [
            (scope, kind, add(line, record, count))
            for (scope, kind, line, record), count in zip(wanted, newer, strict=True)
        ],
    )
    return after


def _read_after(
    session: Session,
    club_id: int,
    scopes: Sequence[int],
    players: Sequence[int],
    pairs: Sequence[Key],
    place: tuple[date, int],
) -> tuple[dict[tuple[int, str, Key], Line], Probe]:
    """``_read``'s lines of ``players`` and ``pairs``, the probe of whether any of
    ``players`` has a finished game of the club after ``place``, and the players'
    ratings, in one statement: the probe's one row with the stored lines joined
    to it (one row with no line when none is stored). Returns the lines as ``_read``
    does and what the probe read."""
    asked = sorted(set(players))
    values: dict[str, Any] = {
        "club": club_id,
        "day": place[0],
        "match": place[1],
        "scopes": list(scopes),
        "members": [members_text(k) for k in (*players, *pairs)],
    }
    values.update({f"player{n}": player for n, player in enumerate(asked)})
    rows = session.execute(_read_after_statement(len(asked)), values).all()
    first = rows[0]._mapping
    ratings = {
        player: (first[f"mu{n}"], first[f"sigma{n}"])
        for n, player in enumerate(asked)
        if first[f"player{n}"] is not None
    }
    probe = Probe(
        first["later"],
        first["ratings_stale_on"],
        first["ratings_stale_match"],
        frozenset(asked),
        ratings,
    )
    return _lines_of([row for row in rows if row.id is not None]), probe


@dataclass(frozen=True)
class Probe:
    """What ``_read_after`` read besides the lines, under the club's lock: whether any of
    the match's players has a finished game of the club after it (``later``), where the
    club's stale ratings start (``ratings_stale_on``, ``ratings_stale_match``), and the
    ratings (mu, sigma) of the players ``asked`` about that are the club's
    (``ratings``): what ``ratings.match_finished`` would read again to rate the match
    on top (one statement fewer a finish; the club's lock is held from before the
    probe, so nothing changes them between)."""

    later: bool
    ratings_stale_on: date | None
    ratings_stale_match: int | None
    asked: frozenset[int]
    ratings: dict[int, tuple[float | None, float | None]]
    #: what follows the match, when the lines read it (a later game, current ratings):
    #: what the ratings' replay from it rates, not read again
    following: Following | None = None


@functools.lru_cache(maxsize=8)
def _read_after_statement(players: int) -> Any:
    """``_read_after``'s statement for this many players (``player0``...), with the
    values as parameters: built once per number of players, as building it took about
    as long as running it.

    The probe (``later``) is read along the club's game order from the match's place,
    each side's seats looked up by its ``(player, side)`` index (as ``_sides_of``, so
    that PostgreSQL does not join every seat the players ever had), stopping at the
    first. With it, from the club's row, where its stale ratings start; and each
    player's id (None when the player is not the club's), mu and sigma, each a lookup
    by the player's key, which PostgreSQL runs once (an ``InitPlan``), not once a line.
    The lines are joined to that one row."""
    club = bindparam("club", type_=Integer)
    ids = [bindparam(f"player{n}", type_=Integer) for n in range(players)]
    later = exists().where(
        SideResult.club_id == club,
        tuple_(SideResult.played_on, SideResult.match_id)
        > tuple_(
            bindparam("day", type_=SideResult.played_on.type), bindparam("match", type_=Integer)
        ),
        select(MatchPlayer.id)
        .where(MatchPlayer.side_id == SideResult.side_id, MatchPlayer.player_id.in_(ids))
        .limit(1)
        .scalar_subquery()
        .is_not(None),
    )

    def of_player(name: str, column: Any, n: int) -> Any:
        found = select(column).where(Player.id == ids[n], Player.club_id == club)
        return found.scalar_subquery().label(f"{name}{n}")

    probe = (
        select(
            later.label("later"),
            Club.ratings_stale_on,
            Club.ratings_stale_match,
            *(
                of_player(name, column, n)
                for n in range(players)
                for name, column in (
                    ("player", Player.id),
                    ("mu", Player.rating_mu),
                    ("sigma", Player.rating_sigma),
                )
            ),
        )
        .where(Club.id == club)
        .subquery("probe")
    )
    return select(probe, StandingLine.__table__).select_from(
        probe.outerjoin(
            StandingLine.__table__,
            and_(
                StandingLine.club_id == club,
                StandingLine.scope.in_(bindparam("scopes", expanding=True, type_=Integer)),
                StandingLine.kind.in_(_KINDS),
                StandingLine.members.in_(
                    bindparam("members", expanding=True, type_=StandingLine.members.type)
                ),
            ),
        )
    )


def _counted(
    window: Following, match_id: int, stored: Sequence[tuple[int, str, Line]]
) -> list[int] | None:
    """``_newer``'s counts (each line's games after the match ``window`` starts at, up to
    one more than its streak) taken from the seats ``window`` read instead of the
    database: None when the window may end before a count does (more matches follow it,
    and some line has fewer games in it than its cap)."""
    seated: dict[int, list[int]] = {}  # each side's players (not its guests)
    for match, side, _day, _points, player in window.seats:
        if match != match_id and player is not None:
            seated.setdefault(side, []).append(player)
    sides_of: dict[int, list[int]] = {}  # each player's sides
    for side, players in seated.items():
        for player in players:
            sides_of.setdefault(player, []).append(side)
    counts = []
    for scope, kind, line in stored:
        members = (line.key,) if kind == PLAYER else tuple(line.key)
        # a player's games are their sides; a partnership's, the sides of exactly its
        # players (as ``_sides_of``)
        games = sum(
            1
            for side in sides_of.get(members[0], ())
            if (scope == ALL_TIME or window.seasons[side] == scope)
            and (
                kind == PLAYER
                or (len(seated[side]) == len(members) and set(members) <= set(seated[side]))
            )
        )
        cap = line.streak[1] + 1
        if games < cap and window.upto is not None:
            return None
        counts.append(min(games, cap))
    return counts


def _newer(
    session: Session,
    club_id: int,
    place: tuple[date, int],
    stored: Sequence[tuple[int, str, Line]],
) -> list[int]:
    """For each (scope, kind, stored line), how many of the line's games come after
    the match at ``place``, counted up to one more than the line's streak (all ``add``
    tells apart: none, as many as the streak or fewer, more). One statement: none when the
    match is its players' newest (tonight's first table to finish), a few rows a line when
    another table finished first or the night is entered late, however long ago (each
    count stops at its limit, read along the club's game order from the match)."""
    if not stored:
        return []
    members = [(line.key,) if kind == PLAYER else tuple(line.key) for _s, kind, line in stored]
    if session.get_bind().dialect.name == "postgresql":
        return _newer_as_arrays(session, club_id, place, stored, members)
    shape = tuple(
        (scope != ALL_TIME, kind, len(ids))
        for (scope, kind, _line), ids in zip(stored, members, strict=True)
    )
    values: dict[str, Any] = {"club": club_id, "day": place[0], "match": place[1]}
    for n, ((scope, _kind, line), ids) in enumerate(zip(stored, members, strict=True)):
        values[f"cap{n}"] = line.streak[1] + 1
        if scope != ALL_TIME:
            values[f"season{n}"] = scope
        values.update({f"member{n}_{i}": member for i, member in enumerate(ids)})
    return list(session.execute(_newer_statement(shape), values).one())


@functools.lru_cache(maxsize=64)
def _newer_statement(shape: tuple[tuple[bool, str, int], ...]) -> Any:
    """``_newer``'s statement for lines of this shape (each: in a season or all-time, its
    kind, its members), with the values as parameters: built once per shape, as
    building it took more than its reading."""
    place = (bindparam("day", type_=SideResult.played_on.type), bindparam("match", type_=Integer))
    counts = []
    for n, (in_season, kind, members) in enumerate(shape):
        key = tuple(bindparam(f"member{n}_{i}", type_=Integer) for i in range(members))
        games = (
            select(SideResult.id)
            .where(
                SideResult.club_id == bindparam("club", type_=Integer),
                _sides_of(kind, key[0] if kind == PLAYER else key),
                at_or_after(SideResult, *place),
                SideResult.match_id != place[1],
            )
            .order_by(SideResult.played_on, SideResult.match_id)
            .limit(bindparam(f"cap{n}", type_=Integer))
        )
        if in_season:
            games = games.where(SideResult.season_id == bindparam(f"season{n}", type_=Integer))
        counts.append(select(func.count()).select_from(games.subquery()).scalar_subquery())
    return select(*counts)


def _newer_as_arrays(
    session: Session,
    club_id: int,
    place: tuple[date, int],
    stored: Sequence[tuple[int, str, Line]],
    members: Sequence[tuple[int, ...]],
) -> list[int]:
    """``_newer`` on PostgreSQL: the lines go as one array a column, and one subquery
    counts each line's games (``_newer_arrays_statement``). Every line has ``WIDTH``
    member columns (a player's line and a pair's padded with NULL), so the text is the
    same whatever the lines and psycopg prepares it once. The twelve subqueries of
    ``_newer_statement``, a new text for each shape of lines, were parsed and planned
    again at every run (PostgreSQL judged their generic plan dearer): 1.6–2.9 ms of an
    out-of-order finish."""
    width = max(WIDTH, *(len(ids) for ids in members))
    values: dict[str, Any] = {
        "club": club_id,
        "day": place[0],
        "match": place[1],
        "seasons": [scope for scope, _kind, _line in stored],
        "caps": [line.streak[1] + 1 for _scope, _kind, line in stored],
        # a player's line counts each of their games; a partnership's, its own sides only
        "sizes": [
            None if kind == PLAYER else len(ids)
            for (_s, kind, _l), ids in zip(stored, members, strict=True)
        ],
    }
    for i in range(width):
        values[f"member{i}"] = [ids[i] if i < len(ids) else None for ids in members]
    return list(session.scalars(_newer_arrays_statement(width), values))


@functools.lru_cache(maxsize=4)
def _newer_arrays_statement(width: int) -> Any:
    """The statement of ``_newer_as_arrays`` for lines of at most ``width`` members: for
    each row of the arrays (in their order), the count of that line's games after the
    match, read along the club's game order as ``_newer_statement`` does (a scalar
    subquery a row, its limit the row's own)."""
    # each array's parameter, and its column among the lines
    columns = {"seasons": "season", "caps": "cap", "sizes": "size"}
    columns.update({f"member{i}": f"member{i}" for i in range(width)})
    arrays = [bindparam(name, type_=postgresql.ARRAY(Integer)) for name in columns]
    lines = (
        func.unnest(*arrays).table_valued(*columns.values(), with_ordinality="n").render_derived()
    )
    place = (bindparam("day", type_=SideResult.played_on.type), bindparam("match", type_=Integer))
    seated = [_seated(lines.c.member0)] + [
        or_(lines.c[f"member{i}"].is_(None), _seated(lines.c[f"member{i}"]))
        for i in range(1, width)
    ]
    everyone = (
        select(func.count(MatchPlayer.player_id))
        .where(MatchPlayer.side_id == SideResult.side_id)
        .scalar_subquery()
    )
    games = (
        select(SideResult.id)
        .where(
            SideResult.club_id == bindparam("club", type_=Integer),
            at_or_after(SideResult, *place),
            SideResult.match_id != place[1],
            or_(lines.c.season == ALL_TIME, SideResult.season_id == lines.c.season),
            *seated,
            or_(lines.c.size.is_(None), everyone == lines.c.size),
        )
        .order_by(SideResult.played_on, SideResult.match_id)
        .limit(lines.c.cap)
        .correlate(lines)
    )
    count = select(func.count()).select_from(games.subquery()).scalar_subquery()
    return select(count).select_from(lines).order_by(lines.c.n)


def replace_match(
    session: Session,
    club_id: int,
    match_id: int,
    season_id: int | None,
    before: tuple[date, Sequence[SideRecord]],
    day: date,
    now: Sequence[SideRecord],
) -> None:
    """Rewrite the lines of a match's players and partnerships after a change to a match
    they already counted (a correction, a reopening, a removal): its records before the
    change (``before``: its day and records) are taken out of their stored lines and its
    records ``now`` (none when it is no longer finished) are put in, in its place. The
    streak is found from the games around it: the ones after it up to the stored streak's
    length, and, when the run reaches back past it, the ones before it until the run
    breaks. Bounded by the streaks, not by the history; a line not stored as expected is
    summed again from its records.
    """
    old_day, old = before
    new = list(now)
    players = sorted({p for r in (*old, *new) for p in r.players})
    pairs = sorted({k for r in (*old, *new) for k in partnership_keys(r)}, key=repr)
    if old_day != day or not players:
        refresh(session, club_id, match_id, season_id)
        return
    scopes = tuple(dict.fromkeys((ALL_TIME, season_id or ALL_TIME)))
    stored = _read(session, club_id, scopes, players, pairs)
    found: list[Found] = []
    for scope in scopes:
        for kind, keys in ((PLAYER, player_keys), (PARTNERSHIP, partnership_keys)):
            was = {key: record for record in old for key in keys(record)}
            now = {key: record for record in new for key in keys(record)}
            for key in dict.fromkeys([*was, *now]):
                line = stored.get((scope, kind, key))
                if line is None:  # not stored as expected: sum it again
                    line = line_of(key, _records_of_key(session, club_id, scope, kind, key))
                    found.append((scope, kind, line))
                    continue
                run = _run(session, club_id, scope, kind, key, (day, match_id), line, now.get(key))
                if key in was:
                    line = retract(line, was[key], run)
                if key in now:
                    line = replace(extend(line, now[key]), streak=run)
                found.append((scope, kind, line))
    _replace(session, club_id, found)


def _run(
    session: Session,
    club_id: int,
    scope: int,
    kind: str,
    key: Key,
    place: tuple[date, int],
    line: Line,
    record: SideRecord | None,
) -> tuple[str, int]:
    """The streak of ``key``'s line once the match at ``place`` counts ``record`` (None:
    does not count): the stored one when enough games follow the match (it lies before
    the run and the game that ended the one before it); else the games after it, this
    one, and as many games before it as the run reaches back."""
    last, length = line.streak
    after = _outcomes(session, club_id, scope, kind, key, place, newer=True, limit=length + 1)
    if len(after) > length:
        return (last, length)
    recent = [*([record.outcome] if record else []), *reversed(after)]
    outcome, count = streak(recent)
    if count < len(recent):
        return (outcome, count)
    limit = length + 2
    while True:  # the run goes on into the games before the match
        before = _outcomes(session, club_id, scope, kind, key, place, newer=False, limit=limit)
        outcome = outcome or (before[0] if before else "")
        same = next((i for i, o in enumerate(before) if o != outcome), len(before))
        if same < len(before) or len(before) < limit:
            return (outcome, count + same)
        limit *= 4


def _sides_of(kind: str, key: Key) -> ColumnElement[bool]:
    """Side results of the player (or of exactly the partnership) ``key``.

    Each member's seat is looked up side by side (its ``(player, side)`` index), as the
    rows are read along the club's game order and the read stops at its limit. Spelled
    with ``EXISTS``, PostgreSQL made it a hash join over every seat the player ever had
    (a history's worth of rows for each line, 5 ms a late finish at 1,000 matches); a
    scalar subquery it runs per row, as SQLite does either way."""
    members = [key] if kind == PLAYER else list(key)
    seated = [_seated(member) for member in members]
    if kind == PARTNERSHIP:
        everyone = (
            select(func.count(MatchPlayer.player_id))
            .where(MatchPlayer.side_id == SideResult.side_id)
            .scalar_subquery()
        )
        seated.append(everyone == len(members))
    return and_(*seated)


def _seated(member: Any) -> ColumnElement[bool]:
    """Whether ``member`` (a player id, or an expression of one) has a seat on the side
    of the side result read: a lookup by the ``(player, side)`` index (``_sides_of``)."""
    return (
        select(MatchPlayer.id)
        .where(MatchPlayer.side_id == SideResult.side_id, MatchPlayer.player_id == member)
        .limit(1)
        .correlate_except(MatchPlayer)
        .scalar_subquery()
        .is_not(None)
    )


def _outcomes(
    session: Session,
    club_id: int,
    scope: int,
    kind: str,
    key: Key,
    place: tuple[date, int],
    newer: bool,
    limit: int,
) -> list[str]:
    """The outcomes of ``key``'s games after the match at ``place`` (``newer``) or before
    it, nearest first, at most ``limit``: read along the club's game order from the match
    (``ix_side_results_club_order``)."""
    query = (
        select(SideResult.outcome)
        .where(SideResult.club_id == club_id, _sides_of(kind, key))
        .where(
            and_(at_or_after(SideResult, *place), SideResult.match_id != place[1])
            if newer
            else earlier_than(SideResult, *place)
        )
        .order_by(
            *(
                (SideResult.played_on, SideResult.match_id)
                if newer
                else (SideResult.played_on.desc(), SideResult.match_id.desc())
            )
        )
        .limit(limit)
    )
    return list(session.scalars(in_scope(query, scope)))


def _records_of_key(
    session: Session, club_id: int, scope: int, kind: str, key: Key
) -> list[SideRecord]:
    """Every record of ``key`` in the scope, oldest first (the slow, sure way)."""
    query = seats_query().where(SideResult.club_id == club_id, _sides_of(kind, key))
    return [record for _season, record in records_of(session.execute(in_scope(query, scope)))]


def _seats_of(match_id: int) -> Any:
    return seats_query().where(SideResult.match_id == match_id)


#: A line to store: its scope, its kind and the line.
Found = tuple[int, str, Line]


def _read(
    session: Session,
    club_id: int,
    scopes: Sequence[int],
    players: Sequence[Key],
    pairs: Sequence[Key],
) -> dict[tuple[int, str, Key], Line]:
    """The stored lines of these players and partnerships in these scopes (one query),
    by scope, kind and key."""
    texts = [members_text(k) for k in (*players, *pairs)]
    if not texts:
        return {}
    values = {"club": club_id, "scopes": list(scopes), "members": texts}
    return _lines_of(session.execute(_READ, values))


def _lines_of(rows: Any) -> dict[tuple[int, str, Key], Line]:
    """Stored lines' rows by scope, kind and key."""
    found = {}
    for row in rows:
        line = line_from(row)
        found[row.scope, row.kind, line.key] = line
    return found


#: ``_read``'s statement, with the values as parameters: built once.
_READ = select(StandingLine.__table__).where(
    StandingLine.club_id == bindparam("club", type_=Integer),
    StandingLine.scope.in_(bindparam("scopes", expanding=True, type_=Integer)),
    StandingLine.kind.in_(_KINDS),
    StandingLine.members.in_(bindparam("members", expanding=True, type_=StandingLine.members.type)),
)


def _replace(session: Session, club_id: int, found: Sequence[Found]) -> None:
    """Store ``found`` in place of the lines of the same scope, kind and members: one
    upsert for the lines with games, and, when a change leaves lines with none (a
    correction, a removal), one DELETE of those per scope (one in all when every such
    line is in every scope, as the writes here make them)."""
    gone: dict[tuple[str, str], set[int]] = {}
    for scope, kind, line in found:
        if not line.games:
            gone.setdefault((kind, members_text(line.key)), set()).add(scope)
    if gone:
        scopes = set().union(*gone.values())
        groups = (
            [(scopes, list(gone))]
            if all(s == scopes for s in gone.values())
            else [({scope}, [k for k, s in gone.items() if scope in s]) for scope in scopes]
        )
        # (the kinds together: a partnership's members hold a comma, a player's never do)
        for in_scopes, keys in groups:
            session.execute(
                delete(StandingLine).where(
                    StandingLine.club_id == club_id,
                    StandingLine.scope.in_(sorted(in_scopes)),
                    StandingLine.kind.in_(sorted({kind for kind, _members in keys})),
                    StandingLine.members.in_(sorted({members for _kind, members in keys})),
                )
            )
    values = [row_values(club_id, scope, kind, line) for scope, kind, line in found if line.games]
    upserts.upsert(session, StandingLine.__table__, values, LINE_KEY, _stored_as_given)


LINE_KEY = ("club_id", "scope", "kind", "members")


def _stored_as_given(excluded: Any) -> dict[str, Any]:
    """A stored line replaced by the one that was to be inserted, column by column."""
    return {
        column.name: excluded[column.name]
        for column in StandingLine.__table__.columns
        if column.name not in ("id", *LINE_KEY)
    }


def rebuild(session: Session, club_id: int, seasons: Collection[int] | None = None) -> None:
    """Recompute every line of the club, all-time and per season, from its side results;
    or, with ``seasons`` (their ids), only those seasons' lines, from their side results
    alone (a season added or moved: the all-time lines are the same whatever the seasons)."""
    session.flush()
    gone = delete(StandingLine).where(StandingLine.club_id == club_id)
    query = seats_query().where(SideResult.club_id == club_id)
    if seasons is not None:
        gone = gone.where(StandingLine.scope.in_(seasons))
        query = query.where(SideResult.season_id.in_(seasons))
    session.execute(gone)
    rows = session.execute(query)
    values = [
        row_values(club_id, scope, kind, line)
        for scope, kind, line in computed_lines(records_of(rows), all_time=seasons is None)
    ]
    if values:
        session.execute(insert(StandingLine.__table__), values)


def computed_lines(
    seasoned: Sequence[tuple[int | None, SideRecord]], *, all_time: bool = True
) -> list[tuple[int, str, Line]]:
    """(scope, kind, line) for every entry, all-time (unless not ``all_time``) and per
    season, from scratch."""
    scopes: dict[int, list[SideRecord]] = {ALL_TIME: [r for _s, r in seasoned]} if all_time else {}
    for season, record in seasoned:
        if season is not None:
            scopes.setdefault(season, []).append(record)
    return [
        (scope, kind, line)
        for scope, records in scopes.items()
        for kind, keys in ((PLAYER, player_keys), (PARTNERSHIP, partnership_keys))
        for line in lines(records, keys)
    ]


def read_lines(session: Session, club_id: int, scope: int, kind: str) -> list[Line]:
    """The stored lines of a club's table (one row per entry)."""
    rows = session.scalars(
        select(StandingLine)
        .where(StandingLine.club_id == club_id, StandingLine.scope == scope)
        .where(StandingLine.kind == kind)
        .order_by(StandingLine.members)
    )
    return [line_from(row) for row in rows]


def read_line(session: Session, club_id: int, scope: int, player_id: int) -> Line:
    """A player's stored line (an empty line when they have no finished game there)."""
    row = session.scalar(
        select(StandingLine).where(
            StandingLine.club_id == club_id,
            StandingLine.scope == scope,
            StandingLine.kind == PLAYER,
            StandingLine.members == members_text(player_id),
        )
    )
    return line_from(row) if row is not None else line_of(player_id, [])
