"""Writing outgoing MIME messages straight to bytes.

The standard library's ``EmailMessage`` takes about 1.5 ms to build and serialise a plain+HTML
mail; a round of a mass game sends hundreds. Every mail the service writes has the same few
shapes, so this module writes them directly (quoted-printable text, base64 binaries, folded and
RFC 2047-encoded headers), in well under a tenth of that. Boundaries are derived from the
Message-ID, so the same mail always gives the same bytes. Lines end in LF, as
``EmailMessage.as_bytes()`` does; the SMTP client turns them into CRLF on the wire.

Shapes (each level only when needed)::

    multipart/mixed                      when there are attachments (the deadline's .ics)
      multipart/alternative              when there is an HTML part
        text/plain
        multipart/related                when the HTML shows inline images
          text/html
          image/png (Content-ID)
      text/calendar (attachment)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.header import Header
from email.utils import parseaddr
from functools import lru_cache


@dataclass(frozen=True)
class Part:
    """A leaf part: ``content`` is encoded quoted-printable when ``text`` else base64."""

    content_type: str  # with its parameters, e.g. 'text/calendar; charset="utf-8"; method=PUBLISH'
    content: bytes
    text: bool = False
    filename: str | None = None
    content_id: str | None = None  # without the angle brackets
    inline: bool = False


def text_part(text: str, subtype: str = "plain") -> Part:
    return Part(f'text/{subtype}; charset="utf-8"', text.encode("utf-8"), text=True)


def header(name: str, value: str) -> str:
    """``Name: value``, RFC 2047-encoded when not ASCII and folded when long."""
    if value.isascii() and len(name) + len(value) < 76 and "\n" not in value:
        return f"{name}: {value}"
    charset = "us-ascii" if value.isascii() else "utf-8"
    return f"{name}: " + Header(value, charset, header_name=name).encode(linesep="\n")


@lru_cache(maxsize=4096)
def address_header(name: str, value: str) -> str:
    """``Name: Display Name <addr>``: only the display name is RFC 2047-encoded; the address
    itself stays as it is (UTF-8 where it is not ASCII, RFC 6532), so that it can be read.
    Kept for each name and value: every mail has three such headers, mostly the same ones
    (the service's own address, a player's), and parsing an address is slow."""
    display, address = split_address(value)
    if not address:
        return header(name, value)
    if not display:
        return f"{name}: {address}"
    if not display.isascii():
        phrase = Header(display, "utf-8").encode()
    elif any(c in _SPECIALS for c in display):
        phrase = '"' + display.replace("\\", "\\\\").replace('"', '\\"') + '"'
    else:
        phrase = display
    return f"{name}: {phrase} <{address}>"


_SPECIALS = '()<>@,;:\\".[]'
"""Characters that make a display name a quoted string (RFC 5322 3.2.3)."""


_ATOMS = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_PLAIN_ADDRESS = re.compile(
    rf"(?P<bare>{_ATOMS}@{_ATOMS})|(?P<name>[A-Za-z0-9 ]*)<(?P<address>{_ATOMS}@{_ATOMS})>"
)
"""The common forms, ``alice@example.org`` and ``Alice Smith <alice@example.org>``, which
:func:`split_address` reads without the standard library's slower general parser."""


def split_address(value: str) -> tuple[str, str]:
    """(display name, address) of one address, as ``email.utils.parseaddr`` reads it."""
    plain = _PLAIN_ADDRESS.fullmatch(value)
    if plain is None:
        return parseaddr(value)
    if plain.group("bare"):
        return "", plain.group("bare")
    return " ".join(plain.group("name").split()), plain.group("address")


def fold_ids(name: str, ids: Sequence[str]) -> str:
    """A header of message ids (References), one id per line after the first."""
    return f"{name}: " + "\n ".join(ids)


def message_bytes(
    headers: Sequence[str],
    *,
    text: Part,
    html: Part | None = None,
    related: Sequence[Part] = (),
    attachments: Sequence[Part] = (),
    seed: str,
) -> bytes:
    """The whole message: ``headers`` (already formatted lines) and the body parts."""
    tag = hashlib.sha256(seed.encode()).hexdigest()[:24]
    if html is not None and related:
        html_tree = _multipart("related", [_leaf(html), *map(_leaf, related)], f"{tag}r")
        alternative = _multipart("alternative", [_leaf(text), html_tree], f"{tag}a")
    elif html is not None:
        alternative = _multipart("alternative", [_leaf(text), _leaf(html)], f"{tag}a")
    else:
        alternative = _leaf(text)
    if attachments:
        top = _multipart("mixed", [alternative, *map(_leaf, attachments)], f"{tag}m")
    else:
        top = alternative
    head = "\n".join([*headers, "MIME-Version: 1.0", ""]).encode("utf-8")
    return head + top + b"\n"


def _leaf(part: Part) -> bytes:
    """A part's headers, a blank line and its encoded content (bytes: a round's pictures are
    large and the same in every mail, so they are encoded once and only copied)."""
    lines = [f"Content-Type: {part.content_type}"]
    if part.text:
        lines.append("Content-Transfer-Encoding: quoted-printable")
        data = binascii.b2a_qp(part.content, istext=True)
    else:
        lines.append("Content-Transfer-Encoding: base64")
        data = _base64(part.content)
    if part.content_id:
        lines.append(f"Content-ID: <{part.content_id}>")
    if part.filename:
        disposition = "inline" if part.inline else "attachment"
        lines.append(f'Content-Disposition: {disposition}; filename="{part.filename}"')
    elif part.inline:
        lines.append("Content-Disposition: inline")
    return ("\n".join(lines) + "\n\n").encode("ascii") + data.rstrip(b"\n")


@lru_cache(maxsize=16)
def _base64(content: bytes) -> bytes:
    """A round's pictures go into every player's mail: encoded once, not once a mail."""
    return base64.encodebytes(content)


def _multipart(subtype: str, parts: Sequence[bytes], boundary: str) -> bytes:
    marker = f"--=_{boundary}".encode("ascii")
    # RFC 2046 5.1.1: the header fields end with a blank line before the first boundary.
    pieces = [f'Content-Type: multipart/{subtype}; boundary="=_{boundary}"\n\n'.encode("ascii")]
    for part in parts:
        pieces += [marker, b"\n", part, b"\n\n"]
    pieces += [marker, b"--"]
    return b"".join(pieces)
