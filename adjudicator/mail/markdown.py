"""Markdown for a mail body, as plain text and as HTML: what the rules pages (docs/rules/) look
like in a mail where there is no archive to link to.

Markdown mostly reads as text already; what does not is reshaped for a narrow screen:
paragraphs and list items are wrapped, a table is drawn in columns (a wide one wrapped inside
its widest columns; only one whose words cannot fit becomes a "heading: value" list per row),
pictures are left out (the mail draws its own board), and links to other pages keep only their
words. The HTML is markdown-it-py's
(CommonMark with tables, raw HTML off) with the inline styles mail clients need.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

WIDTH = 72
_KEEP = "\x00"  # a space that wrapping must not break at (inside `code`); a space at the end


def _wrap(text: str, width: int, *, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )


def parser() -> MarkdownIt:
    """CommonMark with tables; raw HTML in the source is shown as text, never passed on."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _inline(token: Token) -> str:
    """The words of an inline token: code keeps its backticks, emphasis its stars."""
    words = []
    for child in token.children or []:
        kind = child.type
        if kind in ("text", "html_inline"):
            words.append(child.content)
        elif kind == "code_inline":  # kept on one line by the wrapping (see _wrap)
            words.append(f"`{child.content}`".replace(" ", _KEEP))
        elif kind in ("strong_open", "strong_close"):
            words.append("*")
        elif kind in ("softbreak", "hardbreak"):
            words.append(" " if kind == "softbreak" else "\n")
    return "".join(words)


@dataclass
class _Item:
    marker: str
    indent: str
    first: bool = True


@dataclass
class _Writer:
    width: int
    lines: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    tight: list[bool] = field(default_factory=list)
    separate: bool = True

    @property
    def indent(self) -> str:
        return self.items[-1].indent if self.items else ""

    def _first_indent(self) -> str:
        if self.items and self.items[-1].first:
            self.items[-1].first = False
            item = self.items[-1]
            return item.indent[: len(item.indent) - len(item.marker)] + item.marker
        return self.indent

    def block(self, lines: list[str]) -> None:
        if self.lines and (self.separate or not (self.tight and self.tight[-1])):
            self.lines.append("")
        self.lines.extend(lines)
        self.separate = False

    def paragraph(self, text: str) -> None:
        first, rest = self._first_indent(), self.indent
        wrapped: list[str] = []
        for part in text.split("\n"):
            wrapped += _wrap(part, self.width, first=first if not wrapped else rest, rest=rest)
        self.block(wrapped or [first.rstrip()])

    def preformatted(self, text: str) -> None:
        first = self._first_indent()
        pad = " " * len(first) + "    "
        self.block([(pad + line).rstrip() for line in text.rstrip("\n").split("\n")])

    def table(self, rows: list[list[str]]) -> None:
        """Columns, aligned; a column too wide for the screen wraps inside itself, and the
        rows are then kept apart by a blank line."""
        indent = self.indent
        widths = _column_widths(rows, self.width - len(indent))
        if widths is None:
            self._table_as_list(rows)
            return
        cells = [
            [_wrap(c, w, first="", rest="") or [""] for c, w in zip(row, widths, strict=True)]
            for row in rows
        ]
        apart = any(len(lines) > 1 for row in cells for lines in row)
        out: list[str] = []
        for number, row in enumerate(cells):
            if number > 1 and apart:
                out.append("")
            for k in range(max(len(lines) for lines in row)):
                parts = [
                    (lines[k] if k < len(lines) else "").ljust(w)
                    for lines, w in zip(row, widths, strict=True)
                ]
                out.append((indent + "  ".join(parts)).rstrip())
            if number == 0:
                out.append(indent + "  ".join("-" * w for w in widths))
        self.block(out)

    def _table_as_list(self, rows: list[list[str]]) -> None:
        """A table with too many columns for the screen: a "heading: value" list per row."""
        head, body, indent = rows[0], rows[1:], self.indent
        for row in body:  # one "heading: value" list per row, a blank line between rows
            lines: list[str] = []
            for name, cell in zip(head, row, strict=True):
                label = f"{name}: " if name else ""
                first = indent + ("- " if not lines else "  ")
                lines += _wrap(label + cell, self.width, first=first, rest=indent + "    ")
            self.separate = True
            self.block(lines)


def _column_widths(rows: list[list[str]], room: int) -> list[int] | None:
    """Each column's width within ``room``: as wide as its widest cell, the widest columns
    narrowed (never below their longest word) until the table fits; None when it cannot."""
    columns = range(len(rows[0]))
    widths = [max(len(row[i]) for row in rows) for i in columns]
    floors = [
        max((len(word) for row in rows for word in row[i].split()), default=1) for i in columns
    ]
    room -= 2 * (len(widths) - 1)
    while sum(widths) > room:
        narrowable = [i for i in columns if widths[i] > floors[i]]
        if not narrowable:
            return None
        widest = max(narrowable, key=lambda i: widths[i])
        widths[widest] = max(floors[widest], widths[widest] - (sum(widths) - room))
    return widths


def _table_rows(tokens: list[Token], start: int) -> tuple[list[list[str]], int]:
    rows: list[list[str]] = []
    index = start
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline":
            rows[-1].append(_inline(token))
        index += 1
    return rows, index


def _heading(text: str, tag: str) -> list[str]:
    if tag == "h1":
        return [text, "=" * len(text)]
    if tag == "h2":
        return [text, "-" * len(text)]
    return [text]


def markdown_text(source: str, *, width: int = WIDTH) -> str:
    """``source`` (CommonMark with tables) as wrapped plain text."""
    tokens = parser().parse(source)
    out = _Writer(width)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            out.separate = True
            out.block(_heading(_inline(tokens[index + 1]), token.tag))
            out.separate = True
            index += 2
        elif kind == "paragraph_open":
            text = _inline(tokens[index + 1])
            if text.strip():
                out.paragraph(text)
            index += 2
        elif kind in ("fence", "code_block"):
            out.preformatted(token.content)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            out.tight.append(_is_tight(tokens, index))
            if len(out.tight) == 1:
                out.separate = True
            number = int(str(token.attrGet("start") or 1))
            token.meta["next"] = number
        elif kind == "list_item_open":
            marker = f"{token.info}{token.markup} " if token.info else "- "
            out.items.append(_Item(marker, out.indent + " " * len(marker)))
        elif kind == "list_item_close":
            out.items.pop()
        elif kind in ("bullet_list_close", "ordered_list_close"):
            out.tight.pop()
            if not out.tight:
                out.separate = True
        elif kind == "table_open":
            rows, index = _table_rows(tokens, index)
            out.separate = True
            out.table(rows)
            out.separate = True
        elif kind == "hr":
            out.block(["-" * 8])
        index += 1
    return "\n".join(out.lines).replace(_KEEP, " ").strip("\n") + "\n"


def _is_tight(tokens: list[Token], start: int) -> bool:
    """A list is tight (no blank lines between its items) when markdown-it hides the
    paragraphs of its items."""
    for token in tokens[start + 1 :]:
        if token.type == "paragraph_open":
            return token.hidden
    return True


_STYLES = {
    "h1": "font-size:20px;margin:18px 0 8px",
    "h2": "font-size:17px;margin:18px 0 6px",
    "h3": "font-size:15px;margin:14px 0 6px",
    "p": "margin:0 0 12px",
    "ul": "margin:0 0 12px;padding-left:22px",
    "ol": "margin:0 0 12px;padding-left:22px",
    "table": "border-collapse:collapse;font-size:14px",
    "th": "text-align:left;border-bottom:2px solid #d8c9a8;padding:4px 8px",
    "td": "border-bottom:1px solid #e8dcc4;padding:4px 8px;vertical-align:top",
    "pre": "font-size:12px;line-height:1.3;background:#f6f0e2;padding:8px 12px;overflow-x:auto",
    "code": "font-family:Menlo,Consolas,'DejaVu Sans Mono',monospace",
}
_TAG = re.compile(r"<(" + "|".join(_STYLES) + r")>")


def markdown_html(source: str) -> Markup:
    """``source`` as HTML for a mail: styled inline, without pictures, and with links only to
    web pages (a link to a page beside the Markdown file keeps only its words)."""
    md = parser()
    tokens = md.parse(source)
    for token in tokens:
        children = token.children or []
        for child in children:
            if child.type in ("link_open", "link_close"):
                href = str(child.attrGet("href") or "")
                if not href.startswith(("http://", "https://")):
                    child.type, child.tag, child.nesting = "text", "", 0
            elif child.type == "image":
                child.type, child.children, child.content = "text", None, ""
    html = md.renderer.render(tokens, md.options, {})
    html = re.sub(r"<p>\s*</p>\n?", "", html)
    # markdown-it escapes every text; the styles are ours.
    html = _TAG.sub(lambda m: f'<{m.group(1)} style="{_STYLES[m.group(1)]}">', html)
    # A wide table or code block scrolls sideways on a phone, inside its own box that a
    # keyboard can reach (WCAG 2.1.1), rather than widening the mail.
    html = html.replace("<table ", f'<div tabindex="0" style="{_SCROLL}"><table ')
    html = html.replace("</table>", "</table></div>").replace("<pre ", '<pre tabindex="0" ')
    return Markup(html)


_SCROLL = "overflow-x:auto;margin:0 0 12px"
