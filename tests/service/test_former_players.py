"""Former players and moved addresses are answered (issue 40, finding 3): the limit for
addresses without a seat counted the answers they got while they still played, so the
promised "your seat has passed on" never came to a player who had been active that hour."""

from __future__ import annotations

from email.message import EmailMessage

from playing import client_reply, clock_of, new_game, plain, player_mail, queued

from adjudicator.notify.throttle import STRANGER_ANSWERS_PER_HOUR
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm import change_address, replace_player
from adjudicator.storage.db import session_scope

ALICE = "alice@example.org"


def _an_active_hour(app: App) -> EmailMessage:
    """Alice plays: more order mails this hour than an address without a seat may be answered
    (each a reply to the game's last mail to her); her newest mail from the game."""
    new_game(
        app,
        ["alice", "bob", "carol"],
        settings={"early_close": False, "reminders": []},
        welcome=True,
    )
    for number in range(STRANGER_ANSWERS_PER_HOUR + 2):
        last = [m for m in queued(app) if m["To"] == ALICE][-1]
        orders = f"GIVE 3 TO {('bob', 'carol')[number % 2]}"
        app.ingest(
            client_reply(last, orders, sender=ALICE, message_id=f"<a{number}@x>"), channel="t"
        )
        clock_of(app).advance(minutes=2)
    return [m for m in queued(app) if m["To"] == ALICE][-1]


def _answers_to_alice(app: App, kind: str) -> list[str]:
    return [" ".join(plain(m).split()) for m in queued(app, kind) if m["To"] == ALICE]


def test_a_replaced_player_replying_to_an_old_mail_is_told_his_seat_passed_on(app: App) -> None:
    old = _an_active_hour(app)
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        replace_player(session, game, "alice", "dave@example.org", ctx=app.ctx, now=app.clock())
    clock_of(app).advance(minutes=1)
    app.ingest(client_reply(old, "GIVE 3 TO carol", sender=ALICE, message_id="<x@x>"), channel="t")
    [answer] = _answers_to_alice(app, "passed_on")
    assert "That seat has passed to a new player, so nothing in your mail was applied" in answer


def test_a_replaced_player_writing_from_his_address_is_told_his_seat_passed_on(app: App) -> None:
    _an_active_hour(app)
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        replace_player(session, game, "alice", "dave@example.org", ctx=app.ctx, now=app.clock())
    app.ingest(player_mail("gw1", "alice", "STATUS\nGIVE 3 TO bob", number=99), channel="t")
    newest = [m for m in queued(app) if m["To"] == ALICE][-1]
    assert newest["Subject"] == "[gw1] The seat alice is no longer yours, and more answers"
    assert "where you played the seat alice" in " ".join(plain(newest).split())


def test_a_moved_address_replying_to_an_old_mail_is_told_the_seat_moved(app: App) -> None:
    """The old mailbox's reply is refused (the seat's old reply address proves nothing now),
    with that cause: not "reply to any mail the game sent you", which it just did."""
    old = _an_active_hour(app)
    with session_scope(app.engine) as session:
        change_address(
            session,
            find_game(session, "gw1"),
            "alice",
            "alice@new.example.org",
            ctx=app.ctx,
            now=app.clock(),
        )
    app.ingest(client_reply(old, "GIVE 3 TO carol", sender=ALICE, message_id="<y@x>"), channel="t")
    [refusal] = _answers_to_alice(app, "refusal")
    assert "went to a reply address of a mail the game sent to an address the seat has" in refusal
    assert "Reply to one of those" in refusal
    assert "reply to any mail the game sent you" not in refusal
