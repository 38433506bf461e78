"""Every transaction that changes a club moves its data version on, once, and no other
club's (services/club_versions.py): what the kept pages are keyed by (issue 17)."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import event, update

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import Club, KnownName, Player
from scorekeeper.services import accounts, clubs, locks, matches
from scorekeeper.services.demo import play


def versions(app):
    with app.app_context():
        return dict(db.session.query(Club.id, Club.data_version).all())


@pytest.fixture
def club(app):
    with app.app_context():
        made = clubs.create_club("Tuesday", min_games=1)
        playing = play(made, [("Ann", "Dee"), ("Bob", "Cid")], [[120, 90]], date(2024, 4, 9))
        return made.public_id, playing.row.public_id


def test_each_transaction_that_changes_a_club_moves_its_version_once_and_no_other(app, club):
    with app.app_context():
        other = clubs.create_club("Friday")
        db.session.commit()
        other_id = other.id

    before = versions(app)
    with app.app_context():
        loaded = matches.load_match(club[1])
        matches.record_deal(loaded, [{"melded_points": 5}] * 2, "v-2", 2)
    after = versions(app)
    club_id = next(i for i in before if i != other_id)
    assert after[club_id] == before[club_id] + 1
    assert after[other_id] == before[other_id]
    with app.app_context():  # a casual match and a new account belong to no club
        casual = matches.start_match(PRESETS["classic"], "classic", [Side(("A",)), Side(("B",))], 0)
        matches.record_deal(casual, [{"melded_points": 5}] * 2, "casual-1", 1)
        accounts.sign_up("newcomer", "correct horse battery")
        db.session.commit()
    assert versions(app) == after
    with app.app_context():  # its password and language are on no page
        accounts.find("newcomer").language = "cs"
        db.session.commit()
    assert versions(app) == after
    with app.app_context():  # its name may be on any club's pages (a match's history)
        accounts.find("newcomer").username = "newcomer2"
        db.session.commit()
    moved = versions(app)
    assert all(moved[i] == after[i] + 1 for i in after)


def test_a_log_out_moves_nothing_and_a_write_nobody_placed_moves_every_club(app, club):
    with app.app_context():
        clubs.create_club("Friday")
        account = accounts.sign_up("ann", "correct horse battery")
        token = accounts.start_session(account)
        db.session.commit()
    before = versions(app)
    with app.app_context():  # a Core delete of a log-in's row
        accounts.end_session(token)
    assert versions(app) == before
    with app.app_context():  # a Core write of club rows with no club locked: any club
        db.session.execute(update(Player).values(name=Player.name))
        db.session.commit()
    after = versions(app)
    assert all(after[i] == before[i] + 1 for i in before)


def test_a_savepoint_rolled_back_keeps_the_marks_of_what_was_written_before_it(app, club):
    before = versions(app)
    with app.app_context():  # as a match's names are remembered (services.matches)
        made = clubs.get_club(club[0])
        club_id = made.id
        db.session.add(Player(club_id=made.id, name="Zed", key="zed"))
        db.session.flush()
        with pytest.raises(RuntimeError), db.session.begin_nested():
            db.session.add(KnownName(key="zed", name="Zed"))
            db.session.flush()
            raise RuntimeError("undone")
        db.session.commit()
    assert versions(app)[club_id] == before[club_id] + 1


def test_a_club_write_locks_the_club_by_moving_its_version_one_statement_once(app, club):
    """The club's lock is the ``UPDATE`` of its number (no ``SELECT … FOR UPDATE``, no
    second update at commit), and a second lock in the same transaction costs nothing."""
    with app.app_context():
        club_id = clubs.get_club(club[0]).id
        engine = db.engine
    ran: list[str] = []

    def executed(*args):
        ran.append(" ".join(args[2].split()))

    before = versions(app)
    event.listen(engine, "before_cursor_execute", executed)
    try:
        with app.app_context():
            locks.lock_club(db.session, club_id)
            locks.lock_club(db.session, club_id)
            db.session.commit()
    finally:
        event.remove(engine, "before_cursor_execute", executed)
    touching = [s for s in ran if "clubs" in s]
    assert len(touching) == 1 and touching[0].startswith("UPDATE clubs SET data_version")
    assert versions(app)[club_id] == before[club_id] + 1


def test_a_version_moved_inside_a_savepoint_rolled_back_is_moved_again_at_commit(app, club):
    before = versions(app)
    with app.app_context():
        made = clubs.get_club(club[0])
        club_id = made.id
        with pytest.raises(RuntimeError), db.session.begin_nested():
            locks.lock_club(db.session, club_id)
            raise RuntimeError("undone, the version's move with it")
        db.session.add(Player(club_id=club_id, name="Yan", key="yan"))
        db.session.commit()
    assert versions(app)[club_id] == before[club_id] + 1
