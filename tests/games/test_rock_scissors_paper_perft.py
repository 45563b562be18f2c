"""Counting legal moves two independent ways (perft style).

The fast generator (``legal_moves``) is compared with a brute force that asks the checker
(``RULES.check`` or ``move_problem``, written separately from the rule text) about every
from/to pair and every spread of every stack. The counts for the set positions below were
worked out by hand from docs/rules/rock-scissors-paper.md; the working is in each docstring.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.core import hexes
from adjudicator.core.game import PieceSpec, Setup
from adjudicator.games.rock_scissors_paper import (
    RULES,
    Move,
    State,
    legal_moves,
    move_problem,
    play,
)
from adjudicator.games.rock_scissors_paper.board import board_from_json, position_key

KINDS = {"F": "flag", "R": "rock", "S": "scissors", "P": "paper"}


def position(spec: str, *, to_move: str = "white") -> State:
    pieces = []
    for item in spec.split():
        cell, piece = item.split("=")
        owner = "white" if piece[0] == "w" else "black"
        pieces.append(PieceSpec(owner, KINDS[piece[1]], cell, int(piece[2:] or 1)))
    return RULES.start(["alice", "bob"], options={}, setup=Setup(pieces=pieces, to_move=to_move))


def compositions(total: int) -> list[tuple[int, ...]]:
    """Every way to drop ``total`` Papers on 2..total cells, at least one on each."""
    found = []
    for parts in range(2, total + 1):
        for cuts in combinations(range(1, total), parts - 1):
            bounds = [0, *cuts, total]
            found.append(tuple(bounds[i + 1] - bounds[i] for i in range(parts)))
    return found


def candidates(state: State) -> list[Move]:
    """Every from/to pair of the mover's pieces, and every spread of every stack to every
    cell; the checker sorts out which are legal."""
    found = []
    mine = "wb"[state.turn]
    for name, piece in RULES.public_state(state)["board"].items():
        if not piece.startswith(mine):
            continue
        origin = hexes.parse_cell(name)
        height = int(piece[2:] or 1) if piece[1] == "P" else 0
        for target in range(hexes.SIZE):
            found.append(Move(origin, target))
            found += [Move(origin, target, None, drops) for drops in compositions(height)]
    return found


def brute_force(state: State) -> set[str]:
    return {str(m) for m in candidates(state) if move_problem(state, m) is None}


def brute_force_through_check(state: State) -> set[str]:
    player = RULES.to_move(state)[0]
    return {str(m) for m in candidates(state) if RULES.check(state, player, [str(m)]).ok}


def generated(state: State) -> list[str]:
    return [str(m) for m in legal_moves(state)]


START = RULES.start(["alice", "bob"], options={}, setup=Setup())
LOCKED = position("A1=wF I9=bF E5=wS E6=bS")
STACK = position("A1=wF I9=bF E5=wP3")
MIXED = position("A1=wF C3=wP4 D3=bR C5=wR I9=bF I5=bS")
MIXED_BLACK = position("A1=wF C3=wP4 D3=bR C5=wR I9=bF I5=bS", to_move="black")
LOCKS_AHEAD = position("A1=wF I9=bF E5=wS G6=bS C3=bS")


@pytest.mark.parametrize(
    ("state", "count"),
    [
        (START, 34),
        (RULES.start(["alice", "bob"], options={}, setup=Setup(to_move="black")), 34),
        (LOCKED, 4),
        (STACK, 36),
        (MIXED, 56),
        (MIXED_BLACK, 28),
        (LOCKS_AHEAD, 17),
    ],
    ids=["start", "start-black", "locked", "stack", "mixed", "mixed-black", "locks-ahead"],
)
def test_counts_worked_by_hand_match_both_methods(state: State, count: int) -> None:
    """Hand counts:

    * start (either side, by symmetry): Rocks 0 (A3) + 3 (B1) + 3 (B6); Scissors 0 (A1, A5) +
      4 (B2: C3, D4, E5 straight, D3 turning) + 4 (B5: C5, D5, E5, D6); Papers 3 (B3) + 3 (B4)
      + 4 (C2) + 6 (C4) + 4 (C6): 34.
    * locked: White's Scissors on E5 is locked with E6 and may only enter cells next to it:
      F6, D5, then F7 (by F6) and D6 (by D5): 4.
    * stack: a stack of 3 on E5 floats 1-3 cells in 6 directions (18) and spreads over 2 cells
      (1,2 or 2,1) or 3 cells (1,1,1) in each (18): 36.
    * mixed, White: the stack of 4 on C3 floats 3 (east: C4, C6, C7 - not its own Rock C5)
      + 2 (west) + 4 (up-right) + 4 (up-left, D3 a Black Rock) + 2 (down-right) + 1 (down-left:
      B2, not its own flag A1) = 16; spreads 0 (east, own Rock next but one) + 3 (west, k=2)
      + 7 + 7 (k=2,3,4: 3+3+1) + 3 (k=2) + 3 (down-left: B2 then its own flag A1, allowed) =
      23; the Rock on C5: 2 + 1 + 4 + 6 (up-left to I5, capturing the Scissors) + 2 + 2 = 17.
      56 in all.
    * mixed, Black: the Rock on D3: 5 (east) + 2 (west) + 5 + 3 + 0 (C3 is a Paper) + 2 = 17;
      the Scissors on I5: straight I6-I8, H5-F5, H4-F2 (9), turning H6 and G4: 11. 28 in all.
    * locks ahead: White's Scissors on E5 with Black Scissors on G6 and C3: straight E6-E8
      and E4-E2 (6), D5, C5, B5 (3), F6, F5, D4 (lock cells: they end the move, 3); turning
      by E6: F7, D6; by E4: F4, D3; by D5: C4 (5): 17.
    """
    moves = generated(state)
    assert len(moves) == len(set(moves)) == count
    assert set(moves) == brute_force_through_check(state)


def test_the_start_position_moves_by_name() -> None:
    """The 34 start moves, listed by hand."""
    assert set(generated(START)) == {
        "B1-C1", "B1-D1", "B1-E1", "B6-C7", "B6-D8", "B6-E9",
        "B2-C3", "B2-D4", "B2-E5", "B2-D3", "B5-C5", "B5-D5", "B5-E5", "B5-D6",
        "B3-B4", "B3-C3", "B3-C4", "B4-B3", "B4-C4", "B4-C5",
        "C2-C3", "C2-C1", "C2-D2", "C2-D3",
        "C4-C5", "C4-C3", "C4-D4", "C4-D5", "C4-B4", "C4-B3",
        "C6-C7", "C6-C5", "C6-D6", "C6-D7",
    }  # fmt: skip


def test_a_scissors_reachable_by_a_middle_cell_agrees_with_the_plain_move() -> None:
    """A turning Scissors may name its middle cell: ``B2-C3-D3`` is legal exactly when some
    middle cell makes it legal, and then ``B2-D3`` is legal too."""
    for state in (START, LOCKED, LOCKS_AHEAD, MIXED_BLACK):
        plain = set(generated(state))
        for move in candidates(state):
            for via in hexes.NEIGHBOURS[move.origin]:
                routed = Move(move.origin, move.target, via)
                if move.drops or move_problem(state, routed) is not None:
                    continue
                assert str(Move(move.origin, move.target)) in plain


def test_perft_depth_two_from_the_start() -> None:
    """Leaf counts two moves deep, generator against brute force."""
    fast = slow = 0
    for move in legal_moves(START):
        child = play(START, move)
        fast += len(legal_moves(child))
        slow += len(brute_force(child))
    assert fast == slow
    assert fast > 34 * 30


TOKENS = ["wF", "bF", "wR", "bR", "wS", "bS", "wS", "bS", "wP", "bP", "wP2", "bP3", "wP4", "bP5"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.integers(min_value=0, max_value=hexes.SIZE - 1),
        st.sampled_from(TOKENS),
        min_size=2,
        max_size=26,
    ),
    st.integers(min_value=0, max_value=1),
)
def test_random_positions_generator_matches_brute_force(pieces: dict[int, str], turn: int) -> None:
    """Crowded random positions (many Scissors: locks everywhere; stacks up to 5)."""
    board = board_from_json({hexes.CELL_NAMES[c]: p for c, p in pieces.items()})
    state = State(("alice", "bob"), board, turn, history=(position_key(board, turn),))
    assert sorted(generated(state)) == sorted(brute_force(state))
