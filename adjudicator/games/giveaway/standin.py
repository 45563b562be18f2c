"""The Giveaway stand-in: a heuristic (docs/rules/giveaway.md), deterministic given its
``rng``. Not a solution: nobody has published one.

- **Keep rings**: in every co-operation ring it was in last round it gives the same amount to
  the same next member again (a ring pays k x its size for a gift of k; one more gift between
  two members would break it, so a ring partner gets nothing else while there is anybody
  outside its rings).
- **Break ties**: when a score of 100 was reached and its own score was shared, it drops its
  rings for a round (tied players cannot win, rule 1, and a ring pays its partners as much as
  itself). It offers no ring of its own: a ring of everybody among stand-ins, kept, tied them
  all for ever.
- **Feed whoever would receive least, so nobody outscores it**: a player's score is what the
  others give them, and nobody gives to themselves, so if the others spread their holdings
  evenly a player receives the sum of the others' holdings but their own, over the players
  but one: the more a player holds, the less they receive. Its remaining points go one at a
  time to the player whose expected score is then lowest (water-filling), which keeps every
  other player's expected score as low as its points allow, and its own (which it cannot
  change) the more likely the highest when somebody reaches 100 (rule 1).

Measured against random players (bench/stand_ins.py, tests/games/test_heuristic_standins.py):
it wins 0.33 to 0.40 of four-player games from every seat, against 0.235 to 0.275 for a
random player in the same seat; an even spread over the players outside its rings, the rule
before, won 0.31 to 0.37.
"""

from __future__ import annotations

import random

from adjudicator.games.giveaway.orders import Gift, format_gift
from adjudicator.games.giveaway.scoring import TARGET
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


def _stuck_in_a_tie(state: GiveawayState, player: str) -> bool:
    """Whether a score of 100 was reached last round while ``player``'s score was shared:
    tied players cannot win (rule 1), so its rings, which pay its partners as much as itself,
    are dropped for a round to break the tie."""
    scores = [state.scores[state.seats[p]] for p in state.active]
    mine = state.scores[state.seats[player]]
    return max(scores) >= TARGET and scores.count(mine) > 1


def _water_fill(
    state: GiveawayState, player: str, targets: list[str], points: int, rng: random.Random
) -> dict[str, int]:
    """``points`` given one at a time to the target whose expected score is then lowest
    (ties broken by ``rng``), computed at once, however many points there are.

    A target's expected score, times (players - 1), is what the others but ``player`` hold
    except the target's own holding; each point from ``player`` adds (players - 1). The k-th
    point a target gets raises it from ``base + (k - 1) * step``: the points go to the
    ``points`` lowest such slots over all targets, the ties at the last level by ``rng``."""
    step = len(state.active) - 1
    others_hold = sum(state.holding(p) for p in state.active if p != player)
    base = {t: others_hold - state.holding(t) for t in targets}
    key = {t: rng.random() for t in targets}

    def slots_up_to(level: int) -> int:
        return sum((level - b) // step + 1 for b in base.values() if b <= level)

    low, high = min(base.values()), min(base.values()) + step * points
    while low < high:  # the lowest level with ``points`` slots at or below it
        middle = (low + high) // 2
        low, high = (middle + 1, high) if slots_up_to(middle) < points else (low, middle)
    gifts = {t: -(-(low - b) // step) for t, b in base.items() if b < low}  # slots below it
    at_level = [t for t, b in base.items() if b <= low and (low - b) % step == 0]
    at_level.sort(key=lambda t: key[t])
    for target in at_level[: points - sum(gifts.values())]:
        gifts[target] = gifts.get(target, 0) + 1
    return {t: n for t, n in gifts.items() if n}


def gifts(state: GiveawayState, player: str, rng: random.Random) -> dict[str, int]:
    """Every gift of ``player`` this round, by recipient: exactly the holding."""
    others = [p for p in state.active if p != player]
    holding = state.holding(player)
    given: dict[str, int] = {}
    partners = set() if _stuck_in_a_tie(state, player) else _keep_rings(state, player, given)
    left = holding - sum(given.values())
    # Outside its rings first; when everybody is in them (a ring of everybody), the rest goes
    # to the members it does not give to already, or else on top of one of its gifts, which
    # breaks those rings (rule 6): kept whole with every point in them, rings of everybody
    # would tie everybody for ever, and tied players cannot win (rule 1).
    targets = [p for p in others if p not in partners and p not in given]
    targets = targets or [p for p in others if p not in given]
    if left and targets:
        for target, points in _water_fill(state, player, targets, left, rng).items():
            given[target] = points
    elif left:  # it gives to everybody in rings: the rest on one of them, drawn, so that
        given[rng.choice(others)] += left  # stand-ins alike do not stay tied for ever
    if not given:
        given[others[0]] = 0  # nothing to give: a gift of 0 is an order that changes nothing
    return given


def stand_in(state: GiveawayState, player: str, rng: random.Random) -> list[str]:
    """The order lines of the stand-in for ``player`` (none once the game is over)."""
    name = next((p for p in state.active if p.lower() == player.lower()), None)
    if name is None or state.winner is not None or len(state.active) < 2:
        return []
    return [format_gift(Gift(n, to)) for to, n in gifts(state, name, rng).items()]
