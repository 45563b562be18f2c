"""Rock, Scissors, Paper: one named case (or more) per ruling of docs/rules/rock-scissors-paper.md.

Every docstring quotes the ruling it checks. Positions are set up with ``piece:`` lines
(Setup.pieces), as a game master would; expected boards are worked out by hand from the rules.
Directions, for reading the cases: from D4 the neighbours are D5 (east), D3 (west), E4 (up-left),
E5 (up-right), C4 (down-right) and C3 (down-left).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from adjudicator.core.errors import SetupError
from adjudicator.core.game import Outcome, PieceSpec, Report, Setup
from adjudicator.games.rock_scissors_paper import RULES, State

KINDS = {"F": "flag", "R": "rock", "S": "scissors", "P": "paper"}


def position(spec: str, *, to_move: str = "white", flags: str = "1") -> State:
    """``“D4=wR E5=bS C4=wP3”``; a White Flag on A1 and a Black Flag on I9 are added unless
    the spec places a flag of that side itself."""
    pieces = []
    for item in spec.split():
        cell, piece = item.split("=")
        owner = "white" if piece[0] == "w" else "black"
        pieces.append(PieceSpec(owner, KINDS[piece[1]], cell, int(piece[2:] or 1)))
    if "wF" not in spec:
        pieces.append(PieceSpec("white", "flag", "A1"))
    if "bF" not in spec:
        pieces.append(PieceSpec("black", "flag", "I9"))
    setup = Setup(pieces=pieces, to_move=to_move)
    return RULES.start(["alice", "bob"], options={"flags": flags}, setup=setup)


def board(state: State) -> dict[str, str]:
    return dict(RULES.public_state(state)["board"])


def mover(state: State) -> str:
    return RULES.to_move(state)[0]


def move(state: State, *lines: str) -> tuple[State, Report]:
    """Check ``lines`` for the side to move (they must be accepted) and resolve them."""
    player = mover(state)
    checked = RULES.check(state, player, lines)
    assert checked.ok, checked.problems
    resolution = RULES.resolve(state, {player: checked.orders})
    return resolution.state, resolution.report


def problems(state: State, *lines: str) -> list[str]:
    checked = RULES.check(state, mover(state), lines)
    return [p.message for p in checked.problems]


def events(report: Report) -> list[dict[str, object]]:
    found: Sequence[dict[str, object]] = report.public["events"]
    return list(found)


def start() -> State:
    return RULES.start(["alice", "bob"], options={}, setup=Setup())


# --- board and setup ----------------------------------------------------------------------


def test_setup_white_and_its_point_reflection() -> None:
    """“White: Flags A2, A4; Rocks A3, B1, B6; Scissors A1, A5, B2, B5; Papers B3, B4, C2, C4,
    C6. Black is the point reflection ...: Flags I8, I6; Rocks I7, H9, H4; Scissors I9, I5, H8,
    H5; Papers H7, H6, G8, G6, G4.”"""
    assert board(start()) == {
        "A1": "wS", "A2": "wF", "A3": "wR", "A4": "wF", "A5": "wS",
        "B1": "wR", "B2": "wS", "B3": "wP", "B4": "wP", "B5": "wS", "B6": "wR",
        "C2": "wP", "C4": "wP", "C6": "wP",
        "G4": "bP", "G6": "bP", "G8": "bP",
        "H4": "bR", "H5": "bS", "H6": "bP", "H7": "bP", "H8": "bS", "H9": "bR",
        "I5": "bS", "I6": "bF", "I7": "bR", "I8": "bF", "I9": "bS",
    }  # fmt: skip


def test_first_seat_is_white_and_moves_first() -> None:
    """“Sequential, 2 players: first seat White (moves first), second seat Black.”"""
    state = start()
    assert RULES.to_move(state) == ("alice",)
    assert RULES.public_state(state)["to_move"] == "white"
    after, _ = move(state, "B1-C1")
    assert RULES.to_move(after) == ("bob",)
    assert RULES.public_state(after) == {
        "board": {**{k: v for k, v in board(state).items() if k != "B1"}, "C1": "wR"},
        "flags_lost": {"alice": 0, "bob": 0},
        "to_move": "black",
    }


def test_one_move_per_turn() -> None:
    """“One move per turn: one piece, or one stack of Papers.”"""
    assert problems(start(), "B1-C1", "B6-C7") == ["one move per turn; you sent B1-C1, B6-C7"]


# --- who beats whom -------------------------------------------------------------------------


def test_rock_crushes_scissors() -> None:
    """“Rock crushes Scissors” / a Rock “may end on an enemy Scissors (captured)”."""
    after, report = move(position("E1=wR E5=bS"), "E1-E5")
    assert board(after) == {"A1": "wF", "E5": "wR", "I9": "bF"}
    assert {"event": "captured", "piece": "bS", "cell": "E5"} in events(report)


def test_scissors_cut_a_whole_paper_stack() -> None:
    """“The last cell may be ... an enemy Paper stack (the whole stack is cut and removed)”."""
    after, report = move(position("E5=wS E7=bP3"), "E5-E7")
    assert board(after) == {"A1": "wF", "E7": "wS", "I9": "bF"}
    assert {"event": "captured", "piece": "bP3", "cell": "E7"} in events(report)


@pytest.mark.parametrize(
    ("spec", "order", "lands"),
    [
        ("E1=wR", "E1-E5", "wR"),
        ("E3=wS", "E3-E5", "wS"),
        ("E4=wP", "E4-E5", "wP"),
        ("E2=wP3", "E2-E5", "wP3"),
    ],
)
def test_any_piece_captures_an_enemy_flag_by_ending_on_it(
    spec: str, order: str, lands: str
) -> None:
    """“Any piece captures an enemy Flag by ending on it.” (Two-flag game, so play goes on.)"""
    state = position(f"{spec} E5=bF I9=bF H9=bR", flags="2")
    after, report = move(state, order)
    assert board(after)["E5"] == lands
    assert RULES.public_state(after)["flags_lost"] == {"alice": 0, "bob": 1}
    assert {"event": "flag-captured", "cell": "E5", "owner": "black", "by": lands} in events(report)
    assert RULES.outcome(after) is None


# --- flags ----------------------------------------------------------------------------------


def test_flags_never_move() -> None:
    """“Flags never move.”"""
    assert problems(start(), "A2-C3") == ["Flags never move"]


def test_a_rock_knocked_onto_its_own_flag_captures_it() -> None:
    """“A flag is captured ... also when a friendly piece is forced onto it (a Rock knocked
    back ...): the flag's owner loses it all the same.”"""
    # White Paper D4 lands on the Black Rock E4 (up-left); the Rock is pushed on to F4, where
    # Black's own Flag stands.
    after, report = move(position("D4=wP E4=bR F4=bF"), "D4-E4")
    assert board(after) == {"A1": "wF", "E4": "wP", "F4": "bR"}
    assert RULES.outcome(after) == Outcome("flag-captured", ("alice",))
    assert {"event": "flag-captured", "cell": "F4", "owner": "black", "by": "bR"} in events(report)


def test_a_spread_onto_a_friendly_flag_captures_it() -> None:
    """“... also when a friendly piece is forced onto it (... a stack spread out)” and a spread
    cell may be “a Flag of either side (a drop on a friendly flag captures it)”."""
    state = position("C4=wP2 E4=wF A1=wF H9=bR", flags="2")
    after, _ = move(state, "C4-E4 1,1")
    assert board(after) == {"A1": "wF", "D4": "wP", "E4": "wP", "H9": "bR", "I9": "bF"}
    assert RULES.public_state(after)["flags_lost"] == {"alice": 1, "bob": 0}


# --- Rock -------------------------------------------------------------------------------------


def test_rock_slides_any_distance_along_a_line() -> None:
    """“Rock (reconstruction). Slides any distance along a straight line through empty cells.”"""
    after, _ = move(position("E1=wR"), "E1-E9")
    assert board(after) == {"A1": "wF", "E9": "wR", "I9": "bF"}
    assert problems(position("E1=wR"), "E1-F3") == [
        "a Rock slides along a straight line, and F3 is not in line with E1"
    ]


def test_rock_cannot_pass_through_an_occupied_cell() -> None:
    """“through empty cells ... It may not enter any other occupied cell.”"""
    state = position("E1=wR E4=bP")
    assert problems(state, "E1-E6") == ["a Rock cannot pass through E4: it is occupied"]
    checked = RULES.check(state, "alice", ["E1-E6"])
    assert checked.problems[0].suggestion is not None
    assert "E1-E3" in checked.problems[0].suggestion


@pytest.mark.parametrize(
    ("piece", "what"),
    [
        ("bP", "an enemy Paper"),
        ("bR", "an enemy Rock"),
        ("wP", "your Paper"),
        ("wS", "your Scissors"),
    ],
)
def test_rock_may_end_only_on_empty_enemy_scissors_or_enemy_flag(piece: str, what: str) -> None:
    """“It may end on an enemy Scissors (captured) or an enemy Flag (captured). It may not enter
    any other occupied cell.”"""
    assert problems(position(f"E1=wR E4={piece}"), "E1-E4") == [
        f"a Rock may end only on an empty cell, an enemy Scissors or an enemy Flag; E4 holds {what}"
    ]


# --- Scissors ---------------------------------------------------------------------------------


def test_scissors_move_up_to_three_cells_straight() -> None:
    """“Scissors (publisher). Moves up to 3 cells in a straight line”"""
    state = position("E5=wS")
    after, _ = move(state, "E5-E8")
    assert board(after)["E8"] == "wS"
    assert problems(state, "E5-E9") == ["Scissors move at most 3 cells in a straight line"]


def test_scissors_move_up_to_two_cells_when_they_turn() -> None:
    """“... or up to 2 cells if it changes direction once (the second step in another
    direction, not back to the start).”"""
    state = position("E5=wS")
    after, _ = move(state, "E5-F7")  # E6 (east) then F7 (up-right)
    assert board(after)["F7"] == "wS"
    after, _ = move(state, "E5-E6-F7")
    assert board(after)["F7"] == "wS"
    assert problems(state, "E5-F8") == ["Scissors move at most 2 cells when they turn"]
    assert problems(state, "E5-E6-E5") == ["a move must leave E5"]


def test_scissors_cannot_jump() -> None:
    """“It cannot jump: every cell before the last must be empty.”"""
    for blocker in ("wP", "bR"):
        state = position(f"E5=wS E6={blocker}")
        assert problems(state, "E5-E8") == ["a Scissors cannot jump: E6 is occupied"]
        assert problems(state, "E5-E6-F7") == ["a Scissors cannot jump: E6 is occupied"]
        after, _ = move(state, "E5-F7")  # the other way round, by F6
        assert board(after)["F7"] == "wS"
    blocked = position("E5=wS E6=wP F6=wP")
    assert problems(blocked, "E5-F7") == [
        "by E6: a Scissors cannot jump: E6 is occupied; "
        "by F6: a Scissors cannot jump: F6 is occupied"
    ]


@pytest.mark.parametrize(("piece", "what"), [("bR", "an enemy Rock"), ("wP", "your Paper")])
def test_scissors_end_only_on_empty_enemy_paper_or_enemy_flag(piece: str, what: str) -> None:
    """“The last cell may be empty, an enemy Paper stack ... or an enemy Flag.”"""
    assert problems(position(f"E5=wS E7={piece}"), "E5-E7") == [
        "a Scissors may end only on an empty cell, an enemy Paper or an enemy Flag; "
        f"E7 holds {what}"
    ]


def test_entering_a_cell_next_to_an_enemy_scissors_locks_and_ends_the_move() -> None:
    """“When a Scissors enters a cell adjacent to an enemy Scissors that it was not locked with
    at the start of its move, the two become locked and its move ends there.”"""
    state = position("E4=wS F7=bS")
    # E6 is next to F7: the move E4-E7 would stop on E6.
    assert problems(state, "E4-E7") == [
        "entering E6 would lock the Scissors with the enemy Scissors on F7, and its move "
        "would end there"
    ]
    after, report = move(state, "E4-E6")
    assert {"event": "locked", "cells": ["E6", "F7"]} in events(report)
    assert board(after)["E6"] == "wS"


def test_a_locked_scissors_must_stay_next_to_its_enemy() -> None:
    """“A locked Scissors may still move, but every cell it enters must stay adjacent to an
    enemy Scissors it was locked with.”"""
    state = position("E5=wS E6=bS")
    assert problems(state, "E5-E4") == [
        "the Scissors on E5 is locked with the enemy Scissors on E6: every cell it enters must "
        "stay next to it, and E4 does not"
    ]
    assert problems(state, "E5-F6-G6") == [
        "the Scissors on E5 is locked with the enemy Scissors on E6: every cell it enters must "
        "stay next to it, and G6 does not"
    ]
    # Around its enemy: by F6 to F7, every cell next to E6.
    after, _ = move(state, "E5-F7")
    assert board(after)["F7"] == "wS"


def test_a_scissors_may_be_locked_with_several_enemy_scissors() -> None:
    """“A Scissors may be locked with several enemy Scissors” -- each cell entered stays next
    to one of them. E4 is next to D4 though not to E6."""
    state = position("E5=wS E6=bS D4=bS")
    after, _ = move(state, "E5-E4")
    assert board(after)["E4"] == "wS"


def test_a_locked_scissors_that_meets_a_new_enemy_locks_again_and_stops() -> None:
    """A locked Scissors entering a cell next to an enemy Scissors “that it was not locked with
    at the start of its move” locks with it too, “and its move ends there”."""
    state = position("E5=wS E6=bS G7=bS")
    assert problems(state, "E5-F6-F7") == [
        "entering F6 would lock the Scissors with the enemy Scissors on G7, and its move "
        "would end there"
    ]
    _, report = move(state, "E5-F6")
    assert {"event": "locked", "cells": ["F6", "G7"]} in events(report)


def test_friendly_scissors_never_lock() -> None:
    """“friendly Scissors never lock.”"""
    after, report = move(position("E3=wS D4=wS"), "E3-E6")  # E4 and E5 are next to D4
    assert board(after)["E6"] == "wS"
    assert not [e for e in events(report) if e["event"] == "locked"]


def test_a_lock_ends_when_the_two_are_no_longer_adjacent() -> None:
    """“A lock ends when the two are no longer adjacent.” White on E5 is locked with E6 and D4;
    it steps to E4 (still next to D4), which frees the Black Scissors on E6."""
    state = position("E5=wS E6=bS D4=bS")
    assert problems(position("E5=wS E6=bS D4=bS", to_move="black"), "E6-E8") != []
    after, _ = move(state, "E5-E4")
    after, _ = move(after, "E6-E8")
    assert board(after)["E8"] == "bS"


# --- Paper ------------------------------------------------------------------------------------


def test_a_paper_joins_a_friendly_paper() -> None:
    """“Papers stack: a stack of height h is one piece in one cell. A Paper or stack may move
    onto a friendly Paper to join it.”"""
    after, report = move(position("E5=wP E6=wP2"), "E5-E6")
    assert board(after) == {"A1": "wF", "E6": "wP3", "I9": "bF"}
    assert {"event": "joined", "cell": "E6", "height": 3} in events(report)


def test_a_single_paper_moves_exactly_one_cell() -> None:
    """“A single Paper moves exactly one cell.”"""
    assert problems(position("E5=wP"), "E5-E7") == ["a single Paper moves exactly one cell"]


def test_a_stack_floats_up_to_its_height_over_any_pieces() -> None:
    """“Float: the whole stack moves 1..h cells along a straight line, floating over any pieces
    in between”"""
    state = position("E2=wP3 E3=bR E4=wS")
    after, _ = move(state, "E2-E5")
    assert board(after) == {"A1": "wF", "E3": "bR", "E4": "wS", "E5": "wP3", "I9": "bF"}
    assert problems(state, "E2-E6") == ["a stack of 3 Papers floats at most 3 cells"]


def test_a_float_ends_only_on_empty_own_paper_enemy_rock_or_enemy_flag() -> None:
    """“... and ends on an empty cell, a friendly Paper (joins it), an enemy Rock (see
    knock-back) or an enemy Flag.”"""
    assert problems(position("E5=wP2 E7=bS"), "E5-E7") == [
        "Papers may end only on an empty cell, your own Paper, an enemy Rock or an enemy Flag; "
        "E7 holds an enemy Scissors"
    ]
    assert problems(position("E5=wP2 E7=wF"), "E5-E7") == [
        "a floating stack cannot end on your own Flag (only a spread forces Papers onto it)"
    ]


def test_spread_drops_the_counts_on_each_cell_in_turn() -> None:
    """“Spread (h >= 2): the stack leaves its cell and moves k cells along a straight line
    (2 <= k <= h), dropping at least one Paper on each of the k cells in turn and all h in
    total.” `C4-E4 1,2`: “the counts dropped on each cell in turn, starting with the cell next
    to C4.”"""
    after, _ = move(position("C4=wP3 E4=wP"), "C4-E4 1,2")
    assert board(after) == {"A1": "wF", "D4": "wP", "E4": "wP3", "I9": "bF"}


@pytest.mark.parametrize(
    ("order", "message"),
    [
        ("C4-E4 1,1", "the counts add up to 2 but the stack on C4 holds 3 Papers: a spread "
                      "drops them all"),
        ("C4-E4 0,3", "a spread drops at least one Paper on each cell"),
        ("C4-E4 1,1,1", "C4-E4 spreads over 2 cells (D4, E4), so give 2 counts, not 3"),
        ("C4-D4 3", "a spread covers at least 2 cells; to move the whole stack one cell write "
                    "C4-D4"),
        ("C4-G4 1,1,1", "C4-G4 spreads over 4 cells (D4, E4, F4, G4), so give 4 counts, not 3"),
        ("C4-E5 1,2", "a stack spreads along a straight line, and E5 is not in line with C4"),
        ("C4-F4 1,1,1", "a spread cannot drop Papers on F4: it holds your Rock (each cell must "
                        "be empty, your own Paper, an enemy Rock or a Flag)"),
    ],
)  # fmt: skip
def test_spread_validity(order: str, message: str) -> None:
    """“2 <= k <= h ... at least one Paper on each of the k cells ... and all h in total. Each
    of those cells must be empty, a friendly Paper, an enemy Rock or a Flag of either side.”"""
    assert problems(position("C4=wP3 F4=wR"), order) == [message]


def test_a_single_paper_cannot_spread() -> None:
    """“Spread (h >= 2)”"""
    assert problems(position("C4=wP"), "C4-E4 1,1") == [
        "a single Paper cannot spread; only stacks spread"
    ]


def test_papers_entering_a_cell_next_to_an_enemy_scissors_are_cut() -> None:
    """“Scissors cut Papers: a Paper that enters a cell holding or adjacent to an enemy
    Scissors, locked or not, is destroyed at once together with every Paper still carried,
    and the move ends there.”"""
    after, report = move(position("E4=wP E6=bS"), "E4-E5")
    assert board(after) == {"A1": "wF", "E6": "bS", "I9": "bF"}
    assert events(report) == [{"event": "cut", "cell": "E5", "papers": 1}]


def test_papers_are_cut_by_a_locked_scissors_too() -> None:
    """“... adjacent to an enemy Scissors, locked or not” (the publisher: “any Paper that
    encounters any locked Scissors is still destroyed”)."""
    after, _ = move(position("E4=wP E6=bS F7=wS"), "E4-E5")
    assert "E5" not in board(after)


def test_floated_over_cells_count_as_entered() -> None:
    """“Every cell on the path counts as entered, cells floated over included.” The stack on
    E2 floats towards E4 over E3, which is next to the Black Scissors on F4: cut there."""
    after, report = move(position("E2=wP2 F4=bS"), "E2-E4")
    assert board(after) == {"A1": "wF", "F4": "bS", "I9": "bF"}
    assert events(report) == [{"event": "cut", "cell": "E3", "papers": 2}]


def test_floating_over_an_enemy_scissors_is_a_cut() -> None:
    """“a cell holding ... an enemy Scissors” (floated over) destroys the stack."""
    after, report = move(position("E3=wP2 E4=bS"), "E3-E5")
    assert board(after) == {"A1": "wF", "E4": "bS", "I9": "bF"}
    assert events(report) == [{"event": "cut", "cell": "E4", "papers": 2}]


def test_a_cut_ends_the_move_before_a_knock_back() -> None:
    """“... is destroyed at once ... and the move ends there”: a Paper cut on the Rock's cell
    does not knock it back (our reading: the cut comes first, on entering)."""
    after, _ = move(position("D4=wP E4=bR F5=bS"), "D4-E4")
    assert board(after) == {"A1": "wF", "E4": "bR", "F5": "bS", "I9": "bF"}


def test_a_spread_keeps_what_it_dropped_before_the_cut() -> None:
    """“... destroyed at once together with every Paper still carried”: the Paper dropped on E2
    stays, the two still carried into E3 (next to F4) are destroyed."""
    after, report = move(position("E1=wP3 F4=bS"), "E1-E3 1,2")
    assert board(after) == {"A1": "wF", "E2": "wP", "F4": "bS", "I9": "bF"}
    assert events(report) == [{"event": "cut", "cell": "E3", "papers": 2}]


def test_friendly_scissors_do_not_cut() -> None:
    """Only “an enemy Scissors” cuts."""
    after, _ = move(position("E4=wP E6=wS"), "E4-E5")
    assert board(after)["E5"] == "wP"


# --- knock-back -------------------------------------------------------------------------------


def test_knock_back_into_an_empty_cell() -> None:
    """“Papers that land on an enemy Rock push it one cell further along the Papers' direction
    of travel. If that cell is empty, the Rock moves there ... The Papers take the Rock's old
    cell.”"""
    after, report = move(position("D4=wP E4=bR"), "D4-E4")
    assert board(after) == {"A1": "wF", "E4": "wP", "F4": "bR", "I9": "bF"}
    assert {"event": "knocked_back", "piece": "bR", "cell": "E4", "to": "F4"} in events(report)


def test_knock_back_onto_the_papers_own_flag_captures_it() -> None:
    """“if it holds a Flag of either side, the Rock moves there and the flag is captured”: here
    White's own Flag, so White (the mover) loses the one-flag game."""
    after, _ = move(position("D4=wP E4=bR F4=wF"), "D4-E4")
    assert board(after) == {"E4": "wP", "F4": "bR", "I9": "bF"}
    assert RULES.outcome(after) == Outcome("flag-captured", ("bob",))


def test_knock_back_onto_the_rocks_own_flag_captures_it() -> None:
    """“if it holds a Flag of either side, the Rock moves there and the flag is captured”:
    Black's Flag under Black's own Rock (a friendly piece forced onto it)."""
    after, _ = move(position("D4=wP E4=bR F4=bF"), "D4-E4")
    assert RULES.outcome(after) == Outcome("flag-captured", ("alice",))


def test_knock_back_over_the_edge_covers_the_rock() -> None:
    """“otherwise (edge of the board, or any other piece) the Rock is covered and removed.”"""
    after, report = move(position("H5=wP I5=bR"), "H5-I5")
    assert board(after) == {"A1": "wF", "I5": "wP", "I9": "bF"}
    assert {"event": "covered", "piece": "bR", "cell": "I5"} in events(report)


@pytest.mark.parametrize("behind", ["wP", "bP", "wS", "wR"])
def test_knock_back_against_any_other_piece_covers_the_rock(behind: str) -> None:
    """“otherwise (edge of the board, or any other piece) the Rock is covered and removed.”"""
    after, _ = move(position(f"C4=wP2 E4=bR F4={behind}"), "C4-E4")
    assert board(after) == {"A1": "wF", "E4": "wP2", "F4": behind, "I9": "bF"}


def test_a_spread_can_knock_a_rock_back_twice() -> None:
    """Knock-back in a spread: the first drop pushes the Rock from D4 to E4, the next drop
    lands on it there and pushes it on to F4 (“dropping ... on each of the k cells in turn”)."""
    after, _ = move(position("C4=wP2 D4=bR"), "C4-E4 1,1")
    assert board(after) == {"A1": "wF", "D4": "wP", "E4": "wP", "F4": "bR", "I9": "bF"}


# --- end of the game --------------------------------------------------------------------------


def test_one_flag_game_first_flag_in_step_order_decides() -> None:
    """“One-flag game (option flags=1): the first flag captured, in the order in which the move
    performs its steps, ends the game, and its owner loses.” The spread drops on White's own
    flag (D4) before Black's (E4): White loses and the rest of the move is not played."""
    after, _ = move(position("C4=wP2 D4=wF E4=bF"), "C4-E4 1,1")
    assert RULES.outcome(after) == Outcome("flag-captured", ("bob",))
    assert board(after) == {"D4": "wP", "E4": "bF"}
    assert RULES.public_state(after)["flags_lost"] == {"alice": 1, "bob": 0}
    assert RULES.to_move(after) == ()
    reversed_order, _ = move(position("C4=wP2 D4=bF E4=wF"), "C4-E4 1,1")
    assert RULES.outcome(reversed_order) == Outcome("flag-captured", ("alice",))


def test_two_flag_game_a_player_loses_with_both_flags() -> None:
    """“Two-flag game (flags=2): a player who has lost both flags loses.”"""
    state = position("E1=wR E5=bF I5=bF C3=bR", flags="2")
    state, _ = move(state, "E1-E5")
    assert RULES.outcome(state) is None
    assert RULES.public_state(state)["flags_lost"] == {"alice": 0, "bob": 1}
    state, _ = move(state, "C3-C2")
    state, _ = move(state, "E5-I5")
    assert RULES.outcome(state) == Outcome("flag-captured", ("alice",))
    assert RULES.public_state(state)["flags_lost"] == {"alice": 0, "bob": 2}


def test_two_flag_game_both_flags_in_one_spread() -> None:
    """flags=2: a spread over both enemy Flags takes them one after the other; the owner has
    then lost both flags and loses."""
    after, _ = move(position("C4=wP2 D4=bF E4=bF", flags="2"), "C4-E4 1,1")
    assert RULES.outcome(after) == Outcome("flag-captured", ("alice",))
    assert board(after) == {"A1": "wF", "D4": "wP", "E4": "wP"}


def test_no_legal_move_loses() -> None:
    """“A player with no legal move on their turn loses.” The Black Rock on I8 is hemmed in by
    its own Flag (I9) and White Papers (I7, H7); White closes the last gap, H8."""
    state = position("I7=wP H7=wP G8=wP I8=bR I9=bF")
    after, _ = move(state, "G8-H8")
    assert RULES.outcome(after) == Outcome("no-legal-move", ("alice",))


def test_threefold_repetition_is_a_draw() -> None:
    """“The same position with the same side to move for the third time is a draw.”"""
    state = position("E1=wR I5=bR")
    shuttle = ["E1-E2", "I5-I6", "E2-E1", "I6-I5"]
    for number, order in enumerate(shuttle * 2, start=1):
        assert RULES.outcome(state) is None, number
        state, _ = move(state, order)
    # The start position (White to move) has now occurred for the third time.
    assert RULES.outcome(state) == Outcome("repetition", (), draw=True)


def test_repetition_counts_only_the_same_side_to_move() -> None:
    """“The same position with the same side to move”: White's Rock goes round a triangle
    (E1-E2-E3-E1) while Black's shuttles (I5-I6), so the board with the Rocks on E1 and I5
    comes back after move 5 with Black to move and after move 12 with White to move: three
    times the same board, but only twice with White to move -- no draw."""
    state = position("E1=wR I5=bR")
    white = ["E1-E2", "E2-E3", "E3-E1"] * 2
    black = ["I5-I6", "I6-I5"] * 3
    seen = 1
    for white_order, black_order in zip(white, black, strict=True):
        for order in (white_order, black_order):
            state, _ = move(state, order)
            seen += board(state) == board(position("E1=wR I5=bR"))
    assert seen == 3
    assert RULES.outcome(state) is None


def test_timeout_forfeit() -> None:
    """“GameSettings and NMR as for Three Musketeers” (option timeout=forfeit): “a player still silent
    at the end of grace forfeits the game.”"""
    resolution = RULES.resolve(start(), {})
    assert RULES.outcome(resolution.state) == Outcome("forfeit", ("bob",))
    assert resolution.report.codes == {"alice": ["forfeit"]}
    assert RULES.to_move(resolution.state) == ()


@pytest.mark.parametrize(
    ("options", "message"),
    [({"flags": "3"}, "flags"), ({"timeout": "pass"}, "timeout"), ({"flag": "2"}, "flags")],
)
def test_options_are_checked(options: dict[str, str], message: str) -> None:
    """Options: flags=1 (default) or flags=2; timeout=forfeit."""
    with pytest.raises(SetupError, match=message):
        RULES.start(["alice", "bob"], options=options, setup=Setup())
