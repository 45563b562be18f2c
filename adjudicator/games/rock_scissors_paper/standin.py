"""The Rock, Scissors, Paper stand-in: a heuristic two-ply search (docs/rules/
rock-scissors-paper.md). Not exact; a player that does not blunder in one move.

For each legal move it looks at the position after it: a move that wins at once is played; a
move after which the opponent has a move that wins at once (takes one of our flags, or makes
us lose our own) is avoided while another exists; among the rest, the one that leaves the
better material (pieces on the board, a Paper counting by its height) and our flags the
farther from enemy pieces is preferred, ties broken by the seeded ``rng``.
"""

from __future__ import annotations

import random

from adjudicator.core import hexes
from adjudicator.games.rock_scissors_paper.apply import play
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    State,
    height_of,
    kind_of,
    side_of,
)
from adjudicator.games.rock_scissors_paper.moves import legal_moves
from adjudicator.games.rock_scissors_paper.orders import Move
from adjudicator.games.rock_scissors_paper.rules import side_of_player

WIN = 10_000
_WORTH = {FLAG: 0, 2: 3, 3: 3}  # Rocks and Scissors; a Paper is worth 2 per height


def _material(board: bytes, side: int) -> int:
    total = 0
    for code in board:
        if code:
            worth = 2 * height_of(code) if kind_of(code) not in _WORTH else _WORTH[kind_of(code)]
            total += worth if side_of(code) == side else -worth
    return total


def _flag_danger(board: bytes, side: int) -> int:
    """Enemy pieces next to our flags: each one a threat the flag may not survive."""
    danger = 0
    for cell, code in enumerate(board):
        if code and kind_of(code) == FLAG and side_of(code) == side:
            for near in hexes.neighbours(cell):
                other = board[near]
                if other and side_of(other) != side:
                    danger += 1
    return danger


def _score(state: State, side: int) -> int:
    """The worth of the position after our move, for ``side`` (the opponent is to move)."""
    if state.ending is not None:
        return -WIN if state.ending.loser == side else WIN if state.ending.loser is not None else 0
    for reply in legal_moves(state):
        after = play(state, reply)
        if after.ending is not None and after.ending.loser == side:
            return -WIN // 2
    return 4 * _material(state.board, side) - 5 * _flag_danger(state.board, side)


def choose(state: State, rng: random.Random) -> Move:
    side = state.turn
    scored = [(_score(play(state, move), side), move) for move in legal_moves(state)]
    best = max(score for score, _ in scored)
    return rng.choice([move for score, move in scored if score == best])


def stand_in(state: State, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none when it is not his turn)."""
    if state.ending is not None or side_of_player(state, player) != state.turn:
        return []
    return [str(choose(state, rng))]
