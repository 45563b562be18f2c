"""Mail sent from a sender process (``adjudicator/serve/sending.py``) against a real SMTP receiver:
the outbox's batches go out from the process, over connections it keeps open, and are recorded
by the service as ever; a process that dies or hangs costs a batch sent over the service's own
connections, nothing lost."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

import pytest
from mailservers import SmtpSink, running_smtp_sink
from playing import queue_test_mails
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from adjudicator.mail.smtp import SmtpSettings
from adjudicator.notify.outbox import send_due
from adjudicator.serve import sending
from adjudicator.serve.sending import SenderProcess
from adjudicator.storage.models import OutboxMail, OutboxStatus

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
JUDGE = "judge@pbem.test"
T = TypeVar("T")


def queue(engine: Engine, numbers: range) -> None:
    queue_test_mails(engine, numbers, now=NOW)


def statuses(engine: Engine) -> set[OutboxStatus]:
    with Session(engine) as session:
        return {mail.status for mail in session.exec(select(OutboxMail))}


def recipients(sink: SmtpSink) -> list[str]:
    return sorted(address for received in sink.received for address in received.rcpt_tos)


def addresses(numbers: range) -> list[str]:
    return sorted(f"p{n}@example.org" for n in numbers)


async def until_ready(sender: SenderProcess) -> None:
    """Until the process is up (it starts in the background), a minute at most."""
    for _ in range(1200):
        if sender.ready():
            return
        await asyncio.sleep(0.05)
    pytest.fail("the sender process did not start within a minute")


async def drain(engine: Engine, sender: SenderProcess, batch: int = 50) -> int:
    return await send_due(engine, sender, bounce_address=JUDGE, now=lambda: NOW, batch=batch)


def with_sender(sink: SmtpSink, work: Callable[[SenderProcess], Awaitable[T]]) -> T:
    """``work`` with a sender process of two connections to ``sink``, closed afterwards."""

    async def run() -> T:
        settings = SmtpSettings(host=sink.host, port=sink.port)
        sender = SenderProcess(settings, connections=2)
        try:
            await until_ready(sender)
            return await work(sender)
        finally:
            await sender.close()

    return asyncio.run(run())


async def process_id(sender: SenderProcess) -> int:
    assert sender.pool is not None
    return await asyncio.wrap_future(sender.pool.submit(os.getpid))


def test_a_batch_is_given_a_timeout_for_its_connection_and_each_of_its_mails() -> None:
    """The time a batch is given before the process is given up (the hang test patches it):
    each of the two connections is opened, then sends its share of the batch, each step within
    the SMTP timeout, and one timeout more to spare."""

    async def allowances(sender: SenderProcess) -> list[float]:
        return [sender.batch_timeout(mails) for mails in (1, 2, 3, 40)]

    with running_smtp_sink() as sink:
        allowed = with_sender(sink, allowances)
    timeout = SmtpSettings(host=sink.host, port=sink.port).timeout
    assert allowed == [3 * timeout, 3 * timeout, 4 * timeout, 22 * timeout]


def test_the_process_sends_each_due_mail_once_over_connections_it_keeps_open(
    sqlite_engine: Engine,
) -> None:
    queue(sqlite_engine, range(30))

    async def two_passes(sender: SenderProcess) -> tuple[int, int, int, int]:
        first = await drain(sqlite_engine, sender, batch=10)
        queue(sqlite_engine, range(30, 40))
        second = await drain(sqlite_engine, sender, batch=10)
        return first, second, sender.batches_sent, await process_id(sender)

    with running_smtp_sink() as sink:
        first, second, batches, pid = with_sender(sink, two_passes)
    assert (first, second) == (30, 10)
    assert batches == 4  # every batch went out from the process
    assert pid != os.getpid()
    assert recipients(sink) == addresses(range(40))
    assert all(received.mail_from == JUDGE for received in sink.received)
    assert sink.connections == 2  # one a lane, kept from the first pass to the second
    assert statuses(sqlite_engine) == {OutboxStatus.SENT}


def test_when_the_process_dies_its_batch_goes_over_the_services_own_connections(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sending, "RESTART_SECONDS", 0.0)  # a new process at once
    queue(sqlite_engine, range(10))

    async def kill_then_send(sender: SenderProcess) -> tuple[int, int, int, int]:
        os.kill(await process_id(sender), signal.SIGKILL)
        with caplog.at_level(logging.ERROR, logger="adjudicator.sending"):
            sent = await drain(sqlite_engine, sender)
        lost_on = sender.batches_sent
        await until_ready(sender)  # a new process starts
        queue(sqlite_engine, range(10, 15))
        again = await drain(sqlite_engine, sender)
        return sent, lost_on, again, sender.batches_sent

    with running_smtp_sink() as sink:
        sent, lost_on, again, batches = with_sender(sink, kill_then_send)
    assert (sent, lost_on) == (10, 0)  # the service sent the batch itself
    assert "the service sends the mail itself" in caplog.text
    assert (again, batches) == (5, 1)  # the new process sent the next
    assert recipients(sink) == addresses(range(15))  # each once
    assert statuses(sqlite_engine) == {OutboxStatus.SENT}


def test_a_process_that_hangs_is_given_up_after_its_time(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(SenderProcess, "batch_timeout", lambda self, mails: 1.0)
    queue(sqlite_engine, range(4))
    stopped: list[int] = []

    async def stop_then_send(sender: SenderProcess) -> tuple[int, bool]:
        stopped.append(await process_id(sender))
        os.kill(stopped[0], signal.SIGSTOP)
        with caplog.at_level(logging.ERROR, logger="adjudicator.sending"):
            sent = await drain(sqlite_engine, sender)
        return sent, sender.ready()

    try:
        with running_smtp_sink() as sink:
            sent, ready = with_sender(sink, stop_then_send)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGKILL)
    assert sent == 4
    assert "the sender process took over 1 s for a batch" in caplog.text
    assert not ready  # replaced only after RESTART_SECONDS
    assert recipients(sink) == addresses(range(4))
    assert statuses(sqlite_engine) == {OutboxStatus.SENT}
