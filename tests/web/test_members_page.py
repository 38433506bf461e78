"""The members page: each member's buttons tell a screen reader whose they are.

On a phone the members table is laid out as blocks with its header row hidden, so a
button's name is all a screen reader says of it: "Save" twice and "Remove" would not say
whose role, whose player or whose membership. Each button's accessible name names the
member and the thing, and starts with the button's visible text in every language, so a
voice-control user saying the visible word still hits it (WCAG 2.5.3, label in name).
"""

from __future__ import annotations

import pytest
from authz_world import build, client_as
from flask import Flask
from htmltree import Node, parse

#: The visible texts of a member's buttons, in order, in each language (unchanged).
VISIBLE = {
    "en": ("Save", "Save", "Remove", "Password reset link"),
    "cs": ("Uložit", "Uložit", "Odebrat", "Odkaz k obnovení hesla"),
    "bs": ("Sačuvaj", "Sačuvaj", "Ukloni", "Link za obnovu lozinke"),
    "ru": ("Сохранить", "Сохранить", "Убрать", "Ссылка для сброса пароля"),
}


def _words(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def visible_text(node: Node) -> str:
    """The text a sighted user sees: not what is visually hidden or hidden from everyone."""
    parts = []
    for child in node.children:
        if isinstance(child, str):
            parts.append(child)
        elif "visually-hidden" not in child.classes and child.attrs.get("aria-hidden") != "true":
            parts.append(visible_text(child))
    return _words(parts)


def spoken_text(node: Node) -> str:
    """The text content a screen reader reads: visually hidden text too, not aria-hidden."""
    parts = []
    for child in node.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.attrs.get("aria-hidden") != "true":
            parts.append(spoken_text(child))
    return _words(parts)


def accessible_name(button: Node) -> str:
    """A button's accessible name (the page uses no aria-labelledby on them)."""
    assert "aria-labelledby" not in button.attrs
    return " ".join(button.attrs.get("aria-label", "").split()) or spoken_text(button)


def member_rows(html: str) -> dict[str, list[Node]]:
    """Each member's username and the buttons of their row of the members table."""
    table = parse(html).find_all("table", cls="members")
    assert len(table) == 1
    rows = {}
    for tr in table[0].find_all("tbody")[0].find_all("tr"):
        name = tr.find_all("span", cls="name")[0].text
        rows[name] = tr.find_all("button")
    return rows


@pytest.mark.parametrize("lang", list(VISIBLE))
def test_each_members_buttons_name_the_member_and_start_with_their_visible_text(
    app: Flask, lang: str
) -> None:
    world = build(app)  # "owner" (logged in), "scorer" and "reader"
    owner = client_as(app, "owner")
    html = owner.get(f"/c/{world.club}/members", headers={"Accept-Language": lang}).get_data(
        as_text=True
    )
    assert f'<html lang="{lang}"' in html
    rows = member_rows(html)
    assert set(rows) == {"owner", "scorer", "reader"}
    assert [visible_text(b) for b in rows["owner"]] == list(VISIBLE[lang][:2])  # not themself
    names_by_member = {}
    for member in ("scorer", "reader"):
        buttons = rows[member]
        assert [visible_text(b) for b in buttons] == list(VISIBLE[lang])
        names = [accessible_name(b) for b in buttons]
        names_by_member[member] = names
        for button, name in zip(buttons, names, strict=True):
            assert name.startswith(visible_text(button)), (member, name)
            assert member in name, name
            assert name != visible_text(button), name  # says more than the bare word
        assert len(set(names)) == len(names), names  # the two Saves say what they save
        assert not [n for n in names for other in set(rows) - {member} if other in n]
    for button in rows["owner"]:
        name = accessible_name(button)
        assert name.startswith(visible_text(button)) and "owner" in name, name
    if lang == "en":
        assert names_by_member["reader"] == [
            "Save the role of reader",
            "Save which player reader is",
            "Remove reader from the club",
            "Password reset link for reader",
        ]
