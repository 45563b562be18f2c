"""The outbox: mails are queued in the transaction that causes them and sent afterwards.

Queuing is idempotent (a unique key per mail), so re-running a step queues nothing twice;
sending is at-least-once, as SMTP is. Temporary failures retry with exponential backoff;
permanent ones are kept as failed, and a recipient refused for good is told to whoever must
act (``on_refused``: the game master, ``refused.py``). The operator lists, shows, retries and
drops them with ``adjudicate outbox`` (``outbox_care.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from sqlalchemy.engine import Engine
from sqlmodel import Session

from adjudicator.base.faults import crash_point
from adjudicator.base.logs import events as events_of
from adjudicator.mail.smtp import MailSender, SendResult, SendStatus
from adjudicator.storage import queries
from adjudicator.storage.db import insert_new
from adjudicator.storage.models import OutboxMail, OutboxStatus
from adjudicator.storage.write_lock import sqlite_write_lock

log = logging.getLogger(__name__)
events = events_of("adjudicator.outbox")

MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=30)
LAST_RETRY = timedelta(hours=2)

SESSION_STAGES = frozenset({"connect", "tls", "auth", "local"})
"""Where a failure says nothing about the mail: the server is down or unreachable, or will not
let us in (or the local outbox folder cannot be written)."""


Envelope = tuple[bytes, str, str]
"""A mail as it is handed to the server: its bytes, its envelope sender, its recipient."""


class OnRefused(Protocol):
    """Told, in the transaction that records it, of each mail that failed for good: the
    service's hook queues the game master's notice there (``refused.tell_refused``)."""

    def __call__(
        self, session: Session, mail: OutboxMail, result: SendResult, *, now: datetime
    ) -> object: ...


@runtime_checkable
class BatchSender(Protocol):
    """Sends a batch of mails at once and says how each went, in the batch's order:
    ``Lanes`` over connections of this process, or ``adjudicator.serve.sending.SenderProcess``."""

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]: ...

    async def close(self) -> None: ...


class Lanes:
    """Several senders (each its own SMTP connection, kept open) sharing each batch: each takes
    every n-th mail, one after another on its connection, and the senders work at once."""

    def __init__(self, senders: Sequence[MailSender]) -> None:
        self.senders = list(senders)

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]:
        """The results come back in the batch's order."""
        lanes = len(self.senders)

        async def lane(sender: MailSender, chunk: Sequence[Envelope]) -> list[SendResult]:
            results: list[SendResult] = []
            for message, envelope_sender, recipient in chunk:
                if results and _server_away(results[-1:]):
                    results.append(results[-1])  # no use knocking again: a timeout each
                    continue
                results.append(
                    await sender.send(message, sender=envelope_sender, recipients=[recipient])
                )
            return results

        done = await asyncio.gather(
            *(lane(s, envelopes[i::lanes]) for i, s in enumerate(self.senders))
        )
        results: list[SendResult] = [None] * len(envelopes)  # type: ignore[list-item]
        for i, chunk in enumerate(done):
            results[i::lanes] = chunk
        return results

    async def close(self) -> None:
        for sender in self.senders:
            await sender.close()


class ServerUnavailable(Exception):
    """Every mail of a batch failed before the server would take any: the server (or the
    connection to it) is away. Nothing of the batch was recorded: the mails stay due with their
    attempts unspent, so an outage of any length neither gives a mail up nor pushes it hours
    back; the caller waits (with its own backoff) and tries again."""


@dataclass(frozen=True)
class PendingMail:
    """A notice rendered by its channel, not queued yet (``queue.prepare_notice``): a round's
    results are rendered before the transaction that queues them, with no write lock held."""

    key: str
    kind: str
    recipient: str
    message: bytes
    game_id: int | None = None
    round_id: int | None = None
    envelope_sender: str | None = None
    answer: bool = False  # to a mail the recipient just sent: sent before the others due
    channel: str = "mail"  # the lane it waits in (``channels.py``)
    may_wait: bool = False  # may be held for the recipient's daily digest (``digest.py``)


def queue_pending(session: Session, mail: PendingMail, *, now: datetime) -> bool:
    """Queue a rendered mail unless one with its key is queued already; True when queued now
    (``queue.queue_notice`` renders and queues a notice; only tests queue raw mail here).
    A mail to no address (a seat the computer plays with nobody behind it) is not queued."""
    if not mail.recipient.strip():
        return False
    fields = asdict(mail)
    del fields["may_wait"]  # how it was queued, not what it is
    values = {
        **fields,
        "status": OutboxStatus.PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "created_at": now,
    }
    return insert_new(session, OutboxMail, values, key="key")


def retry_delay(attempts: int) -> timedelta:
    delay: timedelta = FIRST_RETRY * (2 ** max(attempts - 1, 0))
    return min(delay, LAST_RETRY)


def claim_due(
    session: Session, *, now: datetime, limit: int, channel: str = "mail"
) -> list[OutboxMail]:
    """Pending mails of ``channel``'s lane that are due, locked for this sender (``SKIP
    LOCKED`` on PostgreSQL, so several service instances never send the same mail at once)."""
    return queries.due_mails(session, now=now, limit=limit, channel=channel)


SECRET_KINDS = frozenset({"welcome", "takeover"})
"""Mails whose body holds a player's password and reply token: once sent (or given up), only
their header fields are kept, so that the outbox never keeps a secret readable."""

DROPPED = b"[The body of this mail held a player's password; it was dropped once sent.]\r\n"


_SECRET_FIELDS = (b"reply-to:",)
"""Header fields of such a mail that hold a secret too: the seat's personal reply address."""


def header_section(message: bytes) -> bytes:
    """A message's header fields without those that carry a secret, and the blank line."""
    head = message
    for end in (b"\r\n\r\n", b"\n\n"):
        at = message.find(end)
        if at >= 0:
            head = message[: at + len(end) // 2]
            break
    kept: list[bytes] = []
    keep = True
    for line in head.splitlines(keepends=True):
        if line[:1] not in (b" ", b"\t"):  # a field starts; folded lines follow their field
            keep = not line.lower().startswith(_SECRET_FIELDS)
        if keep:
            kept.append(line)
    return b"".join(kept) + b"\r\n"


def record_results(
    session: Session,
    mails: list[OutboxMail],
    results: list[SendResult],
    *,
    now: datetime,
    on_refused: OnRefused | None = None,
    give_up: timedelta | None = None,
) -> None:
    """``give_up``: a lane whose notices are given up after that long since they were queued
    (webhooks: a receiver down for an hour loses nothing), not after :data:`MAX_ATTEMPTS`."""
    for mail, result in zip(mails, results, strict=True):
        mail.attempts += 1
        if give_up is None:
            exhausted = mail.attempts >= MAX_ATTEMPTS
        else:
            exhausted = now - _aware(mail.created_at) >= give_up
        if result.status == SendStatus.SENT:
            mail.status, mail.sent_at, mail.last_error = OutboxStatus.SENT, now, None
        elif result.status == SendStatus.PERMANENT or exhausted:
            mail.status, mail.last_error = OutboxStatus.FAILED, _detail(result)
            if on_refused is not None:
                _tell(on_refused, session, mail, result, now=now)
        else:
            mail.next_attempt_at = now + retry_delay(mail.attempts)
            mail.last_error = _detail(result)
        if mail.status != OutboxStatus.PENDING and mail.kind in SECRET_KINDS:
            mail.message = header_section(mail.message) + DROPPED
        session.add(mail)


def _aware(moment: datetime) -> datetime:
    """A time read back from the database (SQLite keeps none of its zone: UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _tell(
    on_refused: OnRefused, session: Session, mail: OutboxMail, result: SendResult, *, now: datetime
) -> None:
    """``on_refused`` in a savepoint: a notice that cannot be queued is logged and never
    undoes the record of the batch (which would send its mails again)."""
    try:
        with session.begin_nested():
            on_refused(session, mail, result, now=now)
    except Exception:
        log.exception("telling of the refused mail %s failed", mail.id)


def _server_away(results: Sequence[SendResult]) -> bool:
    return bool(results) and all(
        not result.sent and result.stage in SESSION_STAGES for result in results
    )


def _detail(result: SendResult) -> str:
    code = f"{result.code} " if result.code else ""
    return f"{result.stage}: {code}{result.text}".strip()


async def send_due(
    engine: Engine,
    sender: MailSender | Sequence[MailSender] | BatchSender,
    *,
    bounce_address: str,
    now: Callable[[], datetime],
    batch: int = 50,
    on_recorded: Callable[[list[OutboxMail]], object] | None = None,
    meanwhile: Callable[[], Awaitable[object]] | None = None,
    on_refused: OnRefused | None = None,
    channel: str = "mail",
    give_up: timedelta | None = None,
) -> int:
    """Send every due mail of ``channel``'s lane (mail unless told), in batches; return how
    many were sent. Each channel has a sender of its own and a pass of its own over its lane;
    what follows holds for every lane. A batch in which every
    mail failed for a temporary reason ends the pass (the server is down: back off). When none
    could even be handed to the server (:data:`SESSION_STAGES`), ``ServerUnavailable`` is
    raised and the batch is left as it was.

    Given several senders (each its own SMTP connection, kept open), a batch is shared among
    them and sent over all at once (``Lanes``); the claim and the record of the batch are the
    same as with one, so nothing is sent twice and nothing is lost. The same holds for a
    ``BatchSender`` that sends from another process (``adjudicator/serve/sending.py``).

    The database work (claiming a batch, recording the results) runs in worker threads: the
    event loop keeps only the SMTP conversation. A mail is marked sent only after the server
    took it, so a crash in between sends it again (at least once, never lost).

    The results of one batch are recorded while the next one is sent: SQLite's write lock
    may be held by the intake for a moment, and the SMTP connection need not wait for it.
    The batch being recorded is left out of the next claim (PostgreSQL's row locks skip it
    too), so no mail is sent twice by one pass.

    ``meanwhile`` is awaited after each batch is handed over, while its record is written: a
    pass may last as long as a deadline's burst of results, and the caller reads new mail
    there (the Maildir), so that an answer to it goes out in this pass (answers are claimed
    first), not after the last result.
    """
    if isinstance(sender, BatchSender):
        lanes = sender
    else:
        lanes = Lanes([sender] if not isinstance(sender, Sequence) else sender)
    sent = 0
    recording: asyncio.Future[None] | None = None
    in_flight: set[int | None] = set()
    try:
        while True:
            session = Session(engine, expire_on_commit=False)
            try:
                claimed = await asyncio.to_thread(
                    claim_due, session, now=now(), limit=batch + len(in_flight), channel=channel
                )
                mails = [mail for mail in claimed if mail.id not in in_flight][:batch]
                if not mails:
                    await asyncio.to_thread(session.close)
                    return sent
                envelopes = [
                    (mail.message, mail.envelope_sender or bounce_address, mail.recipient)
                    for mail in mails
                ]
                results = await lanes.send_batch(envelopes)
            except BaseException:
                await asyncio.to_thread(session.close)  # rolls back: the mails stay due
                raise
            if _server_away(results):
                await asyncio.to_thread(session.close)  # rolls back: the mails stay due
                raise ServerUnavailable(_detail(results[0]))
            crash_point("sent")  # accepted by the server, not yet marked: sent again on restart
            if recording is not None:
                await recording  # at most one batch waiting for its record
            in_flight = {mail.id for mail in mails}
            recording = asyncio.ensure_future(
                asyncio.to_thread(
                    _record,
                    session,
                    mails,
                    results,
                    now(),
                    on_recorded,
                    on_refused=on_refused,
                    give_up=give_up,
                )
            )
            sent += sum(result.sent for result in results)
            if not any(result.sent for result in results):
                return sent
            if meanwhile is not None:
                await meanwhile()
    finally:
        if recording is not None:
            await recording


def _record(
    session: Session,
    mails: list[OutboxMail],
    results: list[SendResult],
    now: datetime,
    on_recorded: Callable[[list[OutboxMail]], object] | None,
    *,
    on_refused: OnRefused | None = None,
    give_up: timedelta | None = None,
) -> None:
    """Mark the batch sent (or failed, or due again later) and queue what ``on_refused``
    queues, commit, close the session; then tell ``on_recorded`` (metrics), whose failure
    never undoes the record."""
    try:
        with sqlite_write_lock(session.get_bind().engine):
            record_results(session, mails, results, now=now, on_refused=on_refused, give_up=give_up)
            session.commit()
    finally:
        session.close()
    for mail, result in zip(mails, results, strict=True):
        fields = {
            "outbox": mail.id,
            "kind": mail.kind,
            "game": mail.game_id,
            "round": mail.round_id,
        }
        if result.sent:
            events.info("mail.sent", **fields)
        else:
            events.warning(
                f"mail.{mail.status}", why=mail.last_error, attempts=mail.attempts, **fields
            )
    if on_recorded is not None:
        try:
            on_recorded(mails)
        except Exception:
            log.exception("recording metrics of sent mail failed")
