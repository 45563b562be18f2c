"""A newcomer's counts are his own (issue 40, finding 16): the missed rounds and the absence
days of the player he replaced stay with that player's tenure of the seat, in the game
master's ``adjudicate status``, after a rollback, and in the newcomer's STATUS."""

from __future__ import annotations

import re
from email.message import EmailMessage
from itertools import count

from playing import SERVICE, close_open_round, new_game, plain, queued
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm import replace_player, rollback
from adjudicator.service.status import status_lines
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Round, RoundResult

_numbers = count(1)


def _mail(app: App, sender: str, body: str, *, to: str = SERVICE) -> None:
    message = EmailMessage()
    message["From"] = sender if "@" in sender else f"{sender}@example.org"
    message["To"] = to
    message["Subject"] = "[gw] orders"
    message["Message-ID"] = f"<newcomer-{next(_numbers)}@example.org>"
    message.set_content(body)
    app.ingest(message.as_bytes(), channel="test")
    app.report()


def _holdings(app: App) -> dict[str, int]:
    """What each player holds for the open round (the last result's holdings)."""
    with Session(app.engine) as session:
        game = find_game(session, "gw")
        last = session.exec(
            select(RoundResult)
            .join(Round, col(Round.id) == col(RoundResult.round_id))
            .where(Round.game_id == game.id)
            .order_by(col(Round.number).desc())
        ).first()
        assert last is not None
        return dict(last.public_state["holdings"])


def _carol_row(app: App) -> list[str]:
    with Session(app.engine) as session:
        lines = status_lines(session, name="gw", now=app.clock())
    (row,) = [line.split() for line in lines if line.strip().startswith("carol ")]
    return row


def test_a_newcomer_has_no_missed_rounds_and_no_absence_days_of_the_player_he_replaced(
    app: App,
) -> None:
    credentials = new_game(
        app,
        ["alice", "bob", "carol"],
        name="gw",
        settings={"reminders": [], "missed_rounds_limit": 5, "absence_days": 3},
        gm_address="gm@example.org",
    )
    secrets = {handle: c.secret for handle, c in credentials.items()}
    for _ in range(2):  # carol misses rounds 1 and 2
        held = _holdings(app) if _ else {"alice": 3, "bob": 3}
        _mail(app, "alice", f"PASSWORD {secrets['alice']}\nGIVE {held['alice']} TO bob")
        _mail(app, "bob", f"PASSWORD {secrets['bob']}\nGIVE {held['bob']} TO alice")
        close_open_round(app, "gw")
    assert _carol_row(app)[2] == "2"
    _mail(app, "carol", f"PASSWORD {secrets['carol']}\nSET ABSENCE 2d")  # two days spent

    with session_scope(app.engine) as session:  # adjudicate player replace gw carol dan@...
        game = find_game(session, "gw")
        replace_player(session, game, "carol", "dan@example.org", ctx=app.ctx, now=app.clock())
    takeover = plain([m for m in queued(app, "takeover") if m["To"] == "dan@example.org"][-1])
    password = re.search(r"PASSWORD ([a-z2-9]{12})", takeover)
    assert password is not None

    row = _carol_row(app)
    assert row[2] == "0"  # the game master's status: none of carol's misses
    assert "away" not in " ".join(row)  # nor her absence
    _mail(app, "dan", "STATUS")
    status = plain([m for m in queued(app, "answer") if m["To"] == "dan@example.org"][-1])
    assert "Absence: 3 of your 3 days left in this game; none taken." in status

    held = _holdings(app)
    _mail(app, "alice", f"PASSWORD {secrets['alice']}\nGIVE {held['alice']} TO bob")
    _mail(app, "bob", f"PASSWORD {secrets['bob']}\nGIVE {held['bob']} TO alice")
    _mail(app, "dan", f"PASSWORD {password[1]}\nGIVE {held['carol']} TO alice")
    # round 3 closed early on every order; the game master rolls it back to look again
    with session_scope(app.engine) as session:
        rollback(session, find_game(session, "gw"), 3, ctx=app.ctx, now=app.clock())
    assert _carol_row(app)[2] == "0"  # counted again: still none of carol's rounds
