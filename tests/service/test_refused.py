"""A seat's address the SMTP server refuses at RCPT (RFC 5321: 5xx, permanent) is told to the
game master, through the service's own sending path to a real SMTP server (aiosmtpd): once per
seat, address and day however many mails are refused, and never about the game master's own
address (the notice would go there and be refused in turn). On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from email import message_from_bytes, policy

import pytest
from mailservers import SmtpSink, running_smtp_sink
from playing import Clock, close_open_round, new_game
from sqlmodel import Session, col, select

from adjudicator.mail.smtp import SmtpSender, SmtpSettings
from adjudicator.notify.outbox import send_due
from adjudicator.service.app import App
from adjudicator.storage.models import OutboxMail, OutboxStatus, Seat

REFUSED = "550 5.1.1 <{}>: Recipient address rejected: User unknown"


def _drain(app: App, sink: SmtpSink) -> None:
    """Two passes of the service's sending: the mails due, then what their record queued."""

    async def run() -> None:
        async with SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) as sender:
            for _ in range(2):
                await send_due(
                    app.engine,
                    sender,
                    bounce_address="judge@pbem.test",
                    now=app.clock,
                    on_refused=app.tell_refused,
                )

    asyncio.run(run())


def _notices(app: App) -> list[OutboxMail]:
    with Session(app.engine) as session:
        query = select(OutboxMail).where(OutboxMail.kind == "gm:refused")
        return list(session.exec(query.order_by(col(OutboxMail.id))))


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    part = message.get_body(preferencelist=("plain",))  # type: ignore[attr-defined]
    return " ".join(str(part.get_content()).split())


@pytest.fixture(params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest) -> App:
    app: App = request.getfixturevalue("app" if request.param == "sqlite" else "pg_app")
    return app


def test_a_refused_seat_is_told_once_a_day_and_a_refused_game_master_never(service: App) -> None:
    app = service
    clock = app.clock
    assert isinstance(clock, Clock)
    new_game(app, ["alice", "bob", "carol"], gm_address="gm@example.org", welcome=True)
    with running_smtp_sink() as sink:
        sink.refuse("rcpt", REFUSED.format("bob@example.org"), address="bob@example.org")
        _drain(app, sink)
        (notice,) = _notices(app)
        assert notice.recipient == "gm@example.org"
        said = _text(notice)
        assert "bob has not received the welcome mail with the password" in said
        assert REFUSED.format("bob@example.org") in said
        assert "adjudicate player replace gw1 bob NEW-ADDRESS" in said  # a new password
        assert [m.rcpt_tos for m in sink.received if "refused" in str(m.content)] == [
            ("gm@example.org",)
        ]
        with Session(app.engine) as session:
            seat = session.exec(select(Seat).where(Seat.handle == "bob")).one()
            assert seat.unreachable

        # the same day, more mail to bob is refused: the game master already knows
        close_open_round(app, "gw1")
        _drain(app, sink)
        assert len(_notices(app)) == 1

        # the game master's own address is refused too: nobody is told, nothing loops
        sink.refuse("rcpt", REFUSED.format("gm@example.org"), address="gm@example.org")
        clock.advance(days=1)
        close_open_round(app, "gw1")
        _drain(app, sink)
        notices = _notices(app)
        assert len(notices) == 2  # a new day: bob's refusal is told again
        assert "result of round 2" in _text(notices[-1])
        assert notices[-1].status == OutboxStatus.FAILED  # refused at the game master's
        _drain(app, sink)
        assert len(_notices(app)) == 2
