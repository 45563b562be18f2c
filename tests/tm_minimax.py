"""A plain minimax of Three Musketeers over the game's public functions only
(docs/rules/three-musketeers.md), to check the stand-in and the complete solution against, and
positions of random games to check them on."""

from __future__ import annotations

import random
from functools import cache

from adjudicator.games.three_musketeers import (
    CARDINAL,
    MUSKETEERS,
    State,
    legal_moves,
    outcome,
    play,
)
from adjudicator.games.three_musketeers import standin as tm

START = State(("athos", "richelieu"))


@cache
def minimax(cells: str, turn: str) -> tuple[bool, int]:
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
            they_win, plies = minimax(after.cells, after.turn)
            results.append((not they_win, plies + 1))
    wins = [plies for won, plies in results if won]
    return (True, min(wins)) if wins else (False, max(plies for _, plies in results))


def as_value(won: bool, plies: int) -> int:
    return tm.WIN - plies if won else plies - tm.WIN


def random_positions(men_at_most: int, count: int, seed: int) -> list[State]:
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
