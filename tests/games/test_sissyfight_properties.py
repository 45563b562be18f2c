"""SiSSYFiGHT 3000: property tests (parsing, and random legal play over whole games)."""

from __future__ import annotations

import itertools
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import Setup
from adjudicator.games.sissyfight import COLOURS, RULES, Action, SissyState

RESERVED = {"solo", "team", "teamup", "team-up", "defend", "defence", "defense", "gray", "up"}
RESERVED |= {"attack", "on", "at", "against", "to", "vs", "versus", "target", "with"}
HANDLES = st.from_regex(r"[a-z][a-z0-9_-]{0,31}", fullmatch=True).filter(
    lambda h: h not in RESERVED
)
ACTIONS = st.one_of(
    st.just(Action("DEFEND")),
    st.builds(
        Action,
        st.sampled_from(["SOLO", "TEAM"]),
        st.one_of(st.sampled_from(COLOURS), HANDLES),
    ),
)
WORDS = ["solo", "team", "up", "defend", "red", "Grey", "gray", "on", "→", ":", ",", "bob", "!"]
LINES = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=4)), max_size=5).map(" ".join),
)


@given(ACTIONS)
def test_parse_of_format_round_trips(action: Action) -> None:
    assert RULES.parse_order(RULES.format_order(action)) == action


@given(LINES)
def test_arbitrary_text_raises_only_the_parsers_own_errors(text: str) -> None:
    try:
        action = RULES.parse_order(text)
    except (NotAnOrder, OrderSyntaxError):
        return
    assert RULES.parse_order(RULES.format_order(action)) == action


@given(st.lists(LINES, max_size=4), st.sampled_from(["alice", "bob", "zed"]))
def test_check_never_raises(lines: list[str], player: str) -> None:
    state = RULES.start(("alice", "bob", "carol"), options={}, setup=Setup())
    checked = RULES.check(state, player, lines)
    assert len(checked.unrecognised) <= len(lines)


def expected_chips(state: SissyState, lines: dict[str, str]) -> dict[str, int]:
    """An independent reading of ruling 2, Resolution, from the players' order lines."""
    colour_of = dict(zip(state.players, state.colours, strict=True))
    player_of = {c: p for p, c in colour_of.items()} | {p: p for p in state.players}
    chosen = {}
    for player, chips in zip(state.players, state.chips, strict=True):
        if chips == 0:
            continue
        words = lines.get(player, "DEFEND").split()
        chosen[player] = (words[0], player_of[words[1]] if len(words) > 1 else None)
    after = {}
    for player, chips in zip(state.players, state.chips, strict=True):
        if player not in chosen:
            after[player] = chips
            continue
        solos = list(chosen.values()).count(("SOLO", player))
        teams = list(chosen.values()).count(("TEAM", player))
        total = solos + (2 * teams if teams >= 2 else 0)
        if chosen[player][0] == "DEFEND":
            total = total // 2 if solos + teams else 1
        after[player] = max(0, chips - total)
    return after


def random_game(seed: int) -> list[SissyState]:
    rng = random.Random(seed)
    players = ("ann", "ben", "cat", "dan", "eve", "fay")[: rng.randint(3, 6)]
    colours = dict(zip(players, rng.sample(COLOURS, len(players)), strict=True))
    colours = {p: c for p, c in colours.items() if rng.random() < 0.5}
    chips = {p: rng.randint(1, 10) for p in players if rng.random() < 0.5}
    state = RULES.start(players, options={}, setup=Setup(colours=colours, start={"chips": chips}))
    states = [state]
    while RULES.outcome(state) is None and state.turn < 2000:
        lines = {}
        orders = {}
        for player in RULES.to_move(state):
            if rng.random() < 0.1:
                continue  # no orders: DEFEND
            sent = RULES.sample_orders(state, player, rng)
            checked = RULES.check(state, player, sent)
            assert checked.ok, (sent, checked.problems)
            orders[player] = checked.orders
            lines[player] = RULES.format_order(checked.orders[0])
        new = RULES.resolve(state, orders).state
        assert dict(zip(new.players, new.chips, strict=True)) == expected_chips(state, lines)
        state = new
        states.append(state)
    return states


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_legal_play(seed: int) -> None:
    states = random_game(seed)
    assert states == random_game(seed), "same orders, same results"
    for before, after in itertools.pairwise(states):
        assert all(0 <= a <= b for a, b in zip(after.chips, before.chips, strict=True))
        assert RULES.to_move(before) == tuple(
            p for p, c in zip(before.players, before.chips, strict=True) if c > 0
        )
    for state in states:
        dumped = json.loads(json.dumps(RULES.dump(state)))
        assert RULES.load(dumped) == state
        public = RULES.public_state(state)
        assert list(public) == ["chips", "colours", "out"]
        assert sorted(public["colours"].values()) == sorted(set(public["colours"].values()))
    outcome = RULES.outcome(states[-1])
    assert outcome is not None, "random play ends"
    alive = [p for p, c in zip(states[-1].players, states[-1].chips, strict=True) if c > 0]
    assert list(outcome.winners) == alive
    assert len(alive) <= 2
    assert not outcome.draw
    assert all(RULES.outcome(s) is None for s in states[:-1])
