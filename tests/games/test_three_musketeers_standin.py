"""The Three Musketeers stand-in without the complete solution plays exactly where its search
finishes: checked against a plain minimax over the game's public functions (tests/tm_minimax.py,
docs/rules/three-musketeers.md), on positions of random games."""

from __future__ import annotations

import random

import pytest
from tm_minimax import START, as_value, minimax, random_positions

from adjudicator.games.three_musketeers import (
    CARDINAL,
    MUSKETEERS,
    RULES,
    outcome,
    play,
)
from adjudicator.games.three_musketeers import standin as tm


@pytest.mark.usefixtures("searching")
@pytest.mark.parametrize("men", [4, 5, 7])
def test_the_stand_ins_move_is_worth_what_the_position_is_worth(men: int) -> None:
    """On many positions the stand-in's move keeps the position's exact value: it never turns
    a win into a loss, wins in the fewest plies and loses in the most. (Where the exact search
    does not finish within its budget the stand-in says so: with 7 men it sometimes does not.)"""
    rng = random.Random(men)
    positions = random_positions(men, 40 if men < 7 else 10, seed=men)
    exact = 0
    for state in positions:
        choice = tm.choose(state, rng)
        if not choice.exact:
            continue
        exact += 1
        expected = as_value(*minimax(state.cells, state.turn))
        assert choice.value == expected, (state.cells, state.turn)
        after = play(state, choice.move)
        if outcome(after) is None:
            won, plies = minimax(after.cells, after.turn)
            assert as_value(not won, plies + 1) == expected
    assert exact == len(positions) if men <= 5 else exact >= len(positions) // 2


@pytest.mark.usefixtures("searching")
def test_every_exact_value_in_the_table_agrees_with_the_plainminimax() -> None:
    tm.SOLVED.clear()
    for state in random_positions(6, 20, seed=99):
        tm.choose(state, random.Random(0))
    checked = 0
    for (m, c, musketeers), value in list(tm.SOLVED.items())[:3000]:
        cells = "".join("M" if m >> s & 1 else "C" if c >> s & 1 else "." for s in range(25))
        assert value == as_value(*minimax(cells, MUSKETEERS if musketeers else CARDINAL))
        checked += 1
    assert checked > 100


@pytest.mark.usefixtures("searching")
def test_without_the_solution_the_opening_is_played_by_the_heuristic_search_and_says_so() -> None:
    """Before the complete solution is made (test_three_musketeers_solution.py), the start's
    value is out of reach of the search in a second: the stand-in says its opening moves are
    not exact, and they are legal."""
    choice = tm.choose(START, random.Random(1))
    assert not choice.exact
    assert RULES.check(START, "athos", [str(choice.move)]).ok


def test_stand_in_against_itself_ends_with_legal_moves_only() -> None:
    rng = random.Random(7)
    state = START
    while outcome(state) is None:
        player = state.player_of(state.turn)
        lines = tm.stand_in(state, player, rng)
        assert RULES.check(state, player, lines).ok
        state = play(state, RULES.check(state, player, lines).orders[0])
    assert tm.stand_in(state, "athos", rng) == []
