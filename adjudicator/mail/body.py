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
"""

from __future__ import annotations

import binascii
import codecs
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import Message

import html2text  # type: ignore[import-untyped, unused-ignore]

MAX_DEPTH = 24
MAX_ATTACHMENTS = 5
MAX_ATTACHMENT_BYTES = 200_000
MAX_ATTRIBUTION = 400  # characters: longer lines are the sender's text (and cheap to test)
MAX_LINES = 5000
"""More body lines than any order mail needs; the rest is cut (rule ``too-long``)."""


# ---------------------------------------------------------------------------------------------
# Bytes to text


# A declared charset that is often used for text in a wider one (WHATWG encoding practice).
_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "latin-1": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
}
_ALIASES = {"iso-8859-8-i": "iso-8859-8", "x-sjis": "shift_jis", "ks_c_5601-1987": "cp949"}
_LATIN_FAMILY = {"ascii", "iso8859-1", "latin-1", "cp1252", "iso8859-15"}


def decode_bytes(data: bytes, charset: str | None) -> tuple[str, str | None]:
    """Decode ``data`` declared as ``charset``; return the text and a note when we had to guess.

    Rules: a known charset is used when the bytes decode in it (text declared ASCII or Latin-1
    that is valid UTF-8 with non-ASCII bytes is UTF-8: a common mislabel); then its usual
    superset (Latin-1 -> cp1252, GB2312 -> GB18030, Shift_JIS -> cp932); an unknown or missing
    charset tries UTF-8, then cp1252; the last resort replaces what cannot be decoded. A UTF-8
    byte-order mark is dropped.
    """
    name = _ALIASES.get((charset or "").strip().lower(), (charset or "").strip().lower())
    codec = _codec_name(name)
    if data.startswith(codecs.BOM_UTF8) and codec in (None, "utf-8", *_LATIN_FAMILY):
        return data[3:].decode("utf-8", "replace"), None
    if codec is not None and codec not in _LATIN_FAMILY:
        text = _strict(data, codec) or _strict(data, _SUPERSETS.get(codec, codec))
        if text is not None:
            return text, None
        utf8 = _strict(data, "utf-8") if codec != "utf-8" else None
        if utf8 is not None:
            return utf8, f"text declared {name} is not {name}: read as utf-8"
        # Mislabelled 8-bit text is most often Windows Latin.
        fallback = "cp1252" if codec == "utf-8" else codec
        note = f"text declared {name} is not {name}: read as {fallback}"
        return data.decode(fallback, "replace"), note
    # Latin family, unknown or missing: ASCII-compatible, so UTF-8 first is safe.
    utf8 = _strict(data, "utf-8")
    if utf8 is not None:
        return utf8, None
    if codec is not None:
        text = _strict(data, "cp1252") if codec != "iso8859-15" else None
        return text or data.decode(codec if codec != "ascii" else "latin-1", "replace"), None
    guess = f"unknown charset {name!r}: read as cp1252" if name else None
    return data.decode("cp1252", "replace"), guess


def _codec_name(name: str) -> str | None:
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    # Bytes-to-bytes codecs (base64, zlib, ...) are not charsets.
    return info.name if getattr(info, "_is_text_encoding", True) else None


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeError, LookupError, ValueError, TypeError):
        return None


_ENCODED_WORD = re.compile(r"=\?([^?\s*]+)(?:\*[^?\s]*)?\?([qQbB])\?([^?\s]*)\?=")


def decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words (``=?utf-8?q?J=C3=BCrgen?=``) in a header value.

    Whitespace between adjacent encoded words is dropped, and adjacent words in the same
    charset are decoded together (some clients split one character across two words). A
    malformed word is left as it is.
    """
    out: list[str] = []
    pending: list[bytes] = []
    pending_charset = ""
    pos = 0
    for match in _ENCODED_WORD.finditer(value):
        gap = value[pos : match.start()]
        raw = _word_bytes(match.group(2), match.group(3))
        charset = match.group(1).lower()
        adjacent = pending and not gap.strip()
        if raw is None or not (adjacent and charset == pending_charset):
            if pending:
                out.append(decode_bytes(b"".join(pending), pending_charset)[0])
                pending = []
            if not adjacent or raw is None:
                out.append(gap)
        if raw is None:
            out.append(match.group(0))
        else:
            pending.append(raw)
            pending_charset = charset
        pos = match.end()
    if pending:
        out.append(decode_bytes(b"".join(pending), pending_charset)[0])
    out.append(value[pos:])
    return "".join(out)


_BASE64_WORD = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _word_bytes(encoding: str, text: str) -> bytes | None:
    try:
        if encoding in "qQ":
            return binascii.a2b_qp(text.encode("ascii", "replace"), header=True)
        if not _BASE64_WORD.fullmatch(text):
            return None
        data = text.rstrip("=")
        return binascii.a2b_base64((data + "=" * (-len(data) % 4)).encode("ascii"))
    except (binascii.Error, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# MIME parts


@dataclass(frozen=True)
class BodyText:
    """The decoded text of a mail before cutting: body parts and text attachments."""

    body: str
    attachments: tuple[tuple[str, str], ...] = ()  # (file name, text)
    notes: tuple[str, ...] = ()


@dataclass
class _Found:
    body: list[str] = field(default_factory=list)
    attachments: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
        text, note = part_text(part)
        found.body.append(text)
        found.notes.extend([note] if note else [])
    elif ctype.startswith("multipart/"):
        found.notes.append(f"{ctype} without parts: read as plain text")
        found.body.append(part_text(part)[0])


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
    """Prefer text/plain, then a nested multipart, then text/html; skip a blank alternative."""
    ranked = sorted(children, key=_alternative_rank)
    for child in ranked:
        if _alternative_rank(child) > 2:
            break
        trial = _Found()
        _collect(child, trial, depth=depth)
        if trial.has_text() or trial.attachments:
            found.body.extend(trial.body)
            found.attachments.extend(trial.attachments)
            found.notes.extend(trial.notes)
            return


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
    found.notes.extend([note] if note else [])


def _is_attachment(part: Message, *, depth: int) -> bool:
    """A part with Content-Disposition attachment, or a named part: not the body.

    A single-part mail is its own body whatever its disposition says.
    """
    disposition = _disposition(part)
    if depth == 0 and _content_type(part) in ("text/plain", "text/html"):
        return False
    return disposition == "attachment" or bool(_filename(part))


def part_text(part: Message) -> tuple[str, str | None]:
    """A leaf part's text: transfer-decoded, charset-decoded, HTML and format=flowed undone."""
    text, note = decode_bytes(_payload_bytes(part), _charset(part))
    if _content_type(part) == "text/html":
        return html_to_text(text), note
    if (_param(part, "format") or "").lower() == "flowed":
        delsp = (_param(part, "delsp") or "").lower() == "yes"
        return unflow(text, delsp=delsp), note
    return text, note


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

_CELL_END = re.compile(r"</t[dh]\s*>", re.IGNORECASE)
_STRUCK_OUT = re.compile(r"~~[^~\n]*~~")  # html2text's <s>, <del>, <strike>
_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")
_TAG = re.compile(r"<[^<>]*>")
_HORIZONTAL_RULE = re.compile(r"(?m)^ *\* \* \* *$")  # html2text's <hr>


def html_to_text(markup: str) -> str:
    """HTML as text: html2text (no wrapping, no links, no emphasis marks), Markdown escapes undone.

    ``<blockquote>`` becomes ``> `` lines, so quoted history is cut like plain-text quotes; table
    cells are kept apart by a space; struck-out text is dropped (the writer crossed it out).
    """
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_links = True
    converter.ignore_mailto_links = True
    converter.ignore_images = True
    converter.ignore_emphasis = True
    converter.ignore_tables = True
    converter.unicode_snob = True
    try:
        text = str(converter.handle(_CELL_END.sub(r" \g<0>", markup)))
    except Exception:  # html2text on hostile markup: fall back to dropping the tags
        return html.unescape(_TAG.sub("\n", markup))
    text = _STRUCK_OUT.sub("", _HORIZONTAL_RULE.sub("", text))
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


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


# ---------------------------------------------------------------------------------------------
# Cutting quotes and signatures


@dataclass(frozen=True)
class Cut:
    """Lines removed from the body, for the logs: which rule, where, how many, the first one."""

    rule: str
    line: int  # 1-based line number in the body
    count: int
    first: str


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"))
_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\t]")


def clean_line(line: str) -> str:
    """A body line with non-breaking and other Unicode spaces as spaces, invisible marks removed
    and trailing white space trimmed."""
    return _SPACES.sub(" ", line.translate(_INVISIBLE)).rstrip()


def body_lines(text: str) -> list[str]:
    """The text split into cleaned lines (CRLF, CR and LF all end a line)."""
    return [clean_line(line) for line in text.splitlines()]


_SIGNATURE = re.compile(r"--\s*\Z")
_SEPARATORS = (
    ("original-message", re.compile(
        r"-{3,}\s*(?:original message|ursprüngliche nachricht|message d'origine"
        r"|mensaje original|messaggio originale|oorspronkelijk bericht|исходное сообщение)",
        re.IGNORECASE)),
    ("forwarded", re.compile(
        r"(?:-{3,}\s*forwarded message|begin forwarded message:|-{3,}\s*weitergeleitete nachricht"
        r"|-{3,}\s*message transféré|-{3,}\s*пересылаемое сообщение)",
        re.IGNORECASE)),
    ("underscores", re.compile(r"_{10,}\Z")),
)  # fmt: skip
_ATTRIBUTIONS = (
    re.compile(r"(?:-+\s*)?On\s.*\S\s+wrote:\Z"),  # Yahoo: "--- On ... wrote:"
    re.compile(r"Am\s.*\sschrieb\s.*:\Z"),
    re.compile(r"Le\s.*\sa\s+écrit\s?:\Z"),
    re.compile(r"El\s.*\sescribió:\Z"),
    re.compile(r"Il\s.*\sha\s+scritto:\Z"),
    re.compile(r"Op\s.*\sschreef\s.*:\Z"),
    re.compile(r"Em\s.*\sescreveu:\Z"),
    re.compile(r"\d{1,2}[./]\d{1,2}[./]\d{2,4}.*\sнаписал(?:а|\(а\))?:\Z"),
)
_MAIL_CLIENT_LINES = re.compile(
    r"(?:Sent from my \w.*|Sent from (?:Mail|Outlook) for \w+|Get Outlook for \w+.*"
    r"|Sent from Yahoo Mail.*|Von meinem \w+ gesendet|Envoyé de mon \w+|Отправлено с \w+.*)",
    re.IGNORECASE,
)
_HEADER_LABEL = re.compile(r"\*{0,2}([^\W\d_][\w ]{0,15}?)\*{0,2}\s?:\*{0,2}(?:\s|\Z)")
_FROM_LABELS = {"from", "von", "de", "da", "van", "от", "od", "från", "fra"}
_DATE_LABELS = {"sent", "date", "gesendet", "datum", "envoyé", "enviado", "inviato",
                "verzonden", "отправлено", "дата", "data", "fecha"}  # fmt: skip
_OTHER_LABELS = {"to", "cc", "subject", "an", "betreff", "à", "objet", "para", "asunto", "a",
                 "oggetto", "aan", "onderwerp", "кому", "тема", "копия"}  # fmt: skip


def cut_reply(lines: Sequence[str]) -> tuple[list[str], list[Cut]]:
    """Remove what the sender did not write, keeping line positions (removed lines become blank).

    Rules, in the order they are tried on each line:

    1. a line starting with ``>`` is a quote: dropped (a run of them is one cut);
    2. a line ``--`` or ``-- `` alone starts the signature: it and the rest are cut;
    3. ``---- Original Message ----`` (several languages), a forwarded-message marker, or a line
       of ten or more underscores: it and the rest are cut;
    4. a reply attribution (``On <date>, <name> wrote:`` in English, German, French, Spanish,
       Italian, Dutch, Portuguese, Russian; also when wrapped over two lines; it must contain a
       digit): when quoted lines follow it, only the attribution is dropped (the sender may
       write below or between quotes); otherwise it and the rest are cut;
    5. any other line ending in ``:`` that holds a digit and an ``@`` and is followed by quoted
       lines is an attribution in some other language: dropped;
    6. a quoted header block: within five lines starting with a header label, ``From:`` (or a
       localised label) together with ``Sent:``/``Date:`` or with two of ``To:``/``Cc:``/
       ``Subject:``: it and the rest are cut;
    7. a mail client's own line (``Sent from my iPhone``): dropped.

    A line that matches none of these is never removed, so bulleted, dashed and numbered orders,
    ``On second thought:`` and ``From: my notes`` stay.
    """
    kept = list(lines)
    cuts: list[Cut] = []
    index = 0
    while index < len(kept):
        line = kept[index]
        if line.lstrip().startswith(">"):
            end = index
            while end < len(kept) and kept[end].lstrip().startswith(">"):
                end += 1
            _drop(kept, cuts, "quote", index, end)
            index = end
            continue
        rule = _truncating_rule(kept, index)
        if rule is not None:
            cuts.append(Cut(rule, index + 1, len(kept) - index, _short(line)))
            del kept[index:]
            break
        span = _attribution_span(kept, index)
        if span:
            _drop(kept, cuts, "attribution", index, index + span)
            index += span
            continue
        if _MAIL_CLIENT_LINES.fullmatch(line.strip()):
            _drop(kept, cuts, "mail-client-line", index, index + 1)
        index += 1
    if len(kept) > MAX_LINES:
        cuts.append(Cut("too-long", MAX_LINES + 1, len(kept) - MAX_LINES, _short(kept[MAX_LINES])))
        del kept[MAX_LINES:]
    while kept and not kept[-1].strip():
        kept.pop()
    return kept, cuts


def _truncating_rule(lines: list[str], index: int) -> str | None:
    """The rule that cuts everything from ``index`` on, if one applies there."""
    line = lines[index].strip()
    if _SIGNATURE.match(lines[index]):
        return "signature"
    for rule, pattern in _SEPARATORS:
        if pattern.match(line):
            return rule
    span = _language_attribution(lines, index)
    if span and not _quote_follows(lines, index + span):
        return "attribution"
    if _is_header_block(lines, index):
        return "header-block"
    return None


def _attribution_span(lines: list[str], index: int) -> int:
    """How many lines (1 or 2) of attribution start at ``index`` before a quote, else 0."""
    span = _language_attribution(lines, index)
    if span and _quote_follows(lines, index + span):
        return span
    line = lines[index].strip()
    generic = line.endswith(":") and "@" in line and any(c.isdigit() for c in line)
    return 1 if generic and _quote_follows(lines, index + 1) else 0


def _language_attribution(lines: list[str], index: int) -> int:
    line = lines[index].strip()
    if _is_attribution(line):
        return 1
    if index + 1 < len(lines):
        following = lines[index + 1].strip()
        if following and not following.startswith(">") and not _is_attribution(following):
            return 2 if _is_attribution(f"{line} {following}") else 0
    return 0


def _is_attribution(text: str) -> bool:
    if len(text) > MAX_ATTRIBUTION or not any(c.isdigit() for c in text):
        return False
    return any(pattern.match(text) for pattern in _ATTRIBUTIONS)


def _quote_follows(lines: list[str], index: int) -> bool:
    for line in lines[index:]:
        if line.strip():
            return line.lstrip().startswith(">")
    return False


def _is_header_block(lines: list[str], index: int) -> bool:
    """Header lines of a quoted mail start here: From plus Sent/Date or two others in 5 lines."""
    if _label(lines[index]) not in _FROM_LABELS | _DATE_LABELS | _OTHER_LABELS:
        return False
    labels = {_label(line) for line in lines[index : index + 5]}
    if not labels & _FROM_LABELS:
        return False
    return bool(labels & _DATE_LABELS) or len(labels & _OTHER_LABELS) >= 2


def _label(line: str) -> str | None:
    match = _HEADER_LABEL.match(line.strip())
    return match.group(1).strip().lower() if match else None


def _drop(lines: list[str], cuts: list[Cut], rule: str, start: int, end: int) -> None:
    cuts.append(Cut(rule, start + 1, end - start, _short(lines[start])))
    for position in range(start, end):
        lines[position] = ""


def _short(line: str) -> str:
    line = line.strip()
    return line if len(line) <= 80 else line[:77] + "..."
