"""A strict reading of the archive's HTML with the standard library's parser.

Beyond "it parses": every element that is opened is closed in order (void elements excepted,
``<x/>`` allowed in inline SVG), ids are unique, images have alt text, and every ``href`` and
``src`` is collected so that tests can resolve them inside the site.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


@dataclass
class Link:
    tag: str
    attribute: str
    value: str
    line: int


@dataclass
class PageCheck:
    path: Path
    doctype: str | None = None
    problems: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    tags: Counter[str] = field(default_factory=Counter)
    ids: Counter[str] = field(default_factory=Counter)
    text: str = ""


class _Reader(HTMLParser):
    def __init__(self, check: PageCheck) -> None:
        super().__init__(convert_charrefs=True)
        self.check = check
        self.stack: list[tuple[str, int]] = []
        self.chunks: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.check.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attributes(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        line = self.getpos()[0]
        if tag in VOID:
            self.check.problems.append(f"line {line}: end tag for void element <{tag}>")
        elif not self.stack or self.stack[-1][0] != tag:
            opened = self.stack[-1] if self.stack else ("nothing", 0)
            self.check.problems.append(
                f"line {line}: </{tag}> closes <{opened[0]}> opened on line {opened[1]}"
            )
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.check.tags[tag] += 1
        values = dict(attrs)
        line = self.getpos()[0]
        if values.get("id"):
            self.check.ids[str(values["id"])] += 1
        if tag == "img" and not values.get("alt"):
            self.check.problems.append(f"line {line}: <img> without alt text")
        for attribute in ("href", "src"):
            value = values.get(attribute)
            if value is not None:
                self.check.links.append(Link(tag, attribute, value, line))


def check_page(path: Path) -> PageCheck:
    check = PageCheck(path)
    reader = _Reader(check)
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    check.problems += [
        f"<{tag}> opened on line {line} is never closed" for tag, line in reader.stack
    ]
    check.problems += [f"id {name!r} is used {n} times" for name, n in check.ids.items() if n > 1]
    check.text = " ".join(" ".join(reader.chunks).split())
    return check


def is_external(value: str) -> bool:
    parts = urlsplit(value)
    return bool(parts.scheme or parts.netloc)


def target_of(page: Path, value: str) -> Path:
    """The file a relative link of ``page`` points at (query and fragment dropped)."""
    return (page.parent / unquote(urlsplit(value).path)).resolve()
