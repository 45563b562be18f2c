"""The 61-cell hexagonal board of side 5, with cells named as on an Abalone board.

Rows ``A`` (the bottom edge) to ``I`` (the top edge); in each row the cells are numbered by
diagonal, so that row A is A1-A5, B is B1-B6, ... E is E1-E9, F is F2-F9, ... I is I5-I9
(docs/rules/rock-scissors-paper.md, Board). A cell is a plain ``int`` (``A1`` is 0, then row by
row, diagonal
by diagonal, ``I9`` is 60) so that boards can be strings, bytes or tuples indexed by cell.
:func:`parse_cell` and :func:`cell_name` round-trip.

Cell (row r, diagonal d) neighbours (r, d+-1), (r+1, d), (r+1, d+1), (r-1, d), (r-1, d-1): the six
:data:`DIRECTIONS`. Drawn with row A at the bottom, (r+1, d) lies up and to the left and
(r+1, d+1) up and to the right, so a cell's centre is at half-column ``2d - r`` (see
:func:`column`). Neighbour and line tables are computed once, at import.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ROW_LETTERS = "ABCDEFGHI"
SIDE = 5
SIZE = 61


class Direction(NamedTuple):
    """A step on the board: ``rows`` up, ``diagonals`` to the right (in numbering)."""

    name: str
    rows: int
    diagonals: int


EAST = Direction("east", 0, 1)
NORTH_EAST = Direction("north-east", 1, 1)
NORTH_WEST = Direction("north-west", 1, 0)
WEST = Direction("west", 0, -1)
SOUTH_WEST = Direction("south-west", -1, -1)
SOUTH_EAST = Direction("south-east", -1, 0)

DIRECTIONS: tuple[Direction, ...] = (EAST, NORTH_EAST, NORTH_WEST, WEST, SOUTH_WEST, SOUTH_EAST)
"""The six directions, anticlockwise from east; ``DIRECTIONS[(i + 3) % 6]`` is the opposite of
``DIRECTIONS[i]``. Functions below take and return indices into this tuple."""


def opposite(direction: int) -> int:
    return (direction + 3) % 6


class InvalidCell(ValueError):
    """A text that is not the name of a cell of the board."""


def on_board(row: int, diagonal: int) -> bool:
    """Whether 0-based ``row`` (A is 0) and 1-based ``diagonal`` name a cell."""
    return 0 <= row <= 8 and 1 <= diagonal <= 9 and -4 <= diagonal - 1 - row <= 4


COORDINATES: tuple[tuple[int, int], ...] = tuple(
    (row, diagonal) for row in range(9) for diagonal in range(1, 10) if on_board(row, diagonal)
)
"""``(row, diagonal)`` of every cell, in cell order: row 0-8 (A-I), diagonal 1-9."""

_INDEX: dict[tuple[int, int], int] = {rd: cell for cell, rd in enumerate(COORDINATES)}

CELL_NAMES: tuple[str, ...] = tuple(f"{ROW_LETTERS[r]}{d}" for r, d in COORDINATES)
_CELL_NAME = re.compile(r"([a-z])([0-9]{1,3})\Z")


def cell(row: int, diagonal: int) -> int:
    """The cell on 0-based ``row`` and 1-based ``diagonal``; raises ``ValueError`` off the board."""
    try:
        return _INDEX[row, diagonal]
    except KeyError:
        raise ValueError(f"row {row}, diagonal {diagonal} is off the board") from None


def row_of(cell: int) -> int:
    return COORDINATES[cell][0]


def diagonal_of(cell: int) -> int:
    return COORDINATES[cell][1]


def cell_name(cell: int) -> str:
    """``0`` -> ``'A1'``; the inverse of :func:`parse_cell`."""
    if not 0 <= cell < SIZE:
        raise ValueError(f"no cell {cell!r} on the hexagonal board")
    return CELL_NAMES[cell]


NAMING_HINT = "cells are named A1-A5, B1-B6, C1-C7, D1-D8, E1-E9, F2-F9, G3-G9, H4-H9, I5-I9"


def parse_cell(text: str) -> int:
    """``'e5'`` or ``'E5'`` (surrounding spaces ignored) -> the cell.

    Raises :class:`InvalidCell` with a message a player understands, naming the row's range
    when the row exists (``'F1' is not on the board: row F runs from F2 to F9``).
    """
    match = _CELL_NAME.match(text.strip().lower())
    if match is None:
        raise InvalidCell(f"{text.strip()!r} is not a cell name; {NAMING_HINT}")
    letter, digits = match.group(1).upper(), match.group(2)
    if letter not in ROW_LETTERS:
        raise InvalidCell(f"{letter}{digits} is not on the board: rows run from A to I")
    row = ROW_LETTERS.index(letter)
    first, last = row_range(row)
    diagonal = int(digits)
    if digits.startswith("0") or not first <= diagonal <= last:
        raise InvalidCell(
            f"{letter}{digits} is not on the board: row {letter} runs from "
            f"{letter}{first} to {letter}{last}"
        )
    return _INDEX[row, diagonal]


def row_range(row: int) -> tuple[int, int]:
    """The first and last diagonal of 0-based ``row`` (row A: 1 and 5; row I: 5 and 9)."""
    return max(1, row - 3), min(9, row + 5)


def _step(cell: int, direction: Direction) -> int | None:
    row, diagonal = COORDINATES[cell]
    return _INDEX.get((row + direction.rows, diagonal + direction.diagonals))


STEPS: tuple[tuple[int | None, ...], ...] = tuple(
    tuple(_step(c, direction) for direction in DIRECTIONS) for c in range(SIZE)
)
"""``STEPS[cell][direction]``: the neighbour of ``cell`` in that direction, or ``None``."""

NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for n in steps if n is not None) for steps in STEPS
)
"""For every cell, its two to six neighbours (in :data:`DIRECTIONS` order)."""


def _ray(cell: int, direction: int) -> tuple[int, ...]:
    cells = []
    nxt = STEPS[cell][direction]
    while nxt is not None:
        cells.append(nxt)
        nxt = STEPS[nxt][direction]
    return tuple(cells)


RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(c, direction) for direction in range(6)) for c in range(SIZE)
)
"""``RAYS[cell][direction]``: the straight line of cells from ``cell`` (excluded) to the edge."""


def step(cell: int, direction: int) -> int | None:
    """The neighbour of ``cell`` in direction index ``direction``, or ``None`` off the board."""
    return STEPS[cell][direction]


def neighbours(cell: int) -> tuple[int, ...]:
    return NEIGHBOURS[cell]


def are_neighbours(a: int, b: int) -> bool:
    return b in NEIGHBOURS[a]


def direction_between(a: int, b: int) -> int | None:
    """The direction index of the single step from ``a`` to neighbour ``b``, else ``None``."""
    steps = STEPS[a]
    return steps.index(b) if b in steps else None


def line_between(a: int, b: int) -> tuple[int, int] | None:
    """``(direction, distance)`` when ``b`` lies on a straight line from ``a``, else ``None``."""
    for direction, ray in enumerate(RAYS[a]):
        if b in ray:
            return direction, ray.index(b) + 1
    return None


def distance(a: int, b: int) -> int:
    """The number of steps between two cells."""
    (ra, da), (rb, db) = COORDINATES[a], COORDINATES[b]
    dr, dd = rb - ra, db - da
    return max(abs(dr), abs(dd), abs(dr - dd))


def reflect(cell: int) -> int:
    """The point reflection through E5: row r <-> 8 - r, diagonal d <-> 10 - d."""
    row, diagonal = COORDINATES[cell]
    return _INDEX[8 - row, 10 - diagonal]


def column(cell: int) -> int:
    """The horizontal position of the cell's centre in half-cells, ``2d - r``: from -2 (E1) to
    14 (E9); row A and row I both span 2-10. Rows are drawn A at the bottom."""
    row, diagonal = COORDINATES[cell]
    return 2 * diagonal - row
