"""Hints after the game (issue 15, part 5): the move where the result was decided, exactly
where the stand-in's search can tell (:mod:`.standin`).

A move *threw the win away* when the mover stood on a won position and the move left a lost
one. No draws exist, so the last such move decided the game; a game nobody threw away was won
from a position the winner already held. Where the exact search does not finish within its
budget (the opening, with many men) nothing is claimed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.games.three_musketeers.board import Move, State, outcome, play
from adjudicator.games.three_musketeers.standin import (
    EXACT_BUDGET,
    OutOfBudget,
    ended,
    moves_of,
    position_of,
    solve,
)


@dataclass(frozen=True)
class ThrownWin:
    """Move ``number`` (1 for the game's first move) by ``side`` turned a win into a loss;
    ``keeping`` is a move that kept the win."""

    number: int
    side: str
    played: Move
    keeping: Move


def _value_after(after: tuple[int, int, bool], budget: list[int]) -> int:
    over = ended(after)
    value = over if over is not None else solve(after, budget)
    return -value  # for the mover: positive is a win


def thrown_wins(start: State, moves: Sequence[Move]) -> list[ThrownWin]:
    """Every move of the game that threw a win away, as far as the exact search can tell."""
    found = []
    state = start
    for number, move in enumerate(moves, start=1):
        if outcome(state) is not None:
            break
        pos = position_of(state)
        try:
            budget = [EXACT_BUDGET]
            values = {Move(s, t): _value_after(after, budget) for s, t, after in moves_of(pos)}
        except OutOfBudget:
            values = {}
        if values and values.get(move, 0) < 0 and max(values.values()) > 0:
            keeping = max(values, key=lambda m: (values[m], -m.origin, -m.target))
            found.append(ThrownWin(number, state.turn, move, keeping))
        state = play(state, move)
    return found


def decisive_move(start: State, moves: Sequence[Move]) -> ThrownWin | None:
    """The move where the result was decided: the last that threw a win away, or None."""
    thrown = thrown_wins(start, moves)
    return thrown[-1] if thrown else None
