"""Positions of Three Musketeers: the board, the moves, the end rules and custom setups.

The board is a 25-character string indexed by square (``a1`` first, see
:mod:`adjudicator.core.squares`): ``M`` a Musketeer, ``C`` one of the Cardinal's men, ``.``
empty. :func:`legal_moves` and :func:`play` are the fast path (``sample_orders``, random-play
tests, the bench).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from adjudicator.core.errors import SetupError
from adjudicator.core.game import Outcome, PieceSpec
from adjudicator.core.squares import InvalidSquare, SquareGrid
from adjudicator.core.text import setup_word

GRID = SquareGrid(files=5, ranks=5)
MUSKETEERS = "musketeers"
CARDINAL = "cardinal"
SIDES = (MUSKETEERS, CARDINAL)
MUSKETEER = "M"
MAN = "C"
EMPTY = "."
PIECE_OF_SIDE = {MUSKETEERS: MUSKETEER, CARDINAL: MAN}
KIND_OF_SIDE = {MUSKETEERS: "musketeer", CARDINAL: "man"}
SIDE_NAME = {MUSKETEERS: "the Musketeers", CARDINAL: "the Cardinal"}
TURN_NAME = {MUSKETEERS: "the Musketeers'", CARDINAL: "the Cardinal's"}
PIECE_NAME = {MUSKETEER: "a Musketeer", MAN: "one of the Cardinal's men"}
_NEIGHBOURS = GRID.orthogonal_neighbours


class Move(NamedTuple):
    """One piece moving from ``origin`` to ``target`` (squares of :data:`GRID`)."""

    origin: int
    target: int

    def __str__(self) -> str:
        return f"{GRID.square_name(self.origin)}-{GRID.square_name(self.target)}"


# Every orthogonal step, built once: move generation hands out these shared values.
_STEP = {(o, t): Move(o, t) for o in GRID.squares() for t in _NEIGHBOURS[o]}


def _start_cells() -> str:
    """Board: Musketeers on a1, c3 and e5; the Cardinal's 22 men fill every other square."""
    musketeers = {GRID.parse_square(name) for name in ("a1", "c3", "e5")}
    return "".join(MUSKETEER if sq in musketeers else MAN for sq in GRID.squares())


START_CELLS = _start_cells()


@dataclass(frozen=True)
class State:
    """A position. ``players`` is (Musketeers, Cardinal); ``turn`` the side to move;
    ``forfeited`` the side that lost on time, if any."""

    players: tuple[str, str]
    cells: str = START_CELLS
    turn: str = MUSKETEERS
    last_move: Move | None = None
    forfeited: str | None = None

    def player_of(self, side: str) -> str:
        return self.players[SIDES.index(side)]


def other_side(side: str) -> str:
    return CARDINAL if side == MUSKETEERS else MUSKETEERS


def legal_moves(state: State) -> list[Move]:
    """The side to move's legal moves, sorted, ignoring whether the game is over.

    A Musketeer moves one square orthogonally onto one of the Cardinal's men; a man moves one
    square orthogonally onto an empty square (docs/rules/three-musketeers.md, Orders).
    """
    cells = state.cells
    moves: list[Move] = []
    if state.turn == MUSKETEERS:
        origin = cells.find(MUSKETEER)
        while origin >= 0:
            moves.extend(_STEP[origin, t] for t in _NEIGHBOURS[origin] if cells[t] == MAN)
            origin = cells.find(MUSKETEER, origin + 1)
    else:
        target = cells.find(EMPTY)
        while target >= 0:
            moves.extend(_STEP[o, target] for o in _NEIGHBOURS[target] if cells[o] == MAN)
            target = cells.find(EMPTY, target + 1)
    moves.sort()
    return moves


def play(state: State, move: Move) -> State:
    """The position after ``move``, which must be legal (not checked here)."""
    cells, origin, target = state.cells, move.origin, move.target
    piece = cells[origin]
    if origin < target:
        cells = cells[:origin] + EMPTY + cells[origin + 1 : target] + piece + cells[target + 1 :]
    else:
        cells = cells[:target] + piece + cells[target + 1 : origin] + EMPTY + cells[origin + 1 :]
    return State(state.players, cells, other_side(state.turn), move)


_RANK = tuple(GRID.rank_of(sq) for sq in GRID.squares())
_FILE = tuple(GRID.file_of(sq) for sq in GRID.squares())


def in_line(squares: Sequence[int]) -> bool:
    """End (1): the three Musketeers' squares all on one rank or one file."""
    first, second, third = squares
    return _RANK[first] == _RANK[second] == _RANK[third] or (
        _FILE[first] == _FILE[second] == _FILE[third]
    )


def musketeers_in_line(cells: str) -> bool:
    """End (1) on a board: all three Musketeers on one rank or one file."""
    return in_line([s for s, piece in enumerate(cells) if piece == MUSKETEER])


def squares_of(mask: int) -> list[int]:
    """The squares of a set of squares held as a bitmask (bit ``s`` is square ``s``), in
    increasing order: the stand-in's and the solution's positions."""
    return [s for s in GRID.squares() if mask >> s & 1]


def has_legal_move(state: State) -> bool:
    """Whether the side to move has a move: a man next to a Musketeer (Musketeers), an empty
    square next to a man (Cardinal)."""
    cells = state.cells
    square_of, wanted = (MUSKETEER, MAN) if state.turn == MUSKETEERS else (EMPTY, MAN)
    square = cells.find(square_of)
    while square >= 0:
        for other in _NEIGHBOURS[square]:
            if cells[other] == wanted:
                return True
        square = cells.find(square_of, square + 1)
    return False


def outcome(state: State) -> Outcome | None:
    """End, checked after every move in this order: (1) all three Musketeers on one rank or
    file: the Cardinal wins; (2) the side to move has no legal move: the Musketeers win.
    A forfeit on time (option ``timeout=forfeit``) ends the game before either."""
    if state.forfeited is not None:
        return Outcome("forfeit", (state.player_of(other_side(state.forfeited)),))
    if musketeers_in_line(state.cells):
        return Outcome("musketeers-in-line", (state.player_of(CARDINAL),))
    if not has_legal_move(state):
        return Outcome("no-legal-move", (state.player_of(MUSKETEERS),))
    return None


def side_of(state: State, player: str) -> str | None:
    """The side ``player`` plays (handles are case-insensitive), or ``None``."""
    handles = [handle.lower() for handle in state.players]
    return SIDES[handles.index(player.lower())] if player.lower() in handles else None


# --- the board as JSON and custom setups --------------------------------------------------


def board_rows(cells: str) -> list[str]:
    """Five strings, rank 5 first, files a-e (docs/record-format.md)."""
    return [cells[rank * 5 : rank * 5 + 5] for rank in range(4, -1, -1)]


def cells_from_rows(rows: Sequence[str]) -> str:
    cells = "".join(reversed(rows))
    if len(rows) != 5 or any(len(row) != 5 for row in rows) or set(cells) - set("MC."):
        raise ValueError(f"not a Three Musketeers board: {rows!r}")
    if cells.count(MUSKETEER) != 3:
        raise ValueError(f"not three Musketeers on the board: {rows!r}")
    return cells


def parse_side(text: str, what: str) -> str:
    return setup_word(text, SIDES, what=what, noun="side", choices="musketeers or cardinal")


def _place(cells: list[str], spec: PieceSpec) -> None:
    label = f"piece {spec.owner} {spec.piece} {spec.cell}"
    side = parse_side(spec.owner, label)
    kind, owner = spec.piece.strip().lower(), SIDE_NAME[side]
    if kind != KIND_OF_SIDE[side]:
        raise SetupError(f"{label}: the only kind of piece of {owner} is {KIND_OF_SIDE[side]!r}")
    if spec.height != 1:
        raise SetupError(f"{label}: pieces in Three Musketeers have no height")
    try:
        square = GRID.parse_square(spec.cell)
    except InvalidSquare as error:
        raise SetupError(f"{label}: {error}") from None
    if cells[square] != EMPTY:
        taken = PIECE_NAME[cells[square]]
        raise SetupError(f"{label}: {GRID.square_name(square)} already holds {taken}")
    cells[square] = PIECE_OF_SIDE[side]


def cells_from_pieces(pieces: Sequence[PieceSpec]) -> str:
    """A custom position; it must hold exactly three Musketeers (our decision: the end rule
    speaks of "all three Musketeers")."""
    cells = [EMPTY] * GRID.size
    for spec in pieces:
        _place(cells, spec)
    musketeers = [GRID.square_name(sq) for sq, p in enumerate(cells) if p == MUSKETEER]
    if len(musketeers) != 3:
        found = f" ({', '.join(musketeers)})" if musketeers else ""
        raise SetupError(
            f"a position needs exactly three Musketeers; this one has {len(musketeers)}{found}"
        )
    return "".join(cells)
