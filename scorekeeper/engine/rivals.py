"""A player's rivals and partners, and their best game (the player page's arithmetic)."""

from __future__ import annotations

from collections.abc import Sequence

from .standings import Key, SideRecord, Tally, versus

AGAINST, WITH = "against", "with"
Meeting = tuple[Key, str, Key, str]  # (player, AGAINST or WITH, other player, outcome)


def meetings(record: SideRecord) -> list[Meeting]:
    """What one side's record adds to its players' rivals and partners: for each seated
    player, one game against each player of the other sides (its points against theirs)
    and one with each other player of the side (the side's outcome)."""
    found: list[Meeting] = []
    for seat, player in enumerate(record.players):
        found.extend(
            (player, WITH, mate, record.outcome)
            for other_seat, mate in enumerate(record.players)
            if other_seat != seat
        )
        for opponent in record.opponents:
            outcome = versus(record.points_for, opponent.points)
            found.extend((player, AGAINST, rival, outcome) for rival in opponent.players)
    return found


def pair_tallies(records: Sequence[SideRecord]) -> dict[tuple[Key, str, Key], Tally]:
    """Every player's record against and with every other player, from the records."""
    result: dict[tuple[Key, str, Key], Tally] = {}
    for record in records:
        for player, relation, other, outcome in meetings(record):
            key = (player, relation, other)
            result[key] = result.get(key, Tally()).add(outcome)
    return result


def head_to_head(records: Sequence[SideRecord], player: Key) -> dict[Key, Tally]:
    """The player's record against each opponent they met, in order of first meeting."""
    result: dict[Key, Tally] = {}
    for record in records:
        if player not in record.players:
            continue
        for opponent in record.opponents:
            for rival in opponent.players:
                outcome = versus(record.points_for, opponent.points)
                result[rival] = result.get(rival, Tally()).add(outcome)
    return result


def partners(records: Sequence[SideRecord], player: Key) -> dict[Key, tuple[Tally, Tally]]:
    """For each partner: the player's record with them, and without them."""
    own = [r for r in records if player in r.players]
    mates = dict.fromkeys(p for r in own for p in r.players if p != player)
    result: dict[Key, tuple[Tally, Tally]] = {}
    for mate in mates:
        together, apart = Tally(), Tally()
        for record in own:
            if mate in record.players:
                together = together.add(record.outcome)
            else:
                apart = apart.add(record.outcome)
        result[mate] = (together, apart)
    return result


def best_game(records: Sequence[SideRecord], player: Key) -> SideRecord | None:
    """The player's highest-scoring game (the earliest, on equal points)."""
    own = [r for r in records if player in r.players]
    return max(own, key=lambda r: r.points_for, default=None)
