"""Random small layered games (core/layered.py), for the solver's tests."""

from __future__ import annotations

import random

from adjudicator.core.layered import Claim, LayeredGame


def random_game(rng: random.Random, *, classes: int, slots: int) -> LayeredGame:
    claims = []
    for _k in range(classes):
        moves = []
        for _ in range(rng.randrange(0, 4)):
            slot = rng.randrange(slots)
            numbers = list(range(slots))
            rng.shuffle(numbers)  # a bijection: the claimed slot's number is the added slot
            image = tuple(-1 if s == slot else numbers[s] for s in range(slots))
            moves.append(Claim(slot, rng.randrange(classes), numbers[slot], image))
        claims.append(tuple(moves))
    steps = tuple(
        tuple(tuple(p for p in range(slots) if p != j and rng.random() < 0.3) for j in range(slots))
        for _k in range(classes)
    )
    return LayeredGame(
        classes=classes,
        slots=slots,
        claims=tuple(claims),
        steps=steps,
        over=tuple(rng.random() < 0.2 for _ in range(classes)),
        claimer_wins_when_stuck=rng.random() < 0.5,
        stepper_wins_when_stuck=rng.random() < 0.5,
    )
