"""Every mail of deadlines and of what goes wrong is answerable (issue 40, finding 5;
tests/service/test_every_mail_answerable.py says how): the mails of a game played in turns
(out of turn, stale orders, a nudge, grace, forfeit, closed late), a bounce, a refused
address and a round that cannot be adjudicated, each replied to from the registered address
with no password and read as the seat's or the game master's."""

from __future__ import annotations

from datetime import timedelta

from answering import ALICE, BOB, GM, Replies, new_message_id, note_of, reply
from playing import SERVICE, add_orders, client_reply, clock_of, new_game, newest_to
from sqlmodel import Session, select
from test_adjudication_limit import diamond_chain_orders

from adjudicator.base.security import bounce_address
from adjudicator.mail.smtp import SendResult, SendStatus
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.games import find_game
from adjudicator.service.handover import find_seat
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail

DEADLINES = {
    "not_your_turn",
    "stale",
    "grace_late",
    "grace_wait",
    "nudge",
    "observed",
    "gm:closed_late",
    "gm:missed_rounds",
    "gm:game_over",
    "gm:bounced",
    "gm:refused",
    "gm:adjudication_failed",
}


def _delivery_failure(to: str) -> bytes:
    """A delivery status notification (RFC 3464) of a permanent failure, as an MTA sends it
    back to the Return-Path ``to``."""
    return f"""\
From: Mail Delivery System <MAILER-DAEMON@mx.example.org>
To: {to}
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn.1@mx.example.org>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="r"

--r
Content-Type: text/plain

Your message could not be delivered.

--r
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org

Final-Recipient: rfc822; bob@example.org
Action: failed
Status: 5.1.1

--r--
""".encode()


def test_replies_to_the_mails_of_deadlines_and_what_goes_wrong(app: App) -> None:
    """A game of Three Musketeers played in turns (docs/rules/three-musketeers.md): a move
    sent out of turn, orders written before the round opened, a missed move deadline's grace
    period, then the forfeit at its end, closed late by a service that was down, with the game
    master's copy of the result (COPY ON); a player's mail that bounces or is refused; and a
    round of Giveaway that cannot be adjudicated within the work budget."""
    new_game(
        app,
        ["alice", "bob"],
        name="tm1",
        kind="three-musketeers",
        schedule="48h",
        settings={"reminders": [], "missed_rounds_limit": 1, "nudge": "24h"},
        gm_address=GM,
        welcome=True,
        told=True,
    )
    # alice plays the Musketeers, who move first: bob's move is out of turn.
    reply(app, newest_to(app, BOB), "a1-a2", sender=BOB)
    message_id = new_message_id()
    written = clock_of(app).now - timedelta(hours=1)  # before round 1 opened
    app.ingest(
        client_reply(
            newest_to(app, ALICE), "a1-a2", sender=ALICE, message_id=message_id, written=written
        ),
        channel="t",
    )
    assert "written before round 1" in note_of(app, message_id)
    replies = Replies(app, gm_command="COPY ON")
    replies.answer_new()
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(hours=24))  # alice's nudge
    replies.answer_new()
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(hours=48))  # grace until 72 h
    replies.answer_new()
    # The service was down from 71 h to 73 h: alice forfeits, an hour late.
    sweep(app.engine, ctx=app.ctx, now=clock_of(app).at(hours=73))
    replies.answer_new()
    with Session(app.engine) as session:
        bob = find_seat(session, find_game(session, "tm1"), "bob")
        assert bob.id is not None
        welcome = session.exec(
            select(OutboxMail).where(OutboxMail.kind == "welcome", OutboxMail.recipient == ALICE)
        ).one()
    app.ingest(_delivery_failure(bounce_address(app.ctx.receipt_key, SERVICE, bob.id)), channel="t")
    with session_scope(app.engine) as session:
        refused = SendResult(SendStatus.PERMANENT, 550, "5.1.1 User unknown", stage="rcpt")
        app.tell_refused(session, welcome, refused, now=app.clock())
    replies.answer_new()
    _stuck_round(app)
    replies.answer_new()
    assert replies.kinds() >= DEADLINES


def _stuck_round(app: App) -> None:
    """A Giveaway round whose gifts make more rings than the work budget lets the search list
    (tests/service/test_adjudication_limit.py): it stays closed, for the game master."""
    orders = diamond_chain_orders()
    new_game(app, list(orders), name="diamonds", gm_address=GM)
    for handle, lines in orders.items():
        add_orders(app, "diamonds", handle, *lines)
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "diamonds"))
        assert round_ is not None
        assert round_.id is not None
        closed = close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)
    assert closed is not None
    assert closed.error
