"""House rules saved, exported or shared before issue 10's knobs keep their meaning: the
reader's defaults (RULES.md 4) make a red three in a foot cost what one in a hand does,
whoever went out, a wild card on top block the pile, and two melds of a rank legal."""

from __future__ import annotations

import html as html_lib
import io
import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from helpers import enter_deal, new_match_data, show, totals
from sqlalchemy import select

from scorekeeper.engine import PRESETS
from scorekeeper.extensions import db
from scorekeeper.models import SavedRuleSet


def old_classic(name: str = "Old classic") -> dict[str, Any]:
    """Classic as a table saved it before the new knobs existed."""
    data = PRESETS["classic"].to_dict()
    del data["pile_blocked_by"], data["one_open_meld_per_rank"]
    data["red_three"] = {"laid": 100, "laid_without_meld": -100, "left": -100}
    data.update(id="old-classic", name=name, source="Our table")
    return data


def text(page: str) -> str:
    return html_lib.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


def test_an_old_house_rule_set_still_charges_a_red_three_in_a_foot_when_nobody_went_out(
    app: Flask, client: FlaskClient
) -> None:
    """Side B of the standard deal, the stock ran out: 185 + 500 - 75 - 100 = 510, as the
    old rule set scored it (today's classic would say 610)."""
    with app.app_context():
        row = SavedRuleSet(name="Old classic", rules=old_classic())
        db.session.add(row)
        db.session.commit()
        public_id = row.public_id
    card = text(client.get(f"/rules/{public_id}").get_data(as_text=True))
    assert "Red three left in hand or unpicked foot −100" in card
    assert "Top card blocked by a three or a wild card on top" in card
    assert "Unfinished melds of one rank any number" in card
    data = new_match_data(f"saved:{public_id}")
    response = client.post("/matches", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    match_id = response.headers["Location"].removeprefix("/m/")
    side_b = {"books_clean": 1, "melded_points": 185, "left_points": 75, "red_threes_left": 1}
    enter_deal(client, match_id, {}, side_b)
    assert totals(show(client, match_id)) == [0, 510]
    meld = client.get(f"/meld?rules=saved:{public_id}&deal=1&m=K.3.0.0&m=K.3.0.0")
    assert "already starts a meld" not in meld.get_data(as_text=True)


def test_an_old_exported_file_imports_and_reads_with_the_defaults(
    app: Flask, client: FlaskClient
) -> None:
    exported = json.dumps(old_classic("From an old phone")).encode()
    upload = {"file": (io.BytesIO(exported), "old.json"), "text": "", "name": ""}
    response = client.post("/rules/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 303, response.get_data(as_text=True)
    with app.app_context():
        stored = db.session.scalars(select(SavedRuleSet)).one().rules
    assert stored["red_three"]["left_in_foot"] == -100
    assert stored["red_three"]["foot_only_if_opponent_out"] is False
    assert (stored["pile_blocked_by"], stored["one_open_meld_per_rank"]) == (
        ["black3", "wild"],
        False,
    )


def test_an_old_share_link_opens_and_its_copy_keeps_the_old_meaning(
    app: Flask, client: FlaskClient
) -> None:
    """A share link to house rules saved before the knobs: the card says what they meant,
    and the copy imported from it reads the defaults (RULES.md section 4)."""
    with app.app_context():
        row = SavedRuleSet(name="Old classic", rules=old_classic())
        db.session.add(row)
        db.session.commit()
        public_id = row.public_id
    card = text(client.get(f"/r/{public_id}").get_data(as_text=True))
    assert "Red three left in hand or unpicked foot −100" in card
    response = client.post(f"/r/{public_id}/import", data={"name": "Copied"})
    assert response.status_code == 303, response.get_data(as_text=True)
    with app.app_context():
        copied = db.session.scalars(select(SavedRuleSet).where(SavedRuleSet.name == "Copied"))
        rules = copied.one().rules
    assert rules["red_three"]["left_in_foot"] == -100
    assert rules["red_three"]["foot_only_if_opponent_out"] is False
    assert (rules["pile_blocked_by"], rules["one_open_meld_per_rank"]) == (
        ["black3", "wild"],
        False,
    )
