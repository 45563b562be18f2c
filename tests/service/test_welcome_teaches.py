"""The welcome holds what a newcomer needs to play round 1 (issue: mails that teach): what
their seat plays, the board of a board game, the order syntax, who moves first, and an example
the game accepts now; never a path inside our repository."""

from __future__ import annotations

import re

from playing import new_game, plain, queued

from adjudicator.app import App
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.games import find_game
from adjudicator.storage.db import session_scope


def _welcomes(app: App, kind: str, handles: list[str]) -> dict[str, str]:
    new_game(app, handles, kind=kind, welcome=True)
    return {str(m["To"]).split("@")[0]: plain(m) for m in queued(app, "welcome")}


def _example(text: str) -> list[str]:
    """The indented lines after "For example, orders valid now:"."""
    after = text.split("For example, orders valid now:\n\n", 1)[1]
    return [line.strip() for line in after.split("\n\n", 1)[0].splitlines()]


def test_the_welcome_of_a_board_game_says_the_side_the_board_and_who_moves_first(
    app: App,
) -> None:
    # docs/rules/three-musketeers.md: the first seat plays the Musketeers, who move first.
    welcomes = _welcomes(app, "three-musketeers", ["athos", "richelieu"])
    first, second = welcomes["athos"], welcomes["richelieu"]
    assert "You play the Musketeers." in first
    assert "You play the Cardinal's men." in second
    for text in (first, second):
        assert "The board at the start:" in text
        assert "docs/rules" not in text  # no path inside our repository
    assert "You move first." in first
    assert "athos moves first" in second
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        checked = rules_of(game).check(game_state(game), "athos", _example(first))
    assert checked.ok
    assert len(checked.orders) == 1


def test_the_welcome_of_a_simultaneous_game_has_orders_valid_for_the_first_round(
    app: App,
) -> None:
    welcomes = _welcomes(app, "giveaway", ["alice", "bob", "carol"])
    with session_scope(app.engine) as session:
        game = find_game(session, "gw1")
        rules, state = rules_of(game), game_state(game)
        for handle, text in welcomes.items():
            assert "Round 1 waits for your orders." in text
            assert re.search(r"^      GIVE <points> TO <player>$", text, re.MULTILINE)
            assert rules.check(state, handle, _example(text)).ok
