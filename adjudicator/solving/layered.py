"""Solves a layered game (:mod:`adjudicator.core.layered`) completely: compiled passes, one per
layer, class and side, from the fullest sets down.

No search and no repeated passes are needed: every claim makes the set one larger and every step
keeps its size, so the positions fall into layers and the game graph has no cycles. From the
last layer (every slot in the set) down to the empty set, one pass a class gives the claimer's
values of the class from the table's next layer, then the table's values of the class (the
stepper to move) from those. Each value is the best over the moves of the value one ply later;
a class that is over, and a side with no move, are the game's ends. A pass touches each
position once and each of its moves once; the passes are compiled with Numba and run over the
classes on every core.

Memory: only two layers of exact values are held at once, the one being made and the next
one, and the claimer's values a class at a time; the table itself is handed out a layer at a
time (:func:`build`), and :func:`build_into` writes the later layers as one bit a value
(:attr:`LayeredGame.exact_layers`).

The game's rules stay in the game's package, which describes its graph (for Three Musketeers:
:func:`adjudicator.games.three_musketeers.solution.layered_game`); this module knows none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar, cast

import numba
import numpy as np

from adjudicator.core.layered import TOP, LayeredGame

CHUNKS = 3
"""A set of slots is read a byte at a time: at most 24 slots."""

PACKED = 1 << 20
"""Values turned into bits at a time (a multiple of 8: each slice fills whole bytes)."""

F = TypeVar("F", bound=Callable[..., Any])
Array = np.ndarray[Any, Any]


def _compiled(*, parallel: bool = False) -> Callable[[F], F]:
    return cast(Callable[[F], F], numba.njit(nogil=True, parallel=parallel))


def _ranks(slots: int) -> tuple[Array, Array]:
    """[chunk, bits below it, byte]: the byte's share of a set's colexicographic rank; and
    [byte]: how many slots the byte holds."""
    bits = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
    ranks = np.zeros((CHUNKS, slots + 1, 256), dtype=np.int64)
    binomial = [[0] * (slots + 2) for _ in range(slots + 1)]
    for n in range(slots + 1):
        binomial[n][0] = 1
        for r in range(1, n + 1):
            binomial[n][r] = binomial[n - 1][r - 1] + binomial[n - 1][r]
    for chunk in range(CHUNKS):
        for below in range(slots + 1):
            for byte in range(256):
                ones = [8 * chunk + m for m in range(8) if byte >> m & 1]
                if all(p < slots for p in ones) and below + len(ones) <= slots:
                    ranks[chunk, below, byte] = sum(
                        binomial[p][below + n + 1] for n, p in enumerate(ones)
                    )
    return ranks, bits


def _claimer_tables(game: LayeredGame, ranks: Array, bits: Array) -> tuple[Array, ...]:
    """The claims as arrays: [k, m] slot, class after and added bit; [k, m, chunk, byte] the
    image of one byte of a set in the class after."""
    most = max((len(claims) for claims in game.claims), default=0)
    target = np.full((game.classes, most), -1, dtype=np.int64)
    after = np.zeros((game.classes, most), dtype=np.int64)
    emptied = np.zeros((game.classes, most), dtype=np.int64)
    image = np.zeros((game.classes, most, CHUNKS, 256), dtype=np.int64)
    byte_bits = (np.arange(256)[:, None] & (1 << np.arange(8))) != 0
    for k, claims in enumerate(game.claims):
        for m, claim in enumerate(claims):
            target[k, m] = claim.slot
            after[k, m] = claim.after
            emptied[k, m] = 1 << claim.added
            mapped = np.zeros(CHUNKS * 8, dtype=np.int64)
            for slot, number in enumerate(claim.image):
                if number >= 0:
                    mapped[slot] = 1 << number
            for chunk in range(CHUNKS):
                image[k, m, chunk] = (byte_bits * mapped[8 * chunk : 8 * chunk + 8]).sum(1)
    return (target, after, emptied, image, _over(game), ranks, bits, _stuck(game))


def _stepper_tables(game: LayeredGame, ranks: Array, bits: Array) -> tuple[Array, ...]:
    most = max((len(to) for steps in game.steps for to in steps), default=0)
    swaps = np.full((game.classes, game.slots, max(most, 1)), -1, dtype=np.int64)
    for k, steps in enumerate(game.steps):
        for j, to in enumerate(steps):
            swaps[k, j, : len(to)] = to
    return (_over(game), swaps, ranks, bits, _stuck(game))


def _over(game: LayeredGame) -> Array:
    return np.array(game.over, dtype=np.bool_)


def _stuck(game: LayeredGame) -> Array:
    """The values of a stuck claimer and a stuck stepper, to move."""
    return np.array(
        [
            TOP if game.claimer_wins_when_stuck else -TOP,
            TOP if game.stepper_wins_when_stuck else -TOP,
        ],
        dtype=np.int64,
    )


@_compiled()
def _back(value: int) -> int:
    """A value one ply earlier, for the other side: the win or loss is a ply further away."""
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


@_compiled()
def _claimer_class(
    k: int, size_of_sets: int, table_next: Array, out: Array, tables: tuple[Array, ...]
) -> None:
    """Values of class ``k`` with the claimer to move, sets of ``size_of_sets`` slots, from
    the table's next layer; ``tables`` as :func:`_claimer_tables`."""
    target, after, emptied, image, _over, ranks, bits, stuck = tables
    relative = (1 << size_of_sets) - 1
    for index in range(out.shape[0]):
        low = relative & 255
        middle = relative >> 8 & 255
        high = relative >> 16
        best = -TOP - 1
        for m in range(target.shape[1]):
            t = target[k, m]
            if t < 0 or relative >> t & 1:
                continue
            moved = (
                image[k, m, 0, low] | image[k, m, 1, middle] | image[k, m, 2, high] | emptied[k, m]
            )
            best = max(best, _back(table_next[after[k, m], _rank(moved, ranks, bits)]))
        if best < -TOP:
            best = stuck[0]  # no claim: the claimer is stuck
        out[index] = best
        if size_of_sets > 0:
            relative = _next_set(relative)


@_compiled()
def _stepper_class(
    k: int, size_of_sets: int, claimer_values: Array, out: Array, tables: tuple[Array, ...]
) -> None:
    """The table's values of class ``k``: the stepper to move, sets of ``size_of_sets``
    slots, from the claimer's values of the same class and layer; ``tables`` as
    :func:`_stepper_tables`."""
    _over, swaps, ranks, bits, stuck = tables
    relative = (1 << size_of_sets) - 1
    for index in range(out.shape[0]):
        best = -TOP - 1
        for j in range(swaps.shape[1]):
            if not (relative >> j & 1):
                continue
            for d in range(swaps.shape[2]):
                p = swaps[k, j, d]
                if p < 0 or relative >> p & 1:
                    continue
                moved = relative ^ (1 << j) ^ (1 << p)
                best = max(best, _back(claimer_values[_rank(moved, ranks, bits)]))
        if best < -TOP:
            best = stuck[1]  # no step: the stepper is stuck
        out[index] = best
        if size_of_sets > 0:
            relative = _next_set(relative)


@_compiled(parallel=True)
def _layer(
    size_of_sets: int,
    table_next: Array,
    out: Array,
    claimer: tuple[Array, ...],
    stepper: tuple[Array, ...],
) -> None:
    """The table's layer of sets of ``size_of_sets`` slots from its next layer, a class at a
    time: the claimer's values of one class are all its steps need, so they are held for one
    class only (per core), never for the whole layer."""
    over = stepper[0]
    stuck = stepper[4]
    size = out.shape[1]
    for k in numba.prange(out.shape[0]):
        if over[k]:
            out[k, :] = TOP  # the claimer has lost: the stepper has won
            continue
        claimer_values = np.empty(size, dtype=np.int8)
        if table_next.shape[1] > 0:
            _claimer_class(k, size_of_sets, table_next, claimer_values, claimer)
        else:  # every slot is in the set: nothing left to claim
            claimer_values[:] = stuck[0]
        _stepper_class(k, size_of_sets, claimer_values, out[k], stepper)


def build(
    game: LayeredGame,
    keep: Callable[[int, Array], None],
    *,
    down_to: int = 0,
) -> None:
    """Solve ``game`` layer by layer from the fullest sets down to sets of ``down_to`` slots
    (0: the whole table): ``keep(size, layer)`` receives each layer of the table
    (``classes x C(slots, size)`` signed bytes) as soon as it is known."""
    if game.slots > 8 * CHUNKS:
        raise ValueError(f"at most {8 * CHUNKS} slots, not {game.slots}")
    ranks, bits = _ranks(game.slots)
    claimer, stepper = _claimer_tables(game, ranks, bits), _stepper_tables(game, ranks, bits)
    table_next = np.zeros((game.classes, 0), dtype=np.int8)
    for size_of_sets in range(game.slots, down_to - 1, -1):
        layer = np.empty((game.classes, game.layer_size(size_of_sets)), dtype=np.int8)
        _layer(size_of_sets, table_next, layer, claimer, stepper)
        keep(size_of_sets, layer)
        table_next = layer  # the layer before it is let go: two layers at most are held


class WritableBuffer(Protocol):
    """Where the table is built: a writable memory map or bytearray of the table's size."""

    def __setitem__(self, index: slice, value: bytes) -> None: ...


def stored(game: LayeredGame, size: int, layer: Array) -> Iterator[bytes]:
    """The table's layer of sets of ``size`` slots as it is stored, in pieces (laid out as
    :mod:`adjudicator.core.layered` says): the exact values, or a bit a value, a slice at a
    time, so that no copy of the whole layer is made."""
    if game.exact(size):
        yield layer.tobytes()
        return
    flat = layer.reshape(-1)
    for start in range(0, flat.size, PACKED):
        yield np.packbits(flat[start : start + PACKED] > 0, bitorder="little").tobytes()


def build_into(game: LayeredGame, out: WritableBuffer) -> None:
    """Solve ``game`` completely into ``out``, laid out as :mod:`adjudicator.core.layered` says."""
    offsets = game.layer_offsets()

    def keep(size: int, layer: Array) -> None:
        at = offsets[size]
        for piece in stored(game, size, layer):
            out[at : at + len(piece)] = piece
            at += len(piece)

    build(game, keep)
