"""The outbox: mails are queued in the transaction that causes them and sent afterwards.

Queuing is idempotent (a unique key per mail), so re-running a step queues nothing twice;
sending is at-least-once, as SMTP is. Temporary failures retry with exponential backoff;
permanent ones are kept as failed for the game master.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from adjudicator.faults import crash_point
from adjudicator.mail.smtp import MailSender, SendResult, SendStatus
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, OutboxStatus

MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=30)
LAST_RETRY = timedelta(hours=2)


def queue_mail(
    session: Session,
    *,
    key: str,
    kind: str,
    recipient: str,
    message: bytes,
    now: datetime,
    game_id: int | None = None,
    round_id: int | None = None,
    envelope_sender: str | None = None,
) -> bool:
    """Queue a mail unless one with the same key is queued already; True when queued now."""
    exists = session.exec(select(OutboxMail.id).where(OutboxMail.key == key)).first()
    if exists is not None:
        return False
    session.add(
        OutboxMail(
            key=key,
            kind=kind,
            recipient=recipient,
            message=message,
            game_id=game_id,
            round_id=round_id,
            envelope_sender=envelope_sender,
            next_attempt_at=now,
            created_at=now,
        )
    )
    return True


def retry_delay(attempts: int) -> timedelta:
    delay: timedelta = FIRST_RETRY * (2 ** max(attempts - 1, 0))
    return min(delay, LAST_RETRY)


def claim_due(session: Session, *, now: datetime, limit: int) -> list[OutboxMail]:
    """Pending mails that are due, locked for this sender (``SKIP LOCKED`` on PostgreSQL, so
    several service instances never send the same mail at once)."""
    query = (
        select(OutboxMail)
        .where(OutboxMail.status == OutboxStatus.PENDING, OutboxMail.next_attempt_at <= now)
        .order_by(col(OutboxMail.id))
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return list(session.exec(query))


def record_results(
    session: Session, mails: list[OutboxMail], results: list[SendResult], *, now: datetime
) -> None:
    for mail, result in zip(mails, results, strict=True):
        mail.attempts += 1
        if result.status == SendStatus.SENT:
            mail.status, mail.sent_at, mail.last_error = OutboxStatus.SENT, now, None
        elif result.status == SendStatus.PERMANENT or mail.attempts >= MAX_ATTEMPTS:
            mail.status, mail.last_error = OutboxStatus.FAILED, _detail(result)
        else:
            mail.next_attempt_at = now + retry_delay(mail.attempts)
            mail.last_error = _detail(result)
        session.add(mail)


def _detail(result: SendResult) -> str:
    code = f"{result.code} " if result.code else ""
    return f"{result.stage}: {code}{result.text}".strip()


async def send_due(
    engine: Engine,
    sender: MailSender,
    *,
    bounce_address: str,
    now: Callable[[], datetime],
    batch: int = 200,
) -> int:
    """Send every due mail, in batches, over ``sender``; return how many were sent.

    A batch whose every mail failed for a temporary reason ends the pass: the server is down,
    and the next pass (after the backoff) tries again.
    """
    sent = 0
    while True:
        with session_scope(engine) as session:
            mails = claim_due(session, now=now(), limit=batch)
            if not mails:
                return sent
            results = [
                await sender.send(
                    mail.message,
                    sender=mail.envelope_sender or bounce_address,
                    recipients=[mail.recipient],
                )
                for mail in mails
            ]
            crash_point("sent")  # accepted by the server, not yet marked: sent again on restart
            record_results(session, mails, results, now=now())
            sent += sum(result.sent for result in results)
            if not any(result.sent for result in results):
                return sent
