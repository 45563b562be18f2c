"""The game master's proof by mail (docs/commands.md, "Running the game by mail"): a reply
address of the game master's own, bound to the game and to a GM token that can be renewed;
the From header alone never runs a game."""

from __future__ import annotations

from email.message import EmailMessage

from playing import SERVICE, new_game, plain, queued
from sqlmodel import Session

from adjudicator.base.security import gm_mac_matches, gm_reply_address, replied_gm
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus

KEY = b"k" * 32


def test_a_gm_reply_address_names_its_game_and_is_bound_to_the_gm_token() -> None:
    address = gm_reply_address(KEY, "judge@pbem.test", 7, "token-digest")
    assert address.startswith("judge+g7-")
    assert address.endswith("@pbem.test")
    replied = replied_gm(f"<{address.upper()}>")  # mail programs may change the case
    assert replied is not None
    game_id, mac = replied
    assert game_id == 7
    assert gm_mac_matches(KEY, 7, "token-digest", mac)
    assert not gm_mac_matches(KEY, 8, "token-digest", mac)  # another game
    assert not gm_mac_matches(KEY, 7, "new-token-digest", mac)  # renewed
    assert not gm_mac_matches(b"other-key" * 4, 7, "token-digest", mac)
    assert replied_gm("judge+r7-0123456789abcdef@pbem.test") is None  # a seat's, not a GM's


def _gm_mail(to: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = "gm@example.org"
    message["To"] = to
    message["Subject"] = "Re: [gw1] the game"
    message["Message-ID"] = f"<gm-{number}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def _status(app: App) -> GameStatus:
    with Session(app.engine) as session:
        return find_game(session, "gw1").status


def test_a_renewed_gm_address_voids_the_old_one_and_is_mailed_to_the_game_master(
    app: App,
) -> None:
    new_game(app, ["ann", "ben", "cat"], gm_address="gm@example.org")
    with session_scope(app.engine) as session:
        renew_game_master(
            session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
        )
    (first,) = queued(app, "gm:game_master")
    old = str(first["Reply-To"])
    with session_scope(app.engine) as session:
        renew_game_master(
            session,
            find_game(session, "gw1"),
            address="new.gm@example.org",
            ctx=app.ctx,
            now=app.clock(),
        )
    second = queued(app, "gm:game_master")[1]
    assert second["To"] == "new.gm@example.org"
    new = str(second["Reply-To"])
    assert new != old
    assert "replies to the service's earlier mails no" in plain(second)

    app.ingest(_gm_mail(old, "PAUSE", 1), channel="test")
    assert _status(app) == GameStatus.RUNNING
    (refused,) = queued(app, "answer")
    assert refused["To"] == "gm@example.org"  # the sender: told, and nothing done
    assert "PAUSE: not done" in plain(refused)

    app.ingest(_gm_mail(new, "PAUSE", 2), channel="test")
    assert _status(app) == GameStatus.PAUSED
    done = queued(app, "answer")[1]
    assert done["To"] == "new.gm@example.org"
    assert done["Reply-To"] == new


def test_lines_only_a_player_may_send_are_named_in_the_game_masters_answer(app: App) -> None:
    """The game master has no seat: orders or STATUS to the game master's address are not
    applied anywhere, and the one answer says so beside what was done."""
    new_game(app, ["ann", "ben", "cat"], gm_address="gm@example.org")
    with session_scope(app.engine) as session:
        renew_game_master(
            session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
        )
    reply_to = str(queued(app, "gm:game_master")[0]["Reply-To"])
    app.ingest(_gm_mail(reply_to, "Thanks!\nGIVE 3 TO ann\nCOPY ON\n", 1), channel="test")
    (answer,) = queued(app, "answer")
    text = " ".join(plain(answer).split())
    assert "a copy of every round's public result" in text
    assert "GIVE 3 TO ann" in text
    assert "this is not a game master's command" in text
    assert answer["To"] == "gm@example.org"
    assert SERVICE.split("@")[0] in str(answer["Reply-To"])


def test_help_to_the_game_masters_address_lists_the_game_masters_commands(app: App) -> None:
    new_game(app, ["ann", "ben", "cat"], gm_address="gm@example.org")
    with session_scope(app.engine) as session:
        renew_game_master(
            session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
        )
    reply_to = str(queued(app, "gm:game_master")[0]["Reply-To"])
    app.ingest(_gm_mail(reply_to, "HELP", 1), channel="test")
    (answer,) = queued(app, "answer")  # the general help and the game master's, in one mail
    text = plain(answer)
    assert "As the game master of gw1" in text
    for command in ("PAUSE", "EXTEND UNTIL", "REPLACE", "STAND-IN", "ANNOUNCE", "COPY ON"):
        assert command in text
    assert answer["Reply-To"] == reply_to

    app.ingest(_gm_mail("judge@pbem.test", "HELP", 2), channel="test")
    assert "As the game master" not in plain(queued(app, "answer")[1])  # proves nothing
