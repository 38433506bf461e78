"""Matches started at the same moment by the same people never fail on the names offered.

Found by bench/soak.py on PostgreSQL: two new matches with the same four names typed in
another order updated the remembered names in that order, locked each other's rows and one
died with "deadlock detected" (a 500); two matches introducing the same new name at once
collide on its unique key. Real connections, one thread each, a barrier before each round.
On SQLite ``BEGIN IMMEDIATE`` already makes the writers take turns.
"""

from __future__ import annotations

import threading

from flask import Flask
from sqlalchemy import select

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import KnownName
from scorekeeper.services import matches

ROUNDS = 12


def race(app: Flask, seatings: list[tuple[str, ...]]) -> list[BaseException]:
    """Start one match per seating at once, ``ROUNDS`` times; the errors raised."""
    barrier = threading.Barrier(len(seatings))
    errors: list[BaseException] = []

    def start(names: tuple[str, ...]) -> None:
        with app.app_context():
            for _round in range(ROUNDS):
                barrier.wait(timeout=30)
                try:
                    sides = [Side(names[:2]), Side(names[2:])]
                    matches.start_match(PRESETS["classic"], "classic", sides, 0)
                except Exception as error:  # every failure is the test's finding
                    errors.append(error)
                    db.session.rollback()
            db.session.remove()

    threads = [threading.Thread(target=start, args=(s,)) for s in seatings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_the_same_names_typed_in_other_orders_at_once_never_deadlock(app):
    with app.app_context():  # the names are known already: every start updates them
        matches.start_match(
            PRESETS["classic"], "classic", [Side(("Ann", "Bob")), Side(("Cid", "Dee"))], 0
        )
        db.session.remove()
    orders = [
        ("Ann", "Bob", "Cid", "Dee"),
        ("Dee", "Cid", "Bob", "Ann"),
        ("Cid", "Ann", "Dee", "Bob"),
    ]
    assert race(app, orders) == []


def test_a_new_name_typed_on_two_phones_at_once_is_remembered_once(app):
    errors = race(app, [("Zoe", "Yan", "Xia", "Wim"), ("Wim", "Xia", "Yan", "Zoe")])
    assert errors == []
    with app.app_context():
        names = db.session.scalars(select(KnownName.name).order_by(KnownName.key)).all()
    assert names == ["Wim", "Xia", "Yan", "Zoe"]
