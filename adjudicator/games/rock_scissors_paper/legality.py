"""Why a move is not legal, in words a player understands (docs/rules/rock-scissors-paper.md).

Written from the rule text, cell by cell along the move's path, independently of the fast
generator in :mod:`.moves`; the tests check that both agree on every candidate move.

Our decision on a Scissors' middle cell: a Scissors that turns may name it (``B2-C3-D3``);
when it does not, the move is legal if any path to the target is. Every legal path gives the
same position: the Scissors ends on the target, takes what is there, and locks are a matter of
which enemy Scissors stand next to it. A path that would lock on a cell before the target is no
path to the target at all, since the move would end there.
"""

from __future__ import annotations

from adjudicator.core import hexes
from adjudicator.core.errors import Problem
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    PAPER,
    ROCK,
    SCISSORS,
    SIDE_NAMES,
    State,
    describe,
    height_of,
    kind_of,
    side_of,
)
from adjudicator.games.rock_scissors_paper.orders import Move

_NAMES = hexes.CELL_NAMES


class _Illegal(Exception):
    """Raised inside this module to report a problem; never leaves it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _holds(board: bytes, cell: int, mover: int) -> str:
    code = board[cell]
    return "is empty" if not code else f"holds {describe(code, mover=mover)}"


def _line(origin: int, target: int, what: str) -> tuple[int, int]:
    found = hexes.line_between(origin, target)
    if found is None:
        raise _Illegal(
            "not-in-line",
            f"{what} along a straight line, and {_NAMES[target]} is not in line with "
            f"{_NAMES[origin]}",
        )
    return found


def _path(origin: int, direction: int, length: int) -> list[int]:
    return list(hexes.RAYS[origin][direction][:length])


# --- Rock ------------------------------------------------------------------------------------


def _rock(state: State, move: Move) -> None:
    """A Rock slides any distance along a straight line through empty cells; it may end on an
    empty cell, an enemy Scissors or an enemy Flag, and may not enter any other occupied cell."""
    board, mover = state.board, state.turn
    direction, length = _line(move.origin, move.target, "a Rock slides")
    *between, target = _path(move.origin, direction, length)
    for cell in between:
        if board[cell]:
            raise _Illegal("blocked", f"a Rock cannot pass through {_NAMES[cell]}: it is occupied")
    code = board[target]
    if code and not (side_of(code) != mover and kind_of(code) in (SCISSORS, FLAG)):
        raise _Illegal(
            "bad-target",
            f"a Rock may end only on an empty cell, an enemy Scissors or an enemy Flag; "
            f"{_NAMES[target]} {_holds(board, target, mover)}",
        )


# --- Scissors --------------------------------------------------------------------------------


def _scissors_paths(move: Move) -> list[list[int]]:
    """The paths the order can mean: the one through its middle cell, the straight line, or
    both two-cell paths of a turn."""
    origin, target = move.origin, move.target
    if move.via is not None:
        via = move.via
        if not hexes.are_neighbours(origin, via) or not hexes.are_neighbours(via, target):
            raise _Illegal(
                "bad-path",
                f"{_NAMES[origin]}-{_NAMES[via]}-{_NAMES[target]} is not a path: each cell must "
                "be next to the one before",
            )
        return [[via, target]]
    line = hexes.line_between(origin, target)
    distance = hexes.distance(origin, target)
    if line is not None:
        direction, length = line
        if length > 3:
            raise _Illegal("too-far", "Scissors move at most 3 cells in a straight line")
        return [_path(origin, direction, length)]
    if distance > 2:
        raise _Illegal("too-far", "Scissors move at most 2 cells when they turn")
    middles = [c for c in hexes.NEIGHBOURS[origin] if hexes.are_neighbours(c, target)]
    return [[middle, target] for middle in middles]


def _scissors_path(state: State, origin: int, path: list[int]) -> None:
    """Check one path cell by cell: no jumping; a cell entered next to an enemy Scissors it was
    not locked with at the start locks and ends the move there; a locked Scissors stays next
    to an enemy Scissors it was locked with; the last cell is empty, an enemy Paper or Flag."""
    board, mover = state.board, state.turn
    enemy_scissors = [
        c
        for c, code in enumerate(board)
        if code and side_of(code) != mover and kind_of(code) == SCISSORS
    ]
    locked = [c for c in enemy_scissors if hexes.are_neighbours(origin, c)]
    for step, cell in enumerate(path):
        last = step == len(path) - 1
        code = board[cell]
        if not last and code:
            raise _Illegal("blocked", f"a Scissors cannot jump: {_NAMES[cell]} is occupied")
        if last and code and not (side_of(code) != mover and kind_of(code) in (PAPER, FLAG)):
            # Said before the lock: a move onto the enemy Scissors it is locked with breaks
            # the target rule, not the lock ("D4 is not next to the Scissors on D4").
            raise _Illegal(
                "bad-target",
                "a Scissors may end only on an empty cell, an enemy Paper or an enemy Flag; "
                f"{_NAMES[cell]} {_holds(board, cell, mover)}",
            )
        if locked and not any(hexes.are_neighbours(cell, c) for c in locked):
            partners = " or ".join(_NAMES[c] for c in locked)
            raise _Illegal(
                "locked",
                f"the Scissors on {_NAMES[origin]} is locked with the enemy Scissors on "
                f"{partners}: every cell it enters must stay next to it, and {_NAMES[cell]} "
                "does not",
            )
        new = [c for c in enemy_scissors if c not in locked and hexes.are_neighbours(cell, c)]
        if new and not last:
            raise _Illegal(
                "lock-stops",
                f"entering {_NAMES[cell]} would lock the Scissors with the enemy Scissors on "
                f"{_NAMES[new[0]]}, and its move would end there",
            )


def _scissors(state: State, move: Move) -> None:
    paths = _scissors_paths(move)
    problems: list[_Illegal] = []
    for path in paths:
        try:
            _scissors_path(state, move.origin, path)
        except _Illegal as problem:
            problems.append(problem)
        else:
            return
    if len(problems) == 1:
        raise problems[0]
    raise _Illegal(
        problems[0].code,
        "; ".join(f"by {_NAMES[p[0]]}: {e.message}" for p, e in zip(paths, problems, strict=True)),
    )


# --- Paper -----------------------------------------------------------------------------------


def _float(state: State, move: Move) -> None:
    """Float: the whole stack moves 1..h cells along a line, over any pieces, and ends on an
    empty cell, a friendly Paper, an enemy Rock or an enemy Flag. A single Paper moves one cell."""
    board, mover = state.board, state.turn
    height = height_of(board[move.origin])
    _, length = _line(move.origin, move.target, "Papers move")
    if length > height:
        raise _Illegal(
            "too-far",
            "a single Paper moves exactly one cell"
            if height == 1
            else f"a stack of {height} Papers floats at most {height} cells",
        )
    code = board[move.target]
    if not code:
        return
    kind, own = kind_of(code), side_of(code) == mover
    if (own and kind == PAPER) or (not own and kind in (ROCK, FLAG)):
        return
    if own and kind == FLAG:
        raise _Illegal(
            "own-flag",
            "a floating stack cannot end on your own Flag (only a spread forces Papers onto it)",
        )
    raise _Illegal(
        "bad-target",
        "Papers may end only on an empty cell, your own Paper, an enemy Rock or an enemy Flag; "
        f"{_NAMES[move.target]} {_holds(board, move.target, mover)}",
    )


def _spread(state: State, move: Move) -> None:
    """Spread (h >= 2): k cells along a line, 2 <= k <= h, at least one Paper on each, all h in
    total; each cell empty, a friendly Paper, an enemy Rock or a Flag of either side."""
    board, mover = state.board, state.turn
    origin, height = move.origin, height_of(state.board[move.origin])
    if height < 2:
        raise _Illegal("single-paper", "a single Paper cannot spread; only stacks spread")
    direction, length = _line(origin, move.target, "a stack spreads")
    cells = _path(origin, direction, length)
    names = ", ".join(_NAMES[c] for c in cells)
    plain = f"{_NAMES[origin]}-{_NAMES[move.target]}"
    if length == 1:
        raise _Illegal(
            "short-spread",
            f"a spread covers at least 2 cells; to move the whole stack one cell write {plain}",
        )
    if len(move.drops) != length:
        raise _Illegal(
            "drop-count",
            f"{plain} spreads over {length} cells ({names}), so give {length} counts, "
            f"not {len(move.drops)}",
        )
    if 0 in move.drops:
        raise _Illegal("empty-drop", "a spread drops at least one Paper on each cell")
    if sum(move.drops) != height:
        raise _Illegal(
            "drop-total",
            f"the counts add up to {sum(move.drops)} but the stack on {_NAMES[origin]} holds "
            f"{height} Papers: a spread drops them all",
        )
    for cell in cells:
        code = board[cell]
        own_paper = code and side_of(code) == mover and kind_of(code) == PAPER
        enemy_rock = code and side_of(code) != mover and kind_of(code) == ROCK
        if code and not (own_paper or enemy_rock or kind_of(code) == FLAG):
            raise _Illegal(
                "bad-target",
                f"a spread cannot drop Papers on {_NAMES[cell]}: it "
                f"{_holds(board, cell, mover)} (each cell must be empty, your own Paper, an "
                "enemy Rock or a Flag)",
            )


# --- any move --------------------------------------------------------------------------------


def _check(state: State, move: Move) -> None:
    board, mover = state.board, state.turn
    origin = _NAMES[move.origin]
    code = board[move.origin]
    if not code:
        raise _Illegal("empty-cell", f"there is no piece on {origin}")
    if side_of(code) != mover:
        raise _Illegal(
            "not-your-piece",
            f"{origin} holds {describe(code, mover=mover)}; you play {SIDE_NAMES[mover]}",
        )
    kind = kind_of(code)
    if kind == FLAG:
        raise _Illegal("flag-cannot-move", "Flags never move")
    if move.target == move.origin:
        raise _Illegal("same-cell", f"a move must leave {origin}")
    if move.via is not None and kind != SCISSORS:
        raise _Illegal("middle-cell", "only a Scissors that turns names a middle cell")
    if move.drops and kind != PAPER:
        raise _Illegal("not-a-stack", "only a stack of Papers spreads")
    if kind == ROCK:
        _rock(state, move)
    elif kind == SCISSORS:
        _scissors(state, move)
    elif move.drops:
        _spread(state, move)
    else:
        _float(state, move)


def move_problem(state: State, move: Move, *, line: str | None = None) -> Problem | None:
    """Why ``move`` is not legal for the side to move, or ``None`` when it is."""
    try:
        _check(state, move)
    except _Illegal as problem:
        return Problem(problem.code, problem.message, line)
    return None
