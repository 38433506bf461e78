"""Support for the rules-area tests: read a form the way a browser submits it.

No tests here; the rules tests import these helpers (the module name keeps it inside the
rules area's files).
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from werkzeug.datastructures import MultiDict

from scorekeeper.engine import PRESETS

HX = {"HX-Request": "true"}


class _FormReader(HTMLParser):
    """Collects the controls of one form (by id) and their submitted values."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.pairs: list[tuple[str, str]] = []
        self.select: str | None = None
        self.options: list[tuple[str, bool]] = []
        self.textarea: str | None = None
        self.text = ""
        self.option_value: str | None = None
        self.option_selected = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.pairs.append((name, a.get("value", "on")))
            elif kind not in ("submit", "button", "file", "image", "reset"):
                self.pairs.append((name, a.get("value", "")))
        elif tag == "select" and name:
            self.select, self.options = name, []
        elif tag == "option" and self.select:
            self.option_value, self.option_selected = a.get("value"), "selected" in a
            self.text = ""
        elif tag == "textarea" and name:
            self.textarea, self.text = name, ""

    def handle_data(self, data: str) -> None:
        self.text += data

    def handle_endtag(self, tag: str) -> None:
        if not self.inside:
            return
        if tag == "option" and self.select:
            value = self.option_value if self.option_value is not None else self.text.strip()
            self.options.append((value, self.option_selected))
        elif tag == "select" and self.select:
            chosen = [v for v, s in self.options if s] or [v for v, _ in self.options[:1]]
            self.pairs.extend((self.select, v) for v in chosen)
            self.select = None
        elif tag == "textarea" and self.textarea:
            text = self.text.removeprefix("\r\n").removeprefix("\n")
            self.pairs.append((self.textarea, text))
            self.textarea = None
        elif tag == "form":
            self.inside = False


def form_fields(html: str, form_id: str = "rule-form") -> MultiDict[str, str]:
    """What a browser would send for the form ``form_id`` of ``html``, untouched."""
    reader = _FormReader(form_id)
    reader.feed(html)
    assert reader.pairs, f"no form {form_id!r} in the page"
    return MultiDict(reader.pairs)


def changed(fields: MultiDict[str, str], **values: Any) -> MultiDict[str, str]:
    """A copy of ``fields`` with some values replaced; ``None`` removes a field (unticks)."""
    result = MultiDict(fields)
    for name, value in values.items():
        result.poplist(name)
        if isinstance(value, list):
            result.setlist(name, [str(v) for v in value])
        elif value is not None:
            result[name] = str(value)
    return result


def preset_dict(preset_id: str = "classic") -> dict[str, Any]:
    """A preset's rule-set dict, renamed so it can be saved as house rules."""
    data = PRESETS[preset_id].to_dict()
    data["name"] = f"Our {data['name']}"
    return data


def error_beside(html: str, name: str) -> str:
    """The error text shown with the control named ``name`` (linked by aria-describedby)."""
    import re

    control = re.search(rf'<(?:input|select|textarea)\b[^>]*\bname="{re.escape(name)}"[^>]*>', html)
    assert control, f"no control named {name!r}"
    described = re.search(r'aria-describedby="([^"]+)"', control.group(0))
    if not described:
        return ""
    return group_error(html, described.group(1))


def group_error(html: str, ident: str) -> str:
    """The text of the error list with this id ("" if there is none)."""
    import re

    found = re.search(rf'<ul class="errors[^"]*" id="{re.escape(ident)}">(.*?)</ul>', html, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split()) if found else ""
