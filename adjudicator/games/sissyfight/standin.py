"""The SiSSYFiGHT stand-in: a heuristic (docs/rules/sissyfight.md), deterministic given its
``rng``. Not a solution: nobody has published one.

It joins the attack on the weakest player left (the fewest chips; ties broken by ``rng``) with
a SOLO, which always hurts: a lone TEAM does nothing, and nobody can be counted on to join one.
It never DEFENDs: the state does not say who attacked whom last turn, so a stand-in cannot know
it is targeted, and a DEFEND nobody targets costs a chip (measured: DEFENDing blind when the
weakest cut its wins against random players from 0.71 to 0.41, bench/stand_ins.py).
"""

from __future__ import annotations

import random

from adjudicator.games.sissyfight.orders import SOLO
from adjudicator.games.sissyfight.state import SissyState, end_of_game, remaining, seat_of


def choose(state: SissyState, seat: int, rng: random.Random) -> str:
    others = [s for s in remaining(state) if s != seat]
    weakest = min(state.chips[s] for s in others)
    target = rng.choice([s for s in others if state.chips[s] == weakest])
    return f"{SOLO} {state.colours[target]}"


def stand_in(state: SissyState, player: str, rng: random.Random) -> list[str]:
    """The order line of the stand-in for ``player`` (none once he is out or the game over)."""
    seat = seat_of(state, player)
    if seat is None or state.chips[seat] == 0 or end_of_game(state) is not None:
        return []
    return [choose(state, seat, rng)]
