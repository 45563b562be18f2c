"""Hints after the game (docs/stand-ins.md): the game-over result mail and the archive's game
page name where a finished game was decided, as the game kind's own hint says; a mail of a
round the game goes on after says nothing of the kind."""

from __future__ import annotations

from playing import add_orders, close_open_round, new_game, plain, queued

from adjudicator.archive.render import ArchiveRenderer
from adjudicator.games.starship_combat import RULES as STARSHIP
from adjudicator.games.starship_combat import Choice, StarshipState
from adjudicator.games.starship_combat.hints import decisive_choice
from adjudicator.readmodel.read import read_archive
from adjudicator.service.app import App

FIRE, SHIELD = Choice(fire=True), Choice(shield=True)


def _a_game_ann_loses(app: App) -> None:
    """Starship Combat from the standard start: round 1 ann FIRE (alone: outside the
    equilibrium mix), bob SHIELD; round 2 ann NOTHING, bob FIRE: ann is hit (Ruling 5)."""
    new_game(app, ["ann", "bob"], name="duel", kind="starship-combat")
    add_orders(app, "duel", "ann", "FIRE")
    add_orders(app, "duel", "bob", "SHIELD")
    close_open_round(app, "duel")
    add_orders(app, "duel", "ann", "NOTHING")
    add_orders(app, "duel", "bob", "FIRE")
    close_open_round(app, "duel")


def test_the_game_over_mail_names_the_costliest_choice(app: App) -> None:
    _a_game_ann_loses(app)
    expected = decisive_choice(
        StarshipState(("ann", "bob"), (3, 3), (6, 6)), [(FIRE, SHIELD), (Choice(), FIRE)]
    )
    assert expected is not None
    who = ("ann", "bob")[expected.seat]
    results = queued(app, "result")
    assert len(results) == 4  # two rounds, two players
    for mail in results[:2]:
        assert "decided" not in plain(mail)  # round 1: the game goes on
    for mail in results[2:]:
        text = " ".join(plain(mail).split())
        assert "GAME OVER: bob wins." in text
        assert "Where the game was decided:" in text
        played = STARSHIP.format_order(expected.chose)
        assert (
            f"the costliest choice of the game was {who}'s {played} in round {expected.round}:"
            in text
        )
        assert f"worth {float(expected.worth):+.2f} in expected result" in text


def test_the_archive_game_page_names_where_the_game_was_decided(app: App) -> None:
    _a_game_ann_loses(app)
    (game,) = read_archive(app.engine, game_name="duel").games
    pages = {page.path: page.content.decode() for page in ArchiveRenderer().game(game)}
    html = " ".join(pages["duel/index.html"].split())
    assert '<h2 id="decided">Where the game was decided</h2>' in html
    assert "the costliest choice of the game" in html
