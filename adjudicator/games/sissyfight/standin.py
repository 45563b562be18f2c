"""The SiSSYFiGHT stand-in: a heuristic (docs/rules/sissyfight.md), deterministic given its
``rng``. Not a solution: nobody has published one.

The state holds chips, not who attacked whom, so "defend when targeted" is read from the
chips: the player with the fewest chips is the one the others go for, so a stand-in that is
the weakest (or tied) DEFENDs, most of the time, when others are near it. Otherwise it joins
the attack on the weakest other player: a SOLO when that finishes them or when a lone TEAM
would do nothing, a TEAM now and then (two stand-ins, or a human with the same idea, choose
the same target, and two TEAMs hurt twice as much as two SOLOs).
"""

from __future__ import annotations

import random

from adjudicator.games.sissyfight import (
    DEFEND,
    SissyState,
    end_of_game,
    remaining,
    seat_of,
)

DEFEND_WHEN_WEAKEST = 0.8
TEAM_SHARE = 0.35


def choose(state: SissyState, seat: int, rng: random.Random) -> str:
    others = [s for s in remaining(state) if s != seat]
    chips = state.chips
    weakest = min(chips[s] for s in others)
    if chips[seat] <= weakest and rng.random() < DEFEND_WHEN_WEAKEST:
        return DEFEND
    targets = [s for s in others if chips[s] == weakest]
    target = rng.choice(targets)
    kind = "TEAM" if chips[target] > 1 and rng.random() < TEAM_SHARE else "SOLO"
    return f"{kind} {state.colours[target]}"


def stand_in(state: SissyState, player: str, rng: random.Random) -> list[str]:
    """The order line of the stand-in for ``player`` (none once he is out or the game over)."""
    seat = seat_of(state, player)
    if seat is None or state.chips[seat] == 0 or end_of_game(state) is not None:
        return []
    return [choose(state, seat, rng)]
