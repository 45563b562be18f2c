"""Reading inbound mail: raw bytes in, an ``InboundMail`` value out, whatever the bytes are.

``read_mail`` never raises. It parses with the standard library's tolerant ``compat32`` policy
and reads headers from their raw form itself (RFC 2047 words, 8-bit UTF-8 or cp1252 headers,
broken address lists), classifies the mail (``classify.py``), and for ordinary mail takes the
lines the sender wrote (``body.py``). ``split_sections`` then splits those lines by game.

No network, no database, no clock: the same bytes always give the same value.
"""

from __future__ import annotations

import dataclasses
import email
import ipaddress
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import policy
from email.message import Message
from email.utils import parsedate_to_datetime
from functools import cache

from publicsuffixlist import PublicSuffixList

from adjudicator.core.text import normalise_line
from adjudicator.mail.body import extract_text
from adjudicator.mail.charsets import decode_bytes, decode_words
from adjudicator.mail.classify import (
    MESSAGE_ID,
    Bounce,
    Headers,
    MailKind,
    classify,
    own_key,
)
from adjudicator.mail.lines import SectionLine
from adjudicator.mail.orderlike import GAME_LINE, SECRET_LINE, reads_as_order
from adjudicator.mail.quotes import MAX_LINES, Cut, body_lines, cut_reply, list_marks

__all__ = [
    "AuthResult",
    "Bounce",
    "Cut",
    "InboundMail",
    "MailKind",
    "Section",
    "SectionLine",
    "bare_address",
    "is_order",
    "read_mail",
    "split_sections",
]

MAX_HEADER_BYTES = 256_000


@dataclass(frozen=True)
class AuthResult:
    """One Authentication-Results field (RFC 8601): who checked, and the dkim/spf/dmarc verdicts.

    A verdict is the result keyword in lower case (``pass``, ``fail``, ``softfail``, ``none``,
    ``temperror``...), or None when the field does not mention the method. With several dkim
    results (several signatures), any ``pass`` counts. Only a field added by our own receiving
    server can be trusted (the topmost, or the one whose ``authserv_id`` we know): anyone can
    write the others.
    """

    authserv_id: str
    dkim: str | None
    spf: str | None
    dmarc: str | None
    raw: str
    dkim_domains: tuple[str, ...] = ()  # the signing domains (header.d, header.i) that passed
    spf_domain: str | None = None  # the domain SPF checked (smtp.mailfrom, else smtp.helo)


@dataclass(frozen=True)
class InboundMail:
    """Everything the service needs from one inbound mail.

    Addresses are bare (``bob@example.org``) with the domain in lower case. ``lines`` are the
    body lines the sender wrote, after quotes and signatures are cut: a removed line in the
    middle is left blank so that line numbers stay those of the body, and the lines of text
    attachments follow after one blank line. They are read only for ``ordinary`` mail.
    """

    kind: MailKind
    kind_reason: str = ""
    message_id: str | None = None
    sender: str | None = None
    sender_name: str = ""
    reply_to: tuple[str, ...] = ()
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    delivered_to: tuple[str, ...] = ()  # Delivered-To, X-Original-To, Envelope-To
    subject: str = ""
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    written_at: datetime | None = None  # the Date field: when the sender's client sent it
    source: str = ""  # the sending host's address, from the Received fields (``_source``)
    auth_results: tuple[AuthResult, ...] = ()  # topmost field first
    lines: tuple[str, ...] = ()
    cut: tuple[Cut, ...] = ()
    attachments_used: tuple[str, ...] = ()
    bounce: Bounce | None = None
    notes: tuple[str, ...] = ()  # how the text was read, for the logs
    decoding: tuple[str, ...] = ()  # charsets that did not fit and what was read instead
    size: int = 0

    @property
    def recipients(self) -> tuple[str, ...]:
        """Every address the mail was delivered or addressed to, envelope first, no repeats."""
        return tuple(dict.fromkeys((*self.delivered_to, *self.to, *self.cc)))

    def auth(self, authserv_id: str | None = None) -> AuthResult | None:
        """The Authentication-Results of ``authserv_id`` (case-insensitive), else the topmost."""
        for result in self.auth_results:
            if authserv_id is None or result.authserv_id.lower() == authserv_id.lower():
                return result
        return None


def read_mail(
    raw: bytes, *, own_addresses: Collection[str] = (), max_bytes: int = 1_000_000
) -> InboundMail:
    """Read one mail as received; never raises (unparseable input is kind ``unreadable``)."""
    try:
        return _read(bytes(raw), own=frozenset(map(own_key, own_addresses)), max_bytes=max_bytes)
    except Exception as error:  # the promise is "never raises": report it as unreadable
        return InboundMail(
            MailKind.UNREADABLE, f"internal error: {type(error).__name__}: {error}"[:200]
        )


def _read(raw: bytes, *, own: frozenset[str], max_bytes: int) -> InboundMail:
    size = len(raw)
    if not raw.strip():
        return InboundMail(MailKind.UNREADABLE, "empty message", size=size)
    source = _header_section(raw) if size > max_bytes else raw
    try:
        msg = email.message_from_bytes(source, policy=policy.compat32)
    except Exception as error:  # the standard library's parser on hostile input
        reason = f"parser error: {type(error).__name__}"
        return InboundMail(MailKind.UNREADABLE, reason, size=size)
    headers = _header_map(msg)
    if not headers:
        return InboundMail(MailKind.UNREADABLE, "no header fields", size=size)
    senders = _field_addresses(headers, "from")
    verdict = classify(
        msg,
        headers=headers,
        from_addresses=[address for _, address in senders],
        own=own,
        size=size,
        max_bytes=max_bytes,
    )
    sender = next(((name, address) for name, address in senders if "@" in address), None)
    mail = InboundMail(
        kind=verdict.kind,
        kind_reason=verdict.reason,
        message_id=_message_id(headers),
        sender=sender[1] if sender else None,
        sender_name=sender[0] if sender else "",
        reply_to=_addresses_only(headers, "reply-to"),
        to=_addresses_only(headers, "to"),
        cc=_addresses_only(headers, "cc"),
        delivered_to=tuple(
            dict.fromkeys(
                address
                for name in ("delivered-to", "x-original-to", "envelope-to")
                for address in _addresses_only(headers, name)
            )
        ),
        subject=_subject(headers),
        in_reply_to=next(iter(_message_ids(headers, "in-reply-to")), None),
        references=_message_ids(headers, "references"),
        written_at=_date(headers),
        source=_source(headers),
        auth_results=tuple(
            parse_auth_results(value) for value in headers.get("authentication-results", ())
        ),
        bounce=verdict.bounce,
        size=size,
    )
    if verdict.orders_decide:
        return _vacation_or_orders(mail, msg, max_bytes=max_bytes)
    if verdict.kind is not MailKind.ORDINARY:
        return mail
    return _with_body(mail, msg)


def _vacation_or_orders(mail: InboundMail, msg: Message, *, max_bytes: int) -> InboundMail:
    """A mail whose subject alone reads as a vacation notice's is one only when its text holds
    no order or command: a player who writes "[gw1] away until Monday" over his orders, or
    whose mail program puts "Auto:" in front, has them read; so has a player who posts them
    to the game's mailing list. Orders are never dropped for a subject or a list's fields; a
    real notice, or a remark posted to the list (no orders), is not answered."""
    if not mail.sender:  # no one to read orders for
        return mail
    if mail.size > max_bytes:  # the text was not read: the player is told it is too large
        reason = f"{mail.size} bytes, more than the limit of {max_bytes}"
        return dataclasses.replace(mail, kind=MailKind.OVERSIZED, kind_reason=reason)
    read = _with_body(dataclasses.replace(mail, kind=MailKind.ORDINARY, kind_reason=""), msg)
    if not any(map(is_order, read.lines)):
        return mail
    kept = f"{mail.kind_reason}, but its text holds orders: read"
    return dataclasses.replace(read, notes=(*read.notes, kept))


def _with_body(mail: InboundMail, msg: Message) -> InboundMail:
    text = extract_text(msg)
    marks = list_marks([(str(name), str(value)) for name, value in msg.items()])
    lines, cuts = cut_reply(body_lines(text.body), is_order=is_order, list_marks=marks)
    used, notes = [], list(text.notes)
    for name, attachment in text.attachments:
        attached = body_lines(attachment)[:MAX_LINES]
        if _attachment_counts(name, lines, attached):
            lines += ["", *attached]
            used.append(name)
        else:
            notes.append(f"attachment {name!r} not read: not the orders")
    return dataclasses.replace(
        mail,
        lines=tuple(lines),
        cut=tuple(cuts),
        attachments_used=tuple(used),
        notes=(*notes, *text.decoding),
        decoding=text.decoding,
    )


_ORDERS_FILE = re.compile(
    r"(?:orders?|moves?|befehle|züge|ordres|coups|órdenes|ordini|mosse|zamówienia)(?:\b|_)",
    re.IGNORECASE,
)


def _attachment_counts(name: str, body: Sequence[str], attached: Sequence[str]) -> bool:
    """A ``*.txt`` attachment is read as orders when its name says so (``orders.txt``,
    ``round3-moves.txt``), or when the mail's own text holds no order or command and the
    attachment does: then the attachment is the orders. Any other attachment (a forwarded
    note, a virus scanner's notice, a document) is not what the player meant us to read."""
    if _ORDERS_FILE.search(name):
        return True
    return not any(map(is_order, body)) and any(map(is_order, attached))


is_order = reads_as_order
"""Whether a line reads as an order of any game or a service command (``orderlike.py``)."""


def _header_section(raw: bytes) -> bytes:
    """The header fields of a mail too large to parse whole."""
    head = raw[:MAX_HEADER_BYTES]
    ends = [end for end in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if end >= 0]
    return head[: min(ends) + 1] if ends else head


# ---------------------------------------------------------------------------------------------
# Header fields

_FOLD = re.compile(r"\r?\n(?=[ \t])")
_LINE_BREAK = re.compile(r"[\r\n]+")


def _header_map(msg: Message) -> Headers:
    """Raw values by lower-case name: unfolded, 8-bit bytes read as UTF-8 (else cp1252)."""
    fields: dict[str, list[str]] = {}
    for name, value in msg.raw_items():
        text = value if isinstance(value, str) else str(value)
        try:
            text = text.encode("utf-8", "surrogateescape").decode("utf-8")
        except UnicodeError:
            text = decode_bytes(text.encode("utf-8", "surrogateescape"), None)[0]
        text = _LINE_BREAK.sub(" ", _FOLD.sub("", text))
        fields.setdefault(str(name).strip().lower(), []).append(text)
    return fields


def _subject(headers: Headers) -> str:
    values = headers.get("subject", ())
    return " ".join(decode_words(values[0]).split()) if values else ""


_RECEIVED_FROM_IP = re.compile(r"\bfrom\b[^;]*?\[(?:ipv6:)?([0-9a-f.:]{3,45})\]", re.IGNORECASE)


_INSIDE = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
"""Networks of a site's own relays (RFC 1918, RFC 4193): their hops are not the source."""


def _source(headers: Headers) -> str:
    """The address of the host that handed the mail to our servers: the first Received field
    (newest first) that names an outside host ``from ... [address]``. Forged fields lie below
    ours, so this is a hint of where a mail came from, good enough to keep a forger's tries
    apart from the real player's; empty when no field names one."""
    for value in headers.get("received", ()):
        for address in _RECEIVED_FROM_IP.findall(value):
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                continue
            if not (ip.is_loopback or ip.is_link_local or any(ip in n for n in _INSIDE)):
                return str(ip)
    return ""


_UNKNOWN_ZONE = re.compile(r"\s-0000\s*(?:\([^()]*\)\s*)?$")
"""The zone ``-0000`` (a comment may follow): RFC 5322 3.3, "the time is in UTC, the local
zone is unknown"; ``email.utils.formatdate()`` writes it by default, and so does qmail."""


def _date(headers: Headers) -> datetime | None:
    """The Date field in UTC (RFC 5322 3.6.1: when the writer sent the mail), or None when it
    is missing, unreadable or without a zone. The zone ``-0000`` is UTC (the standard library
    reads it as no zone): such a Date says when the mail was written as well as ``+0000``."""
    values = headers.get("date", ())
    if not values:
        return None
    text = values[0].strip()
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        if not _UNKNOWN_ZONE.search(text):
            return None
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


_SAFE_ID = re.compile(r"[!-;=?-~]{1,120}@[!-;=?-~]{1,120}")
"""What a Message-ID may hold to be repeated in our In-Reply-To and References: printable
ASCII without spaces or angle brackets, short (RFC 5322 3.6.4). Anything else (NUL, form feed,
U+2028, a 5,000-byte line) is dropped rather than copied into a header."""
MAX_REFERENCES = 20
"""References kept from a mail (the newest): a thread's own are enough to thread an answer."""


def _safe_id(text: str) -> str | None:
    return f"<{text}>" if _SAFE_ID.fullmatch(text) else None


def _message_id(headers: Headers) -> str | None:
    values = headers.get("message-id", ())
    if not values:
        return None
    match = MESSAGE_ID.search(values[0])
    if match:
        return _safe_id(match.group(1))
    token = values[0].strip().split(" ")[0]
    return _safe_id(token) if "@" in token else None


def _message_ids(headers: Headers, name: str) -> tuple[str, ...]:
    found = [
        safe
        for value in headers.get(name, ())
        for m in MESSAGE_ID.findall(value)
        if (safe := _safe_id(m)) is not None
    ]
    return tuple(dict.fromkeys(found))[-MAX_REFERENCES:]


def _field_addresses(headers: Headers, name: str) -> list[tuple[str, str]]:
    return [pair for value in headers.get(name, ()) for pair in parse_addresses(value)]


def _addresses_only(headers: Headers, name: str) -> tuple[str, ...]:
    addresses = (address for _, address in _field_addresses(headers, name) if "@" in address)
    return tuple(dict.fromkeys(addresses))


_ANGLE_ADDRESS = re.compile(r"<([^<>]*)>")
_COMMENT = re.compile(r"\(([^()]*)\)")
_GROUP_NAME = re.compile(r'^[^:<>"@,]*:\s*')


def parse_addresses(value: str) -> list[tuple[str, str]]:
    """The (display name, bare address) pairs of an address-list field, tolerant of bad syntax.

    ``Bob <bob@Example.ORG>``, ``bob@example.org (Bob)``, ``"Doe, J" <j@x>``, groups
    (``team: a@x, b@x;``) and RFC 2047 names all work; a display name that is itself an address
    (``alice@x <bob@x>``) gives the address in angle brackets. The domain is lower-cased.
    """
    pairs = []
    for piece in _split_list(value):
        chunk = _GROUP_NAME.sub("", piece.strip()).strip().rstrip(";").strip()
        angles = [m for m in _ANGLE_ADDRESS.finditer(chunk) if m.group(1).strip()]
        if angles:
            address, name = angles[-1].group(1), chunk[: angles[-1].start()]
        else:
            comment = _COMMENT.search(chunk)
            name = comment.group(1) if comment else ""
            tokens = _COMMENT.sub(" ", chunk).split()
            address = next((t for t in tokens if "@" in t), tokens[0] if tokens else "")
        address = _normalise_address(address)
        if address:
            pairs.append((_display_name(name), address))
    return pairs


def bare_address(text: str) -> str | None:
    """An address typed by a person (a game master's, a player's), checked as strictly as a
    sender's is (domain in lower case), or None when it is not one."""
    if any(not c.isprintable() for c in text):
        return None
    address = _normalise_address(text)
    return address if "@" in address else None


def _split_list(value: str, *, separator: str = ",", nested: bool = True) -> list[str]:
    """Split at commas outside quotes (and, when ``nested``, angle brackets and comments)."""
    chunks: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    depth = 0
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif nested and not quoted and char in "<(":
            depth += 1
        elif nested and not quoted and char in ">)":
            depth = max(0, depth - 1)
        elif char == separator and not quoted and depth == 0:
            chunks.append("".join(current))
            current = []
            continue
        current.append(char)
    chunks.append("".join(current))
    return chunks


_ATOM = r"[\w!#$%&'*+/=?^`{|}~-]+"
_LOCAL_PART = re.compile(rf"{_ATOM}(?:\.{_ATOM})*")
"""A dot-atom local part (RFC 5322 3.4.1; letters beyond ASCII allowed, RFC 6531). No quoted
local parts: nobody plays from one, and each is a way to smuggle ``<>`` into an envelope."""
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_DOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
"""A host name: labels of letters, digits and hyphens (IDNs in Unicode); ``localhost`` too."""


def _normalise_address(address: str) -> str:
    address = address.strip().strip("<>\"'").strip()
    if address.lower().startswith("mailto:"):
        address = address[7:]
    address = address.rstrip(".;,")
    if not address or any(c.isspace() for c in address):
        return ""
    local, at, domain = address.rpartition("@")
    if not at:
        return address.strip("@")  # a bare name: no mail goes to it
    if not (_LOCAL_PART.fullmatch(local) and _DOMAIN.fullmatch(domain)) or len(address) > 254:
        return ""  # ``root>x@evil.example``: never an envelope recipient, never answered
    return f"{local}@{domain.lower()}"


def _display_name(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] == '"':
        name = name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return " ".join(decode_words(name).split())


def parse_auth_results(raw: str) -> AuthResult:
    """One Authentication-Results value: ``authserv-id; method=result prop=value; ...``."""
    text = raw
    for _ in range(10):  # comments may nest: remove the innermost first
        text, removed = _COMMENT.subn(" ", text)
        if not removed:
            break
    parts = _split_list(text, separator=";", nested=False)
    first = parts[0].split()
    verdicts: dict[str, str] = {}
    dkim_domains: list[str] = []
    spf_domain = None
    for part in parts[1:]:
        match = re.match(r"\s*([\w.-]+)(?:/[\w.]+)?\s*=\s*([\w-]+)", part)
        if not match:
            continue
        method, result = match.group(1).lower(), match.group(2).lower()
        if method not in verdicts or (method == "dkim" and result == "pass"):
            verdicts[method] = result
        properties = {
            name.lower(): value.rpartition("@")[2].strip().lower().rstrip(".")
            for name, value in _PROPERTY.findall(part[match.end() :])
        }
        if method == "dkim" and result == "pass":
            dkim_domains += [properties[p] for p in ("header.d", "header.i") if properties.get(p)]
        if method == "spf" and result == "pass":
            spf_domain = properties.get("smtp.mailfrom") or properties.get("smtp.helo")
    return AuthResult(
        authserv_id=first[0] if first else "",
        dkim=verdicts.get("dkim"),
        spf=verdicts.get("spf"),
        dmarc=verdicts.get("dmarc"),
        raw=raw.strip(),
        dkim_domains=tuple(dict.fromkeys(dkim_domains)),
        spf_domain=spf_domain or None,
    )


_PROPERTY = re.compile(r"([a-z]+\.[a-z-]+)\s*=\s*(\S+)", re.IGNORECASE)


@cache
def _public_suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the list the package ships: nothing is fetched


def organisational_domain(domain: str) -> str | None:
    """RFC 7489 3.2: the public suffix of ``domain`` (the Public Suffix List, its private
    section included: ``bob.github.io`` is an organisation of its own) and one label more;
    None for a public suffix itself, which no organisation owns."""
    name = domain.strip().lower().rstrip(".")
    return _public_suffixes().privatesuffix(name) if name else None


def aligned(domain: str | None, from_domain: str) -> bool:
    """Relaxed alignment (RFC 7489 3.1): the authenticated domain and the From domain have the
    same organisational domain (``mail.example.co.uk`` and ``example.co.uk`` do; ``co.uk``
    and ``example.co.uk``, or ``bob.github.io`` and ``alice.github.io``, do not)."""
    if not domain or not from_domain:
        return False
    organisation = organisational_domain(from_domain)
    return organisation is not None and organisation == organisational_domain(domain)


# ---------------------------------------------------------------------------------------------
# Sections: one mail, orders for several games


@dataclass(frozen=True)
class Section:
    """The lines of one mail meant for one game (None: no game named), and its secret."""

    game: str | None
    lines: tuple[SectionLine, ...] = ()
    secret: str | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        hidden = "None" if self.secret is None else "'<hidden>'"
        return f"Section(game={self.game!r}, lines={self.lines!r}, secret={hidden})"

    __str__ = __repr__


_GAME_NAME = r"[a-z0-9][a-z0-9_.-]{0,63}"
_GAME_LINE = GAME_LINE
_SUBJECT_TAG = re.compile(rf"\[({_GAME_NAME})\]", re.IGNORECASE)
_NOT_GAME_TAGS = {"spam", "external", "ext", "bulk", "warning", "fwd", "fw"}
_SECRET_LINE = SECRET_LINE


def subject_game(subject: str) -> str | None:
    """The game tagged in a subject: ``[gw42]`` anywhere (``Re: [gw42] orders``), lower case."""
    for match in _SUBJECT_TAG.finditer(subject):
        if match.group(1).lower() not in _NOT_GAME_TAGS:
            return match.group(1).lower()
    return None


def split_sections(lines: Sequence[str], *, subject: str) -> list[Section]:
    """Split a mail's lines into one section per game.

    A line ``GAME <name>`` (or ``game: name``; any case; bullets allowed) starts the section of
    that game; lines before any such line belong to the game tagged in the subject (or None).
    A ``PASSWORD <secret>`` or ``SECRET <secret>`` line (one word; ``password: x`` too) is taken
    out and becomes its section's secret (the last one wins); "Secret Santa is fun" is not one.
    Blank lines are dropped; the rest keep their line numbers (1 = first of ``lines``). Sections
    of the same game are merged, in the order games first appear; a section with no lines and no
    secret is dropped unless a GAME line started it.
    """
    order: list[str | None] = [subject_game(subject)]
    texts: dict[str | None, list[SectionLine]] = {order[0]: []}
    secrets: dict[str | None, str] = {}
    named: set[str | None] = set()
    current = order[0]
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        game = _GAME_LINE.fullmatch(normalise_line(text))
        secret = _SECRET_LINE.fullmatch(text.replace("\u00a0", " "))
        if game:
            current = game.group(1).lower()
            named.add(current)
            if current not in texts:
                order.append(current)
                texts[current] = []
        elif secret:
            secrets[current] = secret.group(1)
        else:
            texts[current].append(SectionLine(number, text))
    return [
        Section(game, tuple(texts[game]), secrets.get(game))
        for game in order
        if texts[game] or game in secrets or game in named
    ]
