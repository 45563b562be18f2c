"""A notice: one thing the service tells one recipient, as the use-case decided it, before any
channel renders it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.mail.compose import Attachment
from adjudicator.mail.images import InlineImage
from adjudicator.mail.parse import InboundMail


@dataclass(frozen=True)
class Threading:
    """Where a mail sits in its conversation, and how automatic it is (RFC 3834)."""

    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto: str = "auto-generated"
    reply_to: str | None = None


@dataclass(frozen=True)
class Notice:
    """One thing told to one recipient.

    ``kind`` is also its template (``templates/mail/<kind>.txt.j2``, or the game's own
    ``<game kind>/<kind>`` when it has one); the outbox files it under ``label`` when that is
    set (the game master's copy of a notice, ``gm:copy``). ``key`` makes it unique: queuing a
    notice whose key is queued already does nothing, so a step done twice tells nobody twice.

    A notice that ``answers`` a mail its recipient just sent is threaded under that mail, may
    be held back (the answer limits, the loop guard: ``queue.py``) unless ``proven``, and goes
    out before the other mails due. Any other notice about a game is threaded under the game;
    ``threading`` sets the thread outright instead. A notice to a seat (``seat_id``) goes out
    with the seat's bounce and reply addresses; ``reply_to`` names another reply address.

    A notice that ``may_wait`` (what the use-case says can wait: a result, press, news) is
    held for its recipient's daily digest when he takes one (``digest.py``); any other goes at
    once.
    """

    kind: str
    recipient: str
    context: Mapping[str, Any]
    key: str
    game_id: int | None = None
    round_id: int | None = None
    seat_id: int | None = None
    answers: InboundMail | None = None
    proven: bool = False
    threading: Threading | None = None
    reply_to: str | None = None
    label: str | None = None
    attachments: Sequence[Attachment] = ()
    images: Sequence[InlineImage] = ()
    channel: str = "mail"
    may_wait: bool = False

    @property
    def filed_as(self) -> str:
        """The kind the outbox keeps it under (what ``adjudicate outbox`` lists)."""
        return self.label or self.kind
