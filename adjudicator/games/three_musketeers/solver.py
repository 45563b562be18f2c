"""Computes the complete solution of Three Musketeers (laid out as :mod:`.solution` says).

No search and no repeated passes are needed: every Musketeer move captures a man, so the game
graph has layers by the number of captures ``c`` and no cycles (docs/rules/three-musketeers.md).
With the Cardinal to move the position stays in its layer and the Musketeers move next; with
the Musketeers to move, every move leads to the next layer with the Cardinal to move. So from
the last layer (22 captures, no man left) down to the start, one pass over each layer gives the
Musketeers-to-move values of layer ``c`` from the table's layer ``c + 1``, and a second pass the
table's layer ``c`` from those. Each value is the best over the moves of the value one ply
later: the rules' End first, checked in order (all three Musketeers on one line: the Cardinal
has won; the side to move cannot move: the Musketeers have won).

The passes are compiled with Numba and run over the placement classes in parallel; a pass
touches each position once and each of its moves once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Any, Protocol, TypeVar, cast

import numba
import numpy as np

from adjudicator.games.three_musketeers.board import GRID
from adjudicator.games.three_musketeers.solution import (
    FREE,
    SQUARES,
    SYMMETRIES,
    TOP,
    classes,
    layer_offsets,
    layer_size,
    rank_of_three,
)

F = TypeVar("F", bound=Callable[..., Any])


def _compiled(*, parallel: bool = False) -> Callable[[F], F]:
    return cast(Callable[[F], F], numba.njit(cache=True, nogil=True, parallel=parallel))


Array = np.ndarray[Any, Any]
_NEIGHBOURS = GRID.orthogonal_neighbours


@dataclass(frozen=True)
class Moves:
    """Every move of every placement class, as tables the passes read (one entry per class
    ``k``, Musketeer ``i`` of its three and direction ``d``; free indices are those of
    :func:`.solution.classes`)."""

    target: Array
    """[k, i, d]: the free index of the square Musketeer ``i`` captures on, -1 if none."""
    after: Array
    """[k, i, d]: the class of the Musketeers' squares after the capture."""
    emptied: Array
    """[k, i, d]: the bit, in the class after, of the square the Musketeer leaves."""
    image: Array
    """[k, i, d, chunk, byte]: the empty squares of one byte of a set, in the class after
    (each square through the symmetry that brings the new placement to its class)."""
    line: Array
    """[k]: the class's Musketeers stand on one rank or file."""
    man: Array
    """[k, j, d]: the free index of the square next to free square ``j`` in direction ``d``,
    -1 off the board or on a Musketeer (a man there can step onto ``j`` when it is empty)."""
    ranks: Array
    """[chunk, bits below it, byte]: the byte's share of a set's colexicographic rank."""
    bits: Array
    """[byte]: how many squares the byte holds."""


CHUNKS = 3
"""A set of free squares (22 bits) is read a byte at a time."""


def _ranks() -> tuple[Array, Array]:
    bits = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
    ranks = np.zeros((CHUNKS, FREE + 1, 256), dtype=np.int64)
    for chunk in range(CHUNKS):
        for below in range(FREE + 1):
            for byte in range(256):
                ones = [8 * chunk + m for m in range(8) if byte >> m & 1]
                if all(p < FREE for p in ones) and below + len(ones) <= FREE:
                    ranks[chunk, below, byte] = sum(
                        comb(p, below + n + 1) for n, p in enumerate(ones)
                    )
    return ranks, bits


def moves() -> Moves:
    """The tables of :class:`Moves`, from the classes and the board."""
    table = classes()
    count = table.count
    target = np.full((count, 3, 4), -1, dtype=np.int64)
    after = np.zeros((count, 3, 4), dtype=np.int64)
    emptied = np.zeros((count, 3, 4), dtype=np.int64)
    image = np.zeros((count, 3, 4, CHUNKS, 256), dtype=np.int64)
    man = np.full((count, FREE, 4), -1, dtype=np.int64)
    line = np.zeros(count, dtype=np.bool_)
    weights = 1 << np.arange(8)
    byte_bits = (np.arange(256)[:, None] & weights) != 0
    for k, placement in enumerate(table.canonical):
        squares = [s for s in range(SQUARES) if placement >> s & 1]
        line[k] = (
            len({s // GRID.files for s in squares}) == 1
            or len({s % GRID.files for s in squares}) == 1
        )
        for j, e in enumerate(table.free[k]):
            for d, s in enumerate(_NEIGHBOURS[e]):
                man[k, j, d] = table.free_index[k][s]
        for i, s in enumerate(squares):
            for d, t in enumerate(_NEIGHBOURS[s]):
                if placement >> t & 1:
                    continue
                moved = placement ^ (1 << s) ^ (1 << t)
                placement_rank = rank_of_three(moved)
                k2 = table.class_of[placement_rank]
                g = SYMMETRIES[table.symmetry_of[placement_rank]]
                target[k, i, d] = table.free_index[k][t]
                after[k, i, d] = k2
                emptied[k, i, d] = 1 << table.free_index[k2][g[s]]
                mapped = np.zeros(CHUNKS * 8, dtype=np.int64)
                for j, q in enumerate(table.free[k]):
                    if q != t:
                        mapped[j] = 1 << table.free_index[k2][g[q]]
                for chunk in range(CHUNKS):
                    image[k, i, d, chunk] = (byte_bits * mapped[8 * chunk : 8 * chunk + 8]).sum(1)
    ranks, bits = _ranks()
    return Moves(target, after, emptied, image, line, man, ranks, bits)


def _musketeer_tables(tables: Moves) -> tuple[Array, ...]:
    return (
        tables.target,
        tables.after,
        tables.emptied,
        tables.image,
        tables.line,
        tables.ranks,
        tables.bits,
    )


def _cardinal_tables(tables: Moves) -> tuple[Array, ...]:
    return (tables.line, tables.man, tables.ranks, tables.bits)


@_compiled()
def _back(value: int) -> int:
    """A value one ply earlier, for the other side (as ``standin._back``)."""
    return -value - 1 if value < 0 else -value + 1


@_compiled()
def _next_set(mask: int) -> int:
    """The next larger mask with as many bits (Gosper): colexicographic order."""
    low = mask & -mask
    ripple = mask + low
    return (((ripple ^ mask) >> 2) // low) | ripple


@_compiled()
def _rank(relative: int, ranks: Array, bits: Array) -> int:
    low = relative & 255
    middle = relative >> 8 & 255
    below = bits[low]
    high = relative >> 16
    return int(ranks[0, 0, low] + ranks[1, below, middle] + ranks[2, below + bits[middle], high])


@_compiled(parallel=True)
def _musketeers_layer(
    captures: int, table_next: Array, out: Array, tables: tuple[Array, ...]
) -> None:
    """Values with the Musketeers to move after ``captures`` captures, from the table's next
    layer (Cardinal to move after one more capture); ``tables`` as :func:`_musketeer_tables`."""
    target, after, emptied, image, line, ranks, bits = tables
    size = out.shape[1]
    for k in numba.prange(out.shape[0]):
        if line[k]:
            out[k, :] = -TOP
            continue
        relative = (1 << captures) - 1
        for index in range(size):
            low = relative & 255
            middle = relative >> 8 & 255
            high = relative >> 16
            best = -TOP - 1
            for i in range(3):
                for d in range(4):
                    t = target[k, i, d]
                    if t < 0 or relative >> t & 1:
                        continue
                    moved = (
                        image[k, i, d, 0, low]
                        | image[k, i, d, 1, middle]
                        | image[k, i, d, 2, high]
                        | emptied[k, i, d]
                    )
                    best = max(best, _back(table_next[after[k, i, d], _rank(moved, ranks, bits)]))
            if best < -TOP:
                best = TOP  # no capture left: the Musketeers cannot move and win
            out[k, index] = best
            if captures > 0:
                relative = _next_set(relative)


@_compiled(parallel=True)
def _cardinal_layer(
    captures: int, musketeers_values: Array, out: Array, tables: tuple[Array, ...]
) -> None:
    """The table's layer: values with the Cardinal to move after ``captures`` captures, from
    the Musketeers-to-move values of the same layer; ``tables`` as :func:`_cardinal_tables`."""
    line, man, ranks, bits = tables
    size = out.shape[1]
    for k in numba.prange(out.shape[0]):
        if line[k]:
            out[k, :] = TOP
            continue
        relative = (1 << captures) - 1
        for index in range(size):
            best = -TOP - 1
            for j in range(FREE):
                if not (relative >> j & 1):
                    continue
                for d in range(4):
                    p = man[k, j, d]
                    if p < 0 or relative >> p & 1:
                        continue
                    moved = relative ^ (1 << j) ^ (1 << p)
                    best = max(best, _back(musketeers_values[k, _rank(moved, ranks, bits)]))
            best = max(best, -TOP)  # no man can move (best is still below -TOP): Musketeers win
            out[k, index] = best
            if captures > 0:
                relative = _next_set(relative)


def build(
    keep: Callable[[int, Array], None],
    *,
    down_to: int = 0,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Compute the table, layer by layer from the last down to ``down_to`` captures (0: the
    whole table): ``keep(c, layer)`` receives each layer (``classes x C(22, c)`` signed bytes)
    as soon as it is known."""
    tables = moves()
    count = classes().count
    table_next = np.zeros((count, 0), dtype=np.int8)
    for captures in range(FREE, down_to - 1, -1):
        size = layer_size(captures)
        musketeers_values = np.empty((count, size), dtype=np.int8)
        if captures < FREE:
            _musketeers_layer(captures, table_next, musketeers_values, _musketeer_tables(tables))
        else:  # no man left: nothing to capture
            musketeers_values[:] = np.where(tables.line, -TOP, TOP)[:, None]
        layer = np.empty((count, size), dtype=np.int8)
        _cardinal_layer(captures, musketeers_values, layer, _cardinal_tables(tables))
        keep(captures, layer)
        table_next = layer
        if progress is not None:
            progress(captures)


class WritableBuffer(Protocol):
    """Where the table is built: a writable memory map or bytearray of :data:`SIZE` bytes."""

    def __setitem__(self, index: slice, value: bytes) -> None: ...


def build_into(out: WritableBuffer) -> None:
    """Compute the whole table into ``out`` (several minutes on two cores, :mod:`.solver`)."""
    offsets = layer_offsets()

    def keep(captures: int, layer: Any) -> None:
        out[offsets[captures] : offsets[captures + 1]] = layer.tobytes()

    build(keep)
