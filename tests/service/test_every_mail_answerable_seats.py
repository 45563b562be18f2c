"""Every mail of a sign-up and of seats changing hands is answerable (issue 40, finding 5;
tests/service/test_every_mail_answerable.py says how): a reply to it, from the registered
address with no password, is read as the seat's or the game master's; a reply to a mail sent
to an address the seat has moved from is not (README)."""

from __future__ import annotations

from answering import ALICE, BOB, CAROL, GM, Replies, new_message_id, reply, welcomed_game
from playing import new_game, newest_to, plain, plain_mail, queued
from sqlmodel import Session, select

from adjudicator.base.security import approval_code, join_code, standby_code, take_code
from adjudicator.service.app import App
from adjudicator.service.conversation import example_orders
from adjudicator.service.games import find_game
from adjudicator.service.gm import change_address
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.service.handover import find_seat
from adjudicator.service.offers import offer_seat
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import JoinRequest, SeatOffer

SIGN_UP = {"late", "join_decided", "started", "gm:join_request", "gm:started"}


def test_replies_to_the_mails_of_a_sign_up(app: App) -> None:
    """A game open for sign-up under ``join=approve`` (docs/commands.md "Seats"): a player's
    orders before it starts are early ("late", with what the game waits for); a JOIN waits
    for the game master's APPROVE, the joiner is told, and the game starts when full."""
    new_game(
        app,
        ["alice", "bob", "carol"],
        name="su1",
        settings={"signup": 4, "join": "approve"},
        gm_address=GM,
        start=False,
        welcome=True,
        told=True,
    )
    reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
    jane = "jane@elsewhere.example"
    app.ingest(
        plain_mail(jane, "JOIN su1", subject="join", message_id=new_message_id()), channel="t"
    )
    code = join_code(app.ctx.receipt_key, "su1", jane)
    assert f"JOIN su1 {code}" in plain(newest_to(app, jane))
    app.ingest(
        plain_mail(jane, f"JOIN su1 {code}", subject="join", message_id=new_message_id()),
        channel="t",
    )
    request = newest_to(app, GM)
    with Session(app.engine) as session:
        waiting = session.exec(select(JoinRequest)).one()
        assert waiting.id is not None
        approval = approval_code(app.ctx.receipt_key, "su1", waiting.id, jane)
    replies = Replies(app)
    replies.answer_new()
    note = reply(app, request, f"APPROVE su1 {approval}", sender=GM)
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
        app.ingest(
            plain_mail(address, body, subject="standby", message_id=new_message_id()), channel="t"
        )


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
    welcomed_game(app, "gw1")
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
    assert "refused" in reply(app, offered, "HISTORY", sender=sam)
    replies.answer_new()  # (its refusal is no seat's mail)
    reply(app, offered, f"TAKE gw1 {take_code(app.ctx.receipt_key, carols, sam)}", sender=sam)
    with Session(app.engine) as session:
        taken = session.get(SeatOffer, carols)
        assert taken is not None
        assert taken.taken_by == sam
    replies.answer_new()  # takeover to sam, seat_taken to alice and bob, gm:offered, ...
    # The game master takes bob out (REMOVE), and bob writes: he is told he is out.
    reply(app, newest_to(app, GM), "REMOVE bob", sender=GM)
    reply(app, newest_to(app, BOB), "HISTORY", sender=BOB)
    # The computer plays alice's seat until her own orders take it back.
    reply(app, newest_to(app, GM), "STAND-IN alice", sender=GM)
    with Session(app.engine) as session:
        valid = "\n".join(example_orders(find_game(session, "gw1"), "alice"))
    reply(app, newest_to(app, ALICE), valid, sender=ALICE)
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
    assert "refused for game gw1: not registered" in reply(app, old_side, "HISTORY", sender=ALICE)
    welcome = next(m for m in queued(app, "welcome") if m["To"] == ALICE)
    assert "refused for game gw1: moved" in reply(app, welcome, "HISTORY", sender=ALICE)
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
    welcomed_game(app, "gw2", settings={"require_auth": ["dkim"]})
    reply(app, newest_to(app, CAROL), "HISTORY", sender=CAROL)
    assert newest_to(app, CAROL)["X-Test-Kind"] == "refusal_policy"
    signed.answer_new()
    made = replies.kinds() | signed.kinds()
    assert made >= SEATS
