"""Hints after the game (issue 15, part 5): the move where the result was decided, exactly
where the stand-in's search can tell (:mod:`.standin`).

A move *threw the win away* when the mover stood on a won position and the move left a lost
one. No draws exist, so the last such move decided the game; a game nobody threw away was won
from a position the winner already held. With the complete solution installed every move is
judged exactly; without it, where the exact search does not finish within its budget (the
opening, with many men) nothing is claimed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from adjudicator.core.kind import Hint
from adjudicator.games.three_musketeers.board import Move, State, outcome, play
from adjudicator.games.three_musketeers.standin import (
    EXACT_BUDGET,
    EXACT_MEN,
    SOLUTION,
    OutOfBudget,
    ended,
    exact_value,
    moves_of,
    position_of,
)

HINT_BUDGET = 20_000
"""New positions the search for the decisive move may solve over the whole game: a bound on
its work (under a second on a busy core), so that it never holds up the game-over mail."""


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
    value = over if over is not None else exact_value(after, budget)
    return -value  # for the mover: positive is a win


def _thrown(state: State, move: Move, number: int, budget: list[int]) -> ThrownWin | None:
    """The move as a thrown win, or None (raises :class:`OutOfBudget` past the budget)."""
    pos = position_of(state)
    values = {Move(s, t): _value_after(after, budget) for s, t, after in moves_of(pos)}
    if values.get(move, 0) < 0 and max(values.values()) > 0:
        keeping = max(values, key=lambda m: (values[m], -m.origin, -m.target))
        return ThrownWin(number, state.turn, move, keeping)
    return None


def thrown_wins(start: State, moves: Sequence[Move]) -> list[ThrownWin]:
    """Every move of the game that threw a win away, as far as the exact search can tell."""
    found = []
    state = start
    for number, move in enumerate(moves, start=1):
        if outcome(state) is not None:
            break
        try:
            thrown = _thrown(state, move, number, [EXACT_BUDGET])
        except OutOfBudget:
            thrown = None
        if thrown is not None:
            found.append(thrown)
        state = play(state, move)
    return found


def decisive_move(
    start: State, moves: Sequence[Move], *, budget: int = HINT_BUDGET
) -> ThrownWin | None:
    """The move where the result was decided: the last that threw a win away, or None.

    The moves are judged from the last back, with one budget of new positions for them all
    (positions solved for a later move serve the earlier ones; the complete solution, once
    installed, needs none): the first thrown win found is
    the answer; a move the search cannot judge within the budget (or with more than
    :data:`EXACT_MEN` men) ends the search with None, since an earlier move then cannot be
    named as the last."""
    states = [start]
    for move in moves[:-1]:
        states.append(play(states[-1], move))
    left = [budget]
    for number in range(len(moves), 0, -1):
        state = states[number - 1]
        if outcome(state) is not None:
            continue
        if not SOLUTION and bin(position_of(state)[1]).count("1") > EXACT_MEN:
            return None
        try:
            thrown = _thrown(state, moves[number - 1], number, left)
        except OutOfBudget:
            return None
        if thrown is not None:
            return thrown
    return None


def hint(start: State, rounds: Sequence[Mapping[str, Sequence[Move]]]) -> Hint | None:
    """:data:`adjudicator.core.kind.GameKind.hint`: the decisive move, named by its round
    (a round is one move; a round without one ends the game on time)."""
    moved = [
        (number, lines[0])
        for number, played in enumerate(rounds, start=1)
        for lines in played.values()
        if lines
    ]
    found = decisive_move(start, [move for _, move in moved])
    if found is None:
        return None
    return Hint(
        round=moved[found.number - 1][0],
        player=start.player_of(found.side),
        played=str(found.played),
        better=str(found.keeping),
        exact=True,
    )
