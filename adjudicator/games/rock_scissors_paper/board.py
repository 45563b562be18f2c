"""Pieces, positions and the starting setup of Rock, Scissors, Paper
(docs/rules/rock-scissors-paper.md).

A board is 61 bytes, one per cell of :mod:`adjudicator.core.hexes` (``A1`` first): ``0`` for an
empty cell, else a piece code. The low seven bits give the kind (1 Flag, 2 Rock, 3 Scissors,
3 + h a stack of h Papers) and the high bit the owner (set for Black). Bytes make a position
cheap to copy and compare, and the board plus the side to move is the position's key for the
repetition rule as it stands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from adjudicator.core import hexes
from adjudicator.core.errors import SetupError
from adjudicator.core.game import PieceSpec
from adjudicator.core.text import setup_word
from adjudicator.games.rock_scissors_paper.orders import Move

WHITE, BLACK = 0, 1
SIDES = ("white", "black")
SIDE_NAMES = ("White", "Black")

FLAG, ROCK, SCISSORS, PAPER = 1, 2, 3, 4
"""Kinds. A Paper stack of height h is stored as kind ``3 + h``; :func:`kind_of` folds it to
:data:`PAPER`."""
KIND_LETTERS = {FLAG: "F", ROCK: "R", SCISSORS: "S", PAPER: "P"}
KIND_NAMES = {FLAG: "Flag", ROCK: "Rock", SCISSORS: "Scissors", PAPER: "Paper"}
_KIND_WORDS = {"flag": FLAG, "rock": ROCK, "scissors": SCISSORS, "paper": PAPER}
_BLACK_BIT = 0x80
MAX_PAPERS = 9
"""Our limit for custom positions: at most this many Papers per side (the standard game has 5),
which keeps every stack small enough for the spread moves to be listed."""


def piece(side: int, kind: int, height: int = 1) -> int:
    """The code of a piece; ``height`` only for Papers."""
    base = 3 + height if kind == PAPER else kind
    return base | (_BLACK_BIT if side == BLACK else 0)


def side_of(code: int) -> int:
    return code >> 7


def kind_of(code: int) -> int:
    base = code & 0x7F
    return PAPER if base > SCISSORS else base


def height_of(code: int) -> int:
    """The number of Papers in a stack (1 for any other piece)."""
    base = code & 0x7F
    return base - 3 if base > SCISSORS else 1


def token(code: int) -> str:
    """The replay JSON name of a piece: ``wF``, ``bS``, ``wP`` (one Paper), ``bP3``."""
    height = height_of(code)
    return (
        ("w", "b")[side_of(code)]
        + KIND_LETTERS[kind_of(code)]
        + (str(height) if height > 1 else "")
    )


def parse_token(text: str) -> int:
    """The inverse of :func:`token`; raises ``ValueError``."""
    side = "wb".find(text[:1])
    kind = {letter: kind for kind, letter in KIND_LETTERS.items()}.get(text[1:2])
    digits = text[2:]
    height = int(digits) if digits.isascii() and digits.isdigit() else 1
    if side < 0 or kind is None or (digits and (kind != PAPER or not 2 <= height <= 99)):
        raise ValueError(f"not a piece: {text!r}")
    return piece(side, kind, height)


def describe(code: int, *, mover: int) -> str:
    """A piece in words, seen from the mover: ``your Rock``, ``an enemy stack of 3 Papers``."""
    owner = "your" if side_of(code) == mover else "an enemy"
    height = height_of(code)
    if kind_of(code) == PAPER and height > 1:
        return f"{owner} stack of {height} Papers"
    return f"{owner} {KIND_NAMES[kind_of(code)]}"


class Ending(NamedTuple):
    """How a game ended: a termination code and the losing side (``None`` for a draw)."""

    termination: str
    loser: int | None


@dataclass(frozen=True)
class State:
    """A position and what the rules need to know about how it was reached.

    ``players`` is (White, Black); ``turn`` the side to move; ``flags_lost`` counts the flags
    each side has lost; ``flags`` is the option (1 or 2); ``history`` holds the key of every
    position of the game so far, the current one last (threefold repetition);
    ``ending`` is set once the game is over.
    """

    players: tuple[str, str]
    board: bytes
    turn: int = WHITE
    flags_lost: tuple[int, int] = (0, 0)
    flags: int = 1
    history: tuple[bytes, ...] = ()
    last_move: Move | None = None
    ending: Ending | None = None

    def player_of(self, side: int) -> str:
        return self.players[side]


def position_key(board: bytes, turn: int) -> bytes:
    """The repetition key: the board and the side to move (62 bytes)."""
    return board + bytes((turn,))


# --- the standard setup (docs/rules/rock-scissors-paper.md, Setup: a reconstruction)

WHITE_SETUP: Mapping[int, tuple[str, ...]] = {
    FLAG: ("A2", "A4"),
    ROCK: ("A3", "B1", "B6"),
    SCISSORS: ("A1", "A5", "B2", "B5"),
    PAPER: ("B3", "B4", "C2", "C4", "C6"),
}


def _start_board() -> bytes:
    """White as ruled; Black is its point reflection (row r <-> 8-r, diagonal d <-> 10-d)."""
    cells = bytearray(hexes.SIZE)
    for kind, names in WHITE_SETUP.items():
        for name in names:
            cell = hexes.parse_cell(name)
            cells[cell] = piece(WHITE, kind)
            cells[hexes.reflect(cell)] = piece(BLACK, kind)
    return bytes(cells)


START_BOARD = _start_board()


# --- custom positions (Setup.pieces) --------------------------------------------------------


def parse_side(text: str, what: str) -> int:
    return SIDES.index(setup_word(text, SIDES, what=what, noun="side", choices="white or black"))


def _place(cells: bytearray, spec: PieceSpec) -> None:
    label = f"piece {spec.owner} {spec.piece} {spec.cell}"
    side = parse_side(spec.owner, label)
    word = setup_word(
        spec.piece, _KIND_WORDS, what=label, noun="kind", choices="flag, rock, scissors or paper"
    )
    kind = _KIND_WORDS[word]
    if kind != PAPER and spec.height != 1:
        raise SetupError(f"{label}: only Papers have a height (stacks); a {word} has none")
    if kind == PAPER and not 1 <= spec.height <= MAX_PAPERS:
        raise SetupError(f"{label}: a stack holds 1 to {MAX_PAPERS} Papers, not {spec.height}")
    try:
        cell = hexes.parse_cell(spec.cell)
    except hexes.InvalidCell as error:
        raise SetupError(f"{label}: {error}") from None
    if cells[cell]:
        held = cells[cell]
        raise SetupError(
            f"{label}: {hexes.cell_name(cell)} already holds a {SIDES[side_of(held)]} "
            f"{KIND_NAMES[kind_of(held)]} (one piece or one stack per cell; give a stack's "
            "height instead of repeating it)"
        )
    cells[cell] = piece(side, kind, spec.height)


def board_from_pieces(pieces: Sequence[PieceSpec]) -> bytes:
    """A custom position. Our decisions: each side needs at least one Flag (the game is about
    them) and at most :data:`MAX_PAPERS` Papers."""
    cells = bytearray(hexes.SIZE)
    for spec in pieces:
        _place(cells, spec)
    for side in (WHITE, BLACK):
        owned = [code for code in cells if code and side_of(code) == side]
        if piece(side, FLAG) not in owned:
            raise SetupError(f"a position needs at least one {SIDES[side]} flag")
        papers = sum(height_of(code) for code in owned if kind_of(code) == PAPER)
        if papers > MAX_PAPERS:
            raise SetupError(
                f"{SIDES[side]} has {papers} Papers; a position may hold at most {MAX_PAPERS} "
                "Papers per side"
            )
    return bytes(cells)


def board_to_json(board: bytes) -> dict[str, str]:
    """Occupied cells only, in cell order: ``{"A1": "wS", ...}`` (docs/record-format.md)."""
    return {hexes.CELL_NAMES[cell]: token(code) for cell, code in enumerate(board) if code}


def board_from_json(data: Mapping[str, str]) -> bytes:
    cells = bytearray(hexes.SIZE)
    for name, text in data.items():
        cells[hexes.parse_cell(name)] = parse_token(str(text))
    return bytes(cells)
