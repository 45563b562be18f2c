"""Square grids named like a chess board: files ``a``, ``b``, ... left to right, ranks 1, 2, ...
bottom to top.

A square is a plain ``int``, ``rank * files + file`` (``a1`` is 0, as in python-chess), so that
boards can be strings or tuples indexed by square. :meth:`SquareGrid.parse_square` and
:meth:`SquareGrid.square_name` round-trip. Neighbour tables are computed once per grid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple


class Direction(NamedTuple):
    """A step on the grid: ``file`` columns to the right, ``rank`` rows up."""

    name: str
    file: int
    rank: int


NORTH = Direction("north", 0, 1)
EAST = Direction("east", 1, 0)
SOUTH = Direction("south", 0, -1)
WEST = Direction("west", -1, 0)
NORTH_EAST = Direction("north-east", 1, 1)
SOUTH_EAST = Direction("south-east", 1, -1)
SOUTH_WEST = Direction("south-west", -1, -1)
NORTH_WEST = Direction("north-west", -1, 1)

ORTHOGONAL: tuple[Direction, ...] = (NORTH, EAST, SOUTH, WEST)
DIAGONAL: tuple[Direction, ...] = (NORTH_EAST, SOUTH_EAST, SOUTH_WEST, NORTH_WEST)

_FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SQUARE_NAME = re.compile(r"([a-z])([0-9]+)\Z")


class InvalidSquare(ValueError):
    """A text that is not the name of a square of the grid."""


@dataclass(frozen=True)
class SquareGrid:
    """A rectangular grid of ``files`` x ``ranks`` squares (at most 26 files)."""

    files: int
    ranks: int

    def __post_init__(self) -> None:
        if not 1 <= self.files <= len(_FILE_LETTERS) or self.ranks < 1:
            raise ValueError(f"no grid of {self.files} files and {self.ranks} ranks")

    @property
    def size(self) -> int:
        return self.files * self.ranks

    @property
    def last_file(self) -> str:
        return _FILE_LETTERS[self.files - 1]

    def square(self, file: int, rank: int) -> int:
        """The square on 0-based ``file`` and ``rank``; raises ``ValueError`` off the grid."""
        if not (0 <= file < self.files and 0 <= rank < self.ranks):
            raise ValueError(f"file {file}, rank {rank} is off the grid")
        return rank * self.files + file

    def file_of(self, square: int) -> int:
        return square % self.files

    def rank_of(self, square: int) -> int:
        return square // self.files

    def square_name(self, square: int) -> str:
        """``0`` -> ``'a1'``; the inverse of :meth:`parse_square`."""
        if not 0 <= square < self.size:
            raise ValueError(f"no square {square!r} on a {self.files}x{self.ranks} grid")
        return f"{_FILE_LETTERS[self.file_of(square)]}{self.rank_of(square) + 1}"

    def parse_square(self, text: str) -> int:
        """``'a1'`` (any case, surrounding spaces ignored) -> ``0``.

        Raises :class:`InvalidSquare` with a message a player understands.
        """
        match = _SQUARE_NAME.match(text.strip().lower())
        if match is None:
            raise InvalidSquare(f"{text!r} is not a square name; {self.naming_hint()}")
        file = _FILE_LETTERS.index(match.group(1))
        digits = match.group(2)
        rank = int(digits) - 1
        if file >= self.files or not 0 <= rank < self.ranks or digits.startswith("0"):
            raise InvalidSquare(f"{text.strip()!r} is not on the board; {self.naming_hint()}")
        return rank * self.files + file

    def naming_hint(self) -> str:
        return f"squares are named a1 to {self.last_file}{self.ranks}"

    def step(self, square: int, direction: Direction) -> int | None:
        """The square one step from ``square`` in ``direction``, or ``None`` off the grid."""
        file = self.file_of(square) + direction.file
        rank = self.rank_of(square) + direction.rank
        if 0 <= file < self.files and 0 <= rank < self.ranks:
            return rank * self.files + file
        return None

    def direction_between(self, origin: int, target: int) -> Direction | None:
        """The direction of a single step (orthogonal or diagonal) from ``origin`` to
        ``target``, or ``None`` when the two squares are not neighbours."""
        for direction in ORTHOGONAL + DIAGONAL:
            if self.step(origin, direction) == target:
                return direction
        return None

    @cached_property
    def orthogonal_neighbours(self) -> tuple[tuple[int, ...], ...]:
        """For every square, its orthogonal neighbours (north, east, south, west order)."""
        return tuple(self._neighbours(square, ORTHOGONAL) for square in range(self.size))

    @cached_property
    def all_neighbours(self) -> tuple[tuple[int, ...], ...]:
        """For every square, its orthogonal and diagonal neighbours."""
        return tuple(self._neighbours(square, ORTHOGONAL + DIAGONAL) for square in range(self.size))

    def _neighbours(self, square: int, directions: tuple[Direction, ...]) -> tuple[int, ...]:
        steps = (self.step(square, direction) for direction in directions)
        return tuple(target for target in steps if target is not None)

    def squares(self) -> range:
        return range(self.size)

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """A square grid's 8 symmetries (4 turns, each with and without a mirror), each as the
        image of every square; the identity first."""
        if self.files != self.ranks:
            raise ValueError("only a square grid has 8 symmetries")
        last = self.files - 1
        maps: list[tuple[int, ...]] = []
        for turn in range(4):
            for mirror in (False, True):
                image = []
                for square in self.squares():
                    file, rank = self.file_of(square), self.rank_of(square)
                    if mirror:
                        file = last - file
                    for _ in range(turn):
                        file, rank = rank, last - file
                    image.append(rank * self.files + file)
                maps.append(tuple(image))
        return tuple(maps)
