"""The reason a refused order line is given is what is wrong with it (issue 40, finding 20):
read from the answer mail the player gets, through the service."""

from __future__ import annotations

from playing import new_game, plain, player_mail, queued

from adjudicator.core.game import PieceSpec, Setup
from adjudicator.service.app import App
from adjudicator.service.games import Credentials


def _answer(app: App) -> str:
    (mail,) = queued(app, "rejection")
    return " ".join(plain(mail).split())


def test_a_giveaway_line_that_cannot_be_read_is_not_blamed_on_the_total(app: App) -> None:
    """docs/rules/giveaway.md: a submission gives away the whole holding. A line written
    "GIVE three TO bob" cannot be read (the amount is in words); the answer says so, and not
    that the gifts "add up to 0", which is not what is wrong."""
    creds = new_game(app, ["alice", "bob", "carol"])
    body = f"PASSWORD {creds['alice'].secret}\nGIVE three TO bob\n"
    app.ingest(player_mail("gw1", "alice", body), channel="pipe")
    text = _answer(app)
    assert '"GIVE three TO bob": ' in text
    assert "in digits" in text
    assert "add up to" not in text


def test_a_giveaway_total_already_too_high_is_named_beside_an_unread_line(app: App) -> None:
    """The gifts read give away more than the holding of 3 whatever the unread line says: that
    is wrong as well, and the answer says both."""
    creds = new_game(app, ["alice", "bob", "carol"])
    body = f"PASSWORD {creds['alice'].secret}\nGIVE 5 TO bob\nGIVE one TO carol\n"
    app.ingest(player_mail("gw1", "alice", body), channel="pipe")
    text = _answer(app)
    assert "in digits" in text
    assert "you hold 3 points but your gifts add up to 5" in text


def _rsp_game(app: App) -> dict[str, Credentials]:
    """Rock, Scissors, Paper: alice (white) has a Scissors on C3, next to bob's (black)
    Scissors on D4; white moves."""
    setup = Setup(
        pieces=[
            PieceSpec("white", "flag", "A1"),
            PieceSpec("black", "flag", "I9"),
            PieceSpec("white", "scissors", "C3"),
            PieceSpec("black", "scissors", "D4"),
        ],
        to_move="white",
    )
    return new_game(app, ["alice", "bob"], name="rsp1", kind="rock-scissors-paper", setup=setup)


def test_a_scissors_onto_the_enemy_scissors_it_is_locked_with_is_told_the_target_rule(
    app: App,
) -> None:
    """docs/rules/rock-scissors-paper.md: a Scissors may end only on an empty cell, an enemy
    Paper or an enemy Flag. C3-D4 onto the enemy Scissors on D4 is refused for that, not
    because "D4 is not next to the Scissors on D4"."""
    creds = _rsp_game(app)
    body = f"PASSWORD {creds['alice'].secret}\nC3-D4\n"
    app.ingest(player_mail("rsp1", "alice", body), channel="pipe")
    text = _answer(app)
    assert '"C3-D4": ' in text
    assert "may end only on an empty cell, an enemy Paper or an enemy Flag" in text
    assert "D4 holds" in text
    assert "locked" not in text
