"""Starship Combat: property tests (parsing, and random legal play over whole games)."""

from __future__ import annotations

import itertools
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import Setup
from adjudicator.games.starship_combat import RULES, Choice, StarshipState

CHOICES = st.builds(Choice, st.booleans(), st.booleans())
WORDS = ["fire", "shield", "shields", "both", "and", "power", "nothing", "pass", "a", "up", "!"]
LINES = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=4)), max_size=5).map(" ".join),
)


@given(CHOICES)
def test_parse_of_format_round_trips(choice: Choice) -> None:
    assert RULES.parse_order(RULES.format_order(choice)) == choice


@given(LINES)
def test_arbitrary_text_raises_only_the_parsers_own_errors(text: str) -> None:
    try:
        choice = RULES.parse_order(text)
    except (NotAnOrder, OrderSyntaxError):
        return
    assert RULES.parse_order(RULES.format_order(choice)) == choice


@given(st.lists(LINES, max_size=4), st.sampled_from(["a", "b", "zed"]))
def test_check_never_raises(lines: list[str], player: str) -> None:
    state = RULES.start(("a", "b"), options={}, setup=Setup())
    RULES.check(state, player, lines)


def random_game(seed: int) -> list[StarshipState]:
    rng = random.Random(seed)
    start = {
        "missiles": {p: rng.randint(0, 4) for p in "ab" if rng.random() < 0.3},
        "power": {p: rng.randint(0, 7) for p in "ab" if rng.random() < 0.3},
    }
    options = {"max_rounds": str(rng.randint(1, 40))} if rng.random() < 0.5 else {}
    state = RULES.start(("a", "b"), options=options, setup=Setup(start=start))
    states = [state]
    while RULES.outcome(state) is None:
        orders = {}
        for player in RULES.to_move(state):
            if rng.random() < 0.1:
                continue  # no orders: NOTHING
            checked = RULES.check(state, player, RULES.sample_orders(state, player, rng))
            assert checked.ok, checked.problems
            orders[player] = checked.orders
        state = RULES.resolve(state, orders).state
        states.append(state)
    return states


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_legal_play(seed: int) -> None:
    states = random_game(seed)
    assert states == random_game(seed), "same orders, same results"
    for before, after in itertools.pairwise(states):
        for seat in (0, 1):
            assert 0 <= after.missiles[seat] <= before.missiles[seat]
            assert 0 <= after.power[seat] <= before.power[seat]
            assert before.missiles[seat] - after.missiles[seat] <= 1
            assert before.power[seat] - after.power[seat] <= 1
        assert not any(before.destroyed)
    for state in states:
        assert RULES.load(json.loads(json.dumps(RULES.dump(state)))) == state
        assert list(RULES.public_state(state)) == ["missiles", "power", "destroyed"]
    last = states[-1]
    outcome = RULES.outcome(last)
    assert outcome is not None
    assert last.round <= last.max_rounds, "games end by the round limit"
    assert outcome.draw == (not outcome.winners)
    if outcome.winners:
        (winner,) = outcome.winners
        loser = 1 - last.players.index(winner)
        assert last.destroyed[loser] or last.missiles[loser] == 0
        assert not last.destroyed[1 - loser]
