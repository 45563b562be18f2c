"""PAUSE and RESUME in one game master's mail (issue 40): the commands run in the order
written, the game ends as the last one leaves it, the players hear of the game's state as it
stands after the mail, and the game master's one answer lists both commands done."""

from __future__ import annotations

from datetime import datetime, timedelta

from playing import clock_of, new_game, plain, plain_mail, queued
from sqlmodel import Session

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.service.rounds import closes_at, open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus

GM = "gm@example.org"
PLAYERS = ("ann@example.org", "ben@example.org", "cat@example.org")


def _gm_reply_address(app: App) -> str:
    with session_scope(app.engine) as session:
        renew_game_master(
            session, find_game(session, "gw1"), address=None, ctx=app.ctx, now=app.clock()
        )
    return str(queued(app, "gm:game_master")[-1]["Reply-To"])


def _send(app: App, body: str) -> None:
    mail = plain_mail(
        GM,
        body,
        subject="Re: [gw1] the game",
        message_id="<gm-pause-resume@example.org>",
        to=_gm_reply_address(app),
    )
    app.ingest(mail, channel="test")


def _status(app: App) -> GameStatus:
    with Session(app.engine) as session:
        return find_game(session, "gw1").status


def _to_players(app: App, before: int) -> list[str]:
    return [str(m["Subject"]) for m in queued(app)[before:] if m["To"] in PLAYERS]


def test_pause_then_resume_in_one_mail_leaves_the_game_running_and_the_players_untroubled(
    app: App,
) -> None:
    """The game was running before the mail and runs after it, with the deadline it had: a
    player is told nothing, as nothing changed for him (a "paused" notice with no "resumed"
    after it would leave him thinking the game stopped)."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    before = len(queued(app))
    _send(app, "PAUSE\nRESUME\n")
    assert _status(app) == GameStatus.RUNNING
    assert _to_players(app, before) == []
    (answer,) = [m for m in queued(app)[before:] if m["To"] == GM and m["X-Test-Kind"] == "answer"]
    text = " ".join(plain(answer).split())
    assert "line 1: PAUSE Done" in text, text
    assert "line 2: RESUME Done: the game runs again" in text, text
    assert "NOT DONE" not in text
    assert "every player has been told" not in text.lower()  # none was


def test_resume_then_pause_in_one_mail_leaves_the_game_paused_and_says_so_once(
    app: App,
) -> None:
    """A running game: RESUME is refused (nothing to resume), PAUSE pauses it; the players get
    one notice, that the game is paused."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    before = len(queued(app))
    _send(app, "RESUME\nPAUSE\n")
    assert _status(app) == GameStatus.PAUSED
    subjects = _to_players(app, before)
    assert len(subjects) == len(PLAYERS), subjects
    assert all("paused" in s.lower() for s in subjects), subjects
    (answer,) = [m for m in queued(app)[before:] if m["To"] == GM and m["X-Test-Kind"] == "answer"]
    text = " ".join(plain(answer).split())
    assert "line 1: RESUME NOT DONE" in text, text
    assert "line 2: PAUSE Done: the game is paused" in text, text


def _deadline_and_pause(app: App) -> tuple[object, object]:
    with Session(app.engine) as session:
        game = find_game(session, "gw1")
        round_ = open_round_of(session, game)
        assert round_ is not None
        return closes_at(round_), game.paused_at


def test_resume_then_pause_in_one_mail_leaves_a_paused_game_as_it_was_and_tells_nobody(
    app: App,
) -> None:
    """A game paused by an earlier mail: RESUME then PAUSE in one mail change nothing (one
    notice per event, and here there is none). The game stays paused with its pause's start
    and its deadline, the players hear nothing more, and a later RESUME moves the deadline by
    the whole pause."""
    new_game(app, ["ann", "ben", "cat"], gm_address=GM)
    _send(app, "PAUSE\n")
    assert _status(app) == GameStatus.PAUSED
    deadline, paused_at = _deadline_and_pause(app)
    clock_of(app).advance(hours=1)
    before = len(queued(app))
    _send_as(app, "RESUME\nPAUSE\n", "<gm-resume-pause@example.org>")
    assert _status(app) == GameStatus.PAUSED
    assert _deadline_and_pause(app) == (deadline, paused_at)
    assert _to_players(app, before) == []
    (answer,) = [m for m in queued(app)[before:] if m["To"] == GM and m["X-Test-Kind"] == "answer"]
    text = " ".join(plain(answer).split())
    assert "line 1: RESUME Not applied: line 2 pauses the game again" in text, text
    assert "line 2: PAUSE Done: the game stays paused" in text, text

    clock_of(app).advance(hours=1)
    _send_as(app, "RESUME\n", "<gm-resume@example.org>")
    assert _status(app) == GameStatus.RUNNING
    assert isinstance(deadline, datetime)
    assert _deadline_and_pause(app) == (deadline + timedelta(hours=2), None)


def _send_as(app: App, body: str, message_id: str) -> None:
    mail = plain_mail(
        GM, body, subject="Re: [gw1] the game", message_id=message_id, to=_gm_reply_address(app)
    )
    app.ingest(mail, channel="test")
