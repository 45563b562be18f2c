"""The game master's "Game over" summary after a rollback (issue 40, finding 14): a game that
ends again after the game master rolled its end back ends anew, and the summary he gets names
the new end, not the one rolled back."""

from __future__ import annotations

from playing import add_orders, close_open_round, new_game, plain, queued

from adjudicator.service import gm
from adjudicator.service.app import App
from adjudicator.service.games import find_game
from adjudicator.storage.db import session_scope


def test_the_game_master_hears_the_new_winner_after_a_rollback(app: App) -> None:
    """Starship Combat: round 1 both shield; round 2 bob fires at an unshielded ann, who is
    destroyed (docs/rules/starship-combat.md). Rolled back to round 2, ann fires at an
    unshielded bob instead: ann wins, and the game master is told so."""
    new_game(app, ["ann", "bob"], name="duel", kind="starship-combat", gm_address="gm@example.org")
    add_orders(app, "duel", "ann", "SHIELD")
    add_orders(app, "duel", "bob", "SHIELD")
    close_open_round(app, "duel")
    add_orders(app, "duel", "ann", "NOTHING")
    add_orders(app, "duel", "bob", "FIRE")
    close_open_round(app, "duel")
    (first,) = queued(app, "gm:game_over")
    assert "won by bob" in str(first["Subject"])

    with session_scope(app.engine) as session:
        gm.rollback(session, find_game(session, "duel"), 2, ctx=app.ctx, now=app.clock())
    add_orders(app, "duel", "ann", "FIRE")
    add_orders(app, "duel", "bob", "NOTHING")
    close_open_round(app, "duel")

    summaries = queued(app, "gm:game_over")
    assert len(summaries) == 2, "the new end is told, not swallowed as the old one's repeat"
    latest = summaries[-1]
    assert latest["To"] == "gm@example.org"
    assert "won by ann" in str(latest["Subject"])
    text = " ".join(plain(latest).split())
    assert "ann wins" in text or "won by ann" in text
    assert "bob wins" not in text
