"""Games against the computer say so (issue 40, finding 9; docs/stand-ins.md): the welcome,
the result and the STATUS answer name the seats the computer plays; in Three Musketeers, where
the Musketeers move first, the welcome to a Cardinal whose opponent is the computer says the
computer has moved, shows the board after its move and says it is his move."""

from __future__ import annotations

from itertools import count

from playing import new_game, plain, player_mail, queued
from sqlmodel import Session

from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.storage import queries

_numbers = count()


def _words(text: str) -> str:
    return " ".join(text.split())


def _computer_first_move(app: App) -> str:
    with Session(app.engine) as session:
        (first, *_) = queries.results_of_game(session, find_game(session, "tm").id)
        (line,) = first.orders["ann"]
        return line


def test_the_welcome_says_the_computer_moved_first_and_whose_move_it_is(app: App) -> None:
    new_game(
        app,
        ["ann", "bob"],
        name="tm",
        kind="three-musketeers",
        settings={"stand_ins": ["ann"]},
        welcome=True,
    )
    move = _computer_first_move(app)  # the Musketeers' first move, made at the start
    (welcome,) = [m for m in queued(app, "welcome") if m["To"] == "bob@example.org"]
    text = _words(plain(welcome))
    assert "ann is played by the computer" in text
    assert "You move first" not in text
    assert "The board at the start" not in text
    assert f"The board now, after ann's move {move}:" in text
    assert f"ann (the computer) has moved {move}: now it is your move." in text
    board = plain(welcome).split("The board now")[1].split("You have")[0]
    origin, target = move.split("-")
    rows = {line.split()[0]: line for line in board.splitlines() if line.strip()[:1].isdigit()}
    assert rows[origin[1]].split("|")[1 + "abcde".index(origin[0])].strip() == ""  # left empty
    assert rows[target[1]].split("|")[1 + "abcde".index(target[0])].strip() == "M"


def test_status_and_results_name_the_seat_the_computer_plays(app: App) -> None:
    creds = new_game(
        app,
        ["ann", "bob"],
        name="tm",
        kind="three-musketeers",
        settings={"stand_ins": ["ann"]},
        welcome=True,
    )
    assert creds
    app.ingest(player_mail("tm", "bob", "STATUS\n", number=next(_numbers)), channel="pipe")
    answer = queued(app, "answer")[-1]
    assert "ann is played by the computer" in _words(plain(answer))

    app.ingest(player_mail("tm", "bob", "c4-c3\n", number=next(_numbers)), channel="pipe")
    app.report()
    results = [m for m in queued(app, "result") if m["To"] == "bob@example.org"]
    assert results, "bob's move and the computer's answer are reported"
    for mail in results:
        assert "the computer" in _words(plain(mail))
