"""A small HTML tree (standard library only) to find what a page shows beside a field.

Tests ask "is this error inside the same `.stepper` block as the input named
sides-1-melded_joker?", which a substring search cannot answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


@dataclass(eq=False)
class Node:
    """An element: its tag, attributes, children (nodes and text) and parent."""

    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        """The element's CSS classes."""
        return set((self.attrs.get("class") or "").split())

    @property
    def text(self) -> str:
        """All the text inside, with runs of white space made single spaces."""
        parts = [c if isinstance(c, str) else c.text for c in self.children]
        return " ".join(" ".join(parts).split())

    def iter(self) -> list[Node]:
        """This element and every element inside it, in document order."""
        nodes = [self]
        for child in self.children:
            if isinstance(child, Node):
                nodes.extend(child.iter())
        return nodes

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        """Elements inside (or this one) with the tag, the class and the attribute values."""
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in n.classes)
            and all(n.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def closest(self, classes: tuple[str, ...]) -> Node | None:
        """The nearest element (this one or an ancestor) having one of ``classes``."""
        node: Node | None = self
        while node is not None:
            if node.classes & set(classes):
                return node
            node = node.parent
        return None


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}, self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        # close up to the matching element (an unclosed <option> is closed by its parent)
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """The document tree of ``html``."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


FIELD_BLOCKS = ("stepper", "points", "field", "went-out-choice")


def field_block(html: str, name: str) -> Node:
    """The block (`.stepper`, `.points`, `.field`, the went-out fieldset) of input ``name``."""
    inputs = [n for n in parse(html).iter() if n.attrs.get("name") == name and n.tag != "meta"]
    assert inputs, f"no field named {name!r} in the page"
    block = inputs[0].closest(FIELD_BLOCKS)
    assert block is not None, f"field {name!r} sits in no field block"
    return block


def errors_beside(html: str, name: str) -> list[str]:
    """The error messages shown in the block of input ``name``."""
    block = field_block(html, name)
    return [li.text for ul in block.find_all("ul", cls="errors") for li in ul.find_all("li")]


def all_errors(html: str) -> list[tuple[str, str]]:
    """Every (field name or "", message) shown in the page's error lists."""
    found = []
    for ul in parse(html).find_all("ul", cls="errors"):
        block = ul.closest(FIELD_BLOCKS)
        names = (
            [n.attrs["name"] for n in block.iter() if "name" in n.attrs and n.tag != "ul"]
            if block
            else []
        )
        for li in ul.find_all("li"):
            found.append((names[0] if names else "", li.text))
    return found
