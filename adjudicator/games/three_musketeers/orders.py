"""Reading, writing and checking Three Musketeers moves, with messages players understand."""

from __future__ import annotations

import re
from collections.abc import Sequence

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem
from adjudicator.core.game import Checked
from adjudicator.core.squares import InvalidSquare
from adjudicator.core.text import normalise_line, read_order_lines
from adjudicator.games.three_musketeers.board import (
    EMPTY,
    GRID,
    MUSKETEER,
    PIECE_NAME,
    PIECE_OF_SIDE,
    SIDE_NAME,
    TURN_NAME,
    Move,
    State,
    legal_moves,
    outcome,
    side_of,
)

_ATTEMPT = re.compile(r"(?:move:?\s*)?[a-z][0-9]|move\b|pass\b")
_MOVE_TEXT = re.compile(
    r"(?:move:?\s*)?([a-z][0-9]+)\s*(?:-+>?|[x×:,→–—]|to\b|\s)?\s*([a-z][0-9]+)\Z"
)
EXAMPLE = "write a move as two squares, for example a1-a2"


def parse_order(text: str) -> Move:
    """``a1-a2``, ``a1xa2``, ``A1 A2``, ``MOVE a1 a2``, ``a1 to a2`` -> ``Move``."""
    line = normalise_line(text).lower()
    if not _ATTEMPT.match(line):
        raise NotAnOrder(f"{text!r} is not a Three Musketeers move")
    if re.match(r"pass\b", line):
        raise OrderSyntaxError("passing is not allowed: you must move a piece")
    match = _MOVE_TEXT.match(line)
    if match is None:
        raise OrderSyntaxError(f"cannot read {text.strip()!r} as a move; {EXAMPLE}")
    try:
        return Move(GRID.parse_square(match.group(1)), GRID.parse_square(match.group(2)))
    except InvalidSquare as error:
        raise OrderSyntaxError(str(error)) from None


def format_order(move: Move) -> str:
    return str(move)


def move_list(moves: Sequence[Move]) -> str:
    return ", ".join(map(str, moves)) or "none"


def _suggest_moves(state: State, origin: int | None) -> str:
    """The legal moves of the piece on ``origin``, or of the whole side if it has none."""
    moves = legal_moves(state)
    own = [m for m in moves if m.origin == origin]
    if own:
        return f"legal moves of the piece on {GRID.square_name(own[0].origin)}: {move_list(own)}"
    return f"your legal moves: {move_list(moves)}"


def move_problem(state: State, move: Move, *, line: str | None = None) -> Problem | None:
    """Why ``move`` is not legal for the side to move, or ``None`` when it is."""
    if move in legal_moves(state):
        return None
    cells = state.cells
    origin, target = GRID.square_name(move.origin), GRID.square_name(move.target)
    mine = PIECE_OF_SIDE[state.turn]
    piece, there = cells[move.origin], cells[move.target]
    direction = GRID.direction_between(move.origin, move.target)
    code: str
    if piece == EMPTY:
        code, message = "empty-square", f"there is no piece on {origin}"
    elif piece != mine:
        code = "not-your-piece"
        message = f"not your piece: {origin} holds {PIECE_NAME[piece]}"
        message += f" and you play {SIDE_NAME[state.turn]}"
    elif move.origin == move.target:
        code, message = "not-adjacent", f"{origin}-{target} goes nowhere; a move is one square"
    elif direction is None:
        code = "not-adjacent"
        message = f"a piece moves one square at a time; {origin} and {target} are not neighbours"
    elif direction.file and direction.rank:
        code, message = "diagonal", f"diagonal moves are not allowed ({origin}-{target})"
    elif piece == MUSKETEER:
        what = "is empty" if there == EMPTY else f"holds {PIECE_NAME[there]}"
        code = "must-capture"
        message = f"a Musketeer must move onto one of the Cardinal's men; {target} {what}"
    else:
        code = "square-taken"
        message = f"a man may only move onto an empty square; {target} holds {PIECE_NAME[there]}"
    origin_square = move.origin if piece == mine else None
    return Problem(code, message, line, _suggest_moves(state, origin_square))


def seat_problem(state: State, player: str) -> Problem | None:
    side = side_of(state, player)
    if side is None:
        players = " and ".join(state.players)
        return Problem("not-a-player", f"{player} is not playing in this game ({players} are)")
    if outcome(state) is not None:
        return Problem("game-over", "the game is over")
    if side != state.turn:
        mover = state.player_of(state.turn)
        return Problem("not-your-turn", f"it is {TURN_NAME[state.turn]} turn; wait for {mover}")
    return None


def _read_lines(lines: Sequence[str]) -> tuple[list[tuple[Move, str]], list[Problem], list[str]]:
    """The moves read (with their line), the lines that are bad moves, and the chatter."""
    return read_order_lines(lines, parse_order)


def check_moves(state: State, player: str, lines: Sequence[str]) -> Checked[Move]:
    """Read and check one player's lines: every problem at once, one move per turn."""
    read, problems, unrecognised = _read_lines(lines)
    orders = tuple(move for move, _ in read)
    seat = seat_problem(state, player)
    if seat is not None:
        # Chatter alone from the player who waits is no submission at all.
        if read or problems or seat.code == "not-a-player":
            problems.insert(0, seat)
    elif len(read) > 1:
        problems.append(
            Problem("one-move-per-turn", f"one move per turn; you sent {move_list(orders)}")
        )
    elif not read and not problems:
        problems.append(Problem("no-move", f"no move found; {EXAMPLE}"))
    elif read:
        problem = move_problem(state, read[0][0], line=read[0][1])
        problems.extend([problem] if problem else [])
    return Checked(orders, tuple(problems), tuple(unrecognised))
