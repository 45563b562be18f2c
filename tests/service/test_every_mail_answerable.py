"""Every mail about a game is answerable (issue 40, finding 5): a reply to it, from the
recipient's registered address with no password, quoting it as a mail program does, is read as
the seat's (a player's) or the game master's. The answer to ``HELP game``, the game master's
copy of an absence notice and the answer to APPROVE had no reply address: replying to them was
refused, and the refusal told the player to do what he had just done.

The kinds of mail are taken from the code: every mail template (``templates/mail/*.txt.j2``,
the game master's notices one by one). A new kind of mail fails this test until the play below
makes one and its reply is read right, or it is named below as not about a game."""

from __future__ import annotations

from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from itertools import count
from pathlib import Path

from playing import client_reply, clock_of, close_open_round, new_game, player_mail, queued
from sqlmodel import Session, col, select

from adjudicator.app import App
from adjudicator.mail.compose import TEMPLATES
from adjudicator.service.announcements import tell_created
from adjudicator.service.closing import begin_game
from adjudicator.service.deadlines import queue_reminders
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.notices import NOTICES
from adjudicator.service.rounds import open_round_of
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail, Submission

GM = "gm@example.org"
NOT_ABOUT_A_GAME = {
    "held_back": "the loop guard's notice to an address, about its mail",
    "no_game": "the answer to a mail that names no game of the service",
    "too_many_sections": "the answer to a mail with more game sections than are read",
    "seat_passed_on": "to a former player, whose seat is someone else's now: his reply is "
    "answered that the seat passed on (tests/service/test_former_players.py)",
    "passed_on": "the answer to that reply, to the former player",
    "gm:gm_handed_over": "to a game master replaced by another address: his replies no longer "
    "run the game (tests/service/test_gm_conversation.py)",
    "takeover": "welcome of a newcomer to a seat (tested with the seats: it carries the token)",
}
"""Kinds that are not a seat's or a game master's mail, with why."""


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


def _newest(app: App, to: str) -> EmailMessage:
    return [m for m in queued(app) if m["To"] == to][-1]


def _play(app: App) -> None:
    """A game of Giveaway played through the service with its game master, making as many
    kinds of mail as a game makes."""
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob", "carol")],
            options={},
            schedule="72h",
            settings={"early_close": False, "absence_days": 5},
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
    send = lambda raw: app.ingest(raw, channel="t")  # noqa: E731
    alice, bob, carol = (f"{p}@example.org" for p in ("alice", "bob", "carol"))
    send(client_reply(_newest(app, alice), "GIVE 3 TO bob", sender=alice, message_id=_id()))
    send(client_reply(_newest(app, bob), "GIVE 9 TO nobody", sender=bob, message_id=_id()))
    send(player_mail("gw1", "bob", "HELP gw1", number=1))  # from his address, no password
    send(player_mail("gw1", "carol", "STATUS", number=2))
    send(client_reply(_newest(app, carol), "SET ABSENCE 2d", sender=carol, message_id=_id()))
    send(
        client_reply(
            _newest(app, alice), "PRESS\nHello all\nENDPRESS", sender=alice, message_id=_id()
        )
    )
    gm_last = _newest(app, GM)
    send(client_reply(gm_last, "EXTEND 24h", sender=GM, message_id=_id()))
    send(
        client_reply(
            _newest(app, GM), "ANNOUNCE\nWelcome all\nENDANNOUNCE", sender=GM, message_id=_id()
        )
    )
    for command in ("PAUSE", "RESUME", "STAND-IN bob", "STAND-IN bob OFF"):
        send(client_reply(_newest(app, GM), command, sender=GM, message_id=_id()))
    send(player_mail("gw1", "bob", "GIVE 3 TO alice", number=3))  # no password: refused
    send(client_reply(_newest(app, alice), "HISTORY\nREPORT 9", sender=alice, message_id=_id()))
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        round_ = open_round_of(session, game)
        assert round_ is not None
        clock_of(app).advance(hours=90)  # the deadline is at 96 h now
        queue_reminders(session, round_, ctx=app.ctx, now=app.clock())
    send(client_reply(_newest(app, carol), "RESIGN", sender=carol, message_id=_id()))
    send(
        client_reply(
            _newest(
                app,
                carol,
            ),
            f"RESIGN {_resign_code(app)}",
            sender=carol,
            message_id=_id(),
        )
    )
    close_open_round(app, "gw1")


def _resign_code(app: App) -> str:
    text = str(_newest(app, "carol@example.org").get_body(preferencelist=("plain",)).get_content())
    return text.rsplit("RESIGN ", maxsplit=1)[-1].split(maxsplit=1)[0]


NOT_DRIVEN_HERE = {
    "address_changed",  # the new address's: the seat's reply address; the old one's: none
    "gm:adjudication_failed",
    "gm:bounced",
    "gm:closed_late",
    "gm:game_master",
    "gm:game_over",
    "gm:join_request",
    "gm:missed_rounds",
    "gm:offered",
    "gm:refused",
    "gm:replaced",
    "gm:started",
    "gm:stand_in_returned",
    "grace_late",
    "grace_wait",
    "join_decided",
    "late",
    "not_your_turn",
    "observed",
    "refusal_policy",
    "removed",
    "seat_offer",
    "seat_offered",
    "seat_taken",
    "stale",
    "started",
}
"""Kinds this play does not make yet: each still carries the seat's or the game master's reply
address through ``replies.templated_mail`` (a mail about a game to a seat's or the game
master's address), but is not replied to here."""

ACTIVE = ("alice@example.org", "bob@example.org")


def _one_of_each(app: App) -> Iterator[tuple[str, EmailMessage]]:
    """The first mail of each kind about the game, to a player still playing or the game
    master (one of each to each, where both get it)."""
    seen: set[tuple[str, bool]] = set()
    with Session(app.engine) as session:
        rows = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
    for row in rows:
        to_gm = row.recipient == GM
        if row.game_id is None or (row.recipient not in ACTIVE and not to_gm):
            continue
        if (row.kind, to_gm) in seen:
            continue
        seen.add((row.kind, to_gm))
        parsed: EmailMessage = message_from_bytes(row.message, policy=policy.default)
        yield row.kind, parsed


def _note_of(app: App, message_id: str) -> str:
    with Session(app.engine) as session:
        found = session.exec(select(Submission).where(Submission.message_id == message_id)).one()
        return found.note or ""


def test_a_reply_to_every_kind_of_mail_is_read_as_the_seats_or_the_game_masters(
    app: App,
) -> None:
    _play(app)
    made = {kind for kind, _ in _one_of_each(app)}
    unknown = mail_kinds() - made - set(NOT_ABOUT_A_GAME) - NOT_DRIVEN_HERE
    assert not unknown, f"kinds of mail this test neither makes nor names: {sorted(unknown)}"
    assert made >= {"welcome", "confirmation", "rejection", "answer", "absence", "result"}
    for kind, mail in list(_one_of_each(app)):
        to = str(mail["To"])
        gm = to == GM
        assert mail["Reply-To"], f"{kind} to {to} has no reply address"
        message_id = _id()
        # A client's reply, from the registered address, with no password: a command only the
        # seat (HISTORY) or the game master (COPY OFF) may give.
        body = "COPY OFF" if gm else "HISTORY"
        clock_of(app).advance(minutes=1)
        app.ingest(client_reply(mail, body, sender=to, message_id=message_id), channel="t")
        note = _note_of(app, message_id)
        if gm:
            assert "game master: 1 command(s) done, 0 refused" in note, (kind, note)
        else:
            assert "history sent" in note, (kind, note)
            assert "refused" not in note, (kind, note)


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
