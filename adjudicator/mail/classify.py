"""What kind of mail this is: the mail that must not be answered, told apart from orders.

The service answers ``ordinary`` mail (and ``oversized`` mail, with a refusal); it never answers
the other kinds, so that two robots cannot mail each other forever (RFC 3834, section 2) and a
bounce is matched to the player whose address failed instead of being answered.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from email.message import Message
from enum import StrEnum

from adjudicator.mail.body import raw_payload
from adjudicator.mail.charsets import decode_bytes, decode_words


class MailKind(StrEnum):
    ORDINARY = "ordinary"
    AUTO_REPLY = "auto_reply"  # vacation notices, read receipts, lists, bulk mail
    BOUNCE = "bounce"  # a delivery failure report
    LOOP = "loop"  # our own mail come back (X-Loop names us)
    OWN = "own"  # From is one of our own addresses
    OVERSIZED = "oversized"  # larger than the limit: the body was not read
    UNREADABLE = "unreadable"  # not a mail we can make sense of


@dataclass(frozen=True)
class Bounce:
    """What a delivery failure report says about the mail that failed.

    ``recipients`` are the addresses that failed (Original-Recipient, else Final-Recipient,
    of the DSN; else X-Failed-Recipients; else a qmail ``<address>:`` line). ``message_id`` is the
    Message-ID of our mail that bounced, when the report carries its headers. ``action`` and
    ``status`` come from the DSN (``failed``, ``delayed``...; ``5.1.1``), empty when unknown;
    ``diagnostic`` is the receiving server's own words (Diagnostic-Code), for people only.
    """

    recipients: tuple[str, ...] = ()
    message_id: str | None = None
    action: str = ""
    status: str = ""
    diagnostic: str = ""


@dataclass(frozen=True)
class Verdict:
    kind: MailKind
    reason: str
    bounce: Bounce | None = None
    orders_decide: bool = False
    """An auto-reply known by its subject alone, or a mailing list's copy: a player may well
    write such a subject over his orders ("[gw1] away until Monday"), or post his orders to
    the game's list, so the text decides (``parse.py``): a mail that holds orders is read."""


Headers = Mapping[str, Sequence[str]]
"""Raw header values (unfolded, not RFC 2047 decoded) by lower-case field name."""

_AUTO_PRECEDENCE = {"bulk", "junk", "auto_reply"}
_LIST_FIELDS = ("list-id", "list-unsubscribe", "list-post")
_AUTO_SUBJECT_PHRASES = (
    # What vacation and auto-responders (Exchange and Outlook, Gmail, Apple Mail, Thunderbird,
    # Zimbra, Notes, the help desks) write first in the subject, by language. A phrase alone
    # counts; the words of ``_AUTO_SUBJECT_WORDS`` only with a colon after them.
    # en
    r"automatic reply|auto[- ]?reply|auto[- ]?response|autoresponder|out of (?:the )?office",
    r"away from (?:the )?office|vacation (?:reply|notice|message|auto-?reply)",
    # de, fr, es, it, nl, pt
    r"automatische antwort|abwesenheitsnotiz|r[ée]ponse automatique|absen(?:ce|te?) du bureau",
    r"message d'absence|respuesta autom[áa]tica|fuera de (?:la )?oficina|risposta automatica",
    r"fuori (?:ufficio|sede)|automatisch antwoord|resposta autom[áa]tica",
    r"(?:ausente|fora) do escrit[óo]rio",
    # sv, da, no, fi, pl, cs, hu, ro, tr
    r"autosvar|automatiskt svar|fr[åa]nvaromeddelande|automatisk svar|automaattinen vastaus",
    r"poissa toimistolta|automatyczna odpowied[źz]|odpowied[źz] automatyczna|poza biurem",
    r"automatick[áa] odpov[ěe]d'?|mimo kancel[áa][řr]|automatikus v[áa]lasz|r[ăa]spuns automat",
    r"otomatik (?:yan[ıi]t|cevap)",
    # ru, el, ja, zh, ko
    r"автоматический ответ|автоответ|нет на месте|αυτόματη απάντηση|自動応答|自動返信|不在通知",
    r"自动回复|自動回覆|자동 ?응답",
)
_AUTO_SUBJECT_WORDS = (
    r"auto|ooo|vacation|abwesend|abwesenheit|absence|absent|ausencia|assenza|assente|afwezig",
    r"ausente|fr[åa]nvaro|fr[åa]nvarande|frav[æa]r(?:ende)?|poissa|nieobecno[śs][ćc]|отпуск",
    r"不在|外出|休假",
)
_AUTO_SUBJECT = re.compile(
    r"(?:\[[^\]]*\]\s*)?(?:(?:"
    + "|".join(_AUTO_SUBJECT_PHRASES)
    + r")(?:\s*[:：-]|\s|$)|(?:"
    + "|".join(_AUTO_SUBJECT_WORDS)
    + r")\s*[:：])",
    re.IGNORECASE,
)
_AWAY_SUBJECT = re.compile(
    # A vacation notice written as a sentence, first or after the subject it answers ("[gw1]
    # I am away until Monday", "Re: orders - on holiday until the 12th").
    r"(?:.*?[\]:\-–]\s*)?(?:"
    r"(?:i\s*(?:am|'m|’m)|i\s+will\s+be)\s+(?:currently\s+|now\s+)?"
    r"(?:away|out\s+of\s+(?:the\s+)?office|on\s+(?:vacation|holiday|leave)|off\s+work)\b"
    r"|(?:away|out\s+of\s+(?:the\s+)?office|on\s+(?:vacation|holiday|leave))"
    r"\s+(?:until|till|through)\b)",
    re.IGNORECASE,
)
_BOUNCE_LOCAL_PARTS = {"mailer-daemon", "mailer_daemon", "postmaster"}
MESSAGE_ID = re.compile(r"<([^<>\s]+)>")
_ADDRESS_LIKE = re.compile(r"[^\s<>,;\"'()]+@[^\s<>,;\"'()]+")


def classify(
    msg: Message,
    *,
    headers: Headers,
    from_addresses: Sequence[str],
    own: Collection[str],
    size: int,
    max_bytes: int,
) -> Verdict:
    """The kind of ``msg``; the first rule that applies decides.

    ``own`` holds our addresses in their comparison form (``own_key``); ``from_addresses`` are
    the bare addresses of the From field.
    """
    for address in from_addresses:
        if own_key(address) in own:
            return Verdict(MailKind.OWN, f"From is our own address {address}")
    for value in headers.get("x-loop", ()):
        named = {own_key(address) for address in _ADDRESS_LIKE.findall(value)}
        if named & set(own):
            return Verdict(MailKind.LOOP, f"X-Loop: {value.strip()}")
    bounce_reason = _bounce_reason(msg, headers, from_addresses)
    if bounce_reason is not None:
        return Verdict(MailKind.BOUNCE, bounce_reason, bounce_details(msg, headers))
    auto_reason = _auto_reply_reason(msg, headers)
    if auto_reason is not None:
        return Verdict(MailKind.AUTO_REPLY, auto_reason)
    # Known by the subject or as a list's copy: a robot's mail only if it holds no orders.
    doubt = _auto_subject_reason(headers) or _list_reason(headers)
    if doubt is not None:
        return Verdict(MailKind.AUTO_REPLY, doubt, orders_decide=True)
    if any(value.strip() in ("", "<>", "< >") for value in headers.get("return-path", ())):
        # RFC 5321, 4.5.5: notifications are sent with an empty reverse path.
        return Verdict(MailKind.BOUNCE, "Return-Path: <>", bounce_details(msg, headers))
    if not any("@" in address for address in from_addresses):
        return Verdict(MailKind.UNREADABLE, "no sender address in From")
    if size > max_bytes:
        return Verdict(MailKind.OVERSIZED, f"{size} bytes, more than the limit of {max_bytes}")
    return Verdict(MailKind.ORDINARY, "")


def own_key(address: str) -> str:
    """An address as compared with our own: lower case, without a ``+tag``."""
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return domain
    return f"{local.split('+', 1)[0]}@{domain}"


def _bounce_reason(msg: Message, headers: Headers, from_addresses: Sequence[str]) -> str | None:
    content_type = _content_type(msg)
    report_type = _param(msg, "report-type").lower()
    if content_type == "multipart/report" and report_type in ("", "delivery-status"):
        return "multipart/report; report-type=delivery-status"
    if any(_content_type(part) == "message/delivery-status" for part in _walk(msg)):
        return "has a message/delivery-status part"
    for address in from_addresses:
        if address.partition("@")[0].lower() in _BOUNCE_LOCAL_PARTS:
            return f"From {address}"
    return None


def _auto_reply_reason(msg: Message, headers: Headers) -> str | None:
    for value in headers.get("auto-submitted", ()):
        token = value.split(";")[0].split("(")[0].strip().lower()
        if token and token != "no":
            return f"Auto-Submitted: {token}"  # RFC 3834, section 5
    for value in headers.get("precedence", ()):
        if value.strip().lower() in _AUTO_PRECEDENCE:
            return f"Precedence: {value.strip().lower()}"
    for name in ("x-autoreply", "x-autorespond", "x-autogenerated"):
        if headers.get(name):
            return f"has a {name} header"
    if _content_type(msg) == "multipart/report":
        return f"multipart/report; report-type={_param(msg, 'report-type')}"
    return None


def _list_reason(headers: Headers) -> str | None:
    """A mailing list's copy (RFC 2369, 2919 fields, ``Precedence: list``): a robot's unless
    its text holds orders, as when a player posts them to the game's list."""
    for value in headers.get("precedence", ()):
        if value.strip().lower() == "list":
            return "Precedence: list"
    for name in _LIST_FIELDS:
        if headers.get(name):
            return f"has a {name} header"
    return None


def _auto_subject_reason(headers: Headers) -> str | None:
    """Why the subject reads as a vacation notice's: an auto-responder's prefix in the common
    languages ("Automatic reply:", "Abwesenheitsnotiz:", "自動返信:"), or a sentence that says
    the writer is away ("[gw1] I am away until Monday")."""
    decoded = " ".join(decode_words(value) for value in headers.get("subject", ()))
    subject = " ".join(decoded.split())
    if _AUTO_SUBJECT.match(subject):
        return "automatic reply subject"
    if _AWAY_SUBJECT.match(subject):
        return "subject says the writer is away"
    return None


def bounce_details(msg: Message, headers: Headers) -> Bounce:
    """Who bounced and which of our mails it was, from whatever the report carries."""
    recipients: list[str] = []
    action = status = diagnostic = ""
    for block in _delivery_status_blocks(msg):
        address = block.get("original-recipient") or block.get("final-recipient") or ""
        address = address.rpartition(";")[2].strip().strip("<>").strip()
        if address and address not in recipients:
            recipients.append(address)
        action = action or block.get("action", "").strip().lower()
        status = status or block.get("status", "").strip().split(" ")[0]
        # "smtp; 550 5.1.1 <bob@...>: unknown; see ..." : the type, then the server's words
        diagnostic = diagnostic or block.get("diagnostic-code", "").partition(";")[2].strip()
    text = "\n".join(_texts(msg))
    if not recipients:
        # A report whose MIME structure is broken still has its fields in the text.
        recipients = _TEXT_RECIPIENT.findall(text)
        action = action or next(iter(_TEXT_ACTION.findall(text)), "").lower()
        status = status or next(iter(_TEXT_STATUS.findall(text)), "")
    if not recipients:
        for value in headers.get("x-failed-recipients", ()):
            recipients += [a.strip().strip("<>") for a in value.split(",") if "@" in a]
    if not recipients:
        recipients = _QMAIL_RECIPIENT.findall(text)
    return Bounce(
        recipients=tuple(dict.fromkeys(_lower_domain(address) for address in recipients)),
        message_id=_original_message_id(msg, text),
        action=action,
        status=status,
        diagnostic=diagnostic[:300],
    )


def _delivery_status_blocks(msg: Message) -> list[dict[str, str]]:
    """The per-message and per-recipient field blocks of every message/delivery-status part."""
    blocks: list[dict[str, str]] = []
    for part in _walk(msg):
        if _content_type(part) != "message/delivery-status":
            continue
        payload = raw_payload(part)
        if isinstance(payload, list):
            for block in payload:
                if isinstance(block, Message):
                    blocks.append({str(k).lower(): str(v) for k, v in block.items()})
        elif isinstance(payload, str):
            for chunk in re.split(r"\n\s*\n", payload):
                fields = re.findall(r"(?m)^([\w-]+):[ \t]*(.*)$", chunk)
                blocks.append({name.lower(): value for name, value in fields})
    return blocks


_QMAIL_RECIPIENT = re.compile(r"(?m)^<([^<>\s@]+@[^<>\s@]+)>:\s*$")
_BODY_MESSAGE_ID = re.compile(r"(?im)^[ \t]*Message-ID:[ \t]*(<[^<>\s]+>)")


_TEXT_RECIPIENT = re.compile(
    r"(?im)^[ \t]*(?:original|final)-recipient:[^;\n]*;[ \t]*<?([^\s<>;]+@[^\s<>;]+?)>?[ \t]*$"
)
_TEXT_ACTION = re.compile(r"(?im)^[ \t]*action:[ \t]*(\w+)")
_TEXT_STATUS = re.compile(r"(?im)^[ \t]*status:[ \t]*(\d\.\d{1,3}\.\d{1,3})")


def _original_message_id(msg: Message, text: str) -> str | None:
    """The Message-ID of the returned message or headers; else one quoted in the report text."""
    for part in _walk(msg):
        if _content_type(part) not in ("message/rfc822", "message/rfc822-headers"):
            continue
        payload = raw_payload(part)
        inner = payload[0] if isinstance(payload, list) and payload else None
        if isinstance(inner, Message):
            match = MESSAGE_ID.search(str(inner.get("message-id", "")))
            if match:
                return f"<{match.group(1)}>"
    match = _BODY_MESSAGE_ID.search(text)
    return match.group(1) if match else None


def _texts(msg: Message) -> list[str]:
    """Every leaf of the report that holds text, decoded (text/rfc822-headers included)."""
    texts = []
    for part in _walk(msg):
        if isinstance(raw_payload(part), str):
            try:
                data = part.get_payload(decode=True)
            except Exception:  # broken transfer encoding
                continue
            if isinstance(data, bytes):
                texts.append(decode_bytes(data, None)[0])
    return texts


def _walk(msg: Message) -> list[Message]:
    try:
        return list(msg.walk())[:500]
    except (RecursionError, AttributeError, TypeError):
        return [msg]


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:  # a broken Content-Type header of any kind
        return "text/plain"


def _param(part: Message, name: str) -> str:
    try:
        value = part.get_param(name)
    except Exception:
        return ""
    if isinstance(value, tuple):
        value = value[2]
    return value if isinstance(value, str) else ""


def _lower_domain(address: str) -> str:
    local, at, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}" if at else address
