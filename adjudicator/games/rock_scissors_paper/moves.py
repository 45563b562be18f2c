"""Move generation: every legal move of the side to move, fast (docs/rules/rock-scissors-paper.md).

This is the fast path used by ``sample_orders``, the random-play tests and the bench. The
player-facing checks with their explanations live in :mod:`.legality`, written independently
from the rule text; the tests compare the two move by move.

A Scissors that reaches a cell by several paths is listed once, without its middle cell: every
legal path to a cell gives the same position (see :mod:`.legality`).
"""

from __future__ import annotations

from itertools import combinations, pairwise

from adjudicator.core.hexes import NEIGHBOURS, RAYS, STEPS
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    MAX_PAPERS,
    ROCK,
    SCISSORS,
    State,
    piece,
)
from adjudicator.games.rock_scissors_paper.orders import Move


def _compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """Every way to write ``total`` as ``parts`` positive counts, in order."""
    result = []
    for cuts in combinations(range(1, total), parts - 1):
        bounds = (0, *cuts, total)
        result.append(tuple(b - a for a, b in pairwise(bounds)))
    return tuple(result)


COMPOSITIONS = {
    (total, parts): _compositions(total, parts)
    for total in range(2, MAX_PAPERS + 1)
    for parts in range(2, total + 1)
}
"""``COMPOSITIONS[h, k]``: the drop counts of a stack of h spread over k cells."""

_SIMPLE = {(o, t): Move(o, t) for o in range(61) for t in range(61) if o != t}
# Turning second steps: not straight on (d) and not back (d + 3).
_TURNS = tuple(tuple((d + t) % 6 for t in (1, 2, 4, 5)) for d in range(6))


def _rock_moves(board: bytes, origin: int, enemy: int, moves: list[Move]) -> None:
    """Rock: slides along a line through empty cells; may end on an enemy Scissors or Flag."""
    prey = (piece(enemy, SCISSORS), piece(enemy, FLAG))
    for ray in RAYS[origin]:
        for target in ray:
            code = board[target]
            if code and code not in prey:
                break
            moves.append(_SIMPLE[origin, target])
            if code:
                break


class _Scissors:
    """What every Scissors of the side to move needs to know about the board, found once per
    position: where a Scissors may end (ignoring locks: an empty cell, an enemy Paper or an
    enemy Flag), where the enemy Scissors stand, and which empty cells a Scissors may pass
    without locking (not next to an enemy Scissors)."""

    def __init__(self, board: bytes, side: int) -> None:
        enemy = side ^ 1
        self.enemy_scissors = enemy_scissors = piece(enemy, SCISSORS)
        flag = piece(enemy, FLAG)
        self.ends = [
            not code or code == flag or (code >> 7 == enemy and (code & 0x7F) > SCISSORS)
            for code in board
        ]
        self.scissors = [cell for cell, code in enumerate(board) if code == enemy_scissors]
        self.passable = [not code for code in board]
        for cell in self.scissors:
            for n in NEIGHBOURS[cell]:
                self.passable[n] = False


def _free_scissors_targets(origin: int, table: _Scissors) -> set[int]:
    """A Scissors locked with nobody: up to 3 cells straight or 2 with one turn, passing only
    empty cells where it does not lock (a lock ends the move, so a locking cell can only be
    the last)."""
    ends, passable = table.ends, table.passable
    targets: set[int] = set()
    for direction, first in enumerate(STEPS[origin]):
        if first is None:
            continue
        if ends[first]:
            targets.add(first)
        if not passable[first]:
            continue
        row = STEPS[first]
        for turn in _TURNS[direction]:
            second = row[turn]
            if second is not None and ends[second]:
                targets.add(second)
        second = row[direction]
        if second is None:
            continue
        if ends[second]:
            targets.add(second)
        third = STEPS[second][direction]
        if third is not None and passable[second] and ends[third]:
            targets.add(third)
    return targets


def _locked_scissors_targets(
    board: bytes, origin: int, locked: list[int], table: _Scissors
) -> set[int]:
    """A locked Scissors: the same paths, every cell entered next to an enemy Scissors it was
    locked with; a cell next to any other enemy Scissors locks anew and ends the move."""
    stays = {n for cell in locked for n in NEIGHBOURS[cell]}
    relock = {n for cell in table.scissors if cell not in locked for n in NEIGHBOURS[cell]}
    ends = {cell for cell in stays if table.ends[cell]}
    passes = {cell for cell in stays if not board[cell] and cell not in relock}
    targets: set[int] = set()
    for direction, first in enumerate(STEPS[origin]):
        if first is None:
            continue
        if first in ends:
            targets.add(first)
        if first not in passes:
            continue
        row = STEPS[first]
        for turn in _TURNS[direction]:
            second = row[turn]
            if second in ends:
                targets.add(second)
        second = row[direction]
        if second is None:
            continue
        if second in ends:
            targets.add(second)
        third = STEPS[second][direction]
        if second in passes and third in ends:
            targets.add(third)
    return targets


def _scissors_moves(board: bytes, origin: int, table: _Scissors, moves: list[Move]) -> None:
    """Scissors: up to 3 cells straight, or 2 with one turn (not back); every cell before the
    last empty (no jumping) and not newly locking; when locked, every cell entered next to an
    enemy Scissors it was locked with."""
    locked = [n for n in NEIGHBOURS[origin] if board[n] == table.enemy_scissors]
    if locked:
        targets = _locked_scissors_targets(board, origin, locked, table)
    else:
        targets = _free_scissors_targets(origin, table)
    moves.extend(_SIMPLE[origin, target] for target in sorted(targets))


def _paper_moves(board: bytes, origin: int, side: int, moves: list[Move]) -> None:
    """Float 1..h cells onto an empty cell, own Paper, enemy Rock or enemy Flag; spread a stack
    over 2..h cells each empty, own Paper, enemy Rock or any Flag. Cuts do not make a move
    illegal: they are its consequence."""
    height = (board[origin] & 0x7F) - 3
    enemy = side ^ 1
    float_ends = (piece(enemy, ROCK), piece(enemy, FLAG))
    spread_ends = (*float_ends, piece(side, FLAG))
    for ray in RAYS[origin]:
        for target in ray[:height]:
            code = board[target]
            if not code or code in float_ends or (code >> 7 == side and (code & 0x7F) > SCISSORS):
                moves.append(_SIMPLE[origin, target])
        if height < 2:
            continue
        for parts, cell in enumerate(ray[:height], start=1):
            code = board[cell]
            if (
                code
                and code not in spread_ends
                and not (code >> 7 == side and (code & 0x7F) > SCISSORS)
            ):
                break
            if parts >= 2:
                moves.extend(
                    Move(origin, cell, None, drops) for drops in COMPOSITIONS[height, parts]
                )


def _generate(state: State, *, first_only: bool) -> list[Move]:
    board, side = state.board, state.turn
    enemy = side ^ 1
    moves: list[Move] = []
    table: _Scissors | None = None
    for origin, code in enumerate(board):
        if not code or code >> 7 != side:
            continue
        kind = code & 0x7F
        if kind == ROCK:
            _rock_moves(board, origin, enemy, moves)
        elif kind == SCISSORS:
            table = table or _Scissors(board, side)
            _scissors_moves(board, origin, table, moves)
        elif kind > SCISSORS:
            _paper_moves(board, origin, side, moves)
        if first_only and moves:
            break
    return moves


def legal_moves(state: State) -> list[Move]:
    """The side to move's legal moves, in cell order of their origin, ignoring whether the game
    is over. Scissors moves carry no middle cell; spreads carry their counts."""
    return _generate(state, first_only=False)


def has_legal_move(state: State) -> bool:
    return bool(_generate(state, first_only=True))
