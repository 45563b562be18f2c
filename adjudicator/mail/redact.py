"""Secrets taken out of a stored mail once it has been processed.

A player proves his seat with a ``PASSWORD`` line and changes it with ``SET PASSWORD``, or by
writing to his personal reply address (``judge+TAG@``): each of these arrives in the mail's
bytes. While the mail waits to be processed the bytes must stay as
received (a restart processes them again); once processed, :func:`redact` puts ``*`` in place
of every secret, so that the database (or a backup of it) holds no password in clear.

The bytes are changed in place where the secret stands in them as it was written (plain text,
8-bit, a quoted-printable line that did not break it): the mail keeps its size and lines. Where
a part's transfer encoding hides it (base64, a quoted-printable soft break inside the word),
that part is decoded, redacted and encoded again, and the mail is written out anew. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from email import message_from_bytes
from email import policy as email_policy

from adjudicator.mail.classify import own_key

MIN_SECRET = 4
"""Shorter words are not taken out: they would blot out ordinary words of the mail."""

_ENCODED = re.compile(rb"content-transfer-encoding:\s*(base64|quoted-printable)", re.I)


def redact(raw: bytes, secrets: Iterable[str]) -> bytes:
    """``raw`` with every secret of ``secrets`` replaced by as many ``*``."""
    words = sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True)
    if not words:
        return raw
    for word in words:
        encoded = word.encode("utf-8", "surrogateescape")
        raw = raw.replace(encoded, b"*" * len(encoded))
    if _ENCODED.search(raw) is None:
        return raw
    return _redact_parts(raw, words)


def _redact_parts(raw: bytes, words: list[str]) -> bytes:
    """Decode, redact and encode again each text part whose encoding hid a secret."""
    message = message_from_bytes(raw, policy=email_policy.compat32)
    changed = False
    for part in message.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        charset = part.get_content_charset() or "utf-8"
        try:
            text = payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            text = payload.decode("latin-1")
            charset = "latin-1"
        hidden = text
        for word in words:
            hidden = hidden.replace(word, "*" * len(word))
        if hidden == text:
            continue
        del part["Content-Transfer-Encoding"]
        part.set_payload(hidden, charset)  # encoded as the charset's body encoding says
        changed = True
    return message.as_bytes() if changed else raw


def own_tags(recipients: Iterable[str], own: Collection[str]) -> list[str]:
    """The ``+tags`` of the service's own addresses a mail went to (``judge+TAG@domain``): a
    personal reply address proves a seat, or a game master, by itself, like a password."""
    tags = []
    for address in recipients:
        local, at, domain = address.strip().strip("<>").rpartition("@")
        base, plus, tag = local.partition("+")
        if at and plus and tag and own_key(f"{base}@{domain}") in own:
            tags.append(tag)
    return tags
