"""One mail per move against the computer (issue 40, finding 19): a move the computer answers
at once is told to its mover in one mail (the move taken with its receipt, what the computer
answered, the new position), and that mail's reply address plays the next move."""

from __future__ import annotations

from email.message import EmailMessage

from playing import new_game, plain, plain_mail, player_mail, queued
from sqlmodel import Session
from test_stand_in_seats import _a_legal_move

from adjudicator.games.three_musketeers.board import (
    GRID,
    MUSKETEER,
    Move,
    legal_moves,
    outcome,
    play,
)
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.app import App
from adjudicator.service.games import find_game
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


def _towards_the_end(app: App, name: str) -> tuple[list[str], bool]:
    """The Musketeers' move that brings them nearest to one rank or file, and whether it ends
    the game (docs/rules/three-musketeers.md, End: the three in line, the Cardinal wins)."""
    with Session(app.engine) as session:
        game = find_game(session, name)
        rules, state = rules_of(game), game_state(game)

    def apart(move: Move) -> int:
        cells = play(state, move).cells
        squares = [s for s, piece in enumerate(cells) if piece == MUSKETEER]
        ranks, files = [GRID.rank_of(s) for s in squares], [GRID.file_of(s) for s in squares]
        return min(sum(abs(x - line) for x in xs) for xs in (ranks, files) for line in range(5))

    best = min(legal_moves(state), key=apart)
    return [rules.format_order(best)], outcome(play(state, best)) is not None


def test_a_move_that_ends_the_game_against_the_computer_gets_one_mail_saying_so(
    app: App,
) -> None:
    """Finding 19, "one answer per mail received, one notice per event": the move that ends
    the game is told to its mover in one mail, the answer to his mail, with the move, its
    receipt and the game's result; not a confirmation and then a game-over result."""
    creds = new_game(
        app,
        ["ann", "cpu"],
        name="duel",
        kind="three-musketeers",
        settings={"stand_ins": ["cpu"], "reminders": []},
    )
    ending, ends = _towards_the_end(app, "duel")
    for number in range(1, 30):
        if ends:
            break
        body = f"PASSWORD {creds['ann'].secret}\n" + "\n".join(ending) + "\n"
        app.ingest(player_mail("duel", "ann", body, number=number), channel="pipe")
        ending, ends = _towards_the_end(app, "duel")
    assert ends, "no move of ann's ended the game"
    app.report()
    before = len(_to(app, ANN))
    body = f"PASSWORD {creds['ann'].secret}\n" + "\n".join(ending) + "\n"
    assert app.ingest(player_mail("duel", "ann", body, number=1000), channel="pipe") == (
        SubmissionStatus.ACCEPTED
    )
    app.report()
    (mail,) = _to(app, ANN)[before:]
    assert mail["In-Reply-To"] == "<ann-1000@example.org>"  # the answer to her mail
    subject, text = str(mail["Subject"]), " ".join(plain(mail).split())
    assert "game over" in subject.lower(), subject
    assert "was accepted and applied" in text
    assert ending[0] in text
    assert "Receipt: " in text
    assert "GAME OVER:" in text
    assert "The computer answered" not in text  # it had nothing to answer
    # The computer's seat gets the round's result, as every round.
    assert "game over" in str(_to(app, "cpu@example.org")[-1]["Subject"])
