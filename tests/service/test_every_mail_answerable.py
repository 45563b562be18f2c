"""Every mail about a game is answerable (issue 40, finding 5): a reply to it, from the
recipient's registered address with no password, quoting it as a mail program does, is read as
the seat's (a player's) or the game master's. The answer to ``HELP game``, the game master's
copy of an absence notice and the answer to APPROVE had no reply address: replying to them was
refused, and the refusal told the player to do what he had just done.

The kinds of mail are taken from the code: every mail template (``templates/mail/*.txt.j2``,
the game master's notices one by one). Each play below makes a family of them (a game played,
a sign-up, seats changing hands, deadlines and what goes wrong) and answers the first mail of
each kind to a seat and to the game master; a new kind of mail fails
:func:`test_every_kind_of_mail_is_answered_by_a_play_or_named` until a play makes it and its
reply is read right, or it is named below with why its reply cannot be a seat's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from itertools import count
from pathlib import Path

import pytest
from playing import (
    SERVICE,
    add_orders,
    client_reply,
    clock_of,
    close_open_round,
    new_game,
    newest_to,
    plain,
    plain_mail,
    player_mail,
    queued,
)
from sqlmodel import Session, col, select
from test_adjudication_limit import diamond_chain_orders

from adjudicator.app import App
from adjudicator.mail.compose import TEMPLATES
from adjudicator.mail.smtp import SendResult, SendStatus
from adjudicator.security import approval_code, bounce_address, standby_code, take_code
from adjudicator.service.announcements import tell_created
from adjudicator.service.closing import begin_game, close_and_adjudicate, sweep
from adjudicator.service.conversation import example_orders
from adjudicator.service.deadlines import queue_reminders
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.gm import change_address
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.service.handover import find_seat
from adjudicator.service.notices import NOTICES
from adjudicator.service.offers import offer_seat
from adjudicator.service.rounds import open_round_of
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, JoinRequest, OutboxMail, SeatOffer, Submission

GM = "gm@example.org"

NOT_A_SEATS = {
    "held_back": "the loop guard's notice to an address, about its mail",
    "no_game": "the answer to a mail that names no game of the service",
    "too_many_sections": "the answer to a mail with more game sections than are read",
    "seat_passed_on": "to a former player, whose seat is someone else's now: his reply is "
    "answered that the seat passed on (tests/service/test_former_players.py)",
    "passed_on": "the answer to that reply, to the former player",
    "gm:gm_handed_over": "to a game master replaced by another address: his replies no longer "
    "run the game (tests/service/test_gm_conversation.py)",
    "seat_offer": "to an address on the standby list, which has no seat in the game: its "
    "reply is a stranger's, and takes the seat only with the TAKE line the offer holds "
    "(test_replies_to_the_mails_of_seats_changing_hands)",
}
"""Kinds that go only to someone who is not a seat of the game nor its game master, with why
a reply to them cannot be a seat's or the game master's. (A mail to an address a seat moved
from, ``address_changed`` at the old address, is another: its reply is refused, see
:func:`test_replies_to_the_mails_of_seats_changing_hands`.)"""

KIND_OF_ROW = {"gm:copy": "observed"}
"""Outbox kinds that are another template's mail: the game master's copy of the observers'
result (``COPY ON``) is the ``observed`` mail."""


def mail_kinds() -> set[str]:
    """Every kind of mail the service sends: one per template; the game master's notices,
    one template for all, by notice; a game's own result template is ``result``."""
    folder = Path(str(TEMPLATES)) / "mail"
    kinds = {p.name.removesuffix(".txt.j2") for p in folder.glob("*.txt.j2")}
    kinds = {k for k in kinds if not k.startswith("_")} - {"gm_notice"}
    return kinds | {f"gm:{notice}" for notice in NOTICES}


_ids = count(1)


def _id() -> str:
    return f"<p{next(_ids)}@client.example.org>"


def _note_of(app: App, message_id: str) -> str:
    with Session(app.engine) as session:
        found = session.exec(select(Submission).where(Submission.message_id == message_id)).one()
        return found.note or ""


@dataclass
class Replies:
    """Replies, from the registered address and with no password, to the first mail of each
    kind that went to a seat of its game or to its game master, each checked to be read as
    theirs: a command only the seat (HISTORY) or the game master (COPY OFF, or ON) may give.
    Every such mail is checked to carry a reply address. Asked before a seat or the game
    master changes hands or address: a reply to a mail of before is no longer theirs."""

    app: App
    signed: bool = False  # the reply carries a DKIM pass for its From domain
    gm_command: str = "COPY OFF"
    read: dict[tuple[str, bool], str] = field(default_factory=dict)
    """What each reply did (its submission's note), by kind and whether to the game master."""
    seen: int = 0  # the last outbox row looked at

    def answer_new(self) -> None:
        """Reply to the mails queued since the last call, and to the answers to those."""
        while True:
            with Session(self.app.engine) as session:
                query = select(OutboxMail).where(col(OutboxMail.id) > self.seen)
                rows = list(session.exec(query.order_by(col(OutboxMail.id))))
            if not rows:
                return
            self.seen = rows[-1].id or self.seen
            for row in rows:
                self._answer(row)

    def kinds(self, *, gm: bool | None = None) -> set[str]:
        return {kind for kind, to_gm in self.read if gm is None or to_gm == gm}

    def _answer(self, row: OutboxMail) -> None:
        if row.game_id is None:
            return
        with Session(self.app.engine) as session:
            game = session.get(Game, row.game_id)
            assert game is not None
            seat = queries.seat_at_address(session, game.id, row.recipient)
            to_gm = (game.gm_address or "").lower() == row.recipient.lower()
        removed = seat is not None and not seat.active
        if not to_gm and (seat is None or (removed and row.kind != "removed")):
            return  # not a seat's mail (NOT_A_SEATS), or the last of a seat taken out
        kind = KIND_OF_ROW.get(row.kind, row.kind)
        mail: EmailMessage = message_from_bytes(row.message, policy=policy.default)
        # Every one has a reply address; the first of each kind is replied to.
        assert mail["Reply-To"], f"{kind} to {row.recipient} has no reply address"
        if (kind, to_gm) in self.read:
            return
        message_id = _id()
        clock_of(self.app).advance(minutes=1)
        reply = client_reply(
            mail,
            self.gm_command if to_gm else "HISTORY",
            sender=row.recipient,
            message_id=message_id,
        )
        if self.signed:  # as the receiving server notes a valid signature of the sender
            domain = row.recipient.rpartition("@")[2]
            signed = f"Authentication-Results: mx.pbem.test; dkim=pass header.d={domain}\n"
            reply = signed.encode() + reply
        self.app.ingest(reply, channel="t")
        note = _note_of(self.app, message_id)
        self.read[(kind, to_gm)] = note
        if to_gm:
            assert "game master: 1 command(s) done, 0 refused" in note, (kind, note)
        elif removed:  # read as the seat's, which the game master took out
            assert f"removed from game {game.name}" in note, (kind, note)
        else:
            assert "history sent" in note, (kind, note)
            assert "refused" not in note, (kind, note)


def _welcomed_game(app: App, name: str, *, settings: dict[str, object] | None = None) -> None:
    """A game of Giveaway of alice, bob and carol with its game master, started, everyone
    welcomed and the game master told."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name=name,
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob", "carol")],
            options={},
            schedule="72h",
            settings=dict(settings or {}),
            gm_address=GM,
            now=app.clock(),
        )
        first = begin_game(session, game, ctx=app.ctx, now=app.clock())
        tell_created(session, ctx=app.ctx, game=game, first_round=first, now=app.clock())
        queue_welcome(
            session,
            ctx=app.ctx,
            game=game,
            credentials=credentials,
            first_round=first,
            now=app.clock(),
        )


ALICE, BOB, CAROL = (f"{p}@example.org" for p in ("alice", "bob", "carol"))


def _reply(app: App, mail: EmailMessage, body: str, *, sender: str) -> str:
    """``sender``'s reply to ``mail``, as a mail program writes it; what it did (its note)."""
    message_id = _id()
    app.ingest(client_reply(mail, body, sender=sender, message_id=message_id), channel="t")
    return _note_of(app, message_id)


# --- a game played -----------------------------------------------------------------------------

PLAYED = {
    "welcome",
    "confirmation",
    "rejection",
    "answer",
    "absence",
    "press",
    "announcement",
    "paused",
    "deadline_changed",
    "game_change",
    "refusal",
    "history",
    "request_problem",
    "reminder",
    "resigned",
    "result",
    "gm:created",
    "gm:resigned",
}


def _play(app: App) -> None:
    """A game of Giveaway played through the service with its game master, making as many
    kinds of mail as a game makes."""
    _welcomed_game(app, "gw1", settings={"early_close": False, "absence_days": 5})
    send = lambda raw: app.ingest(raw, channel="t")  # noqa: E731
    _reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
    _reply(app, newest_to(app, BOB), "GIVE 9 TO nobody", sender=BOB)
    send(player_mail("gw1", "bob", "HELP gw1", number=1))  # from his address, no password
    send(player_mail("gw1", "carol", "STATUS", number=2))
    _reply(app, newest_to(app, CAROL), "SET ABSENCE 2d", sender=CAROL)
    _reply(app, newest_to(app, ALICE), "PRESS\nHello all\nENDPRESS", sender=ALICE)
    _reply(app, newest_to(app, GM), "EXTEND 24h", sender=GM)
    _reply(app, newest_to(app, GM), "ANNOUNCE\nWelcome all\nENDANNOUNCE", sender=GM)
    for command in ("PAUSE", "RESUME", "STAND-IN bob", "STAND-IN bob OFF"):
        _reply(app, newest_to(app, GM), command, sender=GM)
    send(player_mail("gw1", "bob", "GIVE 3 TO alice", number=3))  # no password: refused
    _reply(app, newest_to(app, ALICE), "HISTORY\nREPORT 9", sender=ALICE)
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        round_ = open_round_of(session, game)
        assert round_ is not None
        clock_of(app).advance(hours=90)  # the deadline is at 96 h now
        queue_reminders(session, round_, ctx=app.ctx, now=app.clock())
    _reply(app, newest_to(app, CAROL), "RESIGN", sender=CAROL)
    _reply(app, newest_to(app, CAROL), f"RESIGN {_resign_code(app)}", sender=CAROL)
    close_open_round(app, "gw1")


def _resign_code(app: App) -> str:
    text = str(newest_to(app, CAROL).get_body(preferencelist=("plain",)).get_content())
    return text.rsplit("RESIGN ", maxsplit=1)[-1].split(maxsplit=1)[0]


def test_replies_to_the_mails_of_a_game_played(app: App) -> None:
    _play(app)
    replies = Replies(app)
    replies.answer_new()
    assert replies.kinds() >= PLAYED
    assert replies.kinds(gm=True) >= {"gm:created", "gm:resigned", "absence", "answer"}


def test_every_players_mail_names_the_game_master_it_tells_him_to_write_to(app: App) -> None:
    """Finding 12: every footer said "write to your game master", and no player mail named
    him. The game has no setting that keeps his address private, so it is named."""
    _play(app)
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).where(col(OutboxMail.game_id).is_not(None))).all()
    told = 0
    for row in rows:
        if row.recipient == GM:
            continue
        mail: EmailMessage = message_from_bytes(row.message, policy=policy.default)
        body = mail.get_body(preferencelist=("plain",))
        assert body is not None
        text = " ".join(str(body.get_content()).split())
        if "your game master" in text:
            told += 1
            assert "your game master (gm@example.org)" in text, (row.kind, text[-300:])
    assert told >= 10


def test_a_game_without_a_game_master_does_not_send_players_to_one(app: App) -> None:
    new_game(app, ["alice", "bob", "carol"], welcome=True)
    [welcome] = [m for m in queued(app, "welcome") if m["To"] == "alice@example.org"]
    body = welcome.get_body(preferencelist=("plain",))
    assert body is not None
    text = " ".join(str(body.get_content()).split())
    assert "this game has no game master" in text
    assert "write to your game master" not in text


@pytest.mark.xfail(
    strict=True,
    reason="issue 40, finding 5, not done: the one answer to a mail about two games has no "
    "reply address (conversation.queue_answer sets a seat's only when one seat is answered), "
    "and a mail to several seats' reply addresses proves only the first (intake._answer)",
)
def test_a_reply_to_the_answer_about_two_games_is_read_as_the_seats(app: App) -> None:
    """A mail with orders for two games gets one answer holding both (README); a reply to it
    that names one of the games is that game's seat's, as a reply to any mail about a game."""
    first = new_game(app, ["alice", "bob", "carol"], name="gw1", gm_address=GM)
    second = new_game(app, ["alice", "bob", "carol"], name="gw2", gm_address=GM)
    body = (
        f"GAME gw1\nPASSWORD {first['alice'].secret}\nGIVE 3 TO bob\n\n"
        f"GAME gw2\nPASSWORD {second['alice'].secret}\nGIVE 3 TO carol\n"
    )
    app.ingest(plain_mail(ALICE, body, subject="orders", message_id=_id()), channel="t")
    answer = newest_to(app, ALICE, kind="answer")
    assert "[gw1] [gw2]" in str(answer["Subject"])
    note = _reply(app, answer, "GAME gw2\nHISTORY", sender=ALICE)
    assert "history sent" in note, note


# --- a sign-up ---------------------------------------------------------------------------------

SIGN_UP = {"late", "join_decided", "started", "gm:join_request", "gm:started"}


def test_replies_to_the_mails_of_a_sign_up(app: App) -> None:
    """A game open for sign-up under ``join=approve`` (docs/commands.md "Seats"): a player's
    orders before it starts are early ("late", with what the game waits for); a JOIN waits
    for the game master's APPROVE, the joiner is told, and the game starts when full."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="su1",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob", "carol")],
            options={},
            schedule="72h",
            settings={"signup": 4, "join": "approve"},
            gm_address=GM,
            now=app.clock(),
        )
        tell_created(session, ctx=app.ctx, game=game, first_round=None, now=app.clock())
        queue_welcome(
            session,
            ctx=app.ctx,
            game=game,
            credentials=credentials,
            first_round=None,
            now=app.clock(),
        )
    _reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
    jane = "jane@elsewhere.example"
    app.ingest(plain_mail(jane, "JOIN su1", subject="join", message_id=_id()), channel="t")
    answer = plain(newest_to(app, jane))
    code = answer.split("JOIN su1 ", 1)[1].split()[0]
    app.ingest(plain_mail(jane, f"JOIN su1 {code}", subject="join", message_id=_id()), channel="t")
    request = newest_to(app, GM)
    with Session(app.engine) as session:
        waiting = session.exec(select(JoinRequest)).one()
        assert waiting.id is not None
        approval = approval_code(app.ctx.receipt_key, "su1", waiting.id, jane)
    replies = Replies(app)
    replies.answer_new()
    note = _reply(app, request, f"APPROVE su1 {approval}", sender=GM)
    assert "refused" not in note, note
    replies.answer_new()
    assert replies.kinds() >= SIGN_UP
    assert replies.read[("join_decided", False)]  # to jane, now the seat she asked for


# --- seats changing hands ----------------------------------------------------------------------

SEATS = {
    "seat_offered",
    "seat_taken",
    "takeover",
    "removed",
    "address_changed",
    "refusal_policy",
    "gm:offered",
    "gm:replaced",
    "gm:game_master",
    "gm:stand_in_returned",
}


def _on_standby(app: App, address: str) -> None:
    for body in (
        "STANDBY giveaway",
        f"STANDBY giveaway {standby_code(app.ctx.receipt_key, 'giveaway', address)}",
    ):
        app.ingest(plain_mail(address, body, subject="standby", message_id=_id()), channel="t")


def _offer(app: App, game: str, handle: str) -> int:
    """The game master offers ``handle``'s seat (``adjudicate player offer``)."""
    with session_scope(app.engine) as session:
        found = find_game(session, game)
        seat = find_seat(session, found, handle)
        made = offer_seat(session, found, seat, ctx=app.ctx, now=app.clock(), reason="gm")
        assert made.id is not None
        return made.id


def test_replies_to_the_mails_of_seats_changing_hands(app: App) -> None:
    """Seats offered and taken, a player taken out, a seat moved to a new address, the game
    master's reply address renewed, a seat the computer played taken back by its player, and
    a game that takes only signed mail (docs/commands.md "Seats", "Running the game by
    mail")."""
    _welcomed_game(app, "gw1")
    sam = "sam@example.net"
    _on_standby(app, sam)
    carols = _offer(app, "gw1", "carol")
    _offer(app, "gw1", "bob")
    replies = Replies(app)
    replies.answer_new()  # before the seats change hands: seat_offered to bob and carol
    offered = queued(app, "seat_offer")[0]  # to sam, of carol's seat
    assert offered["To"] == sam
    # A standby player's reply to the offer, with the line it holds, takes the seat; without
    # it, it is a stranger's mail.
    assert "refused" in _reply(app, offered, "HISTORY", sender=sam)
    replies.answer_new()  # (its refusal is no seat's mail)
    _reply(app, offered, f"TAKE gw1 {take_code(app.ctx.receipt_key, carols, sam)}", sender=sam)
    with Session(app.engine) as session:
        assert session.get(SeatOffer, carols).taken_by == sam  # type: ignore[union-attr]
    replies.answer_new()  # takeover to sam, seat_taken to alice and bob, gm:offered, ...
    # The game master takes bob out (REMOVE), and bob writes: he is told he is out.
    _reply(app, newest_to(app, GM), "REMOVE bob", sender=GM)
    _reply(app, newest_to(app, BOB), "HISTORY", sender=BOB)
    # The computer plays alice's seat until her own orders take it back.
    _reply(app, newest_to(app, GM), "STAND-IN alice", sender=GM)
    with Session(app.engine) as session:
        valid = "\n".join(example_orders(find_game(session, "gw1"), "alice"))
    _reply(app, newest_to(app, ALICE), valid, sender=ALICE)
    assert queued(app, "gm:stand_in_returned")
    replies.answer_new()
    # alice's seat moves to another address: she is told at both. The mails to the old one
    # are no seat's (README: whoever reads the old mailbox next cannot play the seat, and is
    # told why): the one telling of the move has no reply address of the seat, and a reply to
    # the welcome sent there before, to the personal address it gave, is refused as sent to
    # an old reply address, not told to reply to a mail of the game, which it did.
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        change_address(session, game, "alice", "alice@new.example", ctx=app.ctx, now=app.clock())
    old_side = newest_to(app, ALICE)
    assert old_side["Reply-To"] is None
    assert "refused for game gw1: not registered" in _reply(app, old_side, "HISTORY", sender=ALICE)
    welcome = next(m for m in queued(app, "welcome") if m["To"] == ALICE)
    assert "refused for game gw1: moved" in _reply(app, welcome, "HISTORY", sender=ALICE)
    refusal = " ".join(plain(newest_to(app, ALICE, kind="refusal")).split())
    assert "went to a reply address of a mail the game sent to an address the seat" in refusal
    assert "reply to any mail the game sent you" not in refusal
    # A new game master's address and reply address (``adjudicate game gm GAME ADDRESS``).
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        renew_game_master(session, game, address="gm2@example.org", ctx=app.ctx, now=app.clock())
    replies.answer_new()
    # A game that takes only mail signed for its sender's domain: an unsigned mail is refused
    # (refusal_policy), and replies signed as a receiving server notes it are read.
    signed = Replies(app, signed=True, seen=replies.seen)
    _welcomed_game(app, "gw2", settings={"require_auth": ["dkim"]})
    _reply(app, newest_to(app, CAROL), "HISTORY", sender=CAROL)
    assert newest_to(app, CAROL)["X-Test-Kind"] == "refusal_policy"
    signed.answer_new()
    made = replies.kinds() | signed.kinds()
    assert made >= SEATS


# --- deadlines, and what goes wrong ------------------------------------------------------------

DEADLINES = {
    "not_your_turn",
    "stale",
    "grace_late",
    "grace_wait",
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
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="tm1",
            kind="three-musketeers",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob")],
            options={},
            schedule="48h",
            settings={"reminders": [], "missed_rounds_limit": 1},
            gm_address=GM,
            now=app.clock(),
        )
        first = begin_game(session, game, ctx=app.ctx, now=app.clock())
        tell_created(session, ctx=app.ctx, game=game, first_round=first, now=app.clock())
        queue_welcome(
            session,
            ctx=app.ctx,
            game=game,
            credentials=credentials,
            first_round=first,
            now=app.clock(),
        )
    # alice plays the Musketeers, who move first: bob's move is out of turn.
    _reply(app, newest_to(app, BOB), "a1-a2", sender=BOB)
    message_id = _id()
    written = clock_of(app).now - timedelta(hours=1)  # before round 1 opened
    app.ingest(
        client_reply(
            newest_to(app, ALICE), "a1-a2", sender=ALICE, message_id=message_id, written=written
        ),
        channel="t",
    )
    assert "written before round 1" in _note_of(app, message_id)
    replies = Replies(app, gm_command="COPY ON")
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
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="diamonds",
            kind="giveaway",
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in orders],
            gm_address=GM,
            now=app.clock(),
        )
        begin_game(session, game, ctx=app.ctx, now=app.clock())
    for handle, lines in orders.items():
        add_orders(app, "diamonds", handle, *lines)
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "diamonds"))
        assert round_ is not None
        assert round_.id is not None
        closed = close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)
    assert closed is not None
    assert closed.error


def test_every_kind_of_mail_is_answered_by_a_play_or_named() -> None:
    """The plays above answer each kind they make (each test asserts it made its family): with
    the kinds named as no seat's, that is every kind of mail the service sends."""
    families = PLAYED | SIGN_UP | SEATS | DEADLINES
    left = mail_kinds() - families - set(NOT_A_SEATS)
    assert not left, f"kinds of mail no play answers and none is named: {sorted(left)}"
    assert not families & set(NOT_A_SEATS)
    assert not (families | set(NOT_A_SEATS)) - mail_kinds(), "a kind the service has no more"
