"""Export and import carry issue 10's knobs and entry field, and read files written before.

A match started with six deals under ``classic`` with a red three in an unpicked foot,
and house rules with every new knob set, come back from a round trip as they were, scored
the same. A file exported before the knobs existed (frozen rules without them, entries
with one count of red threes left) imports and scores as the app scored it then.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from sqlalchemy import select
from support import make_app

from scorekeeper.engine import PRESETS, Side
from scorekeeper.extensions import db
from scorekeeper.models import DealSide, Match, MatchSide, SavedRuleSet
from scorekeeper.services import data_export, data_import, matches, rule_sets

PAIRS = [Side(("Ann", "Bob")), Side(("Cid", "Dee"))]
#: RULES.md section 7 by points: side A went out; side B's red three is in its unpicked
#: foot, which costs 100 under classic because side A went out.
SIDE_A = {"went_out": True, "books": {"clean": 2, "dirty": 2, "wild": 1}, "red_threes": 1,
          "melded_points": 690}  # fmt: skip
SIDE_B = {"books": {"clean": 1}, "melded_points": 185, "left_points": 75,
          "red_threes_left_in_foot": 1}  # fmt: skip
#: Side B again with its red three counted the old way, one count for hand and foot.
OLD_SIDE_B = {"books": {"clean": 1}, "red_threes_left": 1, "melded_points": 185,
              "left_points": 75}  # fmt: skip
LEGACY_WHITNACK_SOURCE = (
    "Russian rule source, Bill Whitnack's rules (shared/seeds/004_d878a51282fabc65.txt)"
)


def export() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(data_export.dumps(data_export.document()))
    db.session.remove()
    return doc


def import_into_empty(doc: dict[str, Any]) -> data_import.Imported:
    db.drop_all()
    db.create_all()
    done = data_import.load(data_import.parse(doc, "export.json"))
    db.session.remove()
    return done


def scores() -> list[tuple[int, int, int]]:
    """(total, red threes left taken off, position) of every deal side, by id."""
    query = select(DealSide.total, DealSide.red_threes_left, DealSide.position).order_by(
        DealSide.id
    )
    return [tuple(row) for row in db.session.execute(query)]


def test_the_new_knobs_and_red_threes_in_a_foot_survive_a_round_trip(
    app: Any, tmp_path: Path
) -> None:
    house = {
        **PRESETS["four-books"].to_dict(),
        "name": "Our house rules",
        "red_three": {"laid": 100, "laid_without_meld": -100, "left": -200, "left_in_foot": -50,
                      "foot_only_if_opponent_out": True},
        "pile_blocked_by": ["wild"],
        "one_open_meld_per_rank": False,
    }  # fmt: skip
    with app.app_context():
        saved = rule_sets.create(house).rules
        loaded = matches.start_match(PRESETS["classic"], "classic", PAIRS, 0, deals=6)
        loaded, _ = matches.record_deal(loaded, [SIDE_A, SIDE_B], "d1", 1)
        assert scores() == [(3990, 0, 0), (510, 100, 1)]
        first = export()
        (match,) = first["tables"]["matches"]
        assert match["rules"]["deals"] == 6
        assert match["rules"]["minimum_meld"] == [50, 90, 120, 150, 150, 150]
        assert match["rules"]["red_three"]["foot_only_if_opponent_out"] is True
        assert first["tables"]["deal_sides"][1]["entry"]["red_threes_left_in_foot"] == 1
    other = make_app(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    with other.app_context():
        import_into_empty(first)
        assert scores() == [(3990, 0, 0), (510, 100, 1)]
        row = db.session.scalars(select(Match)).one()
        assert row.rules == match["rules"] and row.deal_count == 1 and not row.finished
        assert [s.total for s in db.session.scalars(select(MatchSide))] == [3990, 510]
        assert db.session.scalars(select(SavedRuleSet.rules)).one() == saved
        assert export()["tables"] == first["tables"]
        db.engine.dispose()


def test_an_export_written_before_the_knobs_imports_and_scores_as_it_did(app: Any) -> None:
    """Whitnack as a match froze it before issue 10 charged 100 for a red three left (in a
    hand or a foot, one count): side B 185 + 500 - 75 - 100 = 510, not today's 610. Its
    house rules without the knobs read with the defaults of RULES.md section 4."""
    with app.app_context():
        rule_sets.create({**PRESETS["classic"].to_dict(), "name": "Old house rules"})
        loaded = matches.start_match(PRESETS["whitnack"], "whitnack", PAIRS, 0)
        matches.record_deal(loaded, [SIDE_A, OLD_SIDE_B], "d1", 1)
        assert [t for t, _, _ in scores()] == [3990 - 1500 + 150, 610]  # today's whitnack
        doc = copy.deepcopy(export())
        frozen = doc["tables"]["matches"][0]["rules"]
        del frozen["pile_blocked_by"], frozen["one_open_meld_per_rank"]
        frozen["red_three"] = {"laid": 100, "laid_without_meld": 100, "left": -100}
        frozen["source"] = LEGACY_WHITNACK_SOURCE
        house = doc["tables"]["saved_rule_sets"][0]["rules"]
        del house["pile_blocked_by"], house["one_open_meld_per_rank"]
        house["red_three"] = {"laid": 100, "laid_without_meld": -100, "left": -100}
        for row in doc["tables"]["deal_sides"]:
            assert "red_threes_left_in_foot" not in row["entry"]  # as entries were stored
        import_into_empty(doc)
        assert scores() == [(2640, 0, 0), (510, 100, 1)]
        assert [s.total for s in db.session.scalars(select(MatchSide))] == [2640, 510]
        row = db.session.scalars(select(Match)).one()
        assert row.rules == frozen  # the frozen copy is kept as it was written
        stored = db.session.scalars(select(SavedRuleSet.rules)).one()
        restored = rule_sets.prepare(stored)
        assert (restored.red_three.left_in_foot, restored.pile_blocked_by) == (
            -100,
            ("black3", "wild"),
        )
        assert not restored.one_open_meld_per_rank
