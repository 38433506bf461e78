"""The house-rules service: save, edit, find, freeze into matches, export and import."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, text

from scorekeeper.engine import PRESETS, RuleSetError, Side
from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet
from scorekeeper.services import matches, rule_sets


@pytest.fixture
def ctx(app: Flask) -> Iterator[None]:
    with app.app_context():
        yield


def house(preset_id: str = "classic", **changes: Any) -> dict[str, Any]:
    data = PRESETS[preset_id].to_dict()
    data["name"] = "Friday night"
    data.update(changes)
    return data


def saved_count() -> int:
    return db.session.scalar(select(func.count()).select_from(SavedRuleSet)) or 0


def test_a_valid_rule_set_is_saved_as_the_engine_reads_it_with_an_id_from_its_name(
    ctx: None,
) -> None:
    row = rule_sets.create(house(book_bonus={"clean": 600, "dirty": 300, "wild": 1500}))
    assert row.name == "Friday night"
    assert row.rules["id"] == "friday-night"
    assert row.rules["book_bonus"]["clean"] == 600
    assert row.version == 1
    assert len(row.public_id) >= 16
    assert rule_sets.rule_set_of(row).to_dict() == row.rules


REFUSALS = [
    pytest.param(
        house("four-books", going_out_requires={"clean": 2, "dirty": 2, "wild": 1}),
        "going_out_requires.wild",
        id="going out requires a kind that is not allowed",
    ),
    pytest.param(house(minimum_meld=[50, 90, 120]), "minimum_meld", id="fewer melds than deals"),
    pytest.param(
        house(minimum_meld=[[0, 50], [2500, 90], [2500, 120]]),
        "minimum_meld[2][0]",
        id="thresholds not increasing",
    ),
    pytest.param(house(decks=-2), "decks", id="negative decks"),
    pytest.param(house(decks=0), "decks", id="no decks"),
    pytest.param(
        house(wild_limit={"max_wilds": 0, "naturals_per_wild": 2}),
        "book_bonus.dirty",
        id="dirty books that can hold no wild card",
    ),
    pytest.param(
        house(special_books=[{"key": "threes", "name": "Threes", "rank": "3", "bonus": 1}]),
        "special_books[0].rank",
        id="a special book of threes",
    ),
    pytest.param(house(card_values={"joker": 50}), "card_values.K", id="card values missing"),
    pytest.param(
        house(red_three={"laid": "lots", "laid_without_meld": 0, "left": 0}),
        "red_three.laid",
        id="a red three that is not a number",
    ),
    pytest.param(house(players={"layouts": []}), "players.layouts", id="nobody can play"),
    pytest.param(house(hand_size=0), "hand_size", id="an empty hand"),
    pytest.param(house(name=" "), "name", id="no name"),
]


@pytest.mark.parametrize(("data", "field"), REFUSALS)
def test_a_rule_set_that_cannot_work_is_refused_with_its_field_and_never_saved(
    ctx: None, data: dict[str, Any], field: str
) -> None:
    with pytest.raises(RuleSetError) as caught:
        rule_sets.create(data)
    assert field in [p.field for p in caught.value.problems]
    assert saved_count() == 0


@pytest.mark.parametrize("name", ["Classic", "four BOOKS", "Friday Night"])
def test_a_name_a_preset_or_another_rule_set_has_is_refused(ctx: None, name: str) -> None:
    rule_sets.create(house())
    with pytest.raises(RuleSetError) as caught:
        rule_sets.create(house(name=name))
    assert [p.field for p in caught.value.problems] == ["name"]
    assert saved_count() == 1


def test_editing_replaces_the_rules_and_counts_the_version(ctx: None) -> None:
    row = rule_sets.create(house())
    public_id = row.public_id
    rule_sets.update(row, house(name="Saturday", going_out_bonus=250), version=1)
    again = rule_sets.load(public_id)
    assert again is not None
    assert (again.name, again.rules["id"], again.version) == ("Saturday", "saturday", 2)
    assert again.rules["going_out_bonus"] == 250


def test_an_edit_keeps_its_own_name_without_calling_it_taken(ctx: None) -> None:
    row = rule_sets.create(house())
    rule_sets.update(row, house(going_out_bonus=200), version=row.version)
    assert row.rules["going_out_bonus"] == 200


def test_an_edit_from_a_stale_form_is_refused_and_changes_nothing(ctx: None) -> None:
    row = rule_sets.create(house())
    rule_sets.update(row, house(going_out_bonus=200), version=1)
    with pytest.raises(rule_sets.StaleRuleSetError):
        rule_sets.update(row, house(going_out_bonus=999), version=1)
    assert rule_sets.load(row.public_id).rules["going_out_bonus"] == 200  # type: ignore[union-attr]


def test_an_edit_racing_another_phone_is_refused_by_the_version_column(ctx: None) -> None:
    row = rule_sets.create(house())
    # another phone saved meanwhile: the row in the database moved on, this one did not
    db.session.connection().execute(
        text("UPDATE saved_rule_sets SET version = 2 WHERE id = :id"), {"id": row.id}
    )
    with pytest.raises(rule_sets.StaleRuleSetError):
        rule_sets.update(row, house(going_out_bonus=999), version=1)
    assert db.session.get(SavedRuleSet, row.id).rules["going_out_bonus"] == 100  # type: ignore[union-attr]


def test_an_invalid_edit_leaves_the_saved_rules_as_they_were(ctx: None) -> None:
    row = rule_sets.create(house())
    with pytest.raises(RuleSetError):
        rule_sets.update(row, house(decks=-1), version=1)
    db.session.expire_all()
    assert rule_sets.load(row.public_id).rules["decks"] == 5  # type: ignore[union-attr]


def test_a_match_can_start_with_the_presets_then_the_saved_rule_sets_by_name(ctx: None) -> None:
    zebra = rule_sets.create(house(name="Zebra"))
    apple = rule_sets.create(house(name="apple"))
    choices = rule_sets.available()
    assert [c.origin for c in choices] == [
        "classic",
        "four-books",
        "whitnack",
        f"saved:{apple.public_id}",
        f"saved:{zebra.public_id}",
    ]
    assert [c.saved for c in choices] == [False, False, False, True, True]


@pytest.mark.parametrize("origin", ["", None, "saved:", "saved:nope", "saved:a\x00b", "poker"])
def test_an_unknown_origin_finds_nothing(ctx: None, origin: str | None) -> None:
    assert rule_sets.find(origin) is None


def test_an_origin_finds_a_preset_or_saved_rules(ctx: None) -> None:
    row = rule_sets.create(house(going_out_bonus=300))
    assert rule_sets.find("whitnack").rules is PRESETS["whitnack"]  # type: ignore[union-attr]
    found = rule_sets.find(f"saved:{row.public_id}")
    assert found is not None and found.rules.going_out_bonus == 300


def _start(origin: str) -> str:
    choice = rule_sets.find(origin)
    assert choice is not None
    sides = [Side(("Ana", "Cecile")), Side(("Boris", "Dusan"))]
    return matches.start_match(choice.rules, choice.origin, sides, 0).public_id


def test_a_match_keeps_its_copy_when_the_saved_rules_are_edited_or_deleted(ctx: None) -> None:
    row = rule_sets.create(house(going_out_bonus=300))
    before = dict(row.rules)
    match_id = _start(rule_sets.origin_of(row))

    rule_sets.update(row, house(going_out_bonus=5, deals=2, minimum_meld=[50, 90]), version=1)
    db.session.expire_all()
    loaded = matches.load_match(match_id)
    assert loaded is not None
    assert loaded.row.rules == before
    assert loaded.row.rules_origin == f"saved:{row.public_id}"
    assert loaded.game.rules.going_out_bonus == 300

    rule_sets.delete(row)
    db.session.expire_all()
    loaded = matches.load_match(match_id)
    assert loaded is not None and loaded.row.rules == before
    assert rule_sets.find(loaded.row.rules_origin) is None


def test_export_then_import_gives_back_the_identical_rule_set(ctx: None) -> None:
    specials = [{"key": "sevens", "name": "Sevens", "rank": "7", "bonus": 1000, "wilds": False}]
    row = rule_sets.create(house(special_books=specials, exact_draw_bonus=50))
    exported = rule_sets.export_json(row)
    original = json.loads(exported)
    assert original == row.rules
    rule_sets.delete(row)

    imported = rule_sets.import_rules(rule_sets.parse_json(exported.encode()))
    assert imported.rules == original
    assert rule_sets.export_json(imported) == exported


def test_an_import_can_take_another_name(ctx: None) -> None:
    row = rule_sets.create(house())
    copy = rule_sets.import_rules(rule_sets.parse_json(rule_sets.export_json(row)), "Copy")
    assert (copy.name, copy.rules["id"]) == ("Copy", "copy")
    assert {**copy.rules, "name": row.name, "id": row.rules["id"]} == row.rules


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b"\xff\xfe\x00", "not a text file"),
        (b" " * (rule_sets.MAX_IMPORT_BYTES + 1), "too big"),
        ("[" * 100_000, "not valid JSON"),
    ],
)
def test_a_file_that_is_not_a_rule_set_object_is_refused_clearly(
    raw: bytes | str, message: str
) -> None:
    with pytest.raises(rule_sets.ImportProblem) as caught:
        rule_sets.parse_json(raw)
    assert message in caught.value.problems[0].message


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Friday night!", "friday-night"),
        ("Šabac  rules", "sabac-rules"),
        ("Classic", "classic-house"),
        ("???", "house-rules"),
        ("x" * 80, "x" * 58),
    ],
)
def test_a_rule_set_id_is_made_from_its_name(name: str, slug: str) -> None:
    assert rule_sets.slug(name) == slug
