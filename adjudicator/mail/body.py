"""The text a player wrote: MIME parts chosen and decoded, then quotes and signatures cut.

Two steps, both pure and both tolerant of broken mail:

* ``extract_text(msg)`` walks the MIME tree the way a mail client shows it: in
  multipart/alternative the text/plain part (falling back to text/html converted to text), in
  multipart/mixed every inline text part in order (Apple Mail splits a body around pictures), in
  multipart/related its root, in multipart/signed the signed part. Forwarded messages
  (message/rfc822) are not read. Text attachments named ``*.txt`` are read separately (the
  standard library's ``get_body()`` ignores them). Every part is decoded from its transfer
  encoding and charset with fallbacks, so it never fails.
* ``cut_reply(lines)`` removes what the player did not write: quoted lines, quoted-reply
  attributions, forwarded and original-message blocks, signatures. It is conservative: a line
  that might be an order is never removed by a guess (see the rules at ``cut_reply``).

The decoding of bytes and header words lives in ``charsets.py`` and the cutting in
``quotes.py``; both are re-exported here, where readers of a mail look for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import Message

from adjudicator.mail.charsets import decode_bytes, decode_words
from adjudicator.mail.markup import convert
from adjudicator.mail.quotes import MAX_LINES, Cut, body_lines, clean_line, cut_reply

__all__ = [
    "MAX_LINES",
    "BodyText",
    "Cut",
    "PartText",
    "body_lines",
    "clean_line",
    "cut_reply",
    "decode_bytes",
    "decode_words",
    "extract_text",
    "html_to_text",
    "part_text",
    "raw_payload",
    "unflow",
]

MAX_DEPTH = 24
MAX_ATTACHMENTS = 5
MAX_ATTACHMENT_BYTES = 200_000


# ---------------------------------------------------------------------------------------------
# MIME parts


@dataclass(frozen=True)
class BodyText:
    """The decoded text of a mail before cutting: body parts and text attachments."""

    body: str
    attachments: tuple[tuple[str, str], ...] = ()  # (file name, text)
    notes: tuple[str, ...] = ()
    decoding: tuple[str, ...] = ()  # charsets that did not fit, said to the player


@dataclass(frozen=True)
class PartText:
    """A leaf part's text, how its charset was guessed (None: as declared), and other notes."""

    text: str
    decoding: str | None = None
    notes: tuple[str, ...] = ()


@dataclass
class _Found:
    body: list[str] = field(default_factory=list)
    attachments: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    decoding: list[str] = field(default_factory=list)

    def add(self, part: PartText) -> None:
        self.body.append(part.text)
        self.notes.extend(part.notes)
        self.decoding.extend([part.decoding] if part.decoding else [])

    def has_text(self) -> bool:
        return any(text.strip() for text in self.body)


def extract_text(msg: Message) -> BodyText:
    """The text of ``msg`` as a reader sees it, and its ``*.txt`` attachments."""
    found = _Found()
    _collect(msg, found, depth=0)
    if not found.body and not found.attachments:
        found.notes.append("no text part")
    return BodyText(
        body="\n\n".join(found.body),
        attachments=tuple(found.attachments[:MAX_ATTACHMENTS]),
        notes=tuple(found.notes),
        decoding=tuple(dict.fromkeys(found.decoding)),
    )


def _collect(part: Message, found: _Found, *, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.notes.append(f"MIME parts nested deeper than {MAX_DEPTH}: not read")
        return
    ctype = _content_type(part)
    children = _children(part)
    if ctype.startswith("message/"):
        return  # a forwarded message or a delivery report: not what the sender wrote
    if ctype.startswith("multipart/") and children is not None:
        _collect_multipart(part, ctype, children, found, depth=depth)
        return
    if _is_attachment(part, depth=depth):
        name = _filename(part)
        if name.lower().endswith(".txt") and ctype in (
            "text/plain",
            "application/octet-stream",
        ):
            _read_attachment(part, name, found)
        return
    if ctype in ("text/plain", "text/html"):
        found.add(part_text(part))
    elif ctype.startswith("multipart/"):
        found.notes.append(f"{ctype} without parts: read as plain text")
        found.add(part_text(part))


def _collect_multipart(
    part: Message, ctype: str, children: list[Message], found: _Found, *, depth: int
) -> None:
    if ctype == "multipart/alternative":
        _collect_alternative(children, found, depth=depth + 1)
    elif ctype == "multipart/related":
        root = _related_root(part, children)
        if root is not None:
            _collect(root, found, depth=depth + 1)
    elif ctype in ("multipart/signed", "multipart/report"):
        # The signed content, or the human-readable part of a report.
        if children:
            _collect(children[0], found, depth=depth + 1)
    elif ctype == "multipart/encrypted":
        found.notes.append("encrypted mail: cannot be read")
    else:
        for child in children:
            _collect(child, found, depth=depth + 1)


def _collect_alternative(children: list[Message], found: _Found, *, depth: int) -> None:
    """Prefer text/plain, then a nested multipart, then text/html; skip a blank alternative, and
    a degenerate one (iCloud writes its plain part as one single line, text and quote together,
    while its HTML part has proper lines)."""
    chosen: _Found | None = None
    for child in sorted(children, key=_alternative_rank):
        if _alternative_rank(child) > 2:
            break
        trial = _Found()
        _collect(child, trial, depth=depth)
        if not (trial.has_text() or trial.attachments):
            continue
        if chosen is None:
            chosen = trial
            if not _one_line(chosen):
                break
        elif _flattens(chosen, trial):
            chosen = trial
            found.notes.append("plain part is one single line: the HTML part read instead")
            break
    if chosen is not None:
        found.body.extend(chosen.body)
        found.attachments.extend(chosen.attachments)
        found.notes.extend(chosen.notes)
        found.decoding.extend(chosen.decoding)


def _line_count(found: _Found) -> int:
    return sum(1 for text in found.body for line in text.splitlines() if line.strip())


def _one_line(found: _Found) -> bool:
    return _line_count(found) <= 1


def _flattens(plain: _Found, markup: _Found) -> bool:
    """Whether a one-line plain part is the HTML part's lines put on one line: the HTML has
    proper lines and the same words (its quote marks aside), however short the text; or the
    HTML has several lines and the plain part is too long to be one line of orders."""
    lines = _line_count(markup)
    if lines < 2:
        return False
    if _words(plain) == _words(markup):
        return True
    return lines >= 3 and sum(len(text.strip()) for text in plain.body) > 60


def _words(found: _Found) -> list[str]:
    return [
        word
        for text in found.body
        for line in text.splitlines()
        for word in line.lstrip("> ").split()
    ]


def _alternative_rank(part: Message) -> int:
    ctype = _content_type(part)
    ranks = {"text/plain": 0, "text/html": 2}
    if ctype in ranks:
        return ranks[ctype]
    return 1 if ctype.startswith("multipart/") else 3


def _related_root(part: Message, children: list[Message]) -> Message | None:
    start = _param(part, "start")
    for child in children:
        if start and (child.get("content-id") or "").strip() == start.strip():
            return child
    return children[0] if children else None


def _read_attachment(part: Message, name: str, found: _Found) -> None:
    if len(found.attachments) >= MAX_ATTACHMENTS:
        found.notes.append(f"attachment {name!r} not read: more than {MAX_ATTACHMENTS}")
        return
    data = _payload_bytes(part)
    if len(data) > MAX_ATTACHMENT_BYTES:
        found.notes.append(f"attachment {name!r} not read: larger than {MAX_ATTACHMENT_BYTES}")
        return
    text, note = decode_bytes(data, _charset(part))
    found.attachments.append((name, text))
    found.decoding.extend([f"{note} (attachment {name})"] if note else [])


def _is_attachment(part: Message, *, depth: int) -> bool:
    """A part with Content-Disposition attachment, or a named part: not the body.

    A single-part mail is its own body whatever its disposition says.
    """
    disposition = _disposition(part)
    if depth == 0 and _content_type(part) in ("text/plain", "text/html"):
        return False
    return disposition == "attachment" or bool(_filename(part))


def part_text(part: Message) -> PartText:
    """A leaf part's text: transfer-decoded, charset-decoded, HTML and format=flowed undone."""
    text, note = decode_bytes(_payload_bytes(part), _charset(part))
    if _content_type(part) == "text/html":
        converted = convert(text)
        return PartText(converted.text, note, converted.notes)
    if (_param(part, "format") or "").lower() == "flowed":
        delsp = (_param(part, "delsp") or "").lower() == "yes"
        return PartText(unflow(text, delsp=delsp), note)
    return PartText(text, note)


# The accessors below wrap the standard library, which can raise on odd headers.


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:  # a broken Content-Type header of any kind
        return "text/plain"


def raw_payload(part: Message) -> list[Message] | str | None:
    """The undecoded payload: sub-parts, or text (None when the library fails on it)."""
    try:
        payload = part.get_payload()
    except Exception:  # e.g. a charset parameter given in RFC 2231 form with bad parts
        return None
    if isinstance(payload, list):
        return [child for child in payload if isinstance(child, Message)]
    return payload if isinstance(payload, str) else None


def _children(part: Message) -> list[Message] | None:
    payload = raw_payload(part)
    return payload if isinstance(payload, list) else None


def _payload_bytes(part: Message) -> bytes:
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # broken transfer encodings raise assorted errors
        payload = None
    if isinstance(payload, bytes):
        return payload
    raw = raw_payload(part)
    return raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else b""


def _charset(part: Message) -> str | None:
    try:
        charset = part.get_content_charset()
    except Exception:
        return None
    return charset if isinstance(charset, str) else None


def _param(part: Message, name: str) -> str | None:
    try:
        value = part.get_param(name)
    except Exception:
        return None
    if isinstance(value, tuple):  # RFC 2231: (charset, language, value)
        value = value[2]
    return value if isinstance(value, str) else None


def _disposition(part: Message) -> str | None:
    try:
        return part.get_content_disposition()
    except Exception:
        return None


def _filename(part: Message) -> str:
    try:
        name = part.get_filename() or ""
    except Exception:
        return ""
    return decode_words(name).strip() if isinstance(name, str) else ""


# ---------------------------------------------------------------------------------------------
# HTML and format=flowed


def html_to_text(markup: str) -> str:
    """HTML as text, in work linear in its size (``markup.py``): ``<blockquote>`` becomes ``> ``
    lines, so quoted history is cut like plain-text quotes."""
    return convert(markup).text


def unflow(text: str, *, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines, remove space-stuffing."""
    out: list[str] = []
    paragraph = ""
    paragraph_depth = -1
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        content = content[1:] if content.startswith(" ") else content
        if paragraph_depth not in (-1, depth):
            out.append(_quoted(paragraph, paragraph_depth))
            paragraph, paragraph_depth = "", -1
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            content = content[:-1]
        paragraph += content
        paragraph_depth = depth
        if not soft:
            out.append(_quoted(paragraph, depth))
            paragraph, paragraph_depth = "", -1
    if paragraph_depth != -1:
        out.append(_quoted(paragraph, paragraph_depth))
    return "\n".join(out)


def _quoted(text: str, depth: int) -> str:
    return ">" * depth + (" " if depth and text else "") + text
