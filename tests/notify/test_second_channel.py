"""A second channel is one class: given to the service, its notices are queued in the
transaction that decided them, wait in their own lane of the outbox, and are delivered by its
own sender with the outbox's guarantees: nothing told when the deciding transaction rolls back,
a key told once however often it is queued, a failed delivery retried after the backoff, a
crash during delivery leaving the notice due, nothing delivered twice."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from adjudicator.mail.compose import Identity, Renderer
from adjudicator.mail.smtp import SendResult, SendStatus
from adjudicator.notify.channels import UnknownChannel
from adjudicator.notify.context import Channel, ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.outbox import Envelope, PendingMail, retry_delay, send_due
from adjudicator.notify.queue import prepare_notice, queue_notice
from adjudicator.storage.models import OutboxMail, OutboxStatus

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class Hook:
    """A channel that posts each notice as JSON to an address (a webhook, say): the whole of
    what a second channel needs, both its halves, rendering and delivering. ``failures``
    temporary refusals come first; ``crash`` makes the next delivery raise."""

    name = "hook"

    def __init__(self, *, failures: int = 0) -> None:
        self.failures = failures
        self.crash = False
        self.delivered: list[tuple[str, dict[str, object]]] = []

    def prepare(
        self, session: Session, notice: Notice, *, ctx: ServiceContext, now: datetime
    ) -> PendingMail:
        body = json.dumps({"kind": notice.kind, **notice.context}, sort_keys=True)
        return PendingMail(
            key=notice.key,
            kind=notice.filed_as,
            recipient=notice.recipient,
            message=body.encode(),
            game_id=notice.game_id,
            round_id=notice.round_id,
            channel=self.name,
        )

    def sender(self) -> Hook:
        return self  # it delivers its lane itself

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]:
        if self.crash:
            self.crash = False
            raise ConnectionResetError("the hook's server went away mid-post")
        results = []
        for payload, _sender, address in envelopes:
            if self.failures:
                self.failures -= 1
                results.append(SendResult(SendStatus.TEMPORARY, 503, "busy", "post"))
                continue
            self.delivered.append((address, json.loads(payload)))
            results.append(SendResult(SendStatus.SENT, 200, "ok", "post"))
        return results

    async def close(self) -> None:
        return None


def context_with(hook: Hook) -> ServiceContext:
    return ServiceContext(
        identity=Identity("judge@pbem.test"),
        renderer=Renderer(),
        receipt_key=b"k" * 32,
        channels=(hook,),
    )


def ping(key: str = "ping:1", *, channel: str = "hook") -> Notice:
    return Notice("ping", "https://hooks.example.org/x", {"round": 3}, key=key, channel=channel)


def deliver(engine: Engine, hook: Hook, *, at: datetime) -> int:
    return asyncio.run(
        send_due(engine, hook, bounce_address="judge@pbem.test", now=lambda: at, channel="hook")
    )


def rows(engine: Engine) -> list[OutboxMail]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxMail)))


def test_the_hook_is_a_channel() -> None:
    hook: Channel = Hook()  # mypy holds the class to the protocol
    assert hook.name == "hook"


def test_a_notice_is_told_only_when_its_transaction_commits_and_once_per_key(
    sqlite_engine: Engine,
) -> None:
    ctx = context_with(Hook())
    with Session(sqlite_engine) as session:
        assert queue_notice(session, ping(), ctx=ctx, now=NOW)
        session.rollback()  # the step that decided it failed: nobody is told
    assert rows(sqlite_engine) == []
    with Session(sqlite_engine) as session:
        assert queue_notice(session, ping(), ctx=ctx, now=NOW)
        assert not queue_notice(session, ping(), ctx=ctx, now=NOW)  # the step done again
        session.commit()
    with Session(sqlite_engine) as session:
        assert not queue_notice(session, ping(), ctx=ctx, now=NOW)
        session.commit()
    (row,) = rows(sqlite_engine)
    assert (row.channel, row.kind, row.status) == ("hook", "ping", OutboxStatus.PENDING)


def test_a_failed_delivery_is_retried_after_the_backoff_and_delivered_once(
    sqlite_engine: Engine,
) -> None:
    hook = Hook(failures=1)
    with Session(sqlite_engine) as session:
        queue_notice(session, ping(), ctx=context_with(hook), now=NOW)
        session.commit()
    assert deliver(sqlite_engine, hook, at=NOW) == 0
    (row,) = rows(sqlite_engine)
    assert (row.status, row.attempts) == (OutboxStatus.PENDING, 1)
    assert deliver(sqlite_engine, hook, at=NOW + retry_delay(1) / 2) == 0  # not due yet
    later = NOW + retry_delay(1)
    assert deliver(sqlite_engine, hook, at=later) == 1
    assert deliver(sqlite_engine, hook, at=later + timedelta(hours=1)) == 0
    assert hook.delivered == [("https://hooks.example.org/x", {"kind": "ping", "round": 3})]
    (row,) = rows(sqlite_engine)
    assert (row.status, row.attempts) == (OutboxStatus.SENT, 2)


def test_a_crash_during_delivery_leaves_the_notice_due(sqlite_engine: Engine) -> None:
    hook = Hook()
    with Session(sqlite_engine) as session:
        queue_notice(session, ping(), ctx=context_with(hook), now=NOW)
        session.commit()
    hook.crash = True
    with pytest.raises(ConnectionResetError):
        deliver(sqlite_engine, hook, at=NOW)
    (row,) = rows(sqlite_engine)
    assert (row.status, row.attempts) == (OutboxStatus.PENDING, 0)
    assert deliver(sqlite_engine, hook, at=NOW) == 1
    assert len(hook.delivered) == 1


def test_each_channel_sends_only_its_own_lane(sqlite_engine: Engine) -> None:
    """A mail waiting in the outbox is not the hook's to deliver, and the mail lane's pass
    does not hand the hook's notice to the mail server."""
    hook = Hook()
    with Session(sqlite_engine) as session:
        queue_notice(session, ping(), ctx=context_with(hook), now=NOW)
        session.add(
            OutboxMail(
                key="mail:1",
                kind="test",
                recipient="alice@example.org",
                message=b"Subject: hello\r\n\r\nhi\r\n",
                next_attempt_at=NOW,
                created_at=NOW,
            )
        )
        session.commit()
    assert deliver(sqlite_engine, hook, at=NOW) == 1
    by_key = {row.key: row for row in rows(sqlite_engine)}
    assert by_key["mail:1"].channel == "mail"  # the column's default: the first channel
    assert by_key["mail:1"].status == OutboxStatus.PENDING
    assert by_key["ping:1"].status == OutboxStatus.SENT


def test_a_notice_for_a_channel_the_service_was_not_given_is_refused(
    sqlite_engine: Engine,
) -> None:
    with Session(sqlite_engine) as session, pytest.raises(UnknownChannel, match="'sms'"):
        queue_notice(session, ping(channel="sms"), ctx=context_with(Hook()), now=NOW)


def test_a_notice_rendered_before_its_transaction_is_queued_once_in_it(
    sqlite_engine: Engine,
) -> None:
    """A round's results are rendered with no write lock held and queued in the transaction
    that marks the round reported: the same, for any channel."""
    ctx = context_with(Hook())
    with Session(sqlite_engine) as reading:
        prepared = prepare_notice(reading, ping(), ctx=ctx, now=NOW)
    with Session(sqlite_engine) as session:
        assert queue_notice(session, prepared, ctx=ctx, now=NOW)
        assert not queue_notice(session, ping(), ctx=ctx, now=NOW)  # its key: queued already
        session.commit()
    (row,) = rows(sqlite_engine)
    assert (row.channel, row.message) == ("hook", b'{"kind": "ping", "round": 3}')
