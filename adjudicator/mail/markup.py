"""HTML mail bodies as text, in one pass whose work is linear in the size of the markup.

A mail client's HTML is read the way a person sees it: block elements start lines, ``<br>``
breaks one, ``<blockquote>`` becomes ``> `` lines (so quoted history is cut like plain-text
quotes), list items get a bullet, table cells are kept apart by a space, struck-out text is
dropped (the writer crossed it out), scripts, styles and the head are not shown.

Hostile markup cannot make it slow: every character is looked at a bounded number of times
(tags are found with ``str.find``, never with a pattern that can scan past its match), nesting
deeper than :data:`MAX_NESTING` is read as if flat, so a line's prefix never grows with the
depth, and markup past :data:`MAX_MARKUP` characters is not read. Nested lists cost the square
of their depth in html2text, which this replaces: a 39 KB mail took 20 seconds.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

MAX_MARKUP = 2_000_000
"""Characters of markup read; an order mail is a few kilobytes."""
MAX_NESTING = 8
"""Quote and list levels shown; deeper ones are shown at this level."""

_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
})  # fmt: skip
_HIDDEN = frozenset({"script", "style", "title", "template", "noscript"})
_STRUCK = frozenset({"s", "del", "strike"})
_TAG_NAME = re.compile(r"(/?)([a-zA-Z][a-zA-Z0-9:-]*)")
QUOTE_MARK = "-----Quoted mail-----"
"""The line written where a mail client's container of the quoted mail starts; the reader
takes it for a separator (``quotes.py``), so everything below it is the quote."""
_QUOTE_CONTAINERS = ("divrplyfwdmsg", "olk_src_body_section", "yahoo_quoted")
"""Ids and classes of the element that holds the quoted mail and its header block: Outlook
on the web and new Outlook (``divRplyFwdMsg``), Outlook for Mac (``OLK_SRC_BODY_SECTION``),
Yahoo Mail (``yahoo_quoted``). Gmail's ``gmail_quote`` and Thunderbird's ``moz-cite-prefix``
hold a ``<blockquote>``, read as quoted lines already."""
_OUTLOOK_RULE = "border:none;border-top:solid"
"""The style of the rule Outlook for Windows draws above the quoted header block
(``WordSection1``)."""
_SPACE = re.compile(r"[ \t\r\n\f]+")


@dataclass(frozen=True)
class Converted:
    """The text, how much work it took (tokens read plus characters written), and notes."""

    text: str
    steps: int
    notes: tuple[str, ...] = ()


@dataclass
class _Writer:
    lines: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    quote: int = 0
    lists: list[str] = field(default_factory=list)  # "ul" or "ol", innermost last
    counters: list[int] = field(default_factory=list)
    bullet: str = ""
    struck: int = 0
    pre: int = 0
    written: int = 0

    def text(self, data: str) -> None:
        if self.struck:
            return
        if self.pre:
            pieces = data.split("\n")
            for piece in pieces[:-1]:
                self.words.append(piece)
                self.end_line()
            self.words.append(pieces[-1])
            return
        self.words.append(_SPACE.sub(" ", data))

    def end_line(self, *, blank: bool = False) -> None:
        content = "".join(self.words).strip() if not self.pre else "".join(self.words).rstrip()
        self.words.clear()
        prefix = "> " * min(self.quote, MAX_NESTING)
        if content:
            indent = "  " * (min(len(self.lists), MAX_NESTING) - 1) if self.bullet else ""
            line = f"{prefix}{indent}{self.bullet}{content}"
            self.bullet = ""
            self.lines.append(line)
            self.written += len(line)
        if blank and self.lines and self.lines[-1].strip("> "):
            self.lines.append(prefix.strip())

    def start_item(self) -> None:
        self.end_line()
        if not self.lists:
            self.bullet = "* "
        elif self.lists[-1] == "ol":
            self.counters[-1] += 1
            self.bullet = f"{self.counters[-1]}. "
        else:
            self.bullet = "* "


def convert(markup: str) -> Converted:
    """``markup`` as text, with the work it took (see the module's documentation)."""
    notes = []
    if len(markup) > MAX_MARKUP:
        notes.append(f"HTML longer than {MAX_MARKUP} characters: the rest not read")
        markup = markup[:MAX_MARKUP]
    out = _Writer()
    steps = 0
    pos, end = 0, len(markup)
    while pos < end:
        steps += 1
        start = markup.find("<", pos)
        if start < 0:
            out.text(html.unescape(markup[pos:]))
            break
        if start > pos:
            out.text(html.unescape(markup[pos:start]))
        if markup.startswith("<!--", start):
            close = markup.find("-->", start + 4)
            pos = end if close < 0 else close + 3
            continue
        close = markup.find(">", start + 1)
        if close < 0:  # no tag can end any more: the rest is text
            out.text(html.unescape(markup[start:]))
            break
        pos = _tag(markup, start, close, out)
    out.end_line()
    while out.lines and not out.lines[-1].strip("> "):
        out.lines.pop()
    text = "\n".join(out.lines)
    return Converted(text, steps + out.written, tuple(notes))


def _tag(markup: str, start: int, close: int, out: _Writer) -> int:
    """Handle the tag ``markup[start:close + 1]``; the position to read on from."""
    match = _TAG_NAME.match(markup, start + 1, close)
    if match is None:  # "a < b", "<!DOCTYPE>", "<?xml>": not an element
        if markup[start + 1 : start + 2] not in ("!", "?"):
            out.text(html.unescape(markup[start : close + 1]))
        return close + 1
    closing, name = match.group(1) == "/", match.group(2).lower()
    if name in _HIDDEN and not closing and markup[close - 1] != "/":
        return _skip_hidden(markup, close + 1, name)
    if name in _STRUCK:
        out.struck = max(0, out.struck + (-1 if closing else 1))
    elif name == "br":
        out.end_line(blank=not "".join(out.words).strip())
    elif name in ("td", "th") and closing:
        out.words.append(" ")
    elif name in _BLOCKS:
        _block(name, closing=closing, out=out)
    if name in ("div", "span") and not closing and not out.quote:
        _mark_quote_container(markup[match.end() : close], out)
    return close + 1


def _mark_quote_container(attributes: str, out: _Writer) -> None:
    """Write :data:`QUOTE_MARK` above a mail client's container of the quoted mail."""
    lowered = attributes.lower()
    if any(marker in lowered for marker in _QUOTE_CONTAINERS) or (
        "border-top" in lowered and _OUTLOOK_RULE in lowered.replace(" ", "")
    ):
        out.end_line()
        if not out.lines or out.lines[-1] != QUOTE_MARK:
            out.lines.append(QUOTE_MARK)


def _block(name: str, *, closing: bool, out: _Writer) -> None:
    if name == "li":
        if closing:
            out.end_line()
        else:
            out.start_item()
        return
    out.end_line(blank=name in ("p", "blockquote", "pre"))
    if name == "blockquote":
        out.quote = max(0, out.quote + (-1 if closing else 1))
    elif name == "pre":
        out.pre = max(0, out.pre + (-1 if closing else 1))
    elif name in ("ul", "ol") and not closing:
        out.lists.append(name)
        out.counters.append(0)
    elif name in ("ul", "ol") and out.lists:
        out.lists.pop()
        out.counters.pop()


def _skip_hidden(markup: str, pos: int, name: str) -> int:
    """Past the end of a hidden element (a script, a style sheet), or to the end."""
    closing = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(markup, pos)
    return len(markup) if closing is None else closing.end()
