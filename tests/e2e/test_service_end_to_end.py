"""End to end over real servers: players' mails are appended to a real Dovecot, the running
service (IMAP IDLE, SQLite, the outbox over SMTP) answers them, and the answers arrive at a
real aiosmtpd receiver."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import Running, make_service
from playing import plain_mail
from sqlmodel import Session, select

from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Round, RoundResult, RoundState

pytestmark = pytest.mark.real_pictures  # the service as it runs, pictures and all

PLAYERS = ("alice", "bob", "carol")


def order_mail(sender: str, body: str, *, message_id: str, game: str = "gw7") -> bytes:
    subject = f"Re: [{game}] orders"
    return plain_mail(f"{sender}@example.org", body, subject=subject, message_id=message_id)


@pytest.fixture
def game_app(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[App, dict[str, Credentials]]]:
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw7",
            kind="giveaway",
            schedule="72h",
            settings={"early_close": False},  # the round closes at its deadline, below
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            now=app.clock(),
        )
        first = start_game(session, game, now=app.clock())
        queue_welcome(
            session,
            ctx=app.ctx,
            game=game,
            credentials=credentials,
            first_round=first,
            now=app.clock(),
        )
    yield app, {c.handle: c for c in credentials}
    app.engine.dispose()


def _text(content: bytes) -> str:
    message = message_from_bytes(content, policy=policy.default)
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def test_orders_by_mail_are_confirmed_and_results_mailed(
    game_app: tuple[App, dict[str, Credentials]],
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
) -> None:
    app, creds = game_app
    running = Running(app)
    running.thread.start()
    try:
        welcomes = smtp_sink.wait_for(3, timeout=15)
        assert sorted(r.rcpt_tos[0] for r in welcomes) == [f"{p}@example.org" for p in PLAYERS]
        for welcome in welcomes:
            handle = welcome.rcpt_tos[0].split("@")[0]
            assert f"PASSWORD {creds[handle].secret}" in _text(welcome.content)

        orders = {
            "alice": "GIVE 1 TO bob\nGIVE 2 TO carol",
            "bob": "- give 1 to alice\n- give 2 to carol",
            "carol": "GIVE 3 TO alice",
        }
        for handle, body in orders.items():
            raw = order_mail(
                handle,
                f"PASSWORD {creds[handle].secret}\n{body}\n",
                message_id=f"<{handle}-1@example.org>",
            )
            dovecot.append(imap_user, raw)
        confirmations = smtp_sink.wait_for(6, timeout=20)[3:]
        by_player = {r.rcpt_tos[0].split("@")[0]: _text(r.content) for r in confirmations}
        assert "GIVE 1 TO bob" in by_player["alice"]
        assert "GIVE 2 TO carol" in by_player["bob"]
        assert "GIVE 3 TO alice" in by_player["carol"]

        # The same mail again (an IMAP re-delivery): stored once, never answered twice.
        dovecot.append(
            imap_user,
            order_mail(
                "carol",
                f"PASSWORD {creds['carol'].secret}\nGIVE 3 TO alice\n",
                message_id="<carol-1@example.org>",
            ),
        )
        # A bad mail is answered with its problem, and changes nothing.
        dovecot.append(
            imap_user,
            order_mail(
                "bob",
                f"PASSWORD {creds['bob'].secret}\nGIVE 9 TO alice\n",
                message_id="<bob-2@example.org>",
            ),
        )
        rejection = smtp_sink.wait_for(7, timeout=20)[6]
        assert rejection.rcpt_tos == ("bob@example.org",)
        assert "NOT accepted" in message_from_bytes(rejection.content)["Subject"]
        time.sleep(1.5)
        assert len(smtp_sink.received) == 7

        # The deadline passes: the round is adjudicated and everybody gets the result.
        app.clock = lambda: datetime.now(UTC) + timedelta(hours=73)
        closed = sweep(app.engine, ctx=app.ctx, now=app.clock())
        assert len(closed) == 1
        running.wake()
        results = smtp_sink.wait_for(10, timeout=20)[7:]
        assert sorted(r.rcpt_tos[0] for r in results) == [f"{p}@example.org" for p in PLAYERS]
        assert "Round 1 result" in message_from_bytes(results[0].content)["Subject"]
        with Session(app.engine) as session:
            result = session.exec(select(RoundResult)).one()
        # alice->bob 1 and bob->alice 1, with no other gift between them: a ring of two, each
        # receives 1 x 2. alice: 2 + 3 from carol; bob: 2; carol: 2 + 2.
        assert result.public_state["rings"] == [{"members": ["alice", "bob"], "amount": 1}]
        assert result.public_state["scores"] == {"alice": 5, "bob": 2, "carol": 4}
        # every player's mail has the standings chart: alice's bar ends with her score
        assert re.search(r"^ +alice +#+ +5\r?$", _text(results[0].content), re.MULTILINE)
    finally:
        running.stop()


def test_a_round_closed_early_by_the_last_orders_is_reported_while_the_mail_goes_on(
    game_app: tuple[App, dict[str, Credentials]],
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
) -> None:
    """The last orders close the round in the intake; the running service's reporter (not the
    thread reading the mail) draws the pictures and mails the results, with no deadline."""
    app, _ = game_app
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="quick",
            kind="giveaway",
            schedule="72h",
            settings={"early_close": True},
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    secrets = {c.handle: c.secret for c in credentials}
    running = Running(app)
    running.thread.start()
    try:
        smtp_sink.wait_for(3, timeout=15)  # gw7's welcomes
        for giver, taker in zip(PLAYERS, PLAYERS[1:] + PLAYERS[:1], strict=True):
            body = f"PASSWORD {secrets[giver]}\nGIVE 3 TO {taker}\n"
            mail = order_mail(giver, body, message_id=f"<{giver}-quick@example.org>", game="quick")
            dovecot.append(imap_user, mail)
        # Three confirmations and three results, in whatever order they are sent.
        mails = smtp_sink.wait_for(9, timeout=30)[3:]
        subjects = [str(message_from_bytes(m.content)["Subject"]) for m in mails]
        results = [m for m, s in zip(mails, subjects, strict=True) if "Round 1 result" in s]
        assert sorted(r.rcpt_tos[0] for r in results) == [f"{p}@example.org" for p in PLAYERS]
        with Session(app.engine) as session:
            round_ = session.exec(select(Round).where(Round.number == 1, Round.game_id == game.id))
            assert round_.one().state == RoundState.REPORTED
    finally:
        running.stop()


def test_mail_waiting_at_the_start_is_answered_while_the_rest_is_still_being_read(
    game_app: tuple[App, dict[str, Credentials]],
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first reading of the mailbox at the start may take a while (a backlog of a day's
    mail): what it has read is answered meanwhile. Here the reading is held after its first
    batch until the answers to that batch have arrived."""
    app, credentials = game_app
    for n, (giver, taker) in enumerate((("alice", "bob"), ("bob", "carol"))):
        body = f"PASSWORD {credentials[giver].secret}\nGIVE 3 TO {taker}\n"
        dovecot.append(imap_user, order_mail(giver, body, message_id=f"<backlog-{n}@example.org>"))
    answered, real = threading.Event(), app.ingest_batch

    def held(*args: Any, **kwargs: Any) -> Any:
        stored = real(*args, **kwargs)
        answered.wait(60)  # the rest of the backlog waits for the answers
        return stored

    monkeypatch.setattr(app, "ingest_batch", held)
    running = Running(app)
    running.thread.start()
    try:
        mails = smtp_sink.wait_for(5, timeout=30)  # gw7's three welcomes, two confirmations
        replies = {str(message_from_bytes(m.content)["In-Reply-To"]): m.rcpt_tos[0] for m in mails}
        assert replies["<backlog-0@example.org>"] == "alice@example.org"
        assert replies["<backlog-1@example.org>"] == "bob@example.org"
    finally:
        answered.set()
        running.stop()
