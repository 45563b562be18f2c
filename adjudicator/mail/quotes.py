"""Cutting what the sender did not write: quoted lines, reply attributions, forwarded and
original-message blocks, signatures and mail clients' own lines.

Conservative by design: a line that might be an order is never removed by a guess (the rules
are listed at ``cut_reply``). Removed lines in the middle become blank, so line numbers stay
those of the body.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_ATTRIBUTION = 400  # characters: longer lines are the sender's text (and cheap to test)
MAX_LINES = 5000
"""More body lines than any order mail needs; the rest is cut (rule ``too-long``)."""


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
