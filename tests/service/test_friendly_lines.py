"""A mail with no order in it is no failed order (issue 40, finding 4): greetings, sign-offs
and remarks beside commands are passed over, the answer is titled after what was done, and a
remark after the game's end, or from an observer, is acknowledged, never refused. A line that
could be an order still gets its refusal. Each case is a mail in through the service and the
answer read as its recipient reads it."""

from __future__ import annotations

from email.message import EmailMessage

from playing import new_game, plain, plain_mail, player_mail, queued

from adjudicator.core.game import PieceSpec, Setup
from adjudicator.service.app import App
from adjudicator.service.games import Credentials, find_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, Observer


def _flat(mail: EmailMessage) -> str:
    return " ".join(plain(mail).split())


def _answers_to(app: App, address: str) -> list[EmailMessage]:
    """The answers to mails (not the notices of what they did) that went to ``address``."""
    return [m for m in queued(app) if m["To"] == address and m["X-Test-Kind"] != "absence"]


def test_a_greeting_and_a_sign_off_around_a_command_are_no_failed_orders(app: App) -> None:
    """Off to a conference / SET ABSENCE 2d / Dave: the absence is set, and the answer says
    so in its subject; the greeting and the name are no orders, so nothing says "Orders NOT
    accepted" or asks for the points to be given away."""
    creds = new_game(app, ["alice", "bob", "dave"], settings={"absence_days": 5})
    body = f"PASSWORD {creds['dave'].secret}\nOff to a conference\nSET ABSENCE 2d\nDave\n"
    app.ingest(player_mail("gw1", "dave", body), channel="pipe")
    (answer,) = _answers_to(app, "dave@example.org")
    assert answer["Subject"] == "[gw1] Absence set"
    text = _flat(answer)
    assert "you are away from" in text
    assert "NOT accepted" not in text
    assert "give them all away" not in text
    assert queued(app, "rejection") == []


def test_a_line_that_could_be_an_order_beside_a_command_is_still_refused(app: App) -> None:
    """A wrongly written order is never dropped to quiet the answer: "GIVE three TO bob" beside
    SET ABSENCE is read, and refused with its reason."""
    creds = new_game(app, ["alice", "bob", "dave"], settings={"absence_days": 5})
    body = f"PASSWORD {creds['dave'].secret}\nSET ABSENCE 2d\nGIVE three TO bob\nDave\n"
    app.ingest(player_mail("gw1", "dave", body), channel="pipe")
    (answer,) = _answers_to(app, "dave@example.org")
    text = _flat(answer)
    assert "Orders NOT accepted" in text
    assert '"GIVE three TO bob"' in text
    assert "you are away from" in text


def _won_game(app: App) -> dict[str, Credentials]:
    """Rock, Scissors, Paper, over: alice's (white) Rock on H8 took bob's Flag on I9."""
    setup = Setup(
        pieces=[
            PieceSpec("white", "flag", "A1"),
            PieceSpec("black", "flag", "I9"),
            PieceSpec("white", "rock", "H8"),
            PieceSpec("black", "rock", "B2"),
        ],
        to_move="white",
    )
    creds = new_game(app, ["alice", "bob"], name="rsp1", kind="rock-scissors-paper", setup=setup)
    move = f"PASSWORD {creds['alice'].secret}\nH8-I9\n"
    app.ingest(player_mail("rsp1", "alice", move, number=1), channel="pipe")
    with session_scope(app.engine) as session:
        assert find_game(session, "rsp1").status == GameStatus.FINISHED
    return creds


def test_good_game_after_the_end_is_acknowledged_not_refused(app: App) -> None:
    """A "Good game!" from a player once the game is over asks for nothing: it is answered as a
    remark, not as orders too late."""
    creds = _won_game(app)
    before = len(_answers_to(app, "bob@example.org"))
    body = f"PASSWORD {creds['bob'].secret}\nGood game!\n"
    app.ingest(player_mail("rsp1", "bob", body, number=2), channel="pipe")
    answers = _answers_to(app, "bob@example.org")[before:]
    (answer,) = answers
    assert answer["Subject"] == "[rsp1] Mail received"
    text = _flat(answer)
    assert "is over" in text
    assert "too late" not in text
    assert queued(app, "late") == []


def test_an_order_after_the_end_is_still_told_too_late(app: App) -> None:
    """A line that reads as an order after the end is refused as before: the player learns his
    move counts for nothing."""
    creds = _won_game(app)
    body = f"PASSWORD {creds['bob'].secret}\nGood game!\nB2-B3\n"
    app.ingest(player_mail("rsp1", "bob", body, number=2), channel="pipe")
    assert [m["To"] for m in queued(app, "late")] == ["bob@example.org"]


def test_an_observers_congratulations_are_acknowledged_not_refused(app: App) -> None:
    """An observer replying "Congrats bob" to a result holds no seat and asks for nothing: he
    is told nothing was done, not that his address is not registered."""
    new_game(app, ["alice", "bob", "carol"])
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        session.add(Observer(game_id=game.id, address="olga@example.net", created_at=app.clock()))
    mail = plain_mail(
        "olga@example.net",
        "Congrats bob\n",
        subject="Re: [gw1] Results of round 1",
        message_id="<olga-1@example.net>",
    )
    app.ingest(mail, channel="pipe")
    (answer,) = _answers_to(app, "olga@example.net")
    text = _flat(answer)
    assert "You observe game gw1" in text
    assert "not registered" not in text
    assert "NOT accepted" not in text
