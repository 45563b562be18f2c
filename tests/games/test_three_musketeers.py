"""Three Musketeers: one named case per ruling of docs/rules/three-musketeers.md, and our decisions.

Boards in these tests are written as in the replay JSON: five strings, rank 5 first, files a-e,
``M`` a Musketeer, ``C`` a man, ``.`` empty.
"""

from __future__ import annotations

import pytest

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, SetupError
from adjudicator.core.game import PieceSpec, Setup
from adjudicator.games import get_rules
from adjudicator.games.three_musketeers import RULES, Move, State, legal_moves

START_ROWS = ["CCCCM", "CCCCC", "CCMCC", "CCCCC", "MCCCC"]


def sq(name: str) -> int:
    """Square number, a1 = 0, b1 = 1, ..., a2 = 5 (worked out from the naming rule)."""
    return (int(name[1]) - 1) * 5 + "abcde".index(name[0])


def position(*rows: str, turn: str = "musketeers") -> State:
    """A position for alice (Musketeers) and bob (Cardinal)."""
    return State(("alice", "bob"), "".join(reversed(rows)), turn)


def start(**setup: object) -> State:
    return RULES.start(["alice", "bob"], options={}, setup=Setup(**setup))  # type: ignore[arg-type]


def after(state: State, *moves: str) -> State:
    for text in moves:
        player = RULES.to_move(state)[0]
        checked = RULES.check(state, player, [text])
        assert checked.ok, checked.problems
        state = RULES.resolve(state, {player: checked.orders}).state
    return state


def problem(state: State, player: str, *lines: str) -> tuple[str, str, str | None]:
    checked = RULES.check(state, player, lines)
    assert len(checked.problems) == 1, checked.problems
    found = checked.problems[0]
    return found.code, found.message, found.suggestion


# --- seats and board -------------------------------------------------------------------------


def test_first_seat_plays_the_musketeers_second_the_cardinal() -> None:
    """ "Sequential, 2 players: the first seat plays the Musketeers, the second the Cardinal." """
    state = start()
    assert RULES.sequential
    assert RULES.to_move(state) == ("alice",)
    state = after(state, "a1-a2")
    assert RULES.to_move(state) == ("bob",)
    assert RULES.player_view(state, "alice")["side"] == "musketeers"
    assert RULES.player_view(state, "bob")["side"] == "cardinal"


@pytest.mark.parametrize("players", [["alice"], ["alice", "bob", "carol"], ["alice", "ALICE"]])
def test_exactly_two_different_players(players: list[str]) -> None:
    """ "Sequential, 2 players" """
    with pytest.raises(SetupError, match="two different players"):
        RULES.start(players, options={}, setup=Setup())


def test_start_position() -> None:
    """ "Musketeers start on a1, c3 and e5; the Cardinal's 22 men fill every other square.
    The Musketeers move first." """
    state = start()
    assert RULES.public_state(state) == {"board": START_ROWS, "to_move": "musketeers"}
    assert state.cells.count("C") == 22
    assert get_rules("three-musketeers") is RULES


def test_files_a_to_e_left_to_right_ranks_1_to_5_bottom_to_top() -> None:
    """ "Files a-e left to right, ranks 1-5 bottom to top." The e5 Musketeer is at the right
    end of the first string (rank 5); moving it to d5 puts it one place to the left."""
    state = after(start(), "e5-d5")
    assert RULES.public_state(state)["board"][0] == "CCCM."


# --- orders ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "a1-a2",
        "a1xa2",
        "A1 A2",
        "MOVE a1 a2",
        "a1 to a2",
        "A1-A2",
        "a1 - a2",
        "move: a1-a2",
        "a1→a2",
        "a1a2",
        "• a1-a2.",
        "a1,a2",
        "a1 -> a2",
        "a1–a2",
    ],
)
def test_canonical_order_and_accepted_variants(text: str) -> None:
    """ "Canonical `a1-a2` (lower case). `a1xa2`, `A1 A2`, `MOVE a1 a2` are accepted." """
    move = RULES.parse_order(text)
    assert move == Move(sq("a1"), sq("a2"))
    assert RULES.format_order(move) == "a1-a2"


@pytest.mark.parametrize("text", ["hello", "Thanks for the game!", "good luck", "", "42"])
def test_chatter_is_not_an_order(text: str) -> None:
    with pytest.raises(NotAnOrder):
        RULES.parse_order(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a1-f6", "'f6' is not on the board"),
        ("a1", "two squares"),
        ("move a1", "two squares"),
        ("a1-a2-a3", "two squares"),
        ("a0-a1", "'a0' is not on the board"),
    ],
)
def test_order_like_lines_that_cannot_be_read(text: str, words: str) -> None:
    with pytest.raises(OrderSyntaxError, match=words):
        RULES.parse_order(text)


def test_no_passing() -> None:
    """ "No diagonal moves, no passing." """
    with pytest.raises(OrderSyntaxError, match="passing is not allowed"):
        RULES.parse_order("pass")
    code, message, _ = problem(start(), "alice", "hello there")
    assert code == "no-move"
    assert "no move found" in message


def test_a_musketeer_captures_a_man() -> None:
    """ "A Musketeer moves one square orthogonally onto a square holding one of the Cardinal's
    men and captures it." """
    state = start()
    result = RULES.resolve(state, {"alice": [RULES.parse_order("c3-c4")]})
    assert RULES.public_state(result.state) == {
        "board": ["CCCCM", "CCMCC", "CC.CC", "CCCCC", "MCCCC"],
        "to_move": "cardinal",
    }
    assert result.state.cells.count("C") == 21
    assert result.report.public["captured"] == "c4"
    assert result.report.public["last_move"] == "c3-c4"
    assert result.report.codes == {"alice": ["moved"]}


A_FEW = ("....M", "C....", "..M..", "M.C..", "C....")  # M a2 c3 e5, men a4 c2 a1


def test_a_musketeer_may_not_move_onto_an_empty_square() -> None:
    """ "A Musketeer moves one square orthogonally onto a square holding one of the Cardinal's
    men": b2 is empty, and the only man next to the a2 Musketeer is on a1."""
    code, message, suggestion = problem(position(*A_FEW), "alice", "a2-b2")
    assert code == "must-capture"
    assert message == "a Musketeer must move onto one of the Cardinal's men; b2 is empty"
    assert suggestion == "legal moves of the piece on a2: a2-a1"


def test_a_musketeer_may_not_move_onto_another_musketeer() -> None:
    state = position("....M", ".....", ".MM..", "..C..", "C....")
    code, message, _ = problem(state, "alice", "b3-c3")
    assert code == "must-capture"
    assert message.endswith("c3 holds a Musketeer")


def test_a_man_moves_onto_an_empty_square() -> None:
    """ "A man moves one square orthogonally onto an empty square." """
    state = after(start(), "c3-c4", "b3-c3")
    assert RULES.public_state(state)["board"] == ["CCCCM", "CCMCC", "C.CCC", "CCCCC", "MCCCC"]


def test_a_man_may_not_move_onto_an_occupied_square() -> None:
    """ "A man moves one square orthogonally onto an empty square": c1 holds a man and c4 a
    Musketeer; the c2 man can only step into the empty c3."""
    state = after(start(), "c3-c4")
    code, message, suggestion = problem(state, "bob", "c2-c1")
    assert (code, message) == (
        "square-taken",
        "a man may only move onto an empty square; c1 holds one of the Cardinal's men",
    )
    assert suggestion == "legal moves of the piece on c2: c2-c3"
    code, message, _ = problem(state, "bob", "c5-c4")
    assert message.endswith("c4 holds a Musketeer")


def test_no_diagonal_moves() -> None:
    """ "No diagonal moves, no passing." """
    code, message, suggestion = problem(start(), "alice", "a1-b2")
    assert code == "diagonal"
    assert message.startswith("diagonal moves are not allowed")
    assert suggestion == "legal moves of the piece on a1: a1-b1, a1-a2"
    state = after(start(), "c3-c4")
    assert problem(state, "bob", "b2-c3")[0] == "diagonal"


def test_one_square_at_a_time() -> None:
    """ "A Musketeer moves one square orthogonally" """
    code, message, _ = problem(start(), "alice", "a1-a3")
    assert code == "not-adjacent"
    assert message.endswith("a1 and a3 are not neighbours")
    assert problem(start(), "alice", "a1-a1")[0] == "not-adjacent"


def test_not_your_piece_and_no_piece() -> None:
    code, message, suggestion = problem(start(), "alice", "b2-b3")
    assert code == "not-your-piece"
    assert message.startswith("not your piece: b2 holds one of the Cardinal's men")
    # the Musketeers' eight first moves, worked out in test_three_musketeers_perft.py
    assert suggestion is not None
    assert suggestion == (
        "your legal moves: a1-b1, a1-a2, c3-c2, c3-b3, c3-d3, c3-c4, e5-e4, e5-d5"
    )
    state = after(start(), "c3-c4")
    assert problem(state, "bob", "c3-c2")[:2] == ("empty-square", "there is no piece on c3")
    assert problem(state, "bob", "a1-a2")[0] == "not-your-piece"


def test_one_move_per_turn_and_every_problem_at_once() -> None:
    """ "Sequential": a round is one move."""
    checked = RULES.check(start(), "alice", ["a1-a2", "c3-c4"])
    assert [p.code for p in checked.problems] == ["one-move-per-turn"]
    checked = RULES.check(start(), "alice", ["Hi Bob!", "a1-z9", "a1-b2"])
    assert [p.code for p in checked.problems] == ["syntax", "diagonal"]
    assert checked.unrecognised == ("Hi Bob!",)


def test_moving_out_of_turn_is_refused() -> None:
    """Sequential: only the side to move may move."""
    state = after(start(), "a1-a2")
    code, message, _ = problem(state, "alice", "c3-c4")
    assert code == "not-your-turn"
    assert message.startswith("it is the Cardinal's turn")
    assert problem(start(), "bob", "b1-a1")[1].startswith("it is the Musketeers' turn")
    assert problem(start(), "carol", "a1-a2")[0] == "not-a-player"
    assert RULES.check(start(), "ALICE", ["a1-a2"]).ok  # handles are case-insensitive
    # Our decision: chatter alone from the waiting player is not a submission.
    assert RULES.check(state, "alice", ["Nice move, Bob!"]).problems == ()


# --- the end ----------------------------------------------------------------------------------


def test_musketeers_on_one_file_cardinal_wins_even_by_their_own_capture() -> None:
    """ "(1) All three Musketeers on one rank or one file: the Cardinal wins (even if the
    Musketeers' own capture caused it)." b3 takes a3 and the Musketeers stand on a1, a2, a3."""
    state = position("C....", "C....", "CM...", "M.C..", "M.C..")
    result = RULES.resolve(state, {"alice": [RULES.parse_order("b3-a3")]})
    ended = RULES.outcome(result.state)
    assert ended is not None
    assert (ended.termination, ended.winners, ended.draw) == ("musketeers-in-line", ("bob",), False)
    assert result.report.public["result"] == "musketeers-in-line"
    assert RULES.to_move(result.state) == ()


def test_musketeers_on_one_rank_cardinal_wins() -> None:
    """ "All three Musketeers on one rank or one file: the Cardinal wins" """
    state = position("C....", ".....", "M.M.C", "....M", "..C..")
    ended = RULES.outcome(after(state, "e2-e3"))
    assert ended is not None
    assert ended.winners == ("bob",)


def test_alignment_is_checked_before_the_side_to_move_has_no_move() -> None:
    """ "End, checked after every move in this order. (1) All three Musketeers on one rank or
    one file: the Cardinal wins ... (2) The side to move has no legal move: the Musketeers win."
    b3 takes the last man on a3: the Cardinal has no move, but the line comes first."""
    state = position(".....", ".....", "CM...", "M....", "M....")
    ended = RULES.outcome(after(state, "b3-a3"))
    assert ended is not None
    assert (ended.termination, ended.winners) == ("musketeers-in-line", ("bob",))


def test_musketeers_with_no_man_next_to_them_win() -> None:
    """ "(2) The side to move has no legal move: the Musketeers win." The Cardinal's man steps
    from d3 to d2, and no man then touches a Musketeer (a5, c4, e1)."""
    state = position("M....", "..M..", "...C.", ".....", "C...M", turn="cardinal")
    ended_now = RULES.outcome(state)
    assert ended_now is None
    final = after(state, "d3-d2")
    assert legal_moves(final) == []
    ended = RULES.outcome(final)
    assert ended is not None
    assert (ended.termination, ended.winners) == ("no-legal-move", ("alice",))
    assert RULES.check(final, "alice", ["a5-a4"]).problems[0].code == "game-over"
    with pytest.raises(ValueError, match="over"):
        RULES.resolve(final, {})


def test_a_cardinal_without_a_move_also_loses() -> None:
    """ "(2) The side to move has no legal move: the Musketeers win." — whichever side that is:
    here the Musketeers take the Cardinal's last man."""
    state = position("M....", "C....", "..M..", ".....", "....M")
    ended = RULES.outcome(after(state, "a5-a4"))
    assert ended is not None
    assert (ended.termination, ended.winners) == ("no-legal-move", ("alice",))


# --- pace and no-orders ------------------------------------------------------------------------


def test_a_valid_move_is_applied_at_once() -> None:
    """ "A valid move is applied as soon as it arrives; the opponent is sent the new board at
    once and their move deadline starts." One move is one round."""
    result = RULES.resolve(start(), {"alice": [RULES.parse_order("e5-e4")]})
    assert RULES.to_move(result.state) == ("bob",)
    assert RULES.player_view(result.state, "bob") == {
        "board": ["CCCC.", "CCCCM", "CCMCC", "CCCCC", "MCCCC"],
        "to_move": "cardinal",
        "last_move": "e5-e4",
        "side": "cardinal",
        "legal_moves": ["d5-e5"],
    }
    assert RULES.player_view(result.state, "alice")["legal_moves"] == []


@pytest.mark.parametrize(
    ("moves", "loser", "winner"), [((), "alice", "bob"), (("a1-a2",), "bob", "alice")]
)
def test_a_silent_player_forfeits(moves: tuple[str, ...], loser: str, winner: str) -> None:
    """ "NMR (option `timeout=forfeit`). ... a player still silent at the end of grace forfeits
    the game." The service resolves with the mover missing once grace is over."""
    state = after(start(), *moves)
    result = RULES.resolve(state, {})
    ended = RULES.outcome(result.state)
    assert ended is not None
    assert (ended.termination, ended.winners) == ("forfeit", (winner,))
    assert result.report.codes == {loser: ["forfeit"]}
    assert RULES.public_state(result.state) == RULES.public_state(state)
    assert RULES.to_move(result.state) == ()


def test_timeout_option() -> None:
    """ "NMR (option `timeout=forfeit`)" is the default and the only value."""
    assert RULES.option_defaults == {"timeout": "forfeit"}
    RULES.start(["a", "b"], options={"timeout": "FORFEIT"}, setup=Setup())
    with pytest.raises(SetupError, match="must be one of forfeit"):
        RULES.start(["a", "b"], options={"timeout": "skip"}, setup=Setup())
    with pytest.raises(SetupError, match="did you mean 'timeout'"):
        RULES.start(["a", "b"], options={"timout": "forfeit"}, setup=Setup())


# --- custom positions (our decisions) ---------------------------------------------------------


def piece(owner: str, kind: str, cell: str, height: int = 1) -> PieceSpec:
    return PieceSpec(owner=owner, piece=kind, cell=cell, height=height)


MUSKETEERS_B2_D4_E1 = (
    piece("musketeers", "musketeer", "b2"),
    piece("musketeers", "musketeer", "D4"),
    piece("musketeers", "musketeer", "e1"),
)


def test_a_custom_position_and_side_to_move() -> None:
    state = start(pieces=(*MUSKETEERS_B2_D4_E1, piece("cardinal", "man", "b3")), to_move="cardinal")
    assert RULES.public_state(state) == {
        "board": [".....", "...M.", ".C...", ".M...", "....M"],
        "to_move": "cardinal",
    }


def test_a_custom_position_needs_exactly_three_musketeers() -> None:
    """Our decision: the end rule speaks of "all three Musketeers"."""
    pieces = (*MUSKETEERS_B2_D4_E1[:2], piece("cardinal", "man", "b3"))
    with pytest.raises(SetupError, match=r"exactly three Musketeers; this one has 2 \(b2, d4\)"):
        start(pieces=pieces)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (piece("cardinal", "man", "b2"), "b2 already holds a Musketeer"),
        (piece("white", "rock", "a1"), "unknown side 'white'"),
        (piece("cardinal", "musketeer", "a1"), "the only kind of piece of the Cardinal is 'man'"),
        (piece("musketeers", "man", "a1"), "the only kind of piece of the Musketeers is"),
        (piece("cardinal", "man", "f1"), "'f1' is not on the board"),
        (piece("cardinal", "man", "a1", 2), "no height"),
    ],
)
def test_bad_pieces_are_refused(extra: PieceSpec, words: str) -> None:
    with pytest.raises(SetupError, match=words):
        start(pieces=(*MUSKETEERS_B2_D4_E1, piece("cardinal", "man", "c5"), extra))


def test_a_position_that_is_already_over_is_refused() -> None:
    """Our decision: a record whose start is already decided is a mistake."""
    line = (piece("musketeers", "musketeer", c) for c in ("a1", "a3", "a5"))
    with pytest.raises(SetupError, match="already over"):
        start(pieces=(*line, piece("cardinal", "man", "b1")))
    # In the standard setup the Cardinal has no empty square to move to.
    with pytest.raises(SetupError, match="already over"):
        start(to_move="cardinal")
    with pytest.raises(SetupError, match="unknown side"):
        start(to_move="white")


def test_no_colours_or_counters() -> None:
    with pytest.raises(SetupError, match="no colours"):
        start(colours={"alice": "red"})


# --- no repetition, state values ----------------------------------------------------------------


def test_every_musketeer_move_removes_a_man_so_no_position_repeats() -> None:
    """Our finding: no position can come back (so there is no repetition rule). Each Musketeer
    move captures one man, and men are never added."""
    state = start()
    men = [state.cells.count("C")]
    for text in ("c3-c4", "b3-c3", "c4-b4", "a3-b3", "b4-a4"):
        state = after(state, text)
        men.append(state.cells.count("C"))
    assert men == [22, 21, 21, 20, 20, 19]


def test_dump_load_round_trip_and_repr() -> None:
    state = after(start(), "c3-c4")
    dumped = RULES.dump(state)
    assert dumped == {
        "players": ["alice", "bob"],
        "board": ["CCCCM", "CCMCC", "CC.CC", "CCCCC", "MCCCC"],
        "to_move": "cardinal",
        "last_move": "c3-c4",
        "forfeited": None,
    }
    assert RULES.load(dumped) == state
    assert eval(repr(state), {"State": State, "Move": Move}) == state
    forfeited = RULES.resolve(state, {}).state
    assert RULES.load(RULES.dump(forfeited)) == forfeited
    with pytest.raises(ValueError, match="not a Three Musketeers board"):
        RULES.load({**dumped, "board": ["CCCC"]})
