"""The players' side of the service running over real servers, shared by the end-to-end tests
of the conversation by mail (commands, press, seats, absences, the game master): mails are
appended to a real Dovecot, the running service (IMAP IDLE, SQLite, the outbox over SMTP)
answers them, and the answers arrive at a real aiosmtpd receiver, read as their recipients
read them."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from mailservers import IMAP_PASSWORD, Dovecot, SmtpSink
from playing import SERVICE, plain_mail
from sqlmodel import Session, func, select

from adjudicator.base.config import Config, ImapConfig, ServiceConfig, SmtpConfig
from adjudicator.serve.runner import Service
from adjudicator.service.app import App, make_app
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.models import Game, OutboxMail, Round


@dataclass
class Mail:
    """One mail the receiver got, read as its recipient reads it."""

    to: str
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def text(self) -> str:
        body = self.message.get_body(preferencelist=("plain",))
        assert body is not None
        return str(body.get_content())

    @property
    def html(self) -> str:
        body = self.message.get_body(preferencelist=("html",))
        return str(body.get_content()) if body is not None else ""

    @property
    def flat(self) -> str:
        """The plain text with its lines joined (wrapping does not matter)."""
        return " ".join(self.text.split())


class Running:
    """The service's main loop in a thread of its own, stopped at the end of the test."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.service: Service | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.ready = threading.Event()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.service = Service(self.app)
            self.ready.set()
            await self.service.run()

        self.loop.run_until_complete(main())

    def wake(self) -> None:
        assert self.service is not None
        self.loop.call_soon_threadsafe(self.service.wake.set)

    def stop(self) -> None:
        if self.service is not None:
            self.loop.call_soon_threadsafe(self.service.stop.set)
        self.thread.join(15)


class Table:
    """The service running over real servers, and the players' side of it."""

    def __init__(self, app: App, dovecot: Dovecot, user: str, sink: SmtpSink) -> None:
        self.app, self.dovecot, self.user, self.sink = app, dovecot, user, sink
        self.seen = 0
        self.number = 0

    def send(self, sender: str, body: str, *, subject: str = "commands", to: str = SERVICE) -> None:
        self.number += 1
        message_id = f"<m{self.number}@example.org>"
        mail = plain_mail(sender, body, subject=subject, message_id=message_id, to=to)
        self.dovecot.append(self.user, mail)

    def expect(self, count: int | None = None) -> list[Mail]:
        """The next ``count`` mails; and the outbox holds no more than those (every mail of a
        submission is queued in the transaction that processed it). ``None``: as many as the
        outbox holds once the first has arrived."""
        self.sink.wait_for(self.seen + 1, timeout=30)
        with Session(self.app.engine) as session:
            queued = session.exec(select(func.count()).select_from(OutboxMail)).one()
        if count is not None:
            assert queued == self.seen + count, f"{queued - self.seen} mails, not {count}"
        received = self.sink.wait_for(queued, timeout=30)
        new = received[self.seen : queued]
        self.seen = queued
        return [
            Mail(r.rcpt_tos[0], message_from_bytes(r.content, policy=policy.default)) for r in new
        ]

    def one(self, kind_of_subject: str = "") -> Mail:
        (mail,) = self.expect(1)
        assert kind_of_subject in mail.subject
        return mail


def make_service(data: Path, dovecot: Dovecot, imap_user: str, sink: SmtpSink) -> App:
    """The service's app on a SQLite file in ``data``, reading ``imap_user``'s folder on
    Dovecot and sending to ``sink``."""
    config = Config(
        service=ServiceConfig(data_dir=str(data / "data"), address=SERVICE),
        smtp=SmtpConfig(host="127.0.0.1", port=sink.port),
        imap=ImapConfig(
            host="127.0.0.1",
            port=dovecot.port,
            username=imap_user,
            password=IMAP_PASSWORD,
            # Mail landing between a pass's SEARCH and its IDLE waits for this safety net
            # (Dovecot does not announce it): short, so that such a race costs seconds.
            poll_seconds=2,
        ),
    )
    return make_app(config)


def started_game(
    session: Session,
    app: App,
    name: str,
    players: tuple[str, ...],
    *,
    kind: str = "giveaway",
    settings: dict[str, Any] | None = None,
    gm_address: str | None = "gm@example.org",
) -> tuple[Game, Round, list[Credentials]]:
    """A 72-hour game of ``players`` (``handle@example.org``), started; no welcome queued."""
    game, creds = create_game(
        session,
        name=name,
        kind=kind,
        schedule="72h",
        settings={"early_close": False} if settings is None else settings,
        options={},
        players=[PlayerSpec(p, f"{p}@example.org") for p in players],
        now=app.clock(),
        gm_address=gm_address,
    )
    first = start_game(session, game, now=app.clock())
    return game, first, creds


@contextmanager
def serving(app: App) -> Iterator[Running]:
    """The service's main loop running until the block ends; then its database is let go."""
    running = Running(app)
    running.thread.start()
    try:
        yield running
    finally:
        running.stop()
        app.engine.dispose()
