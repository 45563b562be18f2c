"""Solves a layered game (:mod:`adjudicator.core.layered`) completely with NumPy: one pass a
layer, from the fullest sets down, vectorised over the sets and the classes; no compiler, no JIT.

No search and no repeated passes are needed: every claim makes the set one larger and every step
keeps its size, so the positions fall into layers and the game graph has no cycles. From the
last layer (every slot in the set) down to the empty set, the claimer's values of a layer come
from the table's next layer, then the table's values (the stepper to move) from those. Each
value is the best over the moves of the value one ply later; a class that is over, and a side
with no move, are the game's ends.

How it is vectorised. A layer is made a group of classes at a time. For the steps the group is
held set-major, ``[sets, classes]``: a step (slot ``j`` for slot ``p``) maps the sets that hold
``j`` and not ``p`` to other sets of the same layer whatever the class, so one pair of index
arrays serves every class of the group that has that step, and each move is a copy of whole
rows. A claim maps the sets of its class into the next layer's sets of the class after by a
renumbering of the slots: claims with the same renumbering (many classes share one) share their
index array. A set's rank (colexicographic, its place in the layer) is read from a table over
every mask of slots, and the masks of a layer are those of its size in increasing order. A
value is the minimum over the moves of the next values (the best for the side to move is the
worst for the other), turned back one ply at the end by a table of 256 values. The work of a
group is shared by two threads (NumPy lets the interpreter go while it copies and compares).

Memory: one group of classes of the layer being made (at most :data:`GROUP_BYTES` values, the
claimer's and the stepper's at once), and the index arrays of the claims that the most groups
share, kept through the layer (at most :data:`INDEX_KEPT_BYTES`). Each group is written to a
scratch file (unnamed, in the folder given) as soon as it is made; once the layer is complete,
its classes are read back from there one at a time for the claims of the layer before, through
the page cache, and the table is handed out from there a few classes at a time
(:func:`build_into` writes the later layers as one bit a value,
:attr:`LayeredGame.exact_layers`).

The game's rules stay in the game's package, which describes its graph (for Three Musketeers:
:func:`adjudicator.games.three_musketeers.solution.layered_game`); this module knows none.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from adjudicator.core.layered import TOP, LayeredGame

MOST_SLOTS = 24
"""The rank table holds every mask of the slots: 2^24 of them at most (64 MB)."""
GROUP_BYTES = 48 << 20
"""A layer is made a group of classes at a time, of at most this many values (the widest
layer of Three Musketeers in five groups); the group's claimer's and stepper's values are held
at once."""
ROWS_KEPT_BYTES = 8 << 20
INDEX_KEPT_BYTES = 24 << 20
"""The claims' index arrays kept through a layer: those of the renumberings that the most
groups (and threads) of the layer would otherwise each make again."""
"""The next layer's classes read for the claims and kept for the next claims (a thread)."""
THREADS = max(1, min(2, os.cpu_count() or 1))
"""NumPy lets the interpreter go while it copies and compares: the work of a group is cut in
two for two cores."""
_POOL = ThreadPoolExecutor(THREADS, thread_name_prefix="solving")
PACKED_CLASSES = 16
"""Classes turned into bits at a time (a multiple of 8: each slice fills whole bytes)."""
NONE = 127
"""The minimum over no move: above every value of the game (whose values are at most
``TOP = 127`` only for a side that has already won; see :data:`_CODE`)."""

Array = np.ndarray[Any, Any]


def _back(value: int) -> int:
    """A value one ply earlier, for the other side: the win or loss is a ply further away."""
    return -value - 1 if value < 0 else -value + 1


def _tables() -> tuple[Array, Array]:
    """As 256-entry tables over a signed byte's bits: ``code`` orders the values like the values
    but keeps 127 free (a win ``v > 0`` is ``v - 1``), so that :data:`NONE` is above them all;
    ``back_of_code`` is the value one ply before a value given by its code."""
    values = np.arange(256, dtype=np.int64)
    values = np.where(values > 127, values - 256, values)
    code = np.where(values > 0, values - 1, values).astype(np.int8)
    back = np.array([_back(int(v + 1 if v >= 0 else v)) for v in values], dtype=np.int8)
    return code, back


_CODE, _BACK_OF_CODE = _tables()


LOOKED_UP = 1 << 20
"""Values looked up in a table of 256 at a time (NumPy widens the indices to 8 bytes)."""


def _looked_up(table: Array, values: Array) -> Array:
    """``table`` at each of ``values`` (signed bytes), as a new C-ordered array of their shape."""
    out = np.empty(values.shape, dtype=table.dtype)
    step = max(1, LOOKED_UP // max(1, values.shape[1]))
    for first in range(0, values.shape[0], step):
        out[first : first + step] = table[values[first : first + step].view(np.uint8)]
    return out


@dataclass(frozen=True)
class _Sets:
    """The sets of slots: every mask's rank among the masks of its size (colexicographic order
    is the masks' increasing order), and the masks of each layer."""

    slots: int
    size_of: Array
    rank: Array
    low_bits: int
    """The ranks of many masks at once are read in two halves (:meth:`ranks`): the low
    ``low_bits`` slots, and the others."""
    low_rank: Array
    """For each mask of the low slots: its rank, and the count of its slots."""
    high_rank: Array
    """For each mask of the high slots and each count of low slots below them (``[high mask,
    count]``, flat): what the high slots add to the rank."""

    @classmethod
    def of(cls, slots: int) -> _Sets:
        masks = np.arange(1 << slots, dtype=np.int32)
        size_of = np.zeros(1 << slots, dtype=np.int8)
        for slot in range(slots):
            size_of += (masks >> slot & 1).astype(np.int8)
        del masks
        rank = np.zeros(1 << slots, dtype=np.int32)
        for size in range(slots + 1):
            of_size = np.flatnonzero(size_of == size)
            rank[of_size] = np.arange(of_size.size, dtype=np.int32)
        # Colexicographic rank: the sum over the set's slots s, the i-th from the lowest
        # (from 1), of C(s, i). The low slots' part is the low mask's own rank; the high
        # slots' part depends on the high mask and the count of low slots only.
        low_bits = (slots + 1) // 2
        low = np.arange(1 << low_bits)
        low_rank = np.stack([rank[low], size_of[low].astype(np.int32)])
        high = np.arange(1 << (slots - low_bits))
        high_rank = np.zeros((high.size, low_bits + 1), dtype=np.int64)
        for below in range(low_bits + 1):
            count = np.full(high.size, below)
            for bit in range(slots - low_bits):
                has = high >> bit & 1 == 1
                count += has
                high_rank[has, below] += [comb(low_bits + bit, int(i)) for i in count[has]]
        return cls(slots, size_of, rank, low_bits, low_rank, high_rank.astype(np.int32).ravel())

    def ranks(self, masks: Array) -> Array:
        """``rank[masks]``, from two small tables rather than the large one (whose reads
        at random miss the processor's caches)."""
        low = masks & ((1 << self.low_bits) - 1)
        found: Array = self.low_rank[0].take(low)
        high = masks >> self.low_bits
        high *= self.low_bits + 1
        high += self.low_rank[1].take(low)
        found += self.high_rank.take(high)
        return found

    def layer(self, size: int) -> Array:
        """The masks of the sets of ``size`` slots, in the layer's order."""
        return np.flatnonzero(self.size_of == size)


CHUNK_BITS = 11
"""A mask's image under a claim is read ``CHUNK_BITS`` slots at a time."""


@dataclass(frozen=True)
class _ClaimMap:
    """Claims that renumber the slots the same way (in whichever classes): the claimed slot,
    the slot added, and tables giving the image of a mask :data:`CHUNK_BITS` slots at a
    time."""

    slot: int
    added: int
    images: Array
    sources: Array
    """The classes that have this claim."""
    targets: Array
    """For each of :attr:`sources`, the class after the claim."""

    def image(self, masks: Array) -> Array:
        low = (1 << CHUNK_BITS) - 1
        moved: Array = self.images[0][masks & low]
        for chunk in range(1, self.images.shape[0]):
            moved |= self.images[chunk][masks >> (CHUNK_BITS * chunk) & low]
        moved |= 1 << self.added
        return moved


def _claim_maps(game: LayeredGame) -> list[_ClaimMap]:
    """The claims of the classes that are not over, by renumbering, in the order of their
    claimed slots."""
    by_map: dict[tuple[int, int, tuple[int, ...], int], list[tuple[int, int]]] = {}
    for k, claims in enumerate(game.claims):
        if game.over[k]:
            continue  # the claimer has lost there: its claims are never played
        seen: dict[tuple[int, int, tuple[int, ...]], int] = {}
        for claim in claims:
            renumbering = (claim.slot, claim.added, claim.image)
            # A class with two claims of one renumbering: in two maps, one column each.
            again = seen[renumbering] = seen.get(renumbering, -1) + 1
            by_map.setdefault((*renumbering, again), []).append((k, claim.after))
    chunks = max(1, -(-game.slots // CHUNK_BITS))
    part = np.arange(1 << CHUNK_BITS, dtype=np.int32)
    maps = []
    for (slot, added, image, _again), pairs in sorted(by_map.items()):
        images = np.zeros((chunks, 1 << CHUNK_BITS), dtype=np.int32)
        for s, number in enumerate(image):
            if number >= 0:
                images[s // CHUNK_BITS] |= np.where(part >> (s % CHUNK_BITS) & 1, 1 << number, 0)
        maps.append(
            _ClaimMap(
                slot,
                added,
                images,
                np.array([k for k, _ in pairs], dtype=np.intp),
                np.array([after for _, after in pairs], dtype=np.intp),
            )
        )
    return maps


def _step_classes(game: LayeredGame) -> dict[tuple[int, int], Array]:
    """For each step (slot ``j`` given up for slot ``p``): which classes have it."""
    having: dict[tuple[int, int], Array] = {}
    for k, steps in enumerate(game.steps):
        if game.over[k]:
            continue
        for j, to in enumerate(steps):
            for p in to:
                having.setdefault((j, p), np.zeros(game.classes, dtype=np.bool_))[k] = True
    return having


def _claim_slots(game: LayeredGame) -> Array:
    """For each class, the mask of the slots it may claim: the claimer is stuck in a set that
    holds them all."""
    return np.array([sum({1 << c.slot for c in claims}) for claims in game.claims], np.int64)


class _Layering:
    """Makes the table's layers one after another (:func:`build`)."""

    def __init__(self, game: LayeredGame, scratch: Path | None) -> None:
        if game.slots > MOST_SLOTS:
            raise ValueError(f"at most {MOST_SLOTS} slots, not {game.slots}")
        self.game = game
        self.sets = _Sets.of(game.slots)
        self.maps = _claim_maps(game)
        self.steps = _step_classes(game)
        self.claimable = _claim_slots(game)
        self.over = np.array(game.over, dtype=np.bool_)
        self.scratch = scratch
        self.kept_maps: set[int] = set()
        """The claim maps whose index arrays are kept through the layer being made."""
        self.indices: dict[int, Array] = {}
        """Those index arrays, once made."""
        claimer_stuck = TOP if game.claimer_wins_when_stuck else -TOP
        stepper_stuck = TOP if game.stepper_wins_when_stuck else -TOP
        # The claimer's values as codes for the stepper's minimum, from the minimum over its
        # claims of the table's next values: one ply back, then coded.
        self.claimer_code = _CODE[_BACK_OF_CODE[_CODE.view(np.uint8)].view(np.uint8)]
        self.claimer_stuck_code = _CODE[np.int8(claimer_stuck).view(np.uint8)]
        self.stepper_value = _BACK_OF_CODE.copy()
        self.stepper_value[NONE] = stepper_stuck  # no step: the stepper is stuck

    def layers(self, down_to: int) -> Iterator[tuple[int, _Rows]]:
        """The table's layers from the fullest sets down to sets of ``down_to`` slots, each
        ``[classes, sets]`` signed bytes in the scratch file (read until the next one is asked
        for)."""
        classes = self.game.classes
        with (
            tempfile.TemporaryFile(dir=self.scratch) as one,
            tempfile.TemporaryFile(dir=self.scratch) as other,
        ):
            table_next = _Rows(other.fileno(), 0)
            made, before = one, other
            for size in range(self.game.slots, down_to - 1, -1):
                masks = self.sets.layer(size).astype(np.int32)
                group = max(1, min(classes, GROUP_BYTES // max(1, masks.size)))
                self._keep_indices(size, group)
                for first in range(0, classes, group):
                    classes_of_group = np.arange(first, min(first + group, classes))
                    values = self._group(masks, classes_of_group, table_next)
                    _write(made.fileno(), values, masks.size * first)
                    del values
                self.indices.clear()
                table_next = _Rows(made.fileno(), masks.size)
                yield size, table_next.fresh()
                made, before = before, made

    def _keep_indices(self, size: int, group: int) -> None:
        """Chooses the claim maps whose index arrays are kept through the layer of sets of
        ``size`` slots, made by groups of ``group`` classes: those made by the most groups
        and threads, as many as :data:`INDEX_KEPT_BYTES` holds."""
        self.indices.clear()
        self.kept_maps = set()
        if not self.maps:
            return
        rows = comb(self.game.slots - 1, size)  # the sets of the layer without a given slot
        room = INDEX_KEPT_BYTES // max(1, 4 * rows)
        part_of = np.empty(self.game.classes, dtype=np.int64)  # the thread's share of a group
        parts = 0
        for first in range(0, self.game.classes, group):
            for part in _parts(min(group, self.game.classes - first)):
                part_of[first + part.start : first + part.stop] = parts
                parts += 1
        number = np.concatenate([np.full(m.sources.size, n) for n, m in enumerate(self.maps)])
        sources = np.concatenate([m.sources for m in self.maps])
        made = np.unique(number * parts + part_of[sources]) // parts
        made_by = np.bincount(made, minlength=len(self.maps))
        most = np.argsort(-made_by, kind="stable")[:room]
        self.kept_maps = {int(n) for n in most if made_by[n] > 1}

    def _group(self, masks: Array, group: Array, table_next: _Rows) -> Array:
        """The table's values of the classes ``group`` for the sets ``masks``, ``[classes,
        sets]``, from the table's next layer."""
        claimer = self._claimer_codes(masks, group, table_next)
        least = np.full(claimer.shape, NONE, dtype=np.int8)
        # Each thread's two buffers of rows, made once a group: fresh memory for every step
        # would cost a page fault a page.
        # Every step of a layer moves as many sets: those that hold one slot and not another.
        size, slots = int(self.sets.size_of[int(masks[0])]), self.game.slots
        widest = comb(slots - 2, size - 1) if 0 < size < slots else 0
        buffers = [
            (np.empty(b - a, dtype=np.int8), np.empty(b - a, dtype=np.int8))
            for a, b in (
                (part.start * group.size, part.stop * group.size) for part in _parts(widest)
            )
        ]
        applying: list[Future[None]] = []
        for (j, p), having in self.steps.items():
            present = having[group]
            if not present.any():
                continue
            source = np.flatnonzero((masks >> j & 1 == 1) & (masks >> p & 1 == 0))
            target = self.sets.rank[masks[source] ^ (1 << j | 1 << p)].astype(np.intp)
            ignored = None if present.all() else np.where(present, -128, NONE).astype(np.int8)
            for done in applying:  # a step's sets overlap the last step's: one at a time
                done.result()
            applying = [
                _POOL.submit(_step, claimer, least, source[part], target[part], ignored, buffer)
                for part, buffer in zip(_parts(source.size), buffers, strict=True)
            ]
        for done in applying:
            done.result()
        del claimer, buffers
        values = _looked_up(self.stepper_value, least.T)
        del least
        values[self.over[group]] = TOP  # the claimer has lost: the stepper has won
        return values

    def _claimer_codes(self, masks: Array, group: Array, table_next: _Rows) -> Array:
        """The claimer's values (as codes) of the classes ``group`` for the sets ``masks``,
        ``[sets, classes]``, from the table's next layer."""
        least = np.full((group.size, masks.size), NONE, dtype=np.int8)
        for done in [
            _POOL.submit(self._claims, masks, group[part], least[part], table_next.fresh())
            for part in _parts(group.size)
        ]:
            done.result()
        codes = _looked_up(self.claimer_code, least.T)
        del least
        for column, claimable in enumerate(self.claimable[group]):
            stuck = np.flatnonzero(masks & claimable == claimable)
            codes[stuck, column] = self.claimer_stuck_code
        return codes

    def _claims(self, masks: Array, group: Array, least: Array, table_next: _Rows) -> None:
        """Into ``least`` (``[classes, sets]``): the minimum over the claims of the classes
        ``group`` of the table's next values."""
        first, count = int(group[0]), group.size
        slot, rows, free = -1, masks[:0], masks[:0]
        for number, claim_map in enumerate(self.maps):
            inside = (claim_map.sources >= first) & (claim_map.sources < first + count)
            if not inside.any():
                continue
            if claim_map.slot != slot:  # the maps come in the order of their slots
                slot = claim_map.slot
                rows = np.flatnonzero(masks >> slot & 1 == 0)
                free = masks[rows]
            if rows.size == 0:
                continue
            index = self.indices.get(number)
            if index is None:
                index = self.sets.ranks(claim_map.image(free))
                if number in self.kept_maps:  # both threads may make it: either is kept
                    self.indices[number] = index
            for column, target in zip(
                claim_map.sources[inside] - first, claim_map.targets[inside], strict=True
            ):
                row = least[column]
                row[rows] = np.minimum(row[rows], table_next.row(int(target)).take(index))


def _step(  # noqa: PLR0917 - the arguments of one task of the pool
    claimer: Array,
    least: Array,
    source: Array,
    target: Array,
    ignored: Array | None,
    buffer: tuple[Array, Array],
) -> None:
    """One step of the classes of a group: into ``least`` at the sets ``source``, the least of
    it and the claimer's values at the sets ``target`` (those of the classes that have the step;
    ``ignored`` is :data:`NONE` for the others, None when every class has it)."""
    shape = (source.size, least.shape[1])
    moved = buffer[0][: source.size * shape[1]].reshape(shape)
    current = buffer[1][: source.size * shape[1]].reshape(shape)
    np.take(claimer, target, axis=0, out=moved, mode="clip")
    if ignored is not None:
        np.maximum(moved, ignored, out=moved)
    np.take(least, source, axis=0, out=current, mode="clip")
    np.minimum(current, moved, out=current)
    # Whole rows put back as one item each (a row of the group's classes as one void).
    row = np.dtype((np.void, shape[1]))
    np.put(least.view(row).reshape(-1), source, current.view(row).reshape(-1), mode="clip")


def _parts(size: int) -> list[slice]:
    """``range(size)`` in :data:`THREADS` slices."""
    cuts = [size * n // THREADS for n in range(THREADS + 1)]
    return [slice(a, b) for a, b in itertools.pairwise(cuts) if b > a]


class _Rows:
    """The next layer's values in the scratch file, read a class at a time (through the
    page cache, not this process's memory), the last few kept."""

    def __init__(self, descriptor: int, sets: int) -> None:
        self.descriptor = descriptor
        self.sets = sets
        self.kept: dict[int, Array] = {}

    def fresh(self) -> _Rows:
        """The same rows with a cache of their own (one a thread)."""
        return _Rows(self.descriptor, self.sets)

    def classes(self, first: int, last: int) -> Array:
        """The values of the classes ``first`` to ``last`` (excluded), ``[classes, sets]``."""
        return _read(self.descriptor, self.sets * first, self.sets * (last - first)).reshape(
            last - first, self.sets
        )

    def row(self, k: int) -> Array:
        found = self.kept.pop(k, None)
        if found is None:
            found = _read(self.descriptor, self.sets * k, self.sets)
            while self.kept and (len(self.kept) + 1) * self.sets > ROWS_KEPT_BYTES:
                del self.kept[next(iter(self.kept))]
        self.kept[k] = found  # the most recent last
        return found


def _write(descriptor: int, values: Array, at: int) -> None:
    view = memoryview(np.ascontiguousarray(values).data).cast("B")
    while view:
        written = os.pwrite(descriptor, view, at)
        view, at = view[written:], at + written


def _read(descriptor: int, at: int, size: int) -> Array:
    data = np.empty(size, dtype=np.int8)
    view, done = memoryview(data.data).cast("B"), 0
    while done < size:
        got = os.preadv(descriptor, [view[done:]], at + done)
        if got == 0:
            raise OSError("the solver's scratch file is short")
        done += got
    return data


def build(
    game: LayeredGame,
    keep: Callable[[int, Array], None],
    *,
    down_to: int = 0,
    scratch: Path | None = None,
) -> None:
    """Solve ``game`` layer by layer from the fullest sets down to sets of ``down_to`` slots
    (0: the whole table): ``keep(size, layer)`` receives each layer of the table
    (``classes x C(slots, size)`` signed bytes, a view valid during the call) as soon as it
    is known. The layer being made goes to a scratch file in the folder ``scratch`` (the
    system's temporary folder by default)."""
    for size, layer in _Layering(game, scratch).layers(down_to):
        keep(size, layer.classes(0, game.classes))


class WritableBuffer(Protocol):
    """Where the table is built: a writable memory map or bytearray of the table's size."""

    def __setitem__(self, index: slice, value: bytes) -> None: ...


def stored(game: LayeredGame, size: int, layer: Array) -> Iterator[bytes]:
    """The table's layer of sets of ``size`` slots as it is stored, in pieces (laid out as
    :mod:`adjudicator.core.layered` says): the exact values, or a bit a value, a few classes
    at a time, so that no copy of the whole layer is made."""
    for first in range(0, layer.shape[0], PACKED_CLASSES):
        yield _stored_piece(game, size, layer[first : first + PACKED_CLASSES])


def _stored_piece(game: LayeredGame, size: int, piece: Array) -> bytes:
    if game.exact(size):
        return np.ascontiguousarray(piece).tobytes()
    return np.packbits((piece > 0).reshape(-1), bitorder="little").tobytes()


def build_into(game: LayeredGame, out: WritableBuffer, *, scratch: Path | None = None) -> None:
    """Solve ``game`` completely into ``out``, laid out as :mod:`adjudicator.core.layered`
    says; the layers are read from the scratch file (``scratch``: as :func:`build`) a few
    classes at a time, never whole."""
    offsets = game.layer_offsets()
    for size, layer in _Layering(game, scratch).layers(0):
        at = offsets[size]
        for first in range(0, game.classes, PACKED_CLASSES):
            last = min(first + PACKED_CLASSES, game.classes)
            piece = _stored_piece(game, size, layer.classes(first, last))
            out[at : at + len(piece)] = piece
            at += len(piece)
