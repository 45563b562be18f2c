"""Bounces to a player's own Return-Path: a permanent failure marks the seat unreachable and
tells the game master once; a temporary one is only logged; a forged one changes nothing; and
no bounce is ever answered."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from hashlib import sha256
from pathlib import Path

import pytest
from sqlmodel import Session, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.base.security import bounce_address
from adjudicator.service.app import App, make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, Seat, Submission, SubmissionStatus

JUDGE = "judge@pbem.test"
GM = "gm@example.net"
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    config = Config(service=ServiceConfig(data_dir=str(tmp_path / "data"), address=JUDGE))
    application = make_app(config)
    application.clock = lambda: NOW
    yield application
    application.engine.dispose()


def new_game(app: App, name: str, *, gm_address: str | None = GM) -> dict[str, int]:
    """A running Giveaway game; the seat ids by handle. The welcome mails are not queued."""
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name=name,
            kind="giveaway",
            options={},
            players=[PlayerSpec(h, f"{h}@example.org") for h in ("alice", "bob", "carol")],
            gm_address=gm_address,
            now=NOW,
        )
        start_game(session, game, now=NOW)
        seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
        return {seat.handle: seat.id for seat in seats if seat.id is not None}


def dsn(
    to: str, *, status: str, action: str = "failed", header: str = "To", failed: str = ""
) -> bytes:
    """A delivery status notification (RFC 3464) as an MTA sends it back to the Return-Path."""
    failed = failed or "bob@example.org"
    return f"""\
From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
{header}: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn.{sha256(repr((to, status, action, header, failed)).encode()).hexdigest()[:16]}@mx.example.org>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="r"

--r
Content-Type: text/plain

This is the mail system at host mx.example.org. Your message could not be delivered.

--r
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Final-Recipient: rfc822; {failed}
Action: {action}
Status: {status}
Diagnostic-Code: smtp; {status.replace(".", "")[:3]} {status} mailbox unavailable

--r--
""".encode()


def seat_unreachable(app: App, seat_id: int) -> bool:
    with Session(app.engine) as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None
        return seat.unreachable


def queued(app: App) -> list[OutboxMail]:
    with Session(app.engine) as session:
        return list(session.exec(select(OutboxMail)).all())


def their_bounce_address(app: App, seat_id: int) -> str:
    return bounce_address(app.ctx.receipt_key, JUDGE, seat_id)


def test_a_permanent_failure_marks_the_seat_and_tells_the_game_master(app: App) -> None:
    bob = new_game(app, "gw1")["bob"]
    status = app.ingest(dsn(their_bounce_address(app, bob), status="5.1.1"), channel="imap")
    assert status == SubmissionStatus.IGNORED  # never answered
    assert seat_unreachable(app, bob)
    [notice] = queued(app)
    assert (notice.kind, notice.recipient) == ("gm:bounced", GM)
    text = message_from_bytes(notice.message, policy=policy.default).get_body(("plain",))
    assert text is not None
    words = text.get_content()
    assert "bob (bob@example.org)" in words
    assert "5.1.1" in words
    with Session(app.engine) as session:
        [submission] = session.exec(select(Submission)).all()
        assert submission.note is not None
        assert "marked unreachable" in submission.note


@pytest.mark.parametrize("header", ["Delivered-To", "X-Original-To"])
def test_the_envelope_recipient_may_be_in_a_delivery_header(app: App, header: str) -> None:
    """Mail servers record the envelope recipient (our Return-Path) in Delivered-To or
    X-Original-To; the To of the report may name anything."""
    carol = new_game(app, "gw1")["carol"]
    raw = dsn(their_bounce_address(app, carol), status="5.2.1", header=header)
    raw = raw.replace(b"From: Mail", b"To: " + JUDGE.encode() + b"\nFrom: Mail", 1)
    assert app.ingest(raw, channel="imap") == SubmissionStatus.IGNORED
    assert seat_unreachable(app, carol)


def test_a_temporary_failure_is_only_logged(app: App) -> None:
    bob = new_game(app, "gw1")["bob"]
    raw = dsn(their_bounce_address(app, bob), status="4.4.1", action="delayed")
    assert app.ingest(raw, channel="imap") == SubmissionStatus.IGNORED
    assert not seat_unreachable(app, bob)
    assert queued(app) == []


def test_a_forged_bounce_address_changes_nothing(app: App) -> None:
    """The address's MAC is made with the service's key: a bounce to an address made with
    another key, or to the service's plain address, names no seat."""
    bob = new_game(app, "gw1")["bob"]
    forged = bounce_address(b"another service's key", JUDGE, bob)
    for to in (forged, JUDGE):
        assert app.ingest(dsn(to, status="5.1.1"), channel="imap") == SubmissionStatus.IGNORED
    assert not seat_unreachable(app, bob)
    assert queued(app) == []


def test_the_game_master_is_told_once_per_seat(app: App) -> None:
    """Every result mail to a dead address bounces: one notice, not one per bounce."""
    bob = new_game(app, "gw1")["bob"]
    address = their_bounce_address(app, bob)
    app.ingest(dsn(address, status="5.1.1"), channel="imap")
    app.ingest(dsn(address, status="5.1.1", failed="bob@mailhost.example.org"), channel="imap")
    assert seat_unreachable(app, bob)
    assert [mail.kind for mail in queued(app)] == ["gm:bounced"]


def test_a_game_without_a_game_master_still_marks_the_seat(app: App) -> None:
    alice = new_game(app, "gw2", gm_address=None)["alice"]
    raw = dsn(their_bounce_address(app, alice), status="5.7.1", failed="alice@example.org")
    assert app.ingest(raw, channel="imap") == SubmissionStatus.IGNORED
    assert seat_unreachable(app, alice)
    assert queued(app) == []


def test_a_bounce_in_a_batch_is_handled_like_a_single_one(app: App) -> None:
    seats = new_game(app, "gw1")
    raws = [
        dsn(their_bounce_address(app, seats["alice"]), status="5.1.1", failed="a@x.org"),
        dsn(their_bounce_address(app, seats["bob"]), status="4.2.2", action="delayed"),
    ]
    results = app.ingest_batch(raws, channel="imap")
    assert [status for _, status in results] == [SubmissionStatus.IGNORED] * 2
    assert seat_unreachable(app, seats["alice"])
    assert not seat_unreachable(app, seats["bob"])
    assert [mail.recipient for mail in queued(app)] == [GM]
