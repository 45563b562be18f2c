"""Every mail about a game is answerable (issue 40, finding 5): a reply to it, from the
recipient's registered address with no password, quoting it as a mail program does, is read as
the seat's (a player's) or the game master's. The answer to ``HELP game``, the game master's
copy of an absence notice and the answer to APPROVE had no reply address: replying to them was
refused, and the refusal told the player to do what he had just done.

The kinds of mail are taken from the code: every mail template (``templates/mail/*.txt.j2``,
the game master's notices one by one). A play makes each family of them and replies to the
first mail of each kind to a seat and to the game master (``answering.Replies``): a game
played (here), a sign-up and seats changing hands (``..._seats.py``), deadlines and what goes
wrong (``..._deadlines.py``), a daily digest (here). A new kind of mail fails
:func:`test_every_kind_of_mail_is_answered_by_a_play_or_named` until a play makes it and its
reply is read right, or it is named below with why its reply cannot be a seat's."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from answering import (
    ALICE,
    BOB,
    CAROL,
    GM,
    KIND_OF_ROW,
    Replies,
    new_message_id,
    reply,
    welcomed_game,
)
from playing import clock_of, close_open_round, new_game, newest_to, plain_mail, player_mail, queued
from sqlmodel import Session, col, select
from test_every_mail_answerable_deadlines import DEADLINES
from test_every_mail_answerable_seats import SEATS, SIGN_UP
from test_every_mail_answerable_tournaments import TOURNAMENT
from test_every_mail_answerable_webhooks import WEBHOOKS

import adjudicator
from adjudicator.mail.compose import TEMPLATES
from adjudicator.service.app import App
from adjudicator.service.deadlines import queue_reminders
from adjudicator.service.digests import send_due_digests
from adjudicator.service.games import find_game
from adjudicator.service.notices import NOTICES
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail

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
    "(tests/service/test_every_mail_answerable_seats.py)",
    "tournament_join": "to a tournament's game master, about a JOIN: a tournament is no game, "
    "and he answers with the APPROVE or DECLINE line the mail holds "
    "(tests/service/test_tournament_changes.py)",
    "tournament_decided": "to an address that asked to join a tournament, which has no seat yet",
}
"""Kinds that go only to someone who is not a seat of the game nor its game master, with why
a reply to them cannot be a seat's or the game master's. (A mail to an address a seat moved
from, ``address_changed`` at the old address, is another: its reply is refused, see
``test_replies_to_the_mails_of_seats_changing_hands``.)"""


PACKAGE = Path(adjudicator.__file__).resolve().parent
LABEL = re.compile(r'\blabel="([a-z_:]+)"')


def mail_kinds() -> set[str]:
    """Every kind of mail the service sends: one per template; the game master's notices,
    one template for all, by notice; a game's own result template is ``result``. A notice
    filed under a label of its own (``Notice.label``, e.g. ``report``, the answer to REPORT,
    made with the result's template) is a kind too, unless it is another kind's mail
    (``answering.KIND_OF_ROW``)."""
    folder = Path(str(TEMPLATES)) / "mail"
    kinds = {p.name.removesuffix(".txt.j2") for p in folder.glob("*.txt.j2")}
    kinds = {k for k in kinds if not k.startswith("_")} - {"gm_notice"}
    labels = {
        label
        for module in PACKAGE.rglob("*.py")
        for label in LABEL.findall(module.read_text(encoding="utf-8"))
    }
    assert "report" in labels, "the labels are no longer written as label=..."
    return kinds | {f"gm:{notice}" for notice in NOTICES} | (labels - set(KIND_OF_ROW))


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
    "report",
    "gm:created",
    "gm:resigned",
}


def _play(app: App) -> None:
    """A game of Giveaway played through the service with its game master, making as many
    kinds of mail as a game makes."""
    welcomed_game(app, "gw1", settings={"early_close": False, "absence_days": 5})
    send = lambda raw: app.ingest(raw, channel="t")  # noqa: E731
    reply(app, newest_to(app, ALICE), "GIVE 3 TO bob", sender=ALICE)
    reply(app, newest_to(app, BOB), "GIVE 9 TO nobody", sender=BOB)
    send(player_mail("gw1", "bob", "HELP gw1", number=1))  # from his address, no password
    send(player_mail("gw1", "carol", "STATUS", number=2))
    reply(app, newest_to(app, CAROL), "SET ABSENCE 2d", sender=CAROL)
    reply(app, newest_to(app, ALICE), "PRESS\nHello all\nENDPRESS", sender=ALICE)
    reply(app, newest_to(app, GM), "EXTEND 24h", sender=GM)
    reply(app, newest_to(app, GM), "ANNOUNCE\nWelcome all\nENDANNOUNCE", sender=GM)
    for command in ("PAUSE", "RESUME", "STAND-IN bob", "STAND-IN bob OFF"):
        reply(app, newest_to(app, GM), command, sender=GM)
    send(player_mail("gw1", "bob", "GIVE 3 TO alice", number=3))  # no password: refused
    reply(app, newest_to(app, ALICE), "HISTORY\nREPORT 9", sender=ALICE)
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        round_ = open_round_of(session, game)
        assert round_ is not None
        clock_of(app).advance(hours=90)  # the deadline is at 96 h now
        queue_reminders(session, round_, ctx=app.ctx, now=app.clock())
    reply(app, newest_to(app, CAROL), "RESIGN", sender=CAROL)
    reply(app, newest_to(app, CAROL), f"RESIGN {_resign_code(app)}", sender=CAROL)
    close_open_round(app, "gw1")
    reply(app, newest_to(app, ALICE), "REPORT 1", sender=ALICE)  # round 1's result again


def _resign_code(app: App) -> str:
    text = str(newest_to(app, CAROL).get_body(preferencelist=("plain",)).get_content())
    return text.rsplit("RESIGN ", maxsplit=1)[-1].split(maxsplit=1)[0]


def test_replies_to_the_mails_of_a_game_played(app: App) -> None:
    """Orders, commands, press, the game master's commands, a resignation, a round's
    result: each kind of their mails, replied to, is read as the seat's or the game
    master's; the game master's copy of an absence and his answers too."""
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


def test_a_reply_to_the_answer_about_two_games_is_read_as_the_seats(app: App) -> None:
    """A mail with orders for two games gets one answer holding both (README); a reply to it
    that names one of the games is that game's seat's, as a reply to any mail about a game."""
    first = new_game(app, ["alice", "bob", "carol"], name="gw1", gm_address=GM)
    second = new_game(app, ["alice", "bob", "carol"], name="gw2", gm_address=GM)
    body = (
        f"GAME gw1\nPASSWORD {first['alice'].secret}\nGIVE 3 TO bob\n\n"
        f"GAME gw2\nPASSWORD {second['alice'].secret}\nGIVE 3 TO carol\n"
    )
    app.ingest(plain_mail(ALICE, body, subject="orders", message_id=new_message_id()), channel="t")
    answer = newest_to(app, ALICE, kind="answer")
    assert "[gw1] [gw2]" in str(answer["Subject"])
    note = reply(app, answer, "GAME gw2\nHISTORY", sender=ALICE)
    assert "history sent" in note, note


# --- a daily digest ---------------------------------------------------------------------------

DIGEST = {"digest"}


def test_a_reply_to_the_daily_digest_is_read_as_the_seats(app: App) -> None:
    """Alice takes a daily digest (SET DIGEST DAILY, in a reply to her welcome); bob's press
    waits for it, and the digest, replied to, is read as her seat's (issue 42). A digest
    about several games carries each seat's reply address: tests/service/test_digests.py."""
    welcomed_game(app, "gw1")
    note = reply(app, newest_to(app, ALICE), "SET DIGEST DAILY 08:00", sender=ALICE)
    assert "digest 08:00" in note, note
    reply(app, newest_to(app, BOB), "PRESS\nHello all\nENDPRESS", sender=BOB)
    replies = Replies(app)
    with Session(app.engine) as session:
        replies.seen = max(row.id or 0 for row in session.exec(select(OutboxMail)))
    now = clock_of(app).advance(days=1)
    assert send_due_digests(app.engine, ctx=app.ctx, now=now) == 1
    replies.answer_new()
    assert replies.kinds() >= DIGEST


def test_every_kind_of_mail_is_answered_by_a_play_or_named() -> None:
    """The plays above answer each kind they make (each test asserts it made its family): with
    the kinds named as no seat's, that is every kind of mail the service sends."""
    families = PLAYED | SIGN_UP | SEATS | DEADLINES | TOURNAMENT | DIGEST | WEBHOOKS
    left = mail_kinds() - families - set(NOT_A_SEATS)
    assert not left, f"kinds of mail no play answers and none is named: {sorted(left)}"
    assert not families & set(NOT_A_SEATS)
    assert not (families | set(NOT_A_SEATS)) - mail_kinds(), "a kind the service has no more"
