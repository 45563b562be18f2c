"""The Giveaway stand-in: a heuristic (docs/rules/giveaway.md), deterministic given its
``rng``. Not a solution: nobody has published one.

- **Keep rings**: in every co-operation ring it was in last round it gives the same amount to
  the same next member again (a ring pays k x its size for a gift of k; one more gift between
  two members would break it, so a ring partner gets nothing else).
- **Offer a ring** in round 1, when everybody holds the same: its whole holding to the next
  player in seat order. Stand-ins (and players who answer in kind) then close a ring of
  everybody, which it keeps.
- **Feed whoever would receive least, so nobody outscores it**: a player's score is what the
  others give them, and nobody gives to themselves, so if the others spread their holdings
  evenly a player receives the sum of the others' holdings but their own, over the players
  but one: the more a player holds, the less they receive. Its remaining points go one at a
  time to the player whose expected score is then lowest (water-filling), which keeps every
  other player's expected score as low as its points allow, and its own (which it cannot
  change) the more likely the highest when somebody reaches 100 (rule 1).

Measured against random players (bench/stand_ins.py, tests/games/test_heuristic_standins.py):
it wins about 0.37 to 0.42 of four-player games from every seat, against 0.24 to 0.28 for a
random player in the same seat; an even spread over the players outside its rings, the rule
before, won 0.31 to 0.37.
"""

from __future__ import annotations

import heapq
import random

from adjudicator.games.giveaway.orders import Gift, format_gift
from adjudicator.games.giveaway.state import GiveawayState


def _keep_rings(state: GiveawayState, player: str, given: dict[str, int]) -> set[str]:
    """Repeat the gift of every ring ``player`` was in; the ring partners (given nothing
    else)."""
    partners: set[str] = set()
    left = state.holding(player)
    for ring in state.rings:
        if player not in ring.members:
            continue
        partners.update(ring.members)
        after = ring.members[(ring.members.index(player) + 1) % ring.size]
        keep = after in state.active and after != player and after not in given
        if keep and ring.amount <= left:
            given[after] = ring.amount
            left -= ring.amount
    partners.discard(player)
    return partners


def _water_fill(
    state: GiveawayState, player: str, targets: list[str], points: int, rng: random.Random
) -> dict[str, int]:
    """``points`` given one at a time to the target whose expected score is then lowest.

    A target's expected score, times (players - 1), is what the others but ``player`` hold
    except the target's own holding; each point from ``player`` adds (players - 1). Ties are
    broken by ``rng``."""
    scale = len(state.active) - 1
    others_hold = sum(state.holding(p) for p in state.active if p != player)
    heap = [(others_hold - state.holding(t), rng.random(), t) for t in targets]
    heapq.heapify(heap)
    gifts: dict[str, int] = {}
    for _ in range(points):
        level, key, target = heapq.heappop(heap)
        gifts[target] = gifts.get(target, 0) + 1
        heapq.heappush(heap, (level + scale, key, target))
    return gifts


def gifts(state: GiveawayState, player: str, rng: random.Random) -> dict[str, int]:
    """Every gift of ``player`` this round, by recipient: exactly the holding."""
    others = [p for p in state.active if p != player]
    holding = state.holding(player)
    given: dict[str, int] = {}
    partners = _keep_rings(state, player, given)
    if state.round == 0 and not given and holding:  # round 1: offer a ring of everybody
        seat = state.active.index(player)
        given[state.active[(seat + 1) % len(state.active)]] = holding
    left = holding - sum(given.values())
    targets = [p for p in others if p not in partners and p not in given]
    if left and targets:
        for target, points in _water_fill(state, player, targets, left, rng).items():
            given[target] = points
    elif left and given:  # everybody else is a ring partner: the rest goes with one gift
        target = rng.choice(sorted(given))
        given[target] += left
    elif left:
        given[rng.choice(others)] = left
    if not given:
        given[others[0]] = 0  # nothing to give: a gift of 0 is an order that changes nothing
    return given


def stand_in(state: GiveawayState, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none once the game is over)."""
    name = next((p for p in state.active if p.lower() == player.lower()), None)
    if name is None or state.winner is not None or len(state.active) < 2:
        return []
    return [format_gift(Gift(n, to)) for to, n in gifts(state, name, rng).items()]
