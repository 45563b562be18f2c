"""One mail per move against the computer (issue 40, finding 19): a move the computer answers
at once is told to its mover in one mail (the move taken with its receipt, what the computer
answered, the new position), and that mail's reply address plays the next move."""

from __future__ import annotations

from email.message import EmailMessage

from playing import new_game, plain, plain_mail, player_mail, queued
from test_stand_in_seats import _a_legal_move

from adjudicator.app import App
from adjudicator.storage.models import SubmissionStatus

ANN = "ann@example.org"


def _to(app: App, address: str) -> list[EmailMessage]:
    return [m for m in queued(app) if m["To"] == address]


def test_a_move_the_computer_answers_gets_one_mail_and_its_reply_address_plays_on(
    app: App,
) -> None:
    creds = new_game(
        app,
        ["ann", "cpu"],
        name="duel",
        kind="three-musketeers",
        settings={"stand_ins": ["cpu"], "reminders": []},
        gm_address="gm@example.org",
    )
    before = len(_to(app, ANN))
    move = _a_legal_move(app, "duel", "ann")
    body = f"PASSWORD {creds['ann'].secret}\n" + "\n".join(move) + "\n"
    assert app.ingest(player_mail("duel", "ann", body, number=1), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    app.report()
    (mail,) = _to(app, ANN)[before:]
    assert mail["In-Reply-To"] == "<ann-1@example.org>"  # the answer to her mail
    text = plain(mail)
    assert "Your move in round 1 was applied, and the computer answered" in str(mail["Subject"])
    assert "your move in game duel, round 1, was accepted and applied" in text
    for line in move:
        assert line in text
    assert "Receipt: " in text
    assert "The computer answered at once, in round 2:" in text
    assert "cpu (the Cardinal) moved" in text
    assert "It is your move (the Musketeers)" in text  # the new position, and whose turn

    # Replying to that one mail, with no password, plays the next move.
    reply_to = str(mail["Reply-To"])
    nxt = _a_legal_move(app, "duel", "ann")
    reply = plain_mail(
        ANN,
        "\n".join(nxt) + "\n",
        subject=f"Re: {mail['Subject']}",
        message_id="<ann-2@x>",
        to=reply_to,
    )
    assert app.ingest(reply, channel="pipe") == SubmissionStatus.ACCEPTED
    app.report()
    (second,) = _to(app, ANN)[before + 1 :]
    assert "your move in game duel, round 3, was accepted and applied" in plain(second)


def test_the_computers_seat_still_gets_one_result_per_round(app: App) -> None:
    """One notice per event for the others: the other seat's mails are the rounds' results,
    each once."""
    creds = new_game(
        app,
        ["ann", "cpu"],
        name="duel",
        kind="three-musketeers",
        settings={"stand_ins": ["cpu"], "reminders": []},
    )
    move = _a_legal_move(app, "duel", "ann")
    body = f"PASSWORD {creds['ann'].secret}\n" + "\n".join(move) + "\n"
    app.ingest(player_mail("duel", "ann", body, number=1), channel="pipe")
    app.report()
    subjects = [str(m["Subject"]) for m in _to(app, "cpu@example.org")]
    assert subjects == ["[duel] Round 1 result", "[duel] Round 2 result"]
