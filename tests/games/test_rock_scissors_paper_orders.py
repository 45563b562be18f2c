"""Rock, Scissors, Paper orders: reading, writing, checking, and custom positions.

docs/rules/rock-scissors-paper.md, Orders: “Canonical `B2-D2` (piece or whole stack from B2 to D2; for a Scissors
that turns, the middle cell may be given: `B2-C3-D3`). A spread is `C4-E4 1,2`”; the preamble:
“the parser accepts the canonical form plus reasonable variants (extra spaces, commas, lower
case, `to`/`→`, etc.)”.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.core import hexes
from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, SetupError
from adjudicator.core.game import PieceSpec, Setup
from adjudicator.games.rock_scissors_paper import RULES, Move, State

cells = st.integers(min_value=0, max_value=hexes.SIZE - 1)
moves = st.builds(
    Move,
    cells,
    cells,
    st.none() | cells,
    st.lists(st.integers(min_value=0, max_value=99), max_size=5).map(tuple),
).filter(lambda m: m.via is None or not m.drops)


def start() -> State:
    return RULES.start(["alice", "bob"], options={}, setup=Setup())


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("B2-D2", "B2-D2"),
        ("b2-d2", "B2-D2"),
        ("b2 d2", "B2-D2"),
        ("B2 to D2", "B2-D2"),
        ("B2 → D2", "B2-D2"),
        ("b2->d2", "B2-D2"),
        ("B2xD2", "B2-D2"),
        ("b2 x d2", "B2-D2"),
        ("B2, D2", "B2-D2"),
        ("move B2 D2", "B2-D2"),
        ("  • b2 – d2.", "B2-D2"),
        ("B2-C3-D3", "B2-C3-D3"),
        ("b2 c3 d3", "B2-C3-D3"),
        ("B2 to C3 to D3", "B2-C3-D3"),
        ("C4-E4 1,2", "C4-E4 1,2"),
        ("c4-e4 1, 2", "C4-E4 1,2"),
        ("c4 e4 1 2", "C4-E4 1,2"),
        ("C4-E4: 1/2", "C4-E4 1,2"),
        ("spread C4-E4 (1,2)", "C4-E4 1,2"),
        ("C4 → E4 2,1,1", "C4-E4 2,1,1"),
    ],
)
def test_accepted_variants_read_as_the_canonical_order(text: str, canonical: str) -> None:
    assert RULES.format_order(RULES.parse_order(text)) == canonical


@given(moves)
def test_parse_of_format_round_trips(move: Move) -> None:
    assert RULES.parse_order(RULES.format_order(move)) == move


@pytest.mark.parametrize(
    "text", ["Hello Bob!", "thanks", "", "12", "Good luck, have fun", "-- ", "I think so"]
)
def test_chatter_is_not_an_order(text: str) -> None:
    with pytest.raises(NotAnOrder):
        RULES.parse_order(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("B2", "cannot read 'B2' as a move"),
        ("B2-Z9", "Z9 is not on the board: rows run from A to I"),
        ("F1-F3", "F1 is not on the board: row F runs from F2 to F9"),
        ("pass", "passing is not allowed"),
        ("B2-C3-D3 1,1", "a spread goes along a straight line"),
        ("B2-D2 please", "cannot read"),
    ],
)
def test_malformed_moves_are_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(OrderSyntaxError, match=message):
        RULES.parse_order(text)


@given(st.text(max_size=40))
def test_arbitrary_text_raises_only_the_parsers_errors(text: str) -> None:
    try:
        move = RULES.parse_order(text)
    except (NotAnOrder, OrderSyntaxError):
        return
    assert RULES.parse_order(RULES.format_order(move)) == move


@given(st.from_regex(r"\A[a-jA-J][0-9]{1,2}[ x,>-]{0,3}[a-iA-I][0-9][ 0-9,/:()]{0,8}\Z"))
def test_order_shaped_text_raises_only_the_parsers_errors(text: str) -> None:
    with contextlib.suppress(NotAnOrder, OrderSyntaxError):
        RULES.parse_order(text)


# --- check --------------------------------------------------------------------------------------


def test_check_collects_unrecognised_lines_and_reads_the_move() -> None:
    checked = RULES.check(start(), "alice", ["Hi Bob,", "b2 to d4", "", "cheers"])
    assert checked.ok
    assert [str(m) for m in checked.orders] == ["B2-D4"]
    assert checked.unrecognised == ("Hi Bob,", "cheers")


def test_check_names_the_player_whose_turn_it_is() -> None:
    checked = RULES.check(start(), "bob", ["H4-G3"])
    assert [p.code for p in checked.problems] == ["not-your-turn"]
    assert checked.problems[0].message == "it is White's turn; wait for alice"


def test_check_refuses_strangers_and_empty_submissions() -> None:
    assert RULES.check(start(), "carol", ["B1-C1"]).problems[0].code == "not-a-player"
    empty = RULES.check(start(), "alice", ["hello"])
    assert [p.code for p in empty.problems] == ["no-move"]
    assert "B2-D2" in empty.problems[0].message


def test_check_reports_a_syntax_error_with_a_suggestion() -> None:
    checked = RULES.check(start(), "alice", ["B1-C0"])
    assert checked.problems[0].code == "syntax"
    assert checked.problems[0].message == "C0 is not on the board: row C runs from C1 to C7"
    assert checked.problems[0].suggestion == hexes.NAMING_HINT


@pytest.mark.parametrize(
    ("order", "message"),
    [
        ("D4-D5", "there is no piece on D4"),
        ("H4-G3", "H4 holds an enemy Rock; you play White"),
        ("A3-B3", "a Rock may end only on an empty cell, an enemy Scissors or an enemy Flag; "
                  "B3 holds your Paper"),
        ("B1-B1", "a move must leave B1"),
        ("B1-C1-D1", "only a Scissors that turns names a middle cell"),
        ("B1-D1 1,1", "only a stack of Papers spreads"),
        ("B2-E3", "Scissors move at most 2 cells when they turn"),
        ("B2-C3-E4", "B2-C3-E4 is not a path: each cell must be next to the one before"),
        ("B5-F5", "Scissors move at most 3 cells in a straight line"),
    ],
)  # fmt: skip
def test_illegal_moves_are_explained(order: str, message: str) -> None:
    """Clear errors, e.g. “Scissors move at most 2 cells when they turn”."""
    checked = RULES.check(start(), "alice", [order])
    assert [p.message for p in checked.problems] == [message]
    assert checked.problems[0].line == order


def test_an_illegal_move_of_an_own_piece_suggests_its_legal_moves() -> None:
    checked = RULES.check(start(), "alice", ["B2-B4"])
    assert checked.problems[0].suggestion == (
        "legal moves of the Scissors on B2: B2-C3, B2-D3, B2-D4, B2-E5"
    )
    checked = RULES.check(start(), "alice", ["A1-B2"])
    assert checked.problems[0].suggestion == "the Scissors on A1 has no legal move"


def test_the_game_over_is_a_problem() -> None:
    over = RULES.resolve(start(), {}).state
    assert RULES.check(over, "alice", ["B1-C1"]).problems[0].code == "game-over"


# --- custom positions ---------------------------------------------------------------------------


def pieces(*specs: tuple[str, str, str, int]) -> Setup:
    base = [PieceSpec("white", "flag", "A1"), PieceSpec("black", "flag", "I9")]
    return Setup(pieces=[*base, *(PieceSpec(*spec) for spec in specs)])


def test_a_custom_position_with_a_stack_and_black_to_move() -> None:
    setup = Setup(
        pieces=[
            PieceSpec("white", "flag", "A1"),
            PieceSpec("black", "flag", "i9"),
            PieceSpec("White", "Paper", "d4", 3),
            PieceSpec("black", "rock", "E5"),
        ],
        to_move="black",
    )
    state = RULES.start(["alice", "bob"], options={}, setup=setup)
    assert RULES.public_state(state) == {
        "board": {"A1": "wF", "D4": "wP3", "E5": "bR", "I9": "bF"},
        "flags_lost": {"alice": 0, "bob": 0},
        "to_move": "black",
    }
    assert RULES.to_move(state) == ("bob",)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (pieces(("white", "rock", "D4", 1), ("black", "paper", "D4", 1)),
         "D4 already holds a white Rock"),
        (pieces(("white", "rock", "D4", 3)), "only Papers have a height"),
        (pieces(("white", "paper", "D4", 0)), "a stack holds 1 to 9 Papers, not 0"),
        (pieces(("white", "paper", "F1", 1)), "F1 is not on the board: row F runs from F2 to F9"),
        (pieces(("white", "paper", "Z5", 1)), "rows run from A to I"),
        (pieces(("white", "scisors", "D4", 1)), "did you mean 'scissors'"),
        (pieces(("whte", "rock", "D4", 1)), "did you mean 'white'"),
        (pieces(("musketeers", "musketeer", "D4", 1)), "unknown side 'musketeers'"),
        (pieces(("white", "paper", "D4", 5), ("white", "paper", "D5", 5)),
         "white has 10 Papers; a position may hold at most 9"),
        (Setup(pieces=[PieceSpec("white", "flag", "A1"), PieceSpec("black", "rock", "E5")]),
         "a position needs at least one black flag"),
        (Setup(pieces=pieces(("black", "rock", "E5", 1)).pieces, to_move="red"),
         "to-move: unknown side 'red'"),
    ],
)  # fmt: skip
def test_bad_custom_positions_are_refused(setup: Setup, message: str) -> None:
    """Setup.pieces are validated: two pieces on one cell, a Paper height on a Rock, unknown
    cells and kinds are refused with a clear error."""
    with pytest.raises(SetupError) as error:
        RULES.start(["alice", "bob"], options={}, setup=setup)
    assert message in str(error.value)


def test_a_position_without_a_legal_move_for_the_mover_is_refused() -> None:
    with pytest.raises(SetupError, match="white has no legal move"):
        RULES.start(["alice", "bob"], options={}, setup=pieces(("black", "rock", "E5", 1)))


def test_players_must_be_two_and_different() -> None:
    with pytest.raises(SetupError, match="two different players"):
        RULES.start(["alice", "Alice"], options={}, setup=Setup())
    with pytest.raises(SetupError, match="two different players"):
        RULES.start(["alice"], options={}, setup=Setup())
