"""Giveaway: random legal play over many rounds, and the invariants of every round.

- the same orders give the same result (determinism);
- a state survives dump -> JSON -> load unchanged;
- points are conserved except for ring bonuses: total received = total given + total bonus;
- holdings are scores + 3; rings are sorted and start with their alphabetically first member.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.game import Setup
from adjudicator.games.giveaway import RULES, GiveawayState
from adjudicator.games.giveaway.scoring import TARGET


def random_orders(state: GiveawayState, player: str, rng: random.Random) -> list[str]:
    """Half the time RULES.sample_orders; else small gifts to seat neighbours, so that equal
    amounts meet and rings form, the rest to anyone."""
    holding = state.holding(player)
    if rng.random() < 0.5 or holding == 0:
        return RULES.sample_orders(state, player, rng)
    seat, players = state.seats[player], state.players
    lines, left = [], holding
    for _ in range(rng.randint(1, 3)):
        to = players[(seat + rng.choice((1, 1, 2, -1))) % len(players)]
        amount = min(left, rng.choice((1, 1, 2)))
        lines.append(f"give {amount} to {to}")
        left -= amount
    if left:
        lines.append(f"GIVE {left} TO {rng.choice([p for p in players if p != player])}")
    return lines


def random_game(seed: int, *, rounds: int = 25) -> list[tuple[GiveawayState, Any, Any]]:
    """Play up to ``rounds`` rounds with random legal orders; some players send nothing."""
    rng = random.Random(seed)
    players = [f"p{i:02d}" for i in range(rng.randint(3, 14))]
    nmr = rng.choice(["spread", "lose"])
    start = {p: rng.randint(0, 12) for p in players if rng.random() < 0.3}
    state = RULES.start(
        players, options={"nmr": nmr}, setup=Setup(start={"holdings": start} if start else {})
    )
    played = []
    for _ in range(rounds):
        if RULES.outcome(state) is not None:
            break
        orders = {}
        for player in RULES.to_move(state):
            if rng.random() < 0.1:
                continue
            lines = random_orders(state, player, rng)
            checked = RULES.check(state, player, lines)
            assert checked.ok, (lines, checked.problems)
            orders[player] = checked.orders
        resolution = RULES.resolve(state, orders)
        played.append((state, orders, resolution))
        state = resolution.state
    return played


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_play_keeps_every_invariant(seed: int) -> None:
    for before, orders, resolution in random_game(seed):
        after, report = resolution.state, resolution.report.public
        # Determinism: the same state and orders give the same state and report.
        again = RULES.resolve(before, orders)
        assert again.state == after
        assert again.report.public == report
        # dump/load round trip, through JSON text.
        assert RULES.load(json.loads(json.dumps(RULES.dump(after)))) == after
        # Conservation: total received = total given + total bonus.
        lost = sum(n["holding"] for n in report["no_orders"] if n["rule"] == "lose")
        given_total = sum(before.holding(p) for p in before.active) - lost
        assert sum(g["amount"] for g in report["gifts"]) == given_total
        bonus = sum(r["bonus"] * r["size"] for r in report["rings"])
        assert sum(report["scores"].values()) == given_total + bonus
        # Rule 4 and the replay state.
        assert all(after.holding(p) == s + 3 for p, s in report["scores"].items())
        rings = RULES.public_state(after)["rings"]
        assert rings == sorted(rings, key=lambda r: r["members"])
        assert all(r["members"][0] == min(r["members"]) for r in rings)
        # Rule 1: the game ends exactly when some score is 100 and one score is unique.
        unique = [
            s for s in report["scores"].values() if list(report["scores"].values()).count(s) == 1
        ]
        ends = max(report["scores"].values()) >= TARGET and bool(unique)
        assert (RULES.outcome(after) is not None) == ends


def test_random_games_reach_rings_and_victories() -> None:
    """The random play above is not vacuous: over some games, rings form and games end."""
    games = [random_game(seed, rounds=60) for seed in range(12)]
    assert sum(len(res.state.rings) for game in games for _, _, res in game) > 20
    assert any(RULES.outcome(game[-1][2].state) is not None for game in games)
