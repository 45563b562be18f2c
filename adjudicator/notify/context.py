"""What the use-cases need besides the database: who the service is, its templates, the key
behind receipts and the channels its notices go by besides mail; and what a channel is."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

from sqlmodel import Session

from adjudicator.mail.compose import Identity, Renderer
from adjudicator.mail.images import PictureConverter, PngCache
from adjudicator.mail.vips import VipsConverter
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import BatchSender, PendingMail
from adjudicator.readmodel.links import rules_file


class Channel(Protocol):
    """A way to tell a notice: it renders the notice into what it delivers, reading only; the
    outbox keeps that in the channel's own lane (``OutboxMail.channel``) and hands it to the
    channel's sender after the commit (``outbox.send_due``), with every guarantee of the
    outbox: retried with backoff, given up only when refused for good, sent at least once,
    never lost by a crash. ``adjudicate serve`` drains every channel's lane with its sender
    (``serve/lanes.py``), each lane with a backoff of its own. Mail is the first channel
    (``mail.MailChannel``); a second one is one class, given to the service in
    ``ServiceContext.channels``."""

    @property
    def name(self) -> str:
        """The lane: ``Notice.channel`` and ``OutboxMail.channel``."""
        ...

    def prepare(
        self, session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime
    ) -> PendingMail:
        """The notice rendered for this channel, ready to queue; reads only."""
        ...

    def sender(self) -> BatchSender:
        """What delivers the lane: called once when the service starts, closed when it
        stops. Each envelope it is handed is (what ``prepare`` rendered, the envelope sender,
        the recipient); a result per envelope says how it went (``SendResult``: sent, refused
        for now, refused for good)."""
        ...


@runtime_checkable
class Follower(Protocol):
    """A channel that tells what mail tells, its own way (webhooks): when a mail notice is
    queued, the notices it means for this channel are queued with it, in the same transaction
    (``queue.queue_notice``). Its lane gives a notice up after ``give_up_after``, not after a
    number of attempts (``outbox.record_results``)."""

    @property
    def give_up_after(self) -> timedelta: ...

    def follow(
        self, session: Session, told: Notice | PendingMail, *, ctx: ServiceContext, now: datetime
    ) -> list[Notice]:
        """The notices of this channel that go with ``told``, a mail notice being queued."""
        ...


@dataclass(frozen=True)
class ServiceContext:
    identity: Identity
    renderer: Renderer
    receipt_key: bytes
    max_bytes: int = 1_000_000
    archive_url: str = ""  # the published archive, linked from mails; empty: not published
    pngs: PngCache = field(default_factory=PngCache, compare=False)  # the last pictures made
    converter: PictureConverter = field(default_factory=VipsConverter, compare=False)
    # The channels besides mail (``channels.py``): a notice names its own (``Notice.channel``).
    channels: tuple[Channel, ...] = field(default=(), compare=False)

    def archive_link(self, game: str, page: str = "") -> str | None:
        """The address of a game's archive page (``page`` inside its folder), if published."""
        if not self.archive_url:
            return None
        return f"{self.archive_url.rstrip('/')}/{game}/{page}"

    def rules_link(self, kind: str) -> str | None:
        """The address of a game kind's rules page in the archive, if published."""
        if not self.archive_url:
            return None
        return f"{self.archive_url.rstrip('/')}/{rules_file(kind)}"

    @property
    def own_addresses(self) -> frozenset[str]:
        return frozenset({self.identity.address.lower()})
