"""The game master's mail as the game master meets it (issue 40, findings 17 and 19): one
answer per mail, the game master's own command list for a mistyped command, and every address
change told to whoever it concerns."""

from __future__ import annotations

from email.message import EmailMessage

from playing import new_game, plain, plain_mail, queued
from sqlmodel import Session, select

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OutboxMail

GM = "gm@example.org"


def _gm_mail(to: str, body: str, number: int) -> bytes:
    return plain_mail(
        GM,
        body,
        subject="Re: [gw1] the game",
        message_id=f"<gm-conv-{number}@example.org>",
        to=to,
    )


def _gm_reply_address(app: App) -> str:
    with session_scope(app.engine) as session:
        renew_game_master(
            session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
        )
    return str(queued(app, "gm:game_master")[-1]["Reply-To"])


def _mails_to(app: App, address: str) -> list[OutboxMail]:
    with Session(app.engine) as session:
        return [m for m in session.exec(select(OutboxMail)) if m.recipient == address]


def test_a_game_master_mail_of_three_commands_gets_one_answer_holding_all_three(
    app: App,
) -> None:
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    reply_to = _gm_reply_address(app)
    before = len(_mails_to(app, GM))
    app.ingest(_gm_mail(reply_to, "EXTEND 1d\nSTAND-IN cat ON\nCOPY ON\n", 1), channel="test")
    after = _mails_to(app, GM)[before:]
    assert [m.kind for m in after] == ["answer"], [m.kind for m in after]


def test_a_game_masters_mistyped_command_gets_the_game_masters_commands(app: App) -> None:
    """Finding 17: "PAUSSE" to the game master's address is answered with "did you mean
    PAUSE?" and the game master's list (PAUSE, EXTEND, REPLACE...), not the players' (JOIN,
    SET PASSWORD...), to the game master with the game master's reply address."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    reply_to = _gm_reply_address(app)
    app.ingest(_gm_mail(reply_to, "PAUSSE\n", 1), channel="test")
    (answer,) = queued(app, "answer")
    assert answer["To"] == GM
    assert answer["Reply-To"] == reply_to
    text = plain(answer)
    assert "did you mean PAUSE?" in text
    for command in ("EXTEND UNTIL", "REPLACE HANDLE", "STAND-IN HANDLE", "ANNOUNCE"):
        assert command in text
    for players_only in ("JOIN gw42", "SET PASSWORD", "STANDBY giveaway"):
        assert players_only not in text


def test_a_replaced_game_master_is_told_at_his_own_address_without_the_new_reply_address(
    app: App,
) -> None:
    """Finding 17: ``adjudicate game gm gw1 NEW`` tells the game master replaced (a game taken
    from him is noticed) and welcomes the new one; the old one's mail does not carry the
    new game master's reply address."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    with session_scope(app.engine) as session:
        renew_game_master(
            session,
            find_game(session, "gw1"),
            address="new.gm@example.org",
            ctx=app.ctx,
            now=app.clock(),
        )
    (welcome,) = queued(app, "gm:game_master")
    assert welcome["To"] == "new.gm@example.org"
    (told,) = queued(app, "gm:gm_handed_over")
    assert told["To"] == GM
    assert told["Reply-To"] != welcome["Reply-To"]
    text = " ".join(plain(told).split())
    assert "no longer the game master" in str(told["Subject"])
    assert "has a new game master, at new.gm@example.org" in text


def test_a_game_master_renewed_at_the_same_address_is_not_told_he_was_replaced(
    app: App,
) -> None:
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    _gm_reply_address(app)
    assert queued(app, "gm:gm_handed_over") == []


def test_a_game_masters_mail_from_another_address_gets_one_answer_at_his_address(
    app: App,
) -> None:
    """Finding 19, one answer per mail received: the game master writing from his phone to
    his reply address, with commands, HELP, LIST and a mistyped line, gets one mail, at his
    registered address, with his reply address; nothing goes to the address he wrote from
    (the From header proves nothing)."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    reply_to = _gm_reply_address(app)
    message = EmailMessage()
    message["From"] = "gm.phone@example.net"
    message["To"] = reply_to
    message["Subject"] = "Re: [gw1] the game"
    message["Message-ID"] = "<gm-phone-1@example.net>"
    message.set_content("PAUSSE\nHELP\nEXTEND 1d\nLIST\n")
    app.ingest(message.as_bytes(), channel="test")
    answers = queued(app, "answer")
    assert [a["To"] for a in answers] == [GM]
    (answer,) = answers
    assert answer["Reply-To"] == reply_to
    text = " ".join(plain(answer).split())
    assert "did you mean PAUSE?" in text
    assert "As the game master of gw1" in text
    assert "EXTEND 1d" in text
