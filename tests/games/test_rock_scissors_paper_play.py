"""Random play: thousands of games end without errors, with results; invariants of the rules;
determinism and the dump/load round trip through the ``Rules`` protocol."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.core.game import Setup
from adjudicator.games.rock_scissors_paper import RULES, State, legal_moves, move_problem, play
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    PAPER,
    height_of,
    kind_of,
    side_of,
)

MOVE_LIMIT = 400


def start(flags: str = "1") -> State:
    return RULES.start(["alice", "bob"], options={"flags": flags}, setup=Setup())


def counts(state: State) -> Counter[tuple[int, int]]:
    """(side, kind) -> number of pieces, Papers counted one by one."""
    found: Counter[tuple[int, int]] = Counter()
    for code in state.board:
        if code:
            found[side_of(code), kind_of(code)] += height_of(code)
    return found


def random_game(rng: random.Random, state: State, *, watch: bool = False) -> State:
    """Play random legal moves to the end or the move limit. With ``watch``, check after every
    move that nothing was created: pieces only leave the board (captured, cut, covered)."""
    plies = 0
    while state.ending is None and plies < MOVE_LIMIT:
        before = counts(state) if watch else None
        state = play(state, rng.choice(legal_moves(state)))
        if before is not None:
            after = counts(state)
            assert all(after[key] <= before[key] for key in after)
        plies += 1
    return state


@pytest.mark.slow
def test_thousands_of_random_games_end_with_a_result() -> None:
    """2,000 random games in each option: every game ends by the rules or reaches the move
    limit; the flags lost always match the flags missing from the board."""
    rng = random.Random(20010)
    endings: Counter[str] = Counter()
    for number in range(2000):
        flags = "1" if number % 2 == 0 else "2"
        state = random_game(rng, start(flags), watch=number < 100)
        lost = state.flags_lost
        on_board = counts(state)
        assert [2 - on_board[side, FLAG] for side in (0, 1)] == list(lost)
        if state.ending is not None:
            endings[state.ending.termination] += 1
            if state.ending.termination == "flag-captured":
                loser = state.ending.loser
                assert loser is not None
                assert lost[loser] == int(flags)
        else:
            endings["limit"] += 1
    assert sum(endings.values()) == 2000
    assert endings["flag-captured"] > 1000


def test_random_play_through_the_rules_protocol() -> None:
    """Orders from ``sample_orders`` pass ``check``; ``resolve`` applies them; every state
    survives dump -> JSON -> load unchanged; replaying the same orders gives the same game."""
    rng = random.Random(7)
    for _ in range(20):
        state = start("2")
        played: list[str] = []
        while RULES.outcome(state) is None and len(played) < 150:
            player = RULES.to_move(state)[0]
            lines = RULES.sample_orders(state, player, rng)
            checked = RULES.check(state, player, lines)
            assert checked.ok, (lines, checked.problems)
            state = RULES.resolve(state, {player: checked.orders}).state
            played += lines
            assert RULES.load(json.loads(json.dumps(RULES.dump(state)))) == state
        again = start("2")
        for line in played:
            player = RULES.to_move(again)[0]
            again = RULES.resolve(again, {player: RULES.check(again, player, [line]).orders}).state
        assert again == state


def test_the_generator_and_the_checker_agree_along_random_games() -> None:
    """Every generated move passes the independent checker, in positions that random play
    reaches (locks, stacks and cuts come up)."""
    rng = random.Random(3)
    for _ in range(30):
        state = start()
        while state.ending is None and len(state.history) < 120:
            moves = legal_moves(state)
            assert all(move_problem(state, m) is None for m in moves)
            state = play(state, rng.choice(moves))


def test_public_state_has_the_record_format_shape() -> None:
    """docs/record-format.md: `board` {cell: piece} for occupied cells only, upper-case cells,
    `<w|b><F|R|S|P>[height]` (height only above 1); `flags_lost` for both players; `to_move`."""
    rng = random.Random(5)
    state = start()
    for _ in range(60):
        if state.ending is not None:
            break
        state = play(state, rng.choice(legal_moves(state)))
        public = RULES.public_state(state)
        assert list(public) == ["board", "flags_lost", "to_move"]
        assert set(public["flags_lost"]) == {"alice", "bob"}
        assert public["to_move"] in ("white", "black")
        for cell, piece in public["board"].items():
            assert cell == cell.upper()
            assert piece[0] in "wb"
            assert piece[1] in "FRSP"
            assert piece[2:] == "" or (piece[1] == "P" and int(piece[2:]) >= 2)
        papers = sum(height_of(c) for c in state.board if c and kind_of(c) == PAPER)
        assert papers <= 10


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=80))
def test_determinism_and_round_trip(seed: int, length: int) -> None:
    """Same state plus same move gives the same result; dump/load round-trips exactly."""
    state = start()
    rng = random.Random(seed)
    for _ in range(length):
        if state.ending is not None:
            break
        move = rng.choice(legal_moves(state))
        first, second = play(state, move), play(state, move)
        assert first == second
        state = first
    assert RULES.load(RULES.dump(state)) == state
