"""A two-sided game whose positions fall into layers, described for a solver (pure data).

A position is a *class* (``0 <= k < classes``) and a set of *slots* (``0 <= s < slots``). One
side, the *claimer*, moves by claiming a slot outside the set: the position goes to the next
layer (a set one larger), in the class and slot numbering of :class:`Claim`. The other side,
the *stepper*, moves by swapping a slot of the set for one outside it: the set keeps its size
and the class stays. The two alternate: after a claim the stepper moves, after a step the
claimer. A class may be *over*: the claimer has lost there, whoever is to move. A side with no
move has its result fixed by :attr:`LayeredGame.claimer_wins_when_stuck` and
:attr:`LayeredGame.stepper_wins_when_stuck`. There are no draws and no cycles (every claim
makes the set larger), so one pass a layer, from the fullest set down, solves the game.

Three Musketeers is one (:func:`adjudicator.games.three_musketeers.solution.layered_game`):
the class is the Musketeers' placement up to symmetry, the set the empty squares; a capture
claims a man's square, and a man stepping onto an empty square swaps the two.

The table keeps, for every class and set, the value with the stepper to move. Layer ``c``
(sets of ``c`` slots) holds ``classes x C(slots, c)`` values, class after class, sets in
colexicographic order; the layers follow one another from ``c = 0``. The first
:attr:`LayeredGame.exact_layers` layers keep the exact value, a signed byte each: ``TOP - d`` for
a win ``d`` plies ahead, ``d - TOP`` for a loss. The later layers keep one bit each, whether the
stepper wins (bit ``i`` of a layer is bit ``i % 8`` of its byte ``i // 8``; each layer starts
on a whole byte): a win or a loss is all a perfect player needs where every game is short, and
the bits take an eighth of the room.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

TOP = 127
"""A win ``d`` plies ahead is stored as ``TOP - d``, a loss as ``d - TOP`` (one signed byte: a
game of this kind may last at most 126 plies)."""


@dataclass(frozen=True)
class Claim:
    """One claim of a class: the slot it claims (it must be outside the set) and where it
    leads: the class after, the slot that joins the set (numbered in the class after), and for
    every slot its number in the class after (-1 for the claimed slot)."""

    slot: int
    after: int
    added: int
    image: tuple[int, ...]


@dataclass(frozen=True)
class LayeredGame:
    classes: int
    slots: int
    claims: tuple[tuple[Claim, ...], ...]
    """For each class, the claimer's moves."""
    steps: tuple[tuple[tuple[int, ...], ...], ...]
    """For each class and slot ``j``: the slots ``p`` that a step may swap it for, when ``j`` is
    in the set and ``p`` is not."""
    over: tuple[bool, ...]
    """For each class: the claimer has lost there."""
    claimer_wins_when_stuck: bool
    stepper_wins_when_stuck: bool
    exact_layers: int = 1 << 30
    """The layers (from ``c = 0``) whose exact values are kept; the others keep a bit."""

    def exact(self, size: int) -> bool:
        """Whether the layer of sets of ``size`` slots keeps exact values (else bits)."""
        return size < self.exact_layers

    def layer_size(self, size: int) -> int:
        """Values a class has in the layer of sets of ``size`` slots."""
        return comb(self.slots, size)

    def layer_offsets(self) -> tuple[int, ...]:
        """Where each layer starts in the table, and (last) the table's size, in bytes."""
        offsets = [0]
        for size in range(self.slots + 1):
            values = self.classes * self.layer_size(size)
            offsets.append(offsets[-1] + (values if self.exact(size) else -(-values // 8)))
        return tuple(offsets)


def colex_rank(indices: list[int] | tuple[int, ...]) -> int:
    """The rank of a set of slots (increasing) among the sets of its size."""
    return sum(comb(p, i + 1) for i, p in enumerate(indices))
