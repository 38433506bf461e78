"""CSV exports of club standings and match history, safe to open in a spreadsheet.

A text cell that a spreadsheet would run as a formula (starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return) gets a leading apostrophe; numbers are
written as numbers, so a negative score stays a negative number.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import Select, String, case, column, func, select, true, values
from sqlalchemy.engine import Connection

from ..engine.cards import CARD_KEYS
from ..extensions import db
from ..keeper import BESIDE
from ..models import Deal, DealSide, Match, MatchPlayer, MatchSide
from . import data_export
from .standings import Standings, one_decimal, percent

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """A cell that cannot run as a formula; numbers and booleans pass unchanged."""
    if isinstance(value, bool | int | float):
        return int(value) if isinstance(value, bool) else value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def to_csv(rows: Iterable[Sequence[Any]]) -> str:
    """The rows as CSV text, every cell made safe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def csv_response(rows: Iterable[Sequence[Any]], filename: str) -> Response:
    """A download of the rows as UTF-8 CSV (with a byte-order mark for spreadsheets)."""
    response = Response("\ufeff" + to_csv(rows), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def csv_stream(chunks: Generator[str, None, None], filename: str) -> Response:
    """A download of CSV text sent as it is made (``history_csv``): the same headers as
    ``csv_response``, without a length.

    The first chunk is made here, in the view, so that what fails before it (opening the
    database's snapshot) is still an error page. What fails later cannot be: the status and
    headers are sent. It is logged, and the connection is dropped without the end of the
    chunked body, so the client sees a failed download rather than a short file that looks
    whole. The request's own session is closed once the stream starts: the chunks are read
    through their own connection, and a long download should not hold two.

    Served by ``serve``'s processes of one thread, the rest is made with a thread more
    for the process meanwhile (``keeper.Beside``): its other connections do not wait."""
    first = next(chunks)
    beside = request.environ.get(BESIDE, contextlib.nullcontext)

    def body() -> Iterator[str]:
        db.session.close()
        sent = 0
        try:
            with beside():
                yield first
                for chunk in chunks:
                    sent += len(chunk)
                    yield chunk
        except Exception:
            current_app.logger.exception(
                "%s: the download failed after %d characters", filename, sent
            )
            raise
        finally:
            chunks.close()

    response = Response(stream_with_context(body()), mimetype="text/csv")
    response.call_on_close(chunks.close)  # also when the body was never read (HEAD)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


#: Column headers in the served language (a spreadsheet is read by people).
STANDINGS_HEADER = [
    _l("place"), _l("name"), _l("games"), _l("wins"), _l("draws"), _l("losses"), _l("win %"),
    _l("points for"), _l("points against"), _l("points per game"), _l("points per deal"),
    _l("went out"), _l("clean books"), _l("dirty books"), _l("wild books"), _l("other books"),
    _l("red threes"), _l("red threes left"), _l("streak"), _l("rating"),
]  # fmt: skip


def standings_rows(table: Standings) -> list[list[Any]]:
    """The standings table as rows: ranked first, then unranked (place left empty)."""
    rows: list[list[Any]] = [[str(h) for h in STANDINGS_HEADER]]
    for row in [*table.ranked, *table.unranked]:
        line = row.line
        kind, length = line.streak
        rows.append(
            [
                row.place if row.place is not None else "",
                row.name,
                line.games,
                line.tally.wins,
                line.tally.draws,
                line.tally.losses,
                percent(line.win_rate),
                line.points_for,
                line.points_against,
                float(one_decimal(line.points_per_game)),
                float(one_decimal(line.points_per_deal)),
                line.went_out,
                line.books["clean"],
                line.books["dirty"],
                line.books["wild"],
                line.books["other"],
                line.red_threes,
                line.red_threes_left,
                f"{kind[:1].upper()}{length}" if length else "",
                round(row.rating, 2) if row.rating is not None else "",
            ]
        )
    return rows


ENTRY_FIELDS = [
    "went_out",
    "red_threes",
    "red_threes_left",
    "red_threes_left_in_foot",
    "exact_draws",
]
BREAKDOWN = [
    "card_points", "book_bonus", "red_threes", "going_out", "exact_draws", "left_points",
    "red_threes_left", "total",
]  # fmt: skip
#: The headers of the entry's fields and the score's parts, in the served language (in
#: English they stay the keys they always were, so scripts reading the file keep working).
LABELS = {
    "went_out": _l("went_out"), "red_threes": _l("red_threes"),
    "red_threes_left": _l("red_threes_left"),
    "red_threes_left_in_foot": _l("red_threes_left_in_foot"),
    "exact_draws": _l("exact_draws"), "card_points": _l("card_points"),
    "book_bonus": _l("book_bonus"), "going_out": _l("going_out"),
    "left_points": _l("left_points"), "total": _l("total"),
}  # fmt: skip


def _label(key: str) -> str:
    return str(LABELS[key])


#: Rows written to the CSV text between two chunks of a streamed history (about 50 KB).
CHUNK_ROWS = 500
#: Rows fetched from the database at a time while streaming.
FETCH_ROWS = 1000
#: The entry's blocks whose keys become columns: books by kind, cards melded, cards left.
BLOCKS = ("books", "melded", "left")


def history_csv(club_id: int, season_id: int | None) -> Generator[str, None, None]:
    """The club's history as CSV text, a chunk at a time: a row per side per deal, with who
    played, every entered count and the scored breakdown. Stream it (``csv_stream``).

    The byte-order mark comes first, as soon as the database's snapshot is open; then the
    header, once the columns are known (the books, melded and left keys any entry of the
    history uses, gathered by the database); then the rows, read as they are written. All of
    it is read in one snapshot on a connection of its own (``data_export.snapshot``), so a
    deal saved meanwhile never makes the file disagree with itself.

    Per row only the deal side is read (the entry and the stored breakdown, which is what
    the engine scored when the deal was saved: nothing is scored again); each match's date,
    public id and players come once per match, from a second query in the same order."""
    with data_export.snapshot() as connection:
        yield "\ufeff"
        used = _used_keys(connection, club_id, season_id)
        books = sorted(used["books"])
        melded_keys, left_keys = _keys([used["melded"]]), _keys([used["left"]])
        header = [
            _("date"), _("match"), _("deal"), _("side"), _("players"),
            *[_("books %(kind)s", kind=k) for k in books],
            *[_label(f) for f in ENTRY_FIELDS], _("melded points"),
            *[_("melded %(cards)s", cards=k) for k in melded_keys],
            _("left points"), *[_("left %(cards)s", cards=k) for k in left_keys],
            *[_("score %(part)s", part=_label(k)) for k in BREAKDOWN],
        ]  # fmt: skip
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow([safe_cell(cell) for cell in header])
        found = connection.execute(_scoped(_SIDES, club_id, season_id), execution_options=_STREAM)
        matches = _matches(
            connection.execute(_scoped(_PLAYERS, club_id, season_id), execution_options=_STREAM)
        )
        counts = _counts(books, melded_keys, left_keys)
        current, first, labels = None, ["", ""], dict[int, str]()
        for written, (match_id, number, position, entry, *scores) in enumerate(found, 1):
            if match_id != current:  # the next match of both queries' order
                current = match_id
                while True:
                    seen, first, labels = next(matches)
                    if seen == match_id:
                        break
            writer.writerow(
                [*first, number, position + 1, labels.get(position, ""), *counts(entry), *scores]
            )
            if written % CHUNK_ROWS == 0:
                yield out.getvalue()
                out.seek(0)
                out.truncate()
        yield out.getvalue()


#: The types of an entry's cells that a spreadsheet cannot run (None is written empty).
_PLAIN = frozenset({int, type(None)})


def _counts(
    books: list[str], melded_keys: list[str], left_keys: list[str]
) -> Callable[[dict[str, Any]], list[Any]]:
    """The cells of an entry, in the header's order, made safe: a function of the entry,
    called for each of tens of thousands of rows (so built of ``map`` over bound methods,
    with nothing to do for a row of plain numbers, which is nearly every row)."""
    zeros, fields_zeros = (0,) * len(books), (0,) * len(ENTRY_FIELDS)
    melded_none, left_none = (None,) * len(melded_keys), (None,) * len(left_keys)
    empty: dict[str, Any] = {}

    def counts(entry: dict[str, Any]) -> list[Any]:
        get = entry.get
        cells = [
            *map(get("books", empty).get, books, zeros),
            *map(int, map(get, ENTRY_FIELDS, fields_zeros)),
            get("melded_points"),
            *map(get("melded", empty).get, melded_keys, melded_none),
            get("left_points"),
            *map(get("left", empty).get, left_keys, left_none),
        ]
        if _PLAIN.issuperset(map(type, cells)):
            return cells
        return [cell if type(cell) is int else safe_cell(cell) for cell in cells]

    return counts


#: Read a row at a time from the database, a thousand fetched at once (a server-side
#: cursor on PostgreSQL), so memory does not grow with the history.
_STREAM = {"yield_per": FETCH_ROWS}

#: The club's order: date, then match; a side per deal, deal by deal.
_ORDER = (Match.played_on, Match.id)

_SIDES = (
    select(
        Match.id, Deal.number, DealSide.position, DealSide.entry,
        *[getattr(DealSide, k) for k in BREAKDOWN],
    )
    .join(Deal, Deal.match_id == Match.id)
    .join(DealSide, DealSide.deal_id == Deal.id)
    .order_by(*_ORDER, Deal.number, DealSide.position)
)  # fmt: skip

#: Every match of the scope, even one without sides or players (outer joins), so that
#: ``_matches`` walks the same matches in the same order as ``_SIDES``, and more.
_PLAYERS = (
    select(
        Match.id, Match.played_on,
        # read only where there is no date: a time stamp costs more to read than a date
        case((Match.played_on.is_(None), Match.created_at)).label("created_at"),
        Match.public_id, MatchSide.position, MatchPlayer.name,
    )
    .outerjoin(MatchSide, MatchSide.match_id == Match.id)
    .outerjoin(MatchPlayer, MatchPlayer.side_id == MatchSide.id)
    .order_by(*_ORDER, MatchSide.position, MatchPlayer.position)
)  # fmt: skip


def _scoped(query: Select[Any], club_id: int, season_id: int | None) -> Select[Any]:
    query = query.where(Match.club_id == club_id)
    return query if season_id is None else query.where(Match.season_id == season_id)


def _matches(rows: Iterable[Any]) -> Iterator[tuple[int, list[str], dict[int, str]]]:
    """Each match of ``_PLAYERS`` once: its id, its first two cells (date and public id,
    made safe) and its sides' players (position -> the names joined with " & ")."""
    match_id = None
    first: list[str] = []
    names: dict[int, list[str]] = {}
    for row_id, played_on, created_at, public_id, position, name in rows:
        if row_id != match_id:
            if match_id is not None:
                yield match_id, first, _joined(names)
            match_id, names = row_id, {}
            day = (played_on or created_at.date()).isoformat()
            first = [safe_cell(day), safe_cell(public_id)]
        if name is not None:
            names.setdefault(position, []).append(name)
    if match_id is not None:
        yield match_id, first, _joined(names)


def _joined(names: dict[int, list[str]]) -> dict[int, str]:
    return {position: safe_cell(" & ".join(group)) for position, group in names.items()}


def _used_keys(connection: Connection, club_id: int, season_id: int | None) -> dict[str, set[str]]:
    """The keys of each block (``BLOCKS``) that any entry of the scope uses, found by the
    database (SQLite's ``json_tree``, PostgreSQL's ``json_object_keys``) in one statement,
    without sending every entry to Python for it."""
    sides = (
        select()
        .select_from(Match)
        .join(Deal, Deal.match_id == Match.id)
        .join(DealSide, DealSide.deal_id == Deal.id)
    )
    if connection.dialect.name == "postgresql":
        blocks = values(column("block", String), name="blocks").data([(b,) for b in BLOCKS])
        part = DealSide.entry.op("->")(blocks.c.block)
        keys = func.json_object_keys(case((func.json_typeof(part) == "object", part)))
        query = sides.join(blocks, true()).add_columns(blocks.c.block, keys)
    else:
        tree = func.json_tree(DealSide.entry).table_valued("key", "path").alias("tree")
        query = (
            sides.join(tree, true())
            .add_columns(func.substr(tree.c.path, 3), tree.c.key)
            .where(tree.c.path.in_([f"$.{b}" for b in BLOCKS]))
        )
    query = query.distinct()
    used: dict[str, set[str]] = {block: set() for block in BLOCKS}
    for block, key in connection.execute(_scoped(query, club_id, season_id)):
        used[block].add(key)
    return used


def _keys(blocks: Iterable[Iterable[str]]) -> list[str]:
    """The count keys used in any entry, in card order (ranges after, as written)."""
    used = {key for block in blocks for key in block}
    order = {key: i for i, key in enumerate(CARD_KEYS)}
    return sorted(used, key=lambda key: (order.get(key, len(order)), key))
