"""The engine's one exception family: every rule violation carries field paths."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where (a field path) and why (a sentence)."""

    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """The JSON shape of a problem: ``{"field": ..., "message": ...}``."""
        return {"field": self.field, "message": self.message}


class EngineError(Exception):
    """Base of every error the engine raises on purpose; it lists all problems found."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in self.problems))

    def as_dicts(self) -> list[dict[str, str]]:
        """The problems as JSON-able dicts, in the order they were found."""
        return [p.as_dict() for p in self.problems]


class RuleSetError(EngineError):
    """A rule set that cannot work (e.g. going out requires a kind that is not allowed)."""


class EntryError(EngineError):
    """A deal entry that cannot happen with the cards in play."""


class MeldError(EngineError):
    """A meld-check request that cannot be read (a three, an unknown rank, a bad count)."""


class MatchError(EngineError):
    """A match operation that is not possible (a deal that does not exist, a finished game)."""


class Problems:
    """A collector of problems; ``raise_if_any`` turns them into one engine error."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, field: str, message: str) -> None:
        """Record one problem."""
        self.items.append(Problem(field, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, error: type[EngineError]) -> None:
        """Raise ``error`` with every problem recorded so far, if there is any."""
        if self.items:
            raise error(self.items)
