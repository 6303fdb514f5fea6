"""A small DOM for tests of server-rendered pages, built with the standard library's HTML parser: find elements by
tag, id, class and attributes, read their text. Not a browser: enough to assert on markup without regexes.

doc = parse(html); doc.one("table", id="results").all("tr", attrs={"data-round-id": None})
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.children: list[Element | str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def get(self, name: str) -> str | None:
        return self.attrs.get(name)

    def iter(self) -> Iterator[Element]:
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.iter()

    def _matches(
        self, tag: str | None, id: str | None, cls: str | None, attrs: dict[str, str | None]
    ) -> bool:
        if tag is not None and self.tag != tag:
            return False
        if id is not None and self.attrs.get("id") != id:
            return False
        if cls is not None and cls not in self.classes:
            return False
        for name, value in attrs.items():
            if name not in self.attrs or (value is not None and self.attrs[name] != value):
                return False
        return True

    def all(
        self,
        tag: str | None = None,
        *,
        id: str | None = None,
        cls: str | None = None,
        attrs: dict[str, str | None] | None = None,
    ) -> list[Element]:
        """Every descendant that matches (an attribute value None: present, any value)."""
        return [e for e in self.iter() if e._matches(tag, id, cls, attrs or {})]

    def one(
        self,
        tag: str | None = None,
        *,
        id: str | None = None,
        cls: str | None = None,
        attrs: dict[str, str | None] | None = None,
    ) -> Element:
        found = self.all(tag, id=id, cls=cls, attrs=attrs)
        assert len(found) == 1, (
            f"expected one {tag or ''}#{id or ''}.{cls or ''}{attrs or ''}, found {len(found)}"
        )
        return found[0]

    def maybe(
        self,
        tag: str | None = None,
        *,
        id: str | None = None,
        cls: str | None = None,
        attrs: dict[str, str | None] | None = None,
    ) -> Element | None:
        found = self.all(tag, id=id, cls=cls, attrs=attrs)
        return found[0] if found else None

    @property
    def text(self) -> str:
        """The text inside, whitespace collapsed."""
        parts: list[str] = []

        def walk(e: Element) -> None:
            for c in e.children:
                if isinstance(c, str):
                    parts.append(c)
                else:
                    walk(c)

        walk(self)
        return " ".join("".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Element(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
