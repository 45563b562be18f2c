"""The Starship Combat stand-in: an equilibrium mixed strategy, exact, by backward induction.

Each round is a zero-sum matrix game (docs/rules/starship-combat.md): the captain chooses one of
at most four actions, the other captain too, and the pair leads either to an end of the game
(+1 a win, 0 a draw, -1 a loss for the captain we play) or to the position of the next round,
whose value is known by induction. Only the missiles, the power and the rounds left matter, and
counts past what the rounds left can spend change nothing, so they are capped. Each matrix game
is solved exactly, in :class:`fractions.Fraction` (over values rounded as :data:`PRECISION`
says), by the simplex pivoting method for matrix
games (T. S. Ferguson, *Game Theory*, part II, section 4.5), and each position is solved once,
on first use, and kept (:data:`SOLVED`).

Building every position from the standard start takes seconds, too long for a first move, so
the values of those positions ship with the package (:data:`TABLE`, written by
``bench/starship_table.py``; a test builds them again and compares): a move then solves only
its own round's matrix game over the shipped values of the positions it leads to.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources

from adjudicator.games.starship_combat.orders import NOTHING, Choice, format_choice
from adjudicator.games.starship_combat.state import StarshipState, end_of_round, seat_of

ACTIONS = (NOTHING, Choice(fire=True), Choice(shield=True), Choice(fire=True, shield=True))
"""Every choice, in a fixed order: the rows and columns of each round's matrix game."""

PRECISION = 10**12
"""The largest denominator of a position's value as kept in the table. Exact values grow a
denominator thousands of digits long within ten rounds (the equilibria head for irrational
mixes: SHIELD tends to the golden ratio's 0.618...), so each value is rounded to the nearest
fraction with a denominator up to this, an error under 10**-24 a round. Each round's game is
still solved exactly over those values, and the rounding is odd-symmetric (the value of the
swapped position is exactly the opposite), so a symmetric position is still worth exactly 0."""

Position = tuple[int, int, int, int, int]
"""(own missiles, other's missiles, own power, other's power, rounds left), capped."""


@dataclass(frozen=True)
class Solution:
    """One round's matrix game solved: its value for the captain we play, his equilibrium mix
    over ``actions`` and the other captain's over ``replies``."""

    value: Fraction
    actions: tuple[Choice, ...]
    mix: tuple[Fraction, ...]
    replies: tuple[Choice, ...]
    reply_mix: tuple[Fraction, ...]


START_POSITION: Position = (3, 3, 6, 6, 30)
"""The standard start (3 missiles, 6 power, 30 rounds), the table the bench builds."""

SOLVED: dict[Position, Solution] = {}
"""Every position solved so far (the table, filled on first use; a pure cache: the values are
those of the rules, whoever asks first)."""

TABLE = "equilibrium.txt"
"""The values of every position the standard start leads to, shipped with the package: a line
``own-missiles other-missiles own-power other-power rounds-left value`` each, the value a
fraction (``-3/7``) or a whole number. Only one of each pair of swapped positions is listed
(:func:`swapped`): the other is worth exactly the opposite."""


def swapped(pos: Position) -> Position:
    """The same position seen from the other ship."""
    return (pos[1], pos[0], pos[3], pos[2], pos[4])


def format_table(values: dict[Position, Fraction]) -> str:
    """The text of :data:`TABLE` for ``values`` (one of each swapped pair, the smaller)."""
    lines = [
        " ".join(map(str, (*pos, value)))
        for pos, value in sorted(values.items())
        if pos <= swapped(pos)
    ]
    return "".join(f"{line}\n" for line in lines)


def parse_table(text: str) -> dict[Position, Fraction]:
    """The values :func:`format_table` wrote, both of each swapped pair."""
    values: dict[Position, Fraction] = {}
    for line in text.splitlines():
        *counts, value = line.split()
        m1, m2, p1, p2, left = map(int, counts)
        pos = (m1, m2, p1, p2, left)
        values[pos] = Fraction(value)
        values[swapped(pos)] = -Fraction(value)
    return values


@functools.cache
def shipped_values() -> dict[Position, Fraction]:
    """The values of :data:`TABLE`, read once (package data, the same on every machine)."""
    return parse_table(resources.files(__package__).joinpath(TABLE).read_text(encoding="ascii"))


def available(missiles: int, power: int) -> tuple[Choice, ...]:
    """The choices a ship can afford (Ruling 5: no FIRE without missiles, no SHIELD without
    power)."""
    return tuple(c for c in ACTIONS if (missiles > 0 or not c.fire) and (power > 0 or not c.shield))


def position(state: StarshipState, seat: int) -> Position:
    """The position as seen from ``seat``, with counts beyond use capped: a ship can fire at
    most once and shield at most once a round, so power past the rounds left is never spent,
    and missiles past one more than the rounds left never run out."""
    left = state.max_rounds - state.round
    other = 1 - seat
    return (
        min(state.missiles[seat], left + 1),
        min(state.missiles[other], left + 1),
        min(state.power[seat], left),
        min(state.power[other], left),
        left,
    )


def outcome_value(pos: Position, mine: Choice, theirs: Choice) -> Fraction | Position:
    """What a pair of choices leads to: the end of the game as a value for us (the rules' End,
    checked in order), or the next position."""
    own_m, other_m, own_p, other_p, left = pos
    own_m, other_m = own_m - mine.fire, other_m - theirs.fire
    hit_me = theirs.fire and not mine.shield
    hit_them = mine.fire and not theirs.shield
    if hit_me or hit_them:  # (1) destroyed; both: a draw
        return Fraction(int(hit_them) - int(hit_me))
    if own_m == 0 or other_m == 0:  # (2) both out: a draw; (3) the one out loses
        return Fraction(int(own_m > 0) - int(other_m > 0))
    if left == 1:  # (4) the round limit
        return Fraction(0)
    return (own_m, other_m, own_p - mine.shield, other_p - theirs.shield, left - 1)


def solve_matrix(matrix: list[list[Fraction]]) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """The value and an optimal mix for each side of a zero-sum game in which the row player
    gets ``matrix[i][j]``: the simplex pivoting method, exact (Ferguson, II.4.5).

    The matrix is shifted so every entry is positive; the tableau then starts with the rows
    labelled by the row player's strategies and the columns by the column player's, a last
    column of ones and a last row of minus ones, and pivots until the last row has no negative
    entry (the first such column, the row of the smallest ratio).
    """
    rows, cols = len(matrix), len(matrix[0])
    shift = 1 - min(min(row) for row in matrix)
    tableau = [[entry + shift for entry in row] + [Fraction(1)] for row in matrix]
    tableau.append([Fraction(-1)] * cols + [Fraction(0)])
    left: list[tuple[str, int]] = [("row", i) for i in range(rows)]
    top: list[tuple[str, int]] = [("col", j) for j in range(cols)]
    while True:
        pivot_col = next((j for j in range(cols) if tableau[rows][j] < 0), None)
        if pivot_col is None:
            break
        candidates = [
            (tableau[i][cols] / tableau[i][pivot_col], i)
            for i in range(rows)
            if tableau[i][pivot_col] > 0
        ]
        pivot_row = min(candidates)[1]
        _pivot(tableau, pivot_row, pivot_col)
        left[pivot_row], top[pivot_col] = top[pivot_col], left[pivot_row]
    corner = tableau[rows][cols]
    row_mix = [Fraction(0)] * rows
    col_mix = [Fraction(0)] * cols
    for j, (kind, index) in enumerate(top):
        if kind == "row":
            row_mix[index] = tableau[rows][j] / corner
    for i, (kind, index) in enumerate(left):
        if kind == "col":
            col_mix[index] = tableau[i][cols] / corner
    return 1 / corner - shift, row_mix, col_mix


def _pivot(tableau: list[list[Fraction]], r: int, c: int) -> None:
    pivot = tableau[r][c]
    for i, row in enumerate(tableau):
        if i == r:
            continue
        factor = row[c] / pivot
        if factor:
            pivot_row = tableau[r]
            for j in range(len(row)):
                if j != c:
                    row[j] -= factor * pivot_row[j]
        row[c] = -row[c] / pivot
    tableau[r] = [entry / pivot for entry in tableau[r]]
    tableau[r][c] = 1 / pivot


def value_of(pos: Position, *, shipped: bool = True) -> Fraction | None:
    """The position's value if it is known: solved already, or (``shipped``) in the table."""
    if pos in SOLVED:
        return SOLVED[pos].value
    return shipped_values().get(pos) if shipped else None


def solve(pos: Position, *, shipped: bool = True) -> Solution:
    """The position's equilibrium, solving the positions it leads to first (bottom up, with an
    explicit stack: a long round limit would overflow Python's recursion). With ``shipped``
    the values of :data:`TABLE` stand for solved positions; without, everything is built."""
    stack = [pos]
    while stack:
        current = stack[-1]
        if current in SOLVED:
            stack.pop()
            continue
        pending = [n for n in _successors(current) if value_of(n, shipped=shipped) is None]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        SOLVED[current] = _solve_one(current, shipped=shipped)
    return SOLVED[pos]


def _successors(pos: Position) -> set[Position]:
    own, other = available(pos[0], pos[2]), available(pos[1], pos[3])
    found = (outcome_value(pos, a, b) for a in own for b in other)
    return {f for f in found if isinstance(f, tuple)}


def _solve_one(pos: Position, *, shipped: bool) -> Solution:
    own, other = available(pos[0], pos[2]), available(pos[1], pos[3])
    matrix = []
    for mine in own:
        row: list[Fraction] = []
        for theirs in other:
            result = outcome_value(pos, mine, theirs)
            after = value_of(result, shipped=shipped) if isinstance(result, tuple) else result
            assert after is not None  # solve() solves every position it leads to first
            row.append(after)
        matrix.append(row)
    value, mix, reply_mix = solve_matrix(matrix)
    return Solution(value.limit_denominator(PRECISION), own, tuple(mix), other, tuple(reply_mix))


def choose(state: StarshipState, seat: int, rng: random.Random) -> Choice:
    """The stand-in's choice for ``seat``: drawn from the equilibrium mix of the round."""
    solution = solve(position(state, seat))
    draw = Fraction(rng.random())
    for action, weight in zip(solution.actions, solution.mix, strict=True):
        if draw < weight:
            return action
        draw -= weight
    return next(a for a, w in zip(solution.actions, solution.mix, strict=True) if w > 0)


def stand_in(state: StarshipState, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none when it is not his to move)."""
    seat = seat_of(state, player)
    if seat is None or end_of_round(state) is not None:
        return []
    return [format_choice(choose(state, seat, rng))]
