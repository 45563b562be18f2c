"""Building outgoing mail: Jinja2 templates in, RFC 5322 bytes out.

Every mail the service sends is marked as automatic (RFC 3834 ``Auto-Submitted``) and carries
``X-Loop`` with the service's address, so that two robots never answer each other for ever.
Message-IDs are derived from the outbox key: re-queuing a mail gives it the same Message-ID.
A game's mails thread together under one root Message-ID per game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


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


class Renderer:
    """Renders the templates of ``templates/``; missing variables are errors, not blanks."""

    def __init__(self, folder: Path = TEMPLATES) -> None:
        self.env = Environment(
            loader=FileSystemLoader(str(folder)),
            autoescape=select_autoescape(["html", "html.j2"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        return self.env.get_template(name).render(**context)

    def exists(self, name: str) -> bool:
        return name in self.env.list_templates()


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str
    subtype: str


def build_message(
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
    reply_to: str | None = None,
) -> EmailMessage:
    """A complete message; ``auto`` is ``auto-replied`` for answers to a mail, else
    ``auto-generated`` (RFC 3834)."""
    message = EmailMessage()
    message["From"] = Address(identity.name, addr_spec=identity.address)
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(now)
    message["Message-ID"] = message_id(key, identity)
    if reply_to:
        message["Reply-To"] = reply_to
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    if references:
        message["References"] = " ".join(references)
    message["Auto-Submitted"] = auto
    message["X-Loop"] = identity.address
    message["X-Auto-Response-Suppress"] = "All"
    message["Precedence"] = "bulk" if auto == "auto-generated" else "auto_reply"
    message.set_content(text, cte="quoted-printable")
    if html is not None:
        message.add_alternative(html, subtype="html", cte="quoted-printable")
    for attachment in attachments:
        message.add_attachment(
            attachment.content,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )
    return message
