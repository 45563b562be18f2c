"""A stored mail read whole: the mail (``parse.read_mail``), its game sections' commands
(``commands.read_commands``) and its bytes with the secrets it holds taken out
(``redact.py``), to be stored in place of them once it is processed. Pure, and needing nothing
but the bytes and two settings, so that a batch's mails can be read before the batch asks the
database anything, in this process or in another (``adjudicator/serve/reader_process.py``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from adjudicator.mail.commands import MailSection, read_commands
from adjudicator.mail.parse import InboundMail, MailKind, read_mail
from adjudicator.mail.redact import own_tags, redact


class Reading(NamedTuple):
    """A stored mail as read: the mail, and its game sections' commands (none unless it is an
    ordinary mail)."""

    mail: InboundMail
    sections: Sequence[MailSection]
    redacted: bytes | None = None
    """The bytes with the passwords the mail holds, and the tags of the personal reply
    addresses it went to, taken out; None when they hold none."""


Readings = Mapping[bytes, Reading | None]
"""Mails read ahead, by their bytes; None for one whose reading raised."""


def read_whole(raw: bytes, *, own_addresses: Collection[str], max_bytes: int) -> Reading:
    """Read ``raw`` as the service does (``own_addresses``: the service's own, whose mail is a
    loop; ``max_bytes``: the largest mail read in full)."""
    mail = read_mail(raw, own_addresses=own_addresses, max_bytes=max_bytes)
    sections = read_commands(mail) if mail.kind == MailKind.ORDINARY else ()
    secrets = [secret for section in sections for secret in section.secrets]
    redacted = redact(raw, [*secrets, *own_tags(mail.recipients, own_addresses)])
    return Reading(mail, sections, None if redacted == raw else redacted)


def read_all(
    raws: Sequence[bytes], *, own_addresses: Collection[str], max_bytes: int
) -> list[Reading | None]:
    """Each of ``raws`` read; None for one whose reading raised (read again where it is
    processed, it fails there alone)."""
    readings: list[Reading | None] = []
    for raw in raws:
        try:
            readings.append(read_whole(raw, own_addresses=own_addresses, max_bytes=max_bytes))
        except Exception:  # the processing reads it again, and reports it
            readings.append(None)
    return readings
