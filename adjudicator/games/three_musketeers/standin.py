"""The Three Musketeers stand-in: exact from every position once the complete solution is
installed (:func:`install`); without it, exact where a search can finish, a heuristic before.

The complete solution (:mod:`.solution`, solved by :mod:`adjudicator.solving.layered`; the
service keeps it in a file and hands it over, docs/stand-ins.md) gives the value of every
position with the Cardinal to move; with the Musketeers to move it is one ply away. Every move
is then chosen by its exact value: who wins, and in the opening how soon. After the opening the
solution keeps only who wins (every Musketeer move captures, so a move that keeps a win ends
the game within 22 Musketeer moves); how soon is then known where the exact search below
finishes, and otherwise the winner picks among the moves that keep the win, and the loser among
its moves, by the evaluation below.

Without it: the exact part. Every Musketeer move captures, so no position repeats and the game
graph has no cycles (docs/rules/three-musketeers.md): a plain minimax over it, with each
position solved once (a transposition table), gives the exact value of a position. Values count
plies to the end: a win in ``d`` plies is worth ``WIN - d`` to the side to move, a loss
``d - WIN`` (there are no draws), so choosing the best value wins as fast as possible and loses
as slowly as possible. The search is tried from :data:`EXACT_MEN` men down and gives up after
:data:`EXACT_BUDGET` new positions; a position it solved is exact for good.

Before that (the opening and middle game, more than a few hundred thousand positions ahead;
the whole game has 526,871,061 up to symmetry, out of reach of pure Python in a second) the
stand-in plays a depth-limited alpha-beta search with an evaluation of its own: the Cardinal
wants the Musketeers on few ranks and files and with many men next to them, the
Musketeers the opposite. That part is not exact, and says so (:attr:`Choice.exact`).

Positions are bitmasks: bit ``s`` is square ``s`` (``a1`` is 0, see
:mod:`adjudicator.core.squares`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from adjudicator.games.three_musketeers import solution
from adjudicator.games.three_musketeers.board import (
    GRID,
    MAN,
    MUSKETEER,
    MUSKETEERS,
    Move,
    State,
    in_line,
    outcome,
    side_of,
    squares_of,
)

WIN = 1000
"""A win ``d`` plies ahead is worth ``WIN - d`` to the side to move (a game has at most 45)."""
MOST_PLIES = 45
"""The longest game: 22 Musketeer moves and 23 of the Cardinal's."""
FAR = 64
"""A win whose distance the solution does not keep is worth ``WIN - FAR``, a loss ``FAR - WIN``
(a ply or two more or less as it is carried back): below every win and above every loss of
known length. :func:`plies_known` tells them apart."""
EXACT_BUDGET = 18_000
"""New positions the exact search may solve for one move before it gives up."""
EXACT_MEN = 12
"""The exact search is tried only with this many men or fewer: before, it never finishes."""
TABLE_LIMIT = 400_000
"""Solved positions kept between moves; the table is emptied beyond this."""
HEURISTIC_DEPTH = 5
SOONER_MEN = 9
"""With the solution installed, where it keeps only who wins: the exact search is tried for
how soon with this many men or fewer."""
SOONER_BUDGET = 3_000
"""New positions that search may solve for one move before the evaluation decides."""

_NEIGHBOURS = tuple(tuple(GRID.orthogonal_neighbours[s]) for s in GRID.squares())
_RANK = tuple(GRID.rank_of(s) for s in GRID.squares())
_FILE = tuple(GRID.file_of(s) for s in GRID.squares())
_BIT = tuple(1 << s for s in GRID.squares())

Position = tuple[int, int, bool]
"""(Musketeers' squares, men's squares, whether the Musketeers are to move)."""

SOLVED: dict[Position, int] = {}
"""Exact values found so far, for the side to move (a pure cache of the rules' consequence)."""


SOLUTION: list[solution.Table] = []
"""The complete solution, once installed (at most one)."""


def plies_known(value: int) -> bool:
    """Whether ``value`` says how many plies ahead the end is (see :data:`FAR`)."""
    return WIN - abs(value) <= MOST_PLIES


def install(data: solution.Buffer) -> None:
    """Make the stand-in and the hints exact everywhere: ``data`` is the solution's table."""
    SOLUTION[:] = [solution.Table(data)]


class OutOfBudget(Exception):
    """The exact search met more new positions than it may solve for one move."""


@dataclass(frozen=True)
class Choice:
    """The stand-in's move, its value for the mover when ``exact`` (see :data:`WIN`): who wins
    is then exact, and how soon too where :func:`plies_known` says so."""

    move: Move
    value: int
    exact: bool


def position_of(state: State) -> Position:
    m = sum(_BIT[s] for s, p in enumerate(state.cells) if p == MUSKETEER)
    c = sum(_BIT[s] for s, p in enumerate(state.cells) if p == MAN)
    return m, c, state.turn == MUSKETEERS


def moves_of(pos: Position) -> list[tuple[int, int, Position]]:
    """Every legal move as (origin, target, position after it)."""
    m, c, musketeers = pos
    found = []
    if musketeers:
        for s in squares_of(m):
            for t in _NEIGHBOURS[s]:
                if c & _BIT[t]:
                    found.append((s, t, (m ^ _BIT[s] ^ _BIT[t], c ^ _BIT[t], False)))
    else:
        empty = ~(m | c) & ((1 << 25) - 1)
        for s in squares_of(c):
            for t in _NEIGHBOURS[s]:
                if empty & _BIT[t]:
                    found.append((s, t, (m, c ^ _BIT[s] ^ _BIT[t], True)))
    return found


def _can_move(pos: Position) -> bool:
    m, c, musketeers = pos
    empty = ~(m | c) & ((1 << 25) - 1)
    movers, wanted = (m, c) if musketeers else (c, empty)
    return any(wanted & _BIT[t] for s in squares_of(movers) for t in _NEIGHBOURS[s])


def ended(pos: Position) -> int | None:
    """The value for the side to move of a position where the game is over (it lost: ``-WIN``,
    or won: ``WIN``, zero plies ahead), or None. The rules' End, in order."""
    musketeers = pos[2]
    if in_line(squares_of(pos[0])):
        return WIN if not musketeers else -WIN
    if not _can_move(pos):
        return WIN if musketeers else -WIN
    return None


def _back(value: int) -> int:
    """A value one ply earlier, for the other side: the win or loss is a ply further away."""
    return -value - 1 if value < 0 else -value + 1


def solve(pos: Position, budget: list[int]) -> int:
    """The exact value of a position that is not over, for the side to move."""
    known = SOLVED.get(pos)
    if known is not None:
        return known
    budget[0] -= 1
    if budget[0] < 0:
        raise OutOfBudget
    best = -WIN - 1
    for _s, _t, after in moves_of(pos):
        over = ended(after)
        value = _back(over if over is not None else solve(after, budget))
        best = max(best, value)
    SOLVED[pos] = best
    return best


def value_in(table: solution.Table, pos: Position) -> int:
    """The exact value of ``pos`` for the side to move, from the complete solution."""
    m, c, musketeers = pos
    if musketeers:
        over = ended(pos)
        if over is not None:
            return over
        return max(_back(value_in(table, after)) for _s, _t, after in moves_of(pos))
    cardinal_wins, plies = table.cardinal_to_move(m, c)
    if plies is None:
        plies = FAR
    return WIN - plies if cardinal_wins else plies - WIN


def exact_value(pos: Position, budget: list[int]) -> int:
    """The exact value of a position that is not over, for the side to move: from the complete
    solution when it is installed, else by :func:`solve` within ``budget``."""
    if SOLUTION:
        return value_in(SOLUTION[0], pos)
    return solve(pos, budget)


def _evaluate(pos: Position) -> int:
    """The heuristic worth of a position for the Musketeers: spread over ranks and files (the
    Cardinal needs them on one line), and few men to capture (with none next to them, the
    Musketeers cannot move and win)."""
    m, c, _ = pos
    squares = squares_of(m)
    spread = len({_RANK[s] for s in squares}) + len({_FILE[s] for s in squares})
    captures = sum(1 for s in squares for t in _NEIGHBOURS[s] if c & _BIT[t])
    return 10 * spread - 3 * captures


def _alphabeta(pos: Position, depth: int, alpha: int, beta: int) -> int:
    """Negamax with alpha-beta, for the side to move: exact ends, heuristic at the horizon."""
    over = ended(pos)
    if over is not None:
        return over
    if depth == 0:
        score = _evaluate(pos)
        return score if pos[2] else -score
    best = -WIN - 1
    for _s, _t, after in moves_of(pos):
        value = _back(_alphabeta(after, depth - 1, -beta, -alpha))
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def _scored(
    moves: list[tuple[int, int, Position]], budget: list[int]
) -> list[tuple[int, int, int]]:
    """(exact value for the mover, origin, target) of each move: from the solution when it is
    installed, else by :func:`solve` within ``budget``."""
    scored = []
    for s, t, after in moves:
        over = ended(after)
        scored.append((_back(over if over is not None else exact_value(after, budget)), s, t))
    return scored


def _sooner_or_later(
    pos: Position, moves: list[tuple[int, int, Position]], scored: list[tuple[int, int, int]]
) -> list[tuple[int, int, int, int]]:
    """(value, preference, origin, target) of each move, where the solution keeps only who
    wins: how soon from the exact search if it finishes with few men (the values become exact
    distances), else a preference among equal values by the evaluation after the move."""
    if bin(pos[1]).count("1") <= SOONER_MEN:
        try:
            return [(value, 0, s, t) for value, s, t in _searched(moves, [SOONER_BUDGET])]
        except OutOfBudget:
            pass
    sign = 1 if pos[2] else -1  # the evaluation is the Musketeers'
    return [
        (value, sign * _evaluate(after), s, t)
        for (value, s, t), (_s, _t, after) in zip(scored, moves, strict=True)
    ]


def _searched(
    moves: list[tuple[int, int, Position]], budget: list[int]
) -> list[tuple[int, int, int]]:
    """The moves' exact values by the search alone (:func:`solve`), solution or not."""
    scored = []
    for s, t, after in moves:
        over = ended(after)
        scored.append((_back(over if over is not None else solve(after, budget)), s, t))
    return scored


def choose(state: State, rng: random.Random) -> Choice:
    """The stand-in's move: the best by the exact value when the solution is installed or the
    search finishes within its budget (ties broken by ``rng``), else the best by the heuristic
    search. Where the solution keeps only who wins, how soon is settled by
    :func:`_sooner_or_later`."""
    pos = position_of(state)
    moves = moves_of(pos)
    if len(SOLVED) > TABLE_LIMIT:
        SOLVED.clear()
    budget = [EXACT_BUDGET if SOLUTION or bin(pos[1]).count("1") <= EXACT_MEN else 0]
    try:
        scored = _scored(moves, budget)
        ranked = [(value, 0, s, t) for value, s, t in scored]
        if SOLUTION and not plies_known(max(scored)[0]):
            ranked = _sooner_or_later(pos, moves, scored)
        exact = True
    except OutOfBudget:
        ranked = [
            (_back(_alphabeta(after, HEURISTIC_DEPTH - 1, -WIN - 1, WIN + 1)), 0, s, t)
            for s, t, after in moves
        ]
        exact = False
    best = max(entry[:2] for entry in ranked)
    value, _preference, s, t = rng.choice([entry for entry in ranked if entry[:2] == best])
    return Choice(Move(s, t), value, exact)


def stand_in(state: State, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none when it is not his turn)."""
    if outcome(state) is not None or side_of(state, player) != state.turn:
        return []
    return [str(choose(state, rng).move)]
