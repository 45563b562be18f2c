"""What each game tells a seat about its own start (GameKind.seat_position): the side or colour
and the resources the rules give it, so that the welcome can say them. The numbers are the
rules pages', not the code's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.core.game import Setup
from adjudicator.games import kind_of


def _positions(
    kind: str, players: list[str], setup: Setup | None = None
) -> dict[str, Mapping[str, Any]]:
    game = kind_of(kind)
    rules = game.rules
    state = rules.start(players, options=dict(rules.option_defaults), setup=setup or Setup())
    return {p: game.seat_position(rules.player_view(state, p), p) for p in players}


def test_starship_ships_start_with_3_missiles_and_6_power() -> None:
    """docs/rules/starship-combat.md: "Each ship starts with 3 missiles and enough power to
    raise its shields 6 times"; the round limit is 30 by default."""
    positions = _positions("starship-combat", ["kirk", "kang"])
    assert positions["kirk"] == {
        "missiles": 3,
        "power": 6,
        "opponent": "kang",
        "their_missiles": 3,
        "their_power": 6,
        "max_rounds": 30,
    }
    assert positions["kang"]["opponent"] == "kirk"


def test_starship_a_custom_start_is_what_the_seat_is_told() -> None:
    """docs/rules/starship-combat.md: "start: missiles kirk=1" changes kirk's start."""
    setup = Setup(start={"missiles": {"kirk": 1}, "power": {"kang": 2}})
    positions = _positions("starship-combat", ["kirk", "kang"], setup)
    assert (positions["kirk"]["missiles"], positions["kirk"]["power"]) == (1, 6)
    assert (positions["kirk"]["their_missiles"], positions["kirk"]["their_power"]) == (3, 2)


def test_sissyfight_colours_go_in_seat_order_with_10_chips_each() -> None:
    """docs/rules/sissyfight.md: "the first player is red, the second green, then blue";
    "Everyone starts with 10 chips"; orders name the others by colour, so each seat is told
    theirs too."""
    positions = _positions("sissyfight", ["alice", "bob", "carol"])
    assert (positions["alice"]["colour"], positions["alice"]["chips"]) == ("red", 10)
    assert positions["bob"]["colour"] == "green"
    others = {o["player"]: (o["colour"], o["chips"]) for o in positions["carol"]["others"]}
    assert others == {"alice": ("red", 10), "bob": ("green", 10)}
    assert positions["carol"]["colour"] == "blue"


def test_sissyfight_colours_the_game_master_assigned() -> None:
    """docs/rules/sissyfight.md: players without an assigned colour take the colours nobody
    was given, in order, by seat (dave=red: alice green, bob blue, carol black)."""
    setup = Setup(colours={"dave": "red"}, start={"chips": {"alice": 4}})
    positions = _positions("sissyfight", ["alice", "bob", "carol", "dave"], setup)
    colours = {p: positions[p]["colour"] for p in positions}
    assert colours == {"alice": "green", "bob": "blue", "carol": "black", "dave": "red"}
    assert positions["alice"]["chips"] == 4


def test_giveaway_everybody_starts_holding_3_points() -> None:
    """docs/rules/giveaway.md: "Everybody starts round 1 with 3 points"; "You start every
    later round holding your score of the previous round plus 3"; 100 decides."""
    positions = _positions("giveaway", ["alice", "bob", "carol"])
    assert positions["alice"] == {"points": 3, "score": 0, "each_round": 3, "target": 100}


def test_three_musketeers_three_against_twenty_two() -> None:
    """docs/rules/three-musketeers.md: the first player plays the Musketeers (three of them),
    the second the Cardinal's 22 men; the Musketeers move first."""
    positions = _positions("three-musketeers", ["athos", "richelieu"])
    assert positions["athos"] == {
        "side": "musketeers",
        "pieces": 3,
        "their_pieces": 22,
        "to_move": "musketeers",
    }
    assert positions["richelieu"]["side"] == "cardinal"
    assert positions["richelieu"]["pieces"] == 22


def test_rock_scissors_paper_sides_and_the_setup_table() -> None:
    """docs/rules/rock-scissors-paper.md, "Setup": each side has Flags on 2 cells, 3 Rocks,
    4 Scissors and 5 Papers; the first seat is White; one flag ends the game by default."""
    positions = _positions("rock-scissors-paper", ["wanda", "boris"])
    expected = {"flag": 2, "rock": 3, "scissors": 4, "paper": 5}
    assert positions["wanda"]["side"] == "white"
    assert positions["boris"]["side"] == "black"
    assert positions["wanda"]["pieces"] == expected
    assert positions["boris"]["pieces"] == expected
    assert positions["wanda"]["flags"] == 1
