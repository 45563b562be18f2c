"""Helpers for tests that play games through the service: the fixture clock, a game created
and started, orders stored for a player, the open round closed, the mails queued."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from adjudicator.core.game import Setup
from adjudicator.notify.outbox import PendingMail, queue_pending
from adjudicator.service import batch_intake
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.creation import NewGame, set_up_game
from adjudicator.service.games import Credentials, PlayerSpec, find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, OutboxMail, Seat, Submission

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
"""Where the fixture clock (tests/service/conftest.py) starts."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def at(self, **offset: float) -> datetime:
        """Set to ``START`` plus ``offset``."""
        self.now = START + timedelta(**offset)
        return self.now


def clock_of(app: App) -> Clock:
    assert isinstance(app.clock, Clock)
    return app.clock


SERVICE = "judge@pbem.test"
"""The service's address in the fixture app."""


def plain_mail(
    sender: str, body: str, *, subject: str, message_id: str, to: str = SERVICE
) -> bytes:
    """A plain-text mail as a player's client sends it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id
    message.set_content(body)
    return message.as_bytes()


def player_mail(game: str, sender: str, body: str, *, number: int = 0) -> bytes:
    """A player's mail to the service about ``game``: from ``sender`` (a handle, at
    example.org), tagged ``[game]`` in the subject; ``number`` makes its bytes unique."""
    return plain_mail(
        f"{sender}@example.org",
        body,
        subject=f"[{game}] orders",
        message_id=f"<{sender}-{number}@example.org>",
    )


def new_game(
    app: App,
    players: Sequence[str],
    *,
    name: str = "gw1",
    kind: str = "giveaway",
    settings: Mapping[str, Any] | None = None,
    gm_address: str | None = None,
    welcome: bool = False,
    setup: Setup | None = None,
    schedule: str = "72h",
    start: bool = True,
    told: bool = False,
) -> dict[str, Credentials]:
    """A game of ``players`` (handles, at example.org), ``schedule`` a round, started (the
    seats the computer plays move) unless ``start`` is false (a game open for sign-up);
    ``welcome`` queues the welcome mails too, ``told`` the game master's notice that the game
    was made; ``setup`` a board game's starting position other than the rules' own. The
    credentials by handle."""
    new = NewGame(
        name=name,
        kind=kind,
        players=[PlayerSpec(p, f"{p}@example.org") for p in players],
        schedule=schedule,
        settings=dict(settings or {}),
        gm_address=gm_address,
        setup=setup or Setup(),
    )
    with session_scope(app.engine) as session:
        _, credentials = set_up_game(
            session, new, ctx=app.ctx, now=app.clock(), start=start, welcome=welcome, tell_gm=told
        )
    return {c.handle: c for c in credentials}


def add_orders(app: App, game: str, handle: str, *lines: str) -> None:
    """Store ``lines`` as ``handle``'s orders in force for the open round of ``game``, as the
    intake would after checking them."""
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, game))
        seat = session.exec(select(Seat).where(Seat.handle == handle)).one()
        assert round_ is not None
        assert round_.id is not None
        assert seat.id is not None
        session.add(
            OrderSet(
                round_id=round_.id,
                seat_id=seat.id,
                lines=list(lines),
                receipt="r",
                created_at=app.clock(),
            )
        )


def close_open_round(app: App, game: str) -> None:
    """Close and adjudicate the open round of ``game`` now, as at its deadline."""
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, game))
        assert round_ is not None
        assert round_.id is not None
        close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)

    app.report()  # pictures made, then the result mails queued


def queued(app: App, kind: str | None = None) -> list[EmailMessage]:
    """The mails queued (of one ``kind``), oldest first; ``X-Test-Kind`` holds each one's kind."""
    with Session(app.engine) as session:
        query = select(OutboxMail).order_by(col(OutboxMail.id))
        if kind is not None:
            query = query.where(OutboxMail.kind == kind)
        found = []
        for row in session.exec(query):
            parsed: EmailMessage = message_from_bytes(row.message, policy=policy.default)
            parsed["X-Test-Kind"] = row.kind
            found.append(parsed)
        return found


def queue_test_mails(engine: Engine, numbers: range, *, now: datetime) -> None:
    """Mails of kind ``test`` due at ``now`` in the outbox, mail n to pn@example.org."""
    with session_scope(engine) as session:
        for n in numbers:
            message = EmailMessage()
            message["From"] = "judge@pbem.test"
            message["To"] = f"p{n}@example.org"
            message["Subject"] = f"mail {n}"
            message["Message-ID"] = f"<m{n}@pbem.test>"
            message.set_content(f"mail number {n}\n")
            mail = PendingMail(f"test:{n}", "test", f"p{n}@example.org", message.as_bytes())
            queue_pending(session, mail, now=now)


def plain(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def fail_processing_of(monkeypatch: pytest.MonkeyPatch, sender: str) -> None:
    """Make the processing of each mail from ``sender`` (an address) raise once all its writes
    are done, as a failing template would."""
    real = batch_intake.process_claimed

    def broken(session: Session, submission: Submission, raw: bytes, **kw: Any) -> Any:
        status = real(session, submission, raw, **kw)
        if f"From: {sender}".encode() in raw:
            raise RuntimeError("template exploded")
        return status

    monkeypatch.setattr(batch_intake, "process_claimed", broken)


def poll(condition: Callable[[], bool], *, timeout: float) -> bool:
    """Whether ``condition`` came true within ``timeout`` seconds (asked every 50 ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def running(pid: int) -> bool:
    """Whether the process ``pid`` is running (``/proc``): not gone, and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def plans_of_reads(app: App, table: str, work: Callable[[], object]) -> list[list[str]]:
    """SQLite's plan (the steps of ``EXPLAIN QUERY PLAN``) of each SELECT from ``table`` that
    ``work`` runs: whether a read goes through an index or through the whole table."""
    asked: list[tuple[str, Any]] = []

    def kept(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and f"FROM {table}" in statement:
            asked.append((statement, parameters))

    event.listen(app.engine, "before_cursor_execute", kept)
    try:
        work()
    finally:
        event.remove(app.engine, "before_cursor_execute", kept)
    with app.engine.connect() as connection:
        return [
            [str(row[-1]) for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {s}", p)]
            for s, p in asked
        ]


def newest_to(app: App, address: str, *, kind: str | None = None) -> EmailMessage:
    """The newest mail queued for ``address`` (of one ``kind``)."""
    mails = [m for m in queued(app, kind) if m["To"] == address]
    assert mails, f"no mail to {address}"
    return mails[-1]


def client_reply(
    mail: EmailMessage,
    body: str,
    *,
    sender: str,
    message_id: str,
    to: str | None = None,
    written: datetime | None = None,
) -> bytes:
    """A reply to ``mail`` as a mail program writes it: to its Reply-To (else its From, or
    ``to``), "Re:" and its subject, In-Reply-To and References naming it, ``body`` on top and
    the mail quoted under an "On ... wrote:" line."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to or str(mail["Reply-To"] or mail["From"])
    message["Subject"] = f"Re: {mail['Subject']}"
    message["Message-ID"] = message_id
    message["In-Reply-To"] = str(mail["Message-ID"])
    message["References"] = " ".join(
        filter(None, [str(mail["References"] or ""), str(mail["Message-ID"])])
    )
    if written is not None:
        message["Date"] = format_datetime(written)
    quoted = "\n".join(f"> {line}" if line else ">" for line in plain(mail).splitlines())
    message.set_content(f"{body}\n\nOn {mail['Date']}, {mail['From']} wrote:\n{quoted}\n")
    return message.as_bytes()
