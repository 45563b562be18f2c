"""Three Musketeers move counts ("perft"), by two independent methods.

``perft`` walks the fast generator (``legal_moves`` + ``play``); ``brute_perft`` tries every
one of the 625 (from, to) square pairs as an order line through the public protocol (``check``
then ``resolve``). A finished position has no moves: the count of its subtree is 0.

The small counts were worked out by hand (see each test's docstring); deeper counts must agree
between the two methods.
"""

from __future__ import annotations

import random

import pytest

from adjudicator.games.three_musketeers import (
    GRID,
    RULES,
    State,
    legal_moves,
    outcome,
    play,
)

NAMES = [f"{f}{r}" for r in "12345" for f in "abcde"]


def position(*rows: str, turn: str = "musketeers") -> State:
    return State(("alice", "bob"), "".join(reversed(rows)), turn)


def perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    if outcome(state) is not None:
        return 0
    return sum(perft(play(state, move), depth - 1) for move in legal_moves(state))


def brute_moves(state: State) -> list[str]:
    """Every (from, to) pair that ``check`` accepts for the side to move."""
    player = RULES.to_move(state)[0]
    return [f"{a}-{b}" for a in NAMES for b in NAMES if RULES.check(state, player, [f"{a}-{b}"]).ok]


def brute_perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    if RULES.outcome(state) is not None:
        return 0
    player = RULES.to_move(state)[0]
    total = 0
    for line in brute_moves(state):
        checked = RULES.check(state, player, [line])
        total += brute_perft(RULES.resolve(state, {player: checked.orders}).state, depth - 1)
    return total


START = State(("alice", "bob"))
# Musketeers b2, d4, e1; men b3, c4, e2, a5.
SCATTERED = ("C....", "..CM.", ".C...", ".M..C", "....M")
# Musketeers b3, a2, a1; men a5, a4, a3, c2, c1.
NEAR_A_LINE = ("C....", "C....", "CM...", "M.C..", "M.C..")


def test_start_position_counts_by_hand() -> None:
    """Depth 1: a1 takes a2 or b1, c3 takes any of its 4 neighbours, e5 takes e4 or d5: 8.
    Depth 2: after a corner Musketeer moves, only the one man next to the emptied corner can
    move (4 x 1); after the c3 Musketeer moves, the three men around c3 can (4 x 3): 16.
    Depth 3: after a corner move and the reply, the moved Musketeer has 3 men around it, c3
    has 4 and the other corner 2: 9 each (4 x 9); after a c3 move and any of its 3 replies,
    the moved Musketeer has 4 men around it and each corner 2: 8 each (4 x 3 x 8): 132."""
    assert [perft(START, depth) for depth in (1, 2, 3)] == [8, 16, 132]


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_start_position_both_methods_agree(depth: int) -> None:
    assert brute_perft(START, depth) == perft(START, depth)


def test_scattered_position_counts_by_hand() -> None:
    """Musketeers b2, d4, e1; men b3, c4, e2, a5. Musketeers to move: b2-b3, d4-c4, e1-e2: 3.
    Depth 2: after b2-b3, c4 has 3 steps, e2 2, a5 2 (7); after d4-c4, b3 has 3, e2 2, a5 2
    (7); after e1-e2, b3 has 3, c4 3, a5 2 (8): 22. Cardinal to move instead: b3 to b4, a3,
    c3; c4 to c5, c3, b4; e2 to e3, d2; a5 to a4, b5: 10."""
    state = position(*SCATTERED)
    assert [perft(state, 1), perft(state, 2)] == [3, 22]
    assert perft(position(*SCATTERED, turn="cardinal"), 1) == 10
    assert [str(m) for m in legal_moves(state)] == ["e1-e2", "b2-b3", "d4-c4"]


def test_finished_positions_have_no_moves_by_hand() -> None:
    """Musketeers b3, a2, a1; men a5, a4, a3, c2, c1: b3-a3 and a2-a3 (2). After b3-a3 the
    Musketeers stand on the a-file and the game is over (0); after a2-a3 the men can play
    a5-b5, a4-b4, c2-c3, c2-b2, c2-d2, c1-b1, c1-d1 (7). Depth 2: 7."""
    state = position(*NEAR_A_LINE)
    assert [perft(state, 1), perft(state, 2)] == [2, 7]


@pytest.mark.parametrize(
    "rows", [SCATTERED, NEAR_A_LINE, ("..C.M", "CC.C.", "..MC.", ".C.C.", "M.C..")]
)
@pytest.mark.parametrize("turn", ["musketeers", "cardinal"])
def test_set_positions_both_methods_agree(rows: tuple[str, ...], turn: str) -> None:
    state = position(*rows, turn=turn)
    for depth in (1, 2, 3):
        assert brute_perft(state, depth) == perft(state, depth)


def test_generator_matches_brute_force_along_random_games() -> None:
    rng = random.Random(20261121)
    checked_positions = 0
    for _ in range(5):
        state = START
        while outcome(state) is None:
            assert sorted(brute_moves(state)) == sorted(str(m) for m in legal_moves(state))
            checked_positions += 1
            state = play(state, rng.choice(legal_moves(state)))
    assert checked_positions > 50


def test_square_numbering_used_by_the_generator() -> None:
    assert [GRID.square_name(sq) for sq in (0, 4, 5, 24)] == ["a1", "e1", "a2", "e5"]
