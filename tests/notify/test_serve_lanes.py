"""The running service delivers every channel's lane: a channel given to the service in
``ServiceContext.channels`` has its notices delivered by ``adjudicate serve`` (and by
``serve --once``), once each, a temporary refusal retried after the backoff; and each lane
waits for its own server alone: a channel that is down never holds mail back, and an SMTP
server that is down never holds the channel back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from mailservers import free_port
from sqlmodel import Session, select
from test_second_channel import Hook, ping

from adjudicator.base.config import Config, ServiceConfig, SmtpConfig
from adjudicator.mail.smtp import SendResult
from adjudicator.notify.outbox import Envelope, PendingMail, queue_pending, retry_delay
from adjudicator.notify.queue import queue_notice
from adjudicator.serve.runner import Service
from adjudicator.service.app import App, make_app
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, OutboxStatus

ADDRESS = "judge@pbem.test"
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
LIMIT = 30.0  # seconds any one thing may take on a busy machine


class DownHook(Hook):
    """A hook whose server never answers: every delivery raises."""

    def __init__(self) -> None:
        super().__init__()
        self.tries = 0

    async def send_batch(self, envelopes: Sequence[Envelope]) -> list[SendResult]:
        self.tries += 1
        raise ConnectionRefusedError("the hook's server is down")


def app_with(tmp_path: Path, hook: Hook, *, smtp: SmtpConfig | None = None) -> App:
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path), address=ADDRESS, workers=1),
        smtp=smtp or SmtpConfig(),
    )
    app = make_app(config)
    app.ctx = replace(app.ctx, channels=(hook,))
    return app


def queue(app: App, key: str = "ping:1", *, mail: bool = False) -> None:
    with session_scope(app.engine) as session:
        queue_notice(session, ping(key), ctx=app.ctx, now=app.clock())
        if mail:
            message = b"Subject: hello\r\nTo: alice@example.org\r\n\r\nhi\r\n"
            queue_pending(
                session,
                PendingMail(
                    key="mail:1", kind="test", recipient="alice@example.org", message=message
                ),
                now=app.clock(),
            )


def row(app: App, key: str) -> OutboxMail:
    with Session(app.engine) as session:
        return session.exec(select(OutboxMail).where(OutboxMail.key == key)).one()


def mails_out(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "outbox-maildir" / "new"
    return list(folder.iterdir()) if folder.is_dir() else []


async def until(condition: Callable[[], bool], what: str) -> None:
    """A bounded poll for ``condition`` while the service runs."""
    deadline = time.monotonic() + LIMIT
    while not await asyncio.to_thread(condition):
        assert time.monotonic() < deadline, f"not within {LIMIT:g} s: {what}"
        await asyncio.sleep(0.05)


def test_serve_once_delivers_the_channels_lane(tmp_path: Path) -> None:
    hook = Hook()
    app = app_with(tmp_path, hook)
    try:
        queue(app)
        asyncio.run(Service(app).run(once=True))
        assert hook.delivered == [("https://hooks.example.org/x", {"kind": "ping", "round": 3})]
        assert row(app, "ping:1").status == OutboxStatus.SENT
    finally:
        app.engine.dispose()


def test_the_running_service_delivers_a_channels_notice_once_and_retries_a_refusal(
    tmp_path: Path,
) -> None:
    hook = Hook(failures=1)  # the first delivery is refused for now (503)
    app = app_with(tmp_path, hook)
    clock = [START]
    app.clock = lambda: clock[0]

    async def scenario() -> None:
        service = Service(app)
        running = asyncio.ensure_future(service.run())
        try:
            queue(app)
            service.wake.set()
            await until(lambda: row(app, "ping:1").attempts == 1, "the first delivery")
            assert row(app, "ping:1").status == OutboxStatus.PENDING
            assert hook.delivered == []
            clock[0] = START + retry_delay(1)  # the backoff is over
            service.wake.set()
            await until(lambda: row(app, "ping:1").status == OutboxStatus.SENT, "the retry")
            queue(app, "ping:2")  # a later notice: the loop turned past the first one
            service.wake.set()
            await until(lambda: row(app, "ping:2").status == OutboxStatus.SENT, "the second")
        finally:
            service.request_stop()
            await running

    try:
        asyncio.run(scenario())
        assert [address for address, _ in hook.delivered] == ["https://hooks.example.org/x"] * 2
        assert row(app, "ping:1").attempts == 2
    finally:
        app.engine.dispose()


def test_mail_goes_out_while_a_channel_is_down(tmp_path: Path) -> None:
    hook = DownHook()
    app = app_with(tmp_path, hook)

    async def scenario() -> None:
        service = Service(app)
        running = asyncio.ensure_future(service.run())
        try:
            queue(app, mail=True)
            service.wake.set()
            await until(lambda: hook.tries > 0 and bool(mails_out(tmp_path)), "the mail")
            assert not running.done()  # the channel's failure did not end the service
        finally:
            service.request_stop()
            await running

    try:
        asyncio.run(scenario())
        assert row(app, "mail:1").status == OutboxStatus.SENT
        hooked = row(app, "ping:1")  # waits, its attempts unspent, for its server
        assert (hooked.status, hooked.attempts) == (OutboxStatus.PENDING, 0)
    finally:
        app.engine.dispose()


def test_a_channel_is_delivered_while_the_smtp_server_is_down(tmp_path: Path) -> None:
    hook = Hook()
    app = app_with(tmp_path, hook, smtp=SmtpConfig(host="127.0.0.1", port=free_port()))

    async def scenario() -> None:
        service = Service(app)
        running = asyncio.ensure_future(service.run())
        try:
            queue(app, mail=True)
            service.wake.set()
            await until(lambda: bool(hook.delivered), "the hook's notice")
        finally:
            service.request_stop()
            await running

    try:
        asyncio.run(scenario())
        mail = row(app, "mail:1")  # waits, its attempts unspent, for the SMTP server
        assert (mail.status, mail.attempts) == (OutboxStatus.PENDING, 0)
    finally:
        app.engine.dispose()
