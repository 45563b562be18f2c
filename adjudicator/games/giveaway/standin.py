"""The Giveaway stand-in: a heuristic (docs/rules/giveaway.md), deterministic given its
``rng``. Not a solution: nobody has published one.

It keeps the co-operation rings it was in last round (the same gift to the same next member),
offers a ring to the next player in seat order when it is in none (so stand-ins, and humans
who answer in kind, close rings), and spreads what is left evenly over the players outside
its rings, so it breaks none of its rings and feeds no one player (measured against random
players, bench/stand_ins.py: an even spread wins far more often than feeding the lowest score,
which makes next round's leader).
"""

from __future__ import annotations

import random

from adjudicator.games.giveaway.orders import Gift, format_gift
from adjudicator.games.giveaway.state import START_HOLDING, GiveawayState


def gifts(state: GiveawayState, player: str, rng: random.Random) -> dict[str, int]:
    others = [p for p in state.active if p != player]
    left = state.holding(player)
    given: dict[str, int] = {}
    partners: set[str] = set()
    for ring in state.rings:
        if player in ring.members:
            partners.update(ring.members)
            after = ring.members[(ring.members.index(player) + 1) % ring.size]
            if after in others and after not in given and ring.amount <= left:
                given[after] = ring.amount
                left -= ring.amount
    if not given and left:
        seat = state.active.index(player)
        offer_to = state.active[(seat + 1) % len(state.active)]
        given[offer_to] = min(left, START_HOLDING)
        left -= given[offer_to]
        partners.add(offer_to)
    partners.add(player)
    outsiders = [p for p in others if p not in partners] or [p for p in others if p not in given]
    if left and outsiders:
        share, extra = divmod(left, len(outsiders))
        lucky = set(rng.sample(outsiders, extra))
        for target in outsiders:
            given[target] = given.get(target, 0) + share + (target in lucky)
        left = 0
    if left:  # every other player is a partner already given to: add it to one gift
        target = rng.choice(sorted(given))
        given[target] += left
    if not given:
        given[others[0]] = 0  # nothing to give: a gift of 0 is an order that changes nothing
    return given


def stand_in(state: GiveawayState, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none once the game is over)."""
    name = next((p for p in state.active if p.lower() == player.lower()), None)
    if name is None or state.winner is not None or len(state.active) < 2:
        return []
    return [format_gift(Gift(n, to)) for to, n in gifts(state, name, rng).items()]
