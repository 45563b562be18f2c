"""The solver of layered games (solving/layered.py) against a plain recursive reading of
the game's description (core/layered.py), on random small games: every value of the table."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cache
from itertools import combinations
from math import comb

import pytest
from layered_games import random_game

from adjudicator.core.layered import TOP, LayeredGame, colex_rank
from adjudicator.solving import layered
from adjudicator.solving.layered import build_into


def plain_values(game: LayeredGame) -> dict[tuple[int, frozenset[int]], int]:
    """Every stepper-to-move value, read straight from the description: the best over the
    moves of the value one ply later (a win ``d`` plies ahead ``TOP - d``, a loss ``d - TOP``)."""

    def back(value: int) -> int:
        return -value - 1 if value < 0 else -value + 1

    def stuck(wins: bool) -> int:
        return TOP if wins else -TOP

    @cache
    def claimer(k: int, chosen: frozenset[int]) -> int:
        if game.over[k]:
            return -TOP
        values = [
            back(stepper(c.after, frozenset(c.image[s] for s in chosen) | {c.added}))
            for c in game.claims[k]
            if c.slot not in chosen
        ]
        return max(values) if values else stuck(game.claimer_wins_when_stuck)

    @cache
    def stepper(k: int, chosen: frozenset[int]) -> int:
        if game.over[k]:
            return TOP
        values = [
            back(claimer(k, (chosen - {j}) | {p}))
            for j in chosen
            for p in game.steps[k][j]
            if p not in chosen
        ]
        return max(values) if values else stuck(game.stepper_wins_when_stuck)

    return {
        (k, frozenset(chosen)): stepper(k, frozenset(chosen))
        for k in range(game.classes)
        for size in range(game.slots + 1)
        for chosen in combinations(range(game.slots), size)
    }


@pytest.mark.parametrize("seed", range(6))
def test_every_value_of_the_table_is_the_plain_reading(seed: int) -> None:
    game = random_game(random.Random(seed), classes=4, slots=7)
    table = bytearray(game.layer_offsets()[-1])
    build_into(game, table)
    offsets = game.layer_offsets()
    checked = 0
    for (k, chosen), expected in plain_values(game).items():
        size = len(chosen)
        index = offsets[size] + k * game.layer_size(size) + colex_rank(sorted(chosen))
        stored = table[index] - 256 if table[index] > 127 else table[index]
        assert stored == expected, (seed, k, sorted(chosen))
        checked += 1
    assert checked == 4 * 2**7


@pytest.mark.parametrize("seed", range(6))
def test_layers_kept_as_bits_say_who_wins_and_the_first_layers_stay_exact(seed: int) -> None:
    """core/layered.py: the first ``exact_layers`` layers keep the exact value, the later ones
    one bit a value, set when the stepper wins (bit ``i % 8`` of byte ``i // 8``)."""
    game = replace(random_game(random.Random(seed), classes=4, slots=7), exact_layers=3)
    offsets = game.layer_offsets()
    assert offsets[-1] == 4 * (1 + 7 + 21) + sum(-(-4 * comb(7, c) // 8) for c in range(3, 8))
    table = bytearray(offsets[-1])
    build_into(game, table)
    for (k, chosen), expected in plain_values(game).items():
        size = len(chosen)
        index = k * game.layer_size(size) + colex_rank(sorted(chosen))
        if size < 3:
            stored = table[offsets[size] + index]
            assert (stored - 256 if stored > 127 else stored) == expected, (seed, k, chosen)
        else:
            bit = table[offsets[size] + index // 8] >> index % 8 & 1
            assert bit == (expected > 0), (seed, k, sorted(chosen))


@pytest.mark.parametrize("seed", range(3))
def test_a_layer_made_a_class_at_a_time_is_the_same(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The solver makes a layer a group of classes at a time and reads the next layer's
    classes back from its scratch file, a few kept: with one class a group and one class
    kept, every value is still the plain reading."""
    game = random_game(random.Random(seed), classes=5, slots=7)
    whole = bytearray(game.layer_offsets()[-1])
    build_into(game, whole)
    monkeypatch.setattr(layered, "GROUP_BYTES", 1)
    monkeypatch.setattr(layered, "ROWS_KEPT_BYTES", 1)
    apart = bytearray(len(whole))
    build_into(game, apart)
    assert apart == whole
    offsets = game.layer_offsets()
    for (k, chosen), expected in plain_values(game).items():
        size = len(chosen)
        index = offsets[size] + k * game.layer_size(size) + colex_rank(sorted(chosen))
        assert (apart[index] - 256 if apart[index] > 127 else apart[index]) == expected
