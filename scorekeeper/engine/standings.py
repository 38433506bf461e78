"""Standings arithmetic: records, win rates, streaks, tie-breaks, head-to-head, partners.

Input is one ``SideRecord`` per side of a finished match, oldest first; a player is any
hashable key (the service uses database ids). A draw counts half a win. Ranking order:
win rate, then points per game, then head-to-head among the tied entries; entries with
fewer games than the minimum are listed apart as unranked.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

OUTCOMES = ("win", "draw", "loss")
BOOK_KINDS = ("clean", "dirty", "wild", "other")
HALF = Fraction(1, 2)

Key = Hashable


@dataclass(frozen=True)
class Opponent:
    """Another side of the same match: its players and its final total."""

    players: tuple[Key, ...]
    points: int


@dataclass(frozen=True)
class SideRecord:
    """One side of one finished match, summed over its deals."""

    match: Key
    players: tuple[Key, ...]
    outcome: str  # "win", "draw" (a tie for first) or "loss"
    points_for: int
    points_against: int  # the best opposing total: the score there was to beat
    deals: int = 0
    went_out: int = 0
    books: Mapping[str, int] = field(default_factory=dict)
    red_threes: int = 0
    red_threes_left: int = 0
    opponents: tuple[Opponent, ...] = ()


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses, and the win rate with a draw counted half."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> Fraction:
        """(wins + draws / 2) / games; 0 when there are no games."""
        return (self.wins + HALF * self.draws) / self.games if self.games else Fraction(0)

    def add(self, outcome: str) -> Tally:
        """This tally with one more game of ``outcome``."""
        return Tally(
            self.wins + (outcome == "win"),
            self.draws + (outcome == "draw"),
            self.losses + (outcome == "loss"),
        )


@dataclass(frozen=True)
class Line:
    """A player's or a partnership's record over a set of matches."""

    key: Key
    tally: Tally
    points_for: int
    points_against: int
    deals: int
    went_out: int
    books: Mapping[str, int]
    red_threes: int
    red_threes_left: int
    streak: tuple[str, int]  # ("win", 3): the current run of one outcome

    @property
    def games(self) -> int:
        """Games played."""
        return self.tally.games

    @property
    def win_rate(self) -> Fraction:
        """Win rate, a draw counted half."""
        return self.tally.win_rate

    @property
    def points_per_game(self) -> Fraction:
        """Average points scored per game."""
        return Fraction(self.points_for, self.games) if self.games else Fraction(0)

    @property
    def against_per_game(self) -> Fraction:
        """Average of the best opposing totals per game."""
        return Fraction(self.points_against, self.games) if self.games else Fraction(0)

    @property
    def points_per_deal(self) -> Fraction:
        """Average points scored per deal played."""
        return Fraction(self.points_for, self.deals) if self.deals else Fraction(0)


@dataclass(frozen=True)
class Place:
    """A ranked line, its place (shared on a full tie) and what separated it."""

    place: int
    line: Line
    decided_by: str  # "win rate", "points per game", "head-to-head" or "tied"


@dataclass(frozen=True)
class Table:
    """Ranked lines in order, then the lines below the minimum number of games."""

    ranked: tuple[Place, ...]
    unranked: tuple[Line, ...]


def player_keys(record: SideRecord) -> tuple[Key, ...]:
    """Each player of the side is a key of its own."""
    return record.players


def partnership_keys(record: SideRecord) -> tuple[Key, ...]:
    """The side's players together, when there are two or more of them."""
    return (partnership(record.players),) if len(record.players) > 1 else ()


def partnership(players: Iterable[Key]) -> tuple[Key, ...]:
    """A partnership's key: its players in a fixed order."""
    return tuple(sorted(players, key=repr))


def lines(records: Sequence[SideRecord], keys: Callable[[SideRecord], Iterable[Key]]) -> list[Line]:
    """One line per key, from the records (oldest first), in order of first appearance."""
    grouped: dict[Key, list[SideRecord]] = {}
    for record in records:
        for key in keys(record):
            grouped.setdefault(key, []).append(record)
    return [line_of(key, own) for key, own in grouped.items()]


def line_of(key: Key, records: Sequence[SideRecord]) -> Line:
    """The line summing ``records`` (oldest first) for ``key``."""
    tally = Tally()
    books = dict.fromkeys(BOOK_KINDS, 0)
    for record in records:
        tally = tally.add(record.outcome)
        for kind, count in record.books.items():
            books[kind] = books.get(kind, 0) + count
    return Line(
        key=key,
        tally=tally,
        points_for=sum(r.points_for for r in records),
        points_against=sum(r.points_against for r in records),
        deals=sum(r.deals for r in records),
        went_out=sum(r.went_out for r in records),
        books=books,
        red_threes=sum(r.red_threes for r in records),
        red_threes_left=sum(r.red_threes_left for r in records),
        streak=streak([r.outcome for r in records]),
    )


def extend(line: Line, record: SideRecord) -> Line:
    """``line`` with one more record, newer than every record it sums: what ``line_of``
    gives for those records and this one (a write that appends costs one record)."""
    books = dict(line.books)
    for kind, count in record.books.items():
        books[kind] = books.get(kind, 0) + count
    last, length = line.streak
    return Line(
        key=line.key,
        tally=line.tally.add(record.outcome),
        points_for=line.points_for + record.points_for,
        points_against=line.points_against + record.points_against,
        deals=line.deals + record.deals,
        went_out=line.went_out + record.went_out,
        books=books,
        red_threes=line.red_threes + record.red_threes,
        red_threes_left=line.red_threes_left + record.red_threes_left,
        streak=(record.outcome, length + 1 if last == record.outcome else 1),
    )


def retract(line: Line, record: SideRecord, run: tuple[str, int]) -> Line:
    """``line`` without ``record``, one of the records it sums, and with ``run`` as its
    streak: the sums ``line_of`` gives for the other records. Where the record was decides
    the streak, which the caller finds from the records around it (see :func:`streak`)."""
    books = dict(line.books)
    for kind, count in record.books.items():
        books[kind] = books.get(kind, 0) - count
    return Line(
        key=line.key,
        tally=Tally(
            line.tally.wins - (record.outcome == "win"),
            line.tally.draws - (record.outcome == "draw"),
            line.tally.losses - (record.outcome == "loss"),
        ),
        points_for=line.points_for - record.points_for,
        points_against=line.points_against - record.points_against,
        deals=line.deals - record.deals,
        went_out=line.went_out - record.went_out,
        books=books,
        red_threes=line.red_threes - record.red_threes,
        red_threes_left=line.red_threes_left - record.red_threes_left,
        streak=run,
    )


def add(line: Line, record: SideRecord, newer: int) -> Line:
    """``line`` with one more record that comes before the ``newer`` latest of the records
    it sums (0: after every one, as :func:`extend`): what ``line_of`` gives for them all.

    Only the streak depends on where the record goes. The last ``length`` records have
    the streak's outcome and the one before them another (or there is none); a record put
    before more than ``length`` of them leaves the streak as it is, one put among them
    either joins it (same outcome) or cuts it to the ``newer`` records after it.
    """
    added = extend(line, record)
    last, length = line.streak
    if newer == 0:
        return added
    if newer > length:
        return replace(added, streak=line.streak)
    if record.outcome == last:
        return replace(added, streak=(last, length + 1))
    return replace(added, streak=(last, newer))


def streak(outcomes: Sequence[str]) -> tuple[str, int]:
    """The current run: the last outcome and how many times in a row it came."""
    if not outcomes:
        return ("", 0)
    last, length = outcomes[-1], 0
    for outcome in reversed(outcomes):
        if outcome != last:
            break
        length += 1
    return (last, length)


def meeting(record: SideRecord, rival: Key, by_partnership: bool) -> str | None:
    """How ``record``'s side fared against ``rival`` in that match (None: did not meet)."""
    for opponent in record.opponents:
        met = (
            partnership(opponent.players) == rival if by_partnership else rival in opponent.players
        )
        if met:
            return versus(record.points_for, opponent.points)
    return None


def versus(mine: int, theirs: int) -> str:
    """The outcome of ``mine`` points against ``theirs``."""
    if mine == theirs:
        return "draw"
    return "win" if mine > theirs else "loss"


Meetings = Sequence[SideRecord] | Callable[[frozenset[Key]], Sequence[SideRecord]]


def rank(
    lines_: Iterable[Line],
    records: Meetings,
    min_games: int,
    by_partnership: bool = False,
) -> Table:
    """Order the lines: win rate, then points per game, then head-to-head among the tied.

    Head-to-head is the win rate (draws half) in the meetings between the tied entries;
    entries that never met count an even 1/2. Entries still level share a place and keep
    the order they came in (the caller passes them sorted by name). ``records`` is the
    history, or a function giving the records of the tied entries' keys on demand (at least
    every match where two of them met), so a caller need not read the whole history.
    """
    every = list(lines_)
    eligible = [line for line in every if line.games >= max(min_games, 1)]
    unranked = tuple(line for line in every if line.games < max(min_games, 1))
    eligible.sort(key=_level, reverse=True)
    places: list[Place] = []
    start = 0
    while start < len(eligible):
        end = start + 1
        level = _level(eligible[start])
        while end < len(eligible) and _level(eligible[end]) == level:
            end += 1
        group = eligible[start:end]
        places.extend(_place_group(group, start, eligible, records, by_partnership))
        start = end
    return Table(tuple(places), unranked)


def _level(line: Line) -> tuple[Fraction, Fraction]:
    return (line.win_rate, line.points_per_game)


def _place_group(
    group: list[Line],
    start: int,
    eligible: list[Line],
    records: Meetings,
    by_partnership: bool,
) -> list[Place]:
    """Places for lines level on win rate and points per game, split by head-to-head."""
    if len(group) == 1:
        return [Place(start + 1, group[0], _separator(start, eligible))]
    keys = {line.key for line in group}
    if callable(records):
        records = records(frozenset(keys))
    scores = {line.key: _head_to_head(line.key, keys, records, by_partnership) for line in group}
    group = sorted(group, key=lambda line: scores[line.key], reverse=True)
    result: list[Place] = []
    for line in group:
        shares = [other for other in group if scores[other.key] == scores[line.key]]
        place = start + 1 + group.index(shares[0])
        result.append(Place(place, line, "tied" if len(shares) > 1 else "head-to-head"))
    return result


def _separator(index: int, eligible: list[Line]) -> str:
    """What set a lone line apart from its neighbour (the line above; for the top, below)."""
    if len(eligible) == 1:
        return "win rate"
    other, line = eligible[index - 1 if index else 1], eligible[index]
    return "win rate" if other.win_rate != line.win_rate else "points per game"


def _head_to_head(
    key: Key, others: set[Key], records: Sequence[SideRecord], by_partnership: bool
) -> Fraction:
    tally = Tally()
    for record in records:
        plays = partnership(record.players) == key if by_partnership else key in record.players
        if not plays:
            continue
        for rival in others - {key}:
            outcome = meeting(record, rival, by_partnership)
            if outcome is not None:
                tally = tally.add(outcome)
    return tally.win_rate if tally.games else HALF


def outcome_of(points: int, all_points: Sequence[int]) -> str:
    """A side's outcome: the only highest total wins, a shared highest total is a draw."""
    best = max(all_points)
    if points < best:
        return "loss"
    return "win" if list(all_points).count(best) == 1 else "draw"
