"""A stored mail read whole: the mail (``parse.read_mail``) and its game sections' commands
(``commands.read_commands``). Pure, and needing nothing but the bytes and two settings, so that
a batch's mails can be read before the batch asks the database anything, in this process or in
another (``adjudicator/readers.py``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from adjudicator.mail.commands import MailSection, read_commands
from adjudicator.mail.parse import InboundMail, MailKind, read_mail


class Reading(NamedTuple):
    """A stored mail as read: the mail, and its game sections' commands (none unless it is an
    ordinary mail)."""

    mail: InboundMail
    sections: Sequence[MailSection]


Readings = Mapping[bytes, Reading | None]
"""Mails read ahead, by their bytes; None for one whose reading raised."""


def read_whole(raw: bytes, *, own_addresses: Collection[str], max_bytes: int) -> Reading:
    """Read ``raw`` as the service does (``own_addresses``: the service's own, whose mail is a
    loop; ``max_bytes``: the largest mail read in full)."""
    mail = read_mail(raw, own_addresses=own_addresses, max_bytes=max_bytes)
    return Reading(mail, read_commands(mail) if mail.kind == MailKind.ORDINARY else ())


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
