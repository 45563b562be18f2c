"""REMOVE in SiSSYFiGHT (issue 40, finding 8; docs/rules/sissyfight.md, "Players taken out"):
the player taken out is out of the fight at the end of the turn under way, as if knocked out,
so that the game can end; and he is told, by mail, that the game master took him out."""

from __future__ import annotations

from email.message import EmailMessage
from itertools import count

from playing import SERVICE, new_game, plain, queued
from sqlmodel import Session, col, select

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.service.notices import gm_reply_to
from adjudicator.storage.models import GameStatus, Round, RoundResult

_numbers = count(1)


def _mail(app: App, sender: str, body: str, *, to: str = SERVICE) -> None:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: [sf] the fight"
    message["Message-ID"] = f"<removed-{next(_numbers)}@example.org>"
    message.set_content(body)
    app.ingest(message.as_bytes(), channel="test")
    app.report()


def _results(app: App) -> list[RoundResult]:
    with Session(app.engine) as session:
        game = find_game(session, "sf")
        return list(
            session.exec(
                select(RoundResult)
                .join(Round, col(Round.id) == col(RoundResult.round_id))
                .where(Round.game_id == game.id)
                .order_by(col(Round.number))
            )
        )


def test_a_player_taken_out_is_out_at_the_end_of_the_turn_and_the_fight_can_end(
    app: App,
) -> None:
    credentials = new_game(
        app,
        ["alice", "bob", "carol"],
        name="sf",
        kind="sissyfight",
        settings={"reminders": []},  # early close: the default
        gm_address="gm@example.org",
    )
    secrets = {handle: c.secret for handle, c in credentials.items()}
    _mail(app, "carol@example.org", f"PASSWORD {secrets['carol']}\nSOLO red")
    with Session(app.engine) as session:
        gm_address = gm_reply_to(app.ctx, find_game(session, "sf"))
    _mail(app, "gm@example.org", "REMOVE carol", to=gm_address)

    (told,) = [m for m in queued(app, "game_change") if m["To"] == "carol@example.org"]
    assert "The game master has taken you out of the game" in str(told["Subject"])
    assert "the game master has taken you out of game sf" in " ".join(plain(told).split())
    others = [m for m in queued(app, "game_change") if m["To"] != "carol@example.org"]
    assert sorted(m["To"] for m in others) == ["alice@example.org", "bob@example.org"]
    assert "out of the fight" in " ".join(plain(others[0]).split())

    # The turn waits for alice and bob only; carol counts as DEFENDing in it (her SOLO is gone).
    _mail(app, "alice@example.org", f"PASSWORD {secrets['alice']}\nSOLO carol")
    _mail(app, "bob@example.org", f"PASSWORD {secrets['bob']}\nDEFEND")
    (result,) = _results(app)
    report = result.report["public"]
    assert report["actions"]["carol"] == {"action": "DEFEND", "target": None}
    assert report["removed"] == ["carol"]
    assert result.public_state["out"] == ["carol"]
    # docs/rules/sissyfight.md, End: one or two players left with chips win, jointly.
    assert result.finished
    assert sorted(result.winners) == ["alice", "bob"]
    with Session(app.engine) as session:
        assert find_game(session, "sf").status == GameStatus.FINISHED
    alices = [m for m in queued(app, "result") if m["To"] == "alice@example.org"][-1]
    text = " ".join(plain(alices).split())
    assert "GAME OVER: alice and bob win." in text
    assert "Taken out of the game by the game master, and out from now on: carol." in text
    assert not [m for m in queued(app, "result") if m["To"] == "carol@example.org"]


def test_a_player_taken_out_who_writes_in_is_told_he_is_out(app: App) -> None:
    """The mail that tells a removed seat its mail was not applied is the shared ``removed``
    mail in SiSSYFiGHT too: the game's own wording of a removal is a part of the game master's
    news to the others (``game_change``), not a mail of its own. It was taken for one, failed
    to render, and the player's mail stayed unanswered and unprocessed."""
    credentials = new_game(
        app,
        ["alice", "bob", "carol", "dave"],
        name="sf",
        kind="sissyfight",
        settings={"reminders": []},
        gm_address="gm@example.org",
    )
    with Session(app.engine) as session:
        gm_address = gm_reply_to(app.ctx, find_game(session, "sf"))
    _mail(app, "gm@example.org", "REMOVE carol", to=gm_address)
    _mail(app, "carol@example.org", f"PASSWORD {credentials['carol'].secret}\nSOLO alice")
    (told,) = [m for m in queued(app, "removed") if m["To"] == "carol@example.org"]
    assert str(told["Subject"]) == "[sf] You are no longer in this game"
    assert "the game master has taken you out of game sf" in " ".join(plain(told).split())
