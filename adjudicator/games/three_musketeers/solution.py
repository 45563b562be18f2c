"""The complete solution of Three Musketeers: where each position's value sits in the table, and
how to read it (docs/rules/three-musketeers.md).

The table holds, for every placement of the three Musketeers and every set of empty squares,
the value of the position with **the Cardinal to move**: who wins with perfect play, and for
the first :data:`EXACT_LAYERS` layers (the opening, a few captures in) in how many plies (the
winner as fast as possible, the loser as slowly). A position with the
Musketeers to move is one ply from the table: each of their moves captures and leaves the
Cardinal to move. The game is a layered game (:mod:`adjudicator.core.layered`):
:func:`layered_game` describes its graph from the rules, and the service has it solved
(:mod:`adjudicator.solving.layered`).

Layout. After ``c`` captures the board holds ``c`` empty squares, so a position is the
Musketeers' squares and ``c`` of the other 22 squares. The Musketeers' squares are brought to
one representative of their class under the board's 8 symmetries (319 classes); the empty
squares go through the same symmetry and are ranked among the 22 squares the representative
leaves free (colexicographic rank: the ``i``-th empty square, counted from 0 in increasing
order, at free index ``p`` adds ``C(p, i + 1)``). Layer ``c`` holds ``classes x C(22, c)``
values, the layers one after another from ``c = 0``.

The first :data:`EXACT_LAYERS` layers keep a signed byte a value for the side to move:
``127 - d`` for a win ``d`` plies ahead, ``d - 127`` for a loss ``d`` plies ahead (a game has at
most 45 plies; there are no draws). The later layers keep one bit a value, set when the
Cardinal wins (:mod:`adjudicator.core.layered`): every Musketeer move captures a man, so a move
that keeps a win always ends the game, within 22 Musketeer moves; the bit is all a perfect
player needs. 177,140,907 bytes in all, where a byte a value took 1,337,982,976.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb
from typing import Protocol

from adjudicator.core.layered import TOP, Claim, LayeredGame, colex_rank
from adjudicator.games.three_musketeers.board import GRID, in_line, squares_of

SQUARES = GRID.files * GRID.ranks
FREE = SQUARES - 3
"""Squares that are not the Musketeers'; the men and the empty squares share them."""
VERSION = 2
"""Changes whenever the layout or the values change, so that an old file is never read."""
FILE_NAME = f"three-musketeers-{VERSION}.table"
OLD_FILE_NAMES = tuple(f"three-musketeers-{v}.table" for v in range(1, VERSION))
"""The files of earlier layouts, replaced by this one."""
EXACT_LAYERS = 6
"""Layers (0 to 5 captures) whose exact values are kept; the later ones keep a bit."""
SIZE = 177_140_907
"""The table's size in bytes (:func:`layer_offsets`; a test checks it)."""

_NEIGHBOURS = GRID.orthogonal_neighbours


class Buffer(Protocol):
    """What the table is read from: bytes, a memory map or a NumPy array of bytes."""

    def __getitem__(self, index: int) -> int: ...

    def __len__(self) -> int: ...


SYMMETRIES = GRID.symmetries


def _mask(squares: Sequence[int]) -> int:
    return sum(1 << s for s in squares)


def rank_of_three(mask: int) -> int:
    """The colexicographic rank of three squares among the 25 (0 to 2,299)."""
    a, b, c = squares_of(mask)
    return a + comb(b, 2) + comb(c, 3)


@dataclass(frozen=True)
class Classes:
    """The Musketeers' placements up to symmetry, and for each placement its way there."""

    canonical: tuple[int, ...]
    """The representative placement (a mask) of each class, in increasing order."""
    class_of: tuple[int, ...]
    """For each placement's :func:`rank_of_three`, its class."""
    symmetry_of: tuple[int, ...]
    """For each placement's rank, a symmetry that maps it to its class's representative."""
    free: tuple[tuple[int, ...], ...]
    """For each class, the 22 squares its representative leaves free, in increasing order."""
    free_index: tuple[tuple[int, ...], ...]
    """For each class and square, the square's index among ``free`` (-1 for a Musketeer's)."""

    @property
    def count(self) -> int:
        return len(self.canonical)


@cache
def classes() -> Classes:
    """The 319 classes of the Musketeers' placements under the board's symmetries."""
    placements = [
        _mask((a, b, c))
        for c in range(SQUARES)
        for b in range(c)
        for a in range(b)  # colexicographic order: rank_of_three(placements[i]) == i
    ]
    best = [
        min((_mask([g[s] for s in squares_of(m)]), i) for i, g in enumerate(SYMMETRIES))
        for m in placements
    ]
    canonical = tuple(sorted({image for image, _g in best}))
    number = {m: k for k, m in enumerate(canonical)}
    free = tuple(tuple(s for s in range(SQUARES) if not m >> s & 1) for m in canonical)
    free_index = tuple(
        tuple(squares.index(s) if s in squares else -1 for s in range(SQUARES)) for squares in free
    )
    return Classes(
        canonical=canonical,
        class_of=tuple(number[image] for image, _g in best),
        symmetry_of=tuple(g for _image, g in best),
        free=free,
        free_index=free_index,
    )


@cache
def layered_game() -> LayeredGame:
    """The game as a layered game (docs/rules/three-musketeers.md): the class is the
    Musketeers' placement, the set the empty squares. A capture claims the man's square and
    leaves the Musketeer's square empty; a man's step swaps an empty square for his. The
    Musketeers on one line: the Cardinal has won (End 1). A side that cannot move: the
    Musketeers have won (End 2)."""
    table = classes()
    claims = []
    for k, placement in enumerate(table.canonical):
        moves = []
        for s in squares_of(placement):
            for t in _NEIGHBOURS[s]:
                if placement >> t & 1:
                    continue  # a Musketeer captures only a man
                moved = rank_of_three(placement ^ (1 << s) ^ (1 << t))
                after = table.class_of[moved]
                g = SYMMETRIES[table.symmetry_of[moved]]
                where = table.free_index[after]
                image = tuple(-1 if q == t else where[g[q]] for q in table.free[k])
                moves.append(Claim(table.free_index[k][t], after, where[g[s]], image))
        claims.append(tuple(moves))
    steps = tuple(
        tuple(
            tuple(table.free_index[k][s] for s in _NEIGHBOURS[e] if table.free_index[k][s] >= 0)
            for e in table.free[k]
        )
        for k in range(table.count)
    )
    return LayeredGame(
        classes=table.count,
        slots=FREE,
        claims=tuple(claims),
        steps=steps,
        over=tuple(in_line(squares_of(m)) for m in table.canonical),
        claimer_wins_when_stuck=True,
        stepper_wins_when_stuck=False,
        exact_layers=EXACT_LAYERS,
    )


@cache
def layer_offsets() -> tuple[int, ...]:
    """Where each layer starts in the table, and (last) the table's size in bytes."""
    return layered_game().layer_offsets()


def entry_of(musketeers: int, empty: int) -> tuple[int, int]:
    """The layer (captures) of the position with the Cardinal to move, Musketeers on the
    squares of mask ``musketeers`` and the squares of mask ``empty`` empty, and its value's
    index within the layer."""
    table = classes()
    placement = rank_of_three(musketeers)
    k = table.class_of[placement]
    g = SYMMETRIES[table.symmetry_of[placement]]
    where = table.free_index[k]
    indices = sorted(where[g[s]] for s in squares_of(empty))
    captures = len(indices)
    game = layered_game()
    return captures, k * game.layer_size(captures) + colex_rank(indices)


def decode(byte: int) -> tuple[bool, int]:
    """A stored byte as (the side to move wins, plies to the end)."""
    signed = byte - 256 if byte > 127 else byte
    return (True, TOP - signed) if signed > 0 else (False, signed + TOP)


@dataclass(frozen=True)
class Table:
    """The solution, read from ``data`` (laid out as above)."""

    data: Buffer

    def cardinal_to_move(self, musketeers: int, men: int) -> tuple[bool, int | None]:
        """(the Cardinal wins, plies to the end) with the Cardinal to move; the plies are
        None where the table keeps only who wins (after :data:`EXACT_LAYERS` captures)."""
        empty = ((1 << SQUARES) - 1) & ~(musketeers | men)
        captures, index = entry_of(musketeers, empty)
        start = layer_offsets()[captures]
        if captures < EXACT_LAYERS:
            return decode(int(self.data[start + index]))
        return bool(int(self.data[start + index // 8]) >> (index % 8) & 1), None
