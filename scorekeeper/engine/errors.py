"""The engine's one exception family: every rule violation carries field paths."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field


class Phrase(str):
    """An English sentence (it *is* that ``str``) that also names its message id, the plural
    form and the parameters, so that a caller with a catalog can say it in another language.

    ``msgid`` uses ``%(name)s`` placeholders (``%(num)d`` for the count of a plural). A
    parameter that is itself a :class:`Phrase` is one of the game's words (a kind of book,
    a rule set's name, "Points"): a translator translates it too.
    """

    msgid: str
    plural: str
    num: int | None
    params: dict[str, int | str]

    def __new__(
        cls,
        msgid: str,
        plural: str = "",
        num: int | None = None,
        params: dict[str, int | str] | None = None,
    ) -> Phrase:
        values: dict[str, int | str] = dict(params or {})
        if num is not None:
            values.setdefault("num", num)
        text = plural if plural and num != 1 else msgid
        self = super().__new__(cls, text % values if values else text)
        self.msgid, self.plural, self.num, self.params = msgid, plural, num, values
        return self


def phrase(msgid: str, **params: int | str) -> Phrase:
    """A sentence to translate later (``msgid`` with ``%(name)s`` placeholders)."""
    return Phrase(msgid, params=params)


def phrase_n(singular: str, plural: str, num: int, **params: int | str) -> Phrase:
    """A sentence with a count: the catalog picks the plural form for ``num``."""
    return Phrase(singular, plural, num, params)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input: where (a field path) and why (a sentence).

    ``message`` is the English sentence, as it always was; ``phrase`` (when the engine made
    the problem) is the same sentence with its message id and parameters, for translating.
    """

    field: str
    message: str
    phrase: Phrase | None = dataclass_field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, field: str, message: str | Phrase) -> Problem:
        """A problem from a sentence, keeping its phrase when it is one."""
        return cls(field, str(message), message if isinstance(message, Phrase) else None)

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

    def said(self) -> str:
        """Every problem in one sentence, "field: message; field: message", as ``str``
        gives it, but a :class:`Phrase` whose problems a caller with a catalog says in
        its language (a refusal that quotes the engine's reasons: an import's)."""
        joined: Phrase | None = None
        for p in self.problems:
            one = phrase("%(field)s: %(message)s", field=p.field, message=p.phrase or p.message)
            joined = (
                one if joined is None else phrase("%(before)s; %(more)s", before=joined, more=one)
            )
        return joined if joined is not None else str(self)


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

    def add(self, field: str, message: str | Phrase) -> None:
        """Record one problem (a :class:`Phrase` keeps what a translator needs)."""
        self.items.append(Problem.of(field, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, error: type[EngineError]) -> None:
        """Raise ``error`` with every problem recorded so far, if there is any."""
        if self.items:
            raise error(self.items)
