"""The Three Musketeers stand-in plays exactly where its search finishes: checked against a
plain minimax written here over the game's public functions (docs/rules/three-musketeers.md),
on positions of random games."""

from __future__ import annotations

import random
from functools import cache

import pytest

from adjudicator.games.three_musketeers import (
    CARDINAL,
    MUSKETEERS,
    RULES,
    State,
    legal_moves,
    outcome,
    play,
)
from adjudicator.games.three_musketeers import standin as tm

START = State(("athos", "richelieu"))


@cache
def _minimax(cells: str, turn: str) -> tuple[bool, int]:
    """(whether the side to move wins, plies to the end with best play: the winner hurries,
    the loser delays). Only ``outcome``, ``legal_moves`` and ``play`` of the game are used."""
    state = State(START.players, cells, turn)
    results = []
    for move in legal_moves(state):
        after = play(state, move)
        ended = outcome(after)
        if ended is not None:
            winner = MUSKETEERS if ended.winners == (START.players[0],) else CARDINAL
            results.append((winner == turn, 1))
        else:
            they_win, plies = _minimax(after.cells, after.turn)
            results.append((not they_win, plies + 1))
    wins = [plies for won, plies in results if won]
    return (True, min(wins)) if wins else (False, max(plies for _, plies in results))


def _as_value(won: bool, plies: int) -> int:
    return tm.WIN - plies if won else plies - tm.WIN


def _positions(men_at_most: int, count: int, seed: int) -> list[State]:
    """Positions of random games, not over, with at most ``men_at_most`` men."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = START
        while outcome(state) is None:
            if state.cells.count("C") <= men_at_most:
                found.append(state)
                break
            state = play(state, rng.choice(legal_moves(state)))
    return found


@pytest.mark.parametrize("men", [4, 5, 7])
def test_the_stand_ins_move_is_worth_what_the_position_is_worth(men: int) -> None:
    """On many positions the stand-in's move keeps the position's exact value: it never turns
    a win into a loss, wins in the fewest plies and loses in the most. (Where the exact search
    does not finish within its budget the stand-in says so: with 7 men it sometimes does not.)"""
    rng = random.Random(men)
    positions = _positions(men, 40 if men < 7 else 10, seed=men)
    exact = 0
    for state in positions:
        choice = tm.choose(state, rng)
        if not choice.exact:
            continue
        exact += 1
        expected = _as_value(*_minimax(state.cells, state.turn))
        assert choice.value == expected, (state.cells, state.turn)
        after = play(state, choice.move)
        if outcome(after) is None:
            won, plies = _minimax(after.cells, after.turn)
            assert _as_value(not won, plies + 1) == expected
    assert exact == len(positions) if men <= 5 else exact >= len(positions) // 2


def test_every_exact_value_in_the_table_agrees_with_the_plain_minimax() -> None:
    tm.SOLVED.clear()
    for state in _positions(6, 20, seed=99):
        tm.choose(state, random.Random(0))
    checked = 0
    for (m, c, musketeers), value in list(tm.SOLVED.items())[:3000]:
        cells = "".join("M" if m >> s & 1 else "C" if c >> s & 1 else "." for s in range(25))
        assert value == _as_value(*_minimax(cells, MUSKETEERS if musketeers else CARDINAL))
        checked += 1
    assert checked > 100


def test_the_opening_is_played_by_the_heuristic_search_and_says_so() -> None:
    """The start's value (the Cardinal wins, J. Laire 2009) is out of reach of the search in a
    second: the stand-in says its opening moves are not exact, and they are legal."""
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
