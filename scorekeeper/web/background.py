"""Work done after the answer has left: a club's ratings brought up to date.

A change far back in a club's history marks its ratings as updating
(``services.ratings.match_changed``) instead of rating thousands of matches again while a
phone waits. Once the server (waitress, gunicorn) has sent the answer and closed it, the
catch-up starts on a thread of its own, in its own app context and session, a chunk of
matches a transaction (``services.ratings.catch_up``). Not on the request's thread: with
one thread a process (``serve``'s default with several) that would hold up every
connection of the process meanwhile (the whole history of 10,000 matches took 1.4 s on
SQLite). It rates a chunk of matches at a time; when the process answered requests
meanwhile, it then waits three times as long as the chunk took (``PAUSE``), leaving the
cores and the club's lock to the requests; on an idle server it goes on at once. A
process runs one catch-up per club at a time. If the process ends midway (the thread does
not keep it running), the club stays marked: the next view of its standings or player
pages starts the catch-up again (after its own answer), and ``scorekeeper ratings``
finishes it from the command line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from functools import partial

from flask import Flask, Response

from ..extensions import db
from ..services import ratings

log = logging.getLogger(__name__)

#: After a chunk during which the process answered requests, a catch-up waits this many
#: times as long as the chunk took. Sixteen phones finishing last month's matches at
#: once keep a club's ratings updating, and at full pace its catch-ups took more than
#: half the CPU of the saves, each rating again everything after the earliest change.
#: Waiting, each covers the changes that came meanwhile: with 3, those saves were served
#: 1.6-2.4 times as many a second, with 1 some 1.1-1.8 (docs/performance.md, eighteenth
#: round). A whole history of 10,000 matches is rated again in 1.4 s on an idle server,
#: as before; while requests keep coming, at most a quarter of the time goes to it.
PAUSE = 3.0
#: Requests this process has answered (``register``): whether any came during a chunk.
_answered = 0

_running: set[int] = set()
_threads: set[threading.Thread] = set()  # catch-ups running (``join``)
_guard = threading.Lock()


def register(app: Flask) -> None:
    """After each request that marked a club's ratings as updating, catch them up once
    the answer is sent."""

    @app.after_request
    def _catch_up_after_the_answer(response: Response) -> Response:
        global _answered
        _answered += 1  # (the GIL's: a count lost to a race is a pause skipped, no more)
        clubs = db.session.info.pop(ratings.STALE, None)
        if clubs:
            response.call_on_close(partial(start_catch_up, app, sorted(clubs)))
        return response


def catch_up_later(club_id: int) -> None:
    """Bring the club's ratings up to date after this request's answer."""
    db.session.info.setdefault(ratings.STALE, set()).add(club_id)


def start_catch_up(app: Flask, club_ids: list[int]) -> None:
    """Catch up the clubs' ratings on a thread of its own (``catch_up``)."""
    thread = threading.Thread(
        target=_catch_up_and_leave, args=(app, club_ids), name="ratings-catch-up", daemon=True
    )
    with _guard:  # the thread leaves ``_threads`` (under the guard) after it is in it
        thread.start()
        _threads.add(thread)


def _catch_up_and_leave(app: Flask, club_ids: list[int]) -> None:
    try:
        catch_up(app, club_ids)
    finally:
        with _guard:
            _threads.discard(threading.current_thread())


def join(timeout: float = 60.0) -> bool:
    """Wait until the catch-ups this process started have ended (at most ``timeout``
    seconds); whether they have. For tests and benches: the server does not wait."""
    deadline = time.monotonic() + timeout
    while True:
        with _guard:
            running = next(iter(_threads), None)
        if running is None:
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        running.join(left)


def catch_up(app: Flask, club_ids: Iterable[int]) -> None:
    """Catch up the clubs' ratings now, in a context of its own; one run per club at a
    time in this process; a failure is logged and left for the next try."""
    for club_id in club_ids:
        with _guard:
            if club_id in _running:
                continue
            _running.add(club_id)
        try:
            with app.app_context():
                try:
                    _chunk_by_chunk(club_id)
                except Exception:
                    db.session.rollback()
                    log.exception("Ratings of club %s not brought up to date yet", club_id)
        finally:
            with _guard:
                _running.discard(club_id)


def _chunk_by_chunk(club_id: int) -> None:
    """``ratings.catch_up`` a chunk at a time until there is nothing left to rate (a
    chunk rates none), with a ``PAUSE`` after each during which requests were answered."""
    while True:
        began, answered = time.monotonic(), _answered
        if not ratings.catch_up(club_id, chunks=1):
            return
        if _answered != answered:
            time.sleep((time.monotonic() - began) * PAUSE)
