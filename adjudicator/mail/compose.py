"""Building outgoing mail: Jinja2 templates in, RFC 5322 bytes out.

Every mail the service sends is marked as automatic (RFC 3834 ``Auto-Submitted``) and carries
``X-Loop`` with the service's address, so that two robots never answer each other for ever.
Message-IDs are derived from the outbox key: re-queuing a mail gives it the same Message-ID.
A game's mails thread together under one root Message-ID per game.

Templates: ``templates/mail/NAME.txt.j2`` is the plain part and sets ``subject`` at its top
level. ``templates/mail/NAME.html.j2``, when it exists, is the HTML part (it extends
``mail/_layout.html.j2``); without one, ``mail/_generic.html.j2`` turns the plain part into
HTML. HTML templates see the plain template's context plus ``subject`` and ``text``.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape
from markupsafe import Markup, escape

from adjudicator.base.shipped import GAME_TEMPLATES, TEMPLATES
from adjudicator.core.text import counted
from adjudicator.games import game_title
from adjudicator.mail.mime import Part, address_header, fold_ids, header, message_bytes, text_part

GENERIC_HTML = "mail/_generic.html.j2"


@dataclass(frozen=True)
class Identity:
    """Who the service is in its mail."""

    address: str
    name: str = "Adjudicator"

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"


def message_id(key: str, identity: Identity) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"<{digest}@{identity.domain}>"


def thread_root(game: str, identity: Identity) -> str:
    return message_id(f"game-thread:{game}", identity)


@dataclass(frozen=True)
class RenderedMail:
    """A mail's words: the subject, the plain part and (usually) the HTML part."""

    subject: str
    text: str
    html: str | None


class Renderer:
    """Renders the templates of ``templates/`` and of each game's package (a game's own
    templates, :data:`~adjudicator.base.shipped.GAME_TEMPLATES`, under the same names as if they
    were in ``templates/``); missing variables are errors, not blanks.

    Templates are compiled once and kept: a round of a mass game renders the same two
    templates hundreds of times.
    """

    def __init__(self, folder: Path = TEMPLATES) -> None:
        self.env = Environment(
            loader=FileSystemLoader([str(folder), *(str(games) for games in GAME_TEMPLATES)]),
            autoescape=select_autoescape(["html", "html.j2"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        self.env.filters["plain_to_html"] = plain_to_html
        self.env.filters["game_title"] = game_title
        self.env.filters["counted"] = counted
        self._names = frozenset(self.env.list_templates())
        self._compiled: dict[str, Template] = {}

    def template(self, name: str) -> Template:
        found = self._compiled.get(name)
        if found is None:
            found = self._compiled[name] = self.env.get_template(name)
        return found

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        return self.template(name).render(**context)

    def exists(self, name: str) -> bool:
        return name in self._names

    def mail(self, name: str, context: Mapping[str, Any], *, html: bool = True) -> RenderedMail:
        """Render ``mail/NAME.txt.j2`` and its HTML part (see the module docstring).

        Pictures: a plain template puts a ``[[picture:NAME]]`` line where a picture of
        ``context["pictures"]`` goes (``mail/_pictures.txt.j2`` does it). The plain part gets
        the picture's text diagram there; the generic HTML part gets its inline image, or the
        text diagram when the picture has no image.
        """
        module = self.template(f"mail/{name}.txt.j2").make_module(dict(context))
        subject = " ".join(str(getattr(module, "subject", "")).split())
        marked = tidy(str(module))
        pictures = list(context.get("pictures") or [])
        tables = list(context.get("tables") or [])
        text = with_picture_text(marked, pictures, tables)
        if not html:
            return RenderedMail(subject, text, None)
        html_name = f"mail/{name}.html.j2"
        if html_name in self._names:
            shown = self.template(html_name).render(context, subject=subject, text=text)
            return RenderedMail(subject, text, shown)
        shown = self.template(GENERIC_HTML).render(
            context, subject=subject, text=marked, pictures=pictures, tables=tables
        )
        return RenderedMail(subject, text, shown)


_PICTURE_LINE = re.compile(r"^\[\[picture:([\w-]+)\]\]$", re.MULTILINE)
_TABLE_LINE = re.compile(r"^\[\[table:([\w-]+)\]\]$", re.MULTILINE)


def with_picture_text(
    marked: str,
    pictures: Sequence[Mapping[str, Any]],
    tables: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Each ``[[picture:NAME]]`` and ``[[table:NAME]]`` line replaced by that picture's or
    table's text, indented by two."""
    for line, shown in ((_PICTURE_LINE, pictures), (_TABLE_LINE, tables)):
        texts = {str(p["name"]): _indented(str(p["text"])) for p in shown}
        marked = line.sub(functools.partial(_text_of, texts), marked)
    return marked


def _text_of(texts: Mapping[str, str], match: re.Match[str]) -> str:
    return texts.get(match.group(1), "")


def _indented(text: str) -> str:
    return "\n".join("  " + line if line else "" for line in text.rstrip("\n").split("\n"))


_BLANK_RUNS = re.compile(r"\n{3,}")


def tidy(text: str) -> str:
    """No blank lines at the ends and never two in a row, whatever the templates' ifs left."""
    return _BLANK_RUNS.sub("\n\n", text.strip("\n")) + "\n"


# --- the plain part as HTML --------------------------------------------------------------

_MONO = (
    "font-family:Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:13px;line-height:1.35;"
    "background:#f6f0e2;border-radius:4px;padding:8px 12px;margin:0 0 14px;overflow-x:auto;"
    "white-space:nowrap"
)
_PARAGRAPH = "margin:0 0 14px"
_SIGNATURE = (
    "margin:18px 0 0;padding-top:10px;border-top:1px solid #eadfc8;font-size:12px;color:#7a6a50"
)
_LINKABLE = re.compile(
    r"(?P<url>https?://[^\s<>\"]*[^\s<>\".,;:!?)'])|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
)
"""A web address (without the punctuation that ends its sentence), or a mail address."""
_BULLET = re.compile(r"^\s*[*-] ")
_WRAPPED = 60
"""A plain line this long or longer was wrapped by the template: its paragraph flows on."""


def plain_to_html(
    text: str,
    pictures: Sequence[Mapping[str, Any]] = (),
    tables: Sequence[Mapping[str, Any]] = (),
) -> Markup:
    """The plain part as HTML: paragraphs flow, indented blocks (orders, diagrams) keep their
    layout in a monospace box, ``*`` lines become a list, the signature is set small, a
    ``[[picture:NAME]]`` line becomes that picture's inline image and a ``[[table:NAME]]``
    line that table (its ``rows``, the first a head) with its headers marked."""
    by_name = {str(p["name"]): p for p in pictures}
    tables_by_name = {str(t["name"]): t for t in tables}
    body, _, signature = text.partition("\n-- \n")
    blocks = [b for b in re.split(r"\n\n+", body.strip("\n")) if b.strip()]
    out = []
    for block in blocks:
        # The same markers as in the plain part: a line of its own, from the first column (a
        # player's text quoted in a mail is indented, and stays text).
        marker = _PICTURE_LINE.fullmatch(block)
        picture = by_name.get(marker.group(1)) if marker else None
        table_marker = _TABLE_LINE.fullmatch(block)
        if table_marker is not None:
            found = tables_by_name.get(table_marker.group(1))
            out.append(_table(found["rows"]) if found else "")
        elif marker is None:
            out.append(_block(block.split("\n")))
        elif picture is not None and picture.get("cid"):
            out.append(_image(picture))
        elif picture is not None:  # no image (rsvg-convert missing): the text diagram
            lines = str(picture["text"]).rstrip("\n").split("\n")
            out.append(_monospace_box(lines))
    if signature.strip():
        out.append(f'<p style="{_SIGNATURE}">{_lines(signature.strip().split(chr(10)))}</p>')
    return Markup("\n".join(out))


def _image(picture: Mapping[str, Any]) -> str:
    """The inline image, its alt text the picture in words (the position, the rings, the
    scores: what it shows, not its caption again), its caption under it."""
    title = escape(picture["title"])
    words = escape(picture.get("words") or picture["title"])
    return (
        '<div style="margin:4px 0 16px;text-align:center">'
        f'<img src="cid:{escape(picture["cid"])}" width="{picture["width"]}" '
        f'height="{picture["height"]}" alt="{words}" '
        'style="display:block;margin:0 auto;max-width:100%;height:auto;border:0">'
        f'<div style="font-size:12px;color:#7a6a50;margin-top:4px">{title}</div></div>'
    )


_CELL = "padding:3px 10px;border-bottom:1px solid #eadfc8;white-space:nowrap;text-align:"


def _table(rows: Sequence[Sequence[str]]) -> str:
    """A table of numbers by player: a head row of column headers, then a row per player
    with the player's name as its header; it scrolls sideways on a phone, reachable by
    keyboard."""
    head, *body = rows
    left, right = f"{_CELL}left", f"{_CELL}right"
    heads = "".join(
        f'<th scope="col" style="{left if i == 0 else right}">{escape(cell)}</th>'
        for i, cell in enumerate(head)
    )
    lines = [f"<thead><tr>{heads}</tr></thead>", "<tbody>"]
    for name, *cells in body:
        shown = "".join(f'<td style="{right}">{escape(cell)}</td>' for cell in cells)
        lines.append(
            f'<tr><th scope="row" style="{left};font-weight:normal">{escape(name)}</th>{shown}</tr>'
        )
    lines.append("</tbody>")
    return (
        f'<div tabindex="0" style="overflow-x:auto;margin:0 0 14px">'
        f'<table style="border-collapse:collapse;font-size:14px">{"".join(lines)}</table></div>'
    )


def _block(lines: list[str]) -> str:
    """A block between blank lines: its runs of indented lines (orders, diagrams, lists)
    and of flush lines (prose), each rendered for what it is. A list item's wrapped lines
    (indented under its ``-``) stay in the list."""
    runs: list[list[str]] = []
    for line in lines:
        indented = line.startswith("  ")
        same = runs and runs[-1][0].startswith("  ") == indented
        if same or (runs and indented and _BULLET.match(runs[-1][0])):
            runs[-1].append(line)
        else:
            runs.append([line])
    return "\n".join(_run(run) for run in runs)


def _run(lines: list[str]) -> str:
    if _BULLET.match(lines[0]):
        return _bullets(lines)
    if lines[0].startswith("  "):
        return _monospace_box(lines)
    return _paragraph(lines)


_RULE = re.compile(r"[=_-]{3,}")
"""A line of ``=``, ``-`` or ``_`` alone: a heading's underline in plain text (the rules'
``Players`` over ``-------``), or a rule between parts."""
_HEADING = "margin:0 0 14px;font-weight:bold"
_RULER = "border:0;border-top:1px solid #eadfc8;margin:0 0 14px"


def _paragraph(lines: list[str]) -> str:
    """Prose; a line underlined in the plain part is a heading in bold, and a rule alone a
    rule: their marks are not text, which a phone could not wrap."""
    shown: list[str] = []
    prose: list[str] = []
    for line in lines:
        if not _RULE.fullmatch(line.strip()):
            prose.append(line)
            continue
        heading = prose.pop() if prose else None
        if prose:
            shown.append(f'<p style="{_PARAGRAPH}">{_lines(prose)}</p>')
            prose = []
        if heading is None:
            shown.append(f'<hr style="{_RULER}">')
        else:
            shown.append(f'<p style="{_HEADING}">{_linked(heading.strip())}</p>')
    if prose:
        shown.append(f'<p style="{_PARAGRAPH}">{_lines(prose)}</p>')
    return "\n".join(shown)


def _lines(lines: list[str]) -> str:
    """Wrapped prose flows on; short lines keep their breaks."""
    html = ""
    for index, line in enumerate(lines):
        if index:
            html += " " if len(lines[index - 1]) >= _WRAPPED else "<br>\n"
        html += _linked(line.strip())
    return html


def _monospace_box(lines: list[str]) -> str:
    """A block that keeps its columns: on a phone it scrolls sideways inside the mail, and
    ``tabindex`` lets a keyboard reach it to scroll it (WCAG 2.1.1)."""
    return f'<div tabindex="0" style="{_MONO}">{_monospace(lines)}</div>'


def _monospace(lines: list[str]) -> str:
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    shown = [str(escape(line[indent:])).replace(" ", "&nbsp;") for line in lines]
    return "<br>\n".join(shown)


def _bullets(lines: list[str]) -> str:
    items: list[list[str]] = []
    for line in lines:
        if _BULLET.match(line):
            items.append([_BULLET.sub("", line)])
        elif items:
            items[-1].append(line)
    rendered = "".join(f'<li style="margin:0 0 6px">{_lines(item)}</li>' for item in items)
    return f'<ul style="margin:0 0 14px;padding-left:22px">{rendered}</ul>'


def _linked(line: str) -> str:
    """Escaped text with web addresses as links and mail addresses as ``mailto:`` links."""
    if "@" not in line and "://" not in line:  # nothing to link: no search for one
        return str(escape(line))
    html, last = "", 0
    for match in _LINKABLE.finditer(line):
        text = match.group(0)
        target = text if match.group("url") else f"mailto:{text}"
        html += str(escape(line[last : match.start()]))
        html += f'<a href="{escape(target)}" style="color:#8a5a2b">{escape(text)}</a>'
        last = match.end()
    return html + str(escape(line[last:]))


# --- messages ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str
    subtype: str
    params: str = ""  # extra Content-Type parameters, e.g. "method=PUBLISH"


@dataclass(frozen=True)
class Inline:
    """An image shown by the HTML part as ``<img src="cid:CONTENT_ID">``."""

    filename: str
    content: bytes
    content_id: str
    subtype: str = "png"


def _reply_to(value: str) -> str:
    """The Reply-To header: one address, or several bare addresses, one a line (an answer
    about several games reaches each game's seat: ``conversation.queue_answer``)."""
    addresses = [a.strip() for a in value.split(",")]
    if len(addresses) == 1:
        return address_header("Reply-To", value)
    return "Reply-To: " + ",\n ".join(addresses)


def compose(
    *,
    identity: Identity,
    to: str,
    subject: str,
    text: str,
    key: str,
    now: datetime,
    html: str | None = None,
    auto: str = "auto-generated",
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    attachments: Sequence[Attachment] = (),
    inline: Sequence[Inline] = (),
    reply_to: str | None = None,
) -> bytes:
    """A complete message as bytes; ``auto`` is ``auto-replied`` for answers to a mail, else
    ``auto-generated`` (RFC 3834). ``inline`` images go with the HTML part. ``reply_to``: one
    address, or the service's bare reply addresses of several seats joined by commas."""
    own_id = message_id(key, identity)
    lines = [
        address_header("From", formataddr((identity.name, identity.address))),
        address_header("To", to),
        header("Subject", subject),
        f"Date: {format_datetime(now)}",
        f"Message-ID: {own_id}",
    ]
    if reply_to:
        lines.append(_reply_to(reply_to))
    if in_reply_to:
        lines.append(f"In-Reply-To: {in_reply_to}")
    if references:
        lines.append(fold_ids("References", references))
    lines += [
        f"Auto-Submitted: {auto}",
        f"X-Loop: {identity.address}",
        "X-Auto-Response-Suppress: All",
        f"Precedence: {'bulk' if auto == 'auto-generated' else 'auto_reply'}",
    ]
    return message_bytes(
        lines,
        text=text_part(text),
        html=None if html is None else text_part(html, "html"),
        related=[
            Part(
                f"image/{i.subtype}",
                i.content,
                filename=i.filename,
                content_id=i.content_id,
                inline=True,
            )
            for i in inline
        ]
        if html is not None
        else [],
        attachments=[_attachment(a) for a in attachments],
        seed=own_id,
    )


def _attachment(attachment: Attachment) -> Part:
    kind = f"{attachment.maintype}/{attachment.subtype}"
    if attachment.maintype == "text":
        kind += '; charset="utf-8"'
    if attachment.params:
        kind += f"; {attachment.params}"
    return Part(
        kind + f'; name="{attachment.filename}"', attachment.content, filename=attachment.filename
    )
