"""Pictures of a Rock, Scissors, Paper position: a text diagram for plain-text mail and an SVG.

Both are pure functions of the public state (``board``: {cell: piece} with pieces such as
``wR``, ``bS``, ``wP3``; ``to_move``; ``flags_lost``) as given by ``public_state`` or
``player_view``. The last move (canonical ``B2-D2``, ``B2-C3-D3`` or ``C4-E4 1,2``) is read from
``last_move`` when present or passed explicitly; its cells are marked.

The board is drawn as on an Abalone board: row A (White's edge) at the bottom, row I at the
top, the diagonal numbers 1-5 under row A and 6-9 along the lower right edge.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from adjudicator.core import hexes
from adjudicator.core.kind import marked_move
from adjudicator.games.rock_scissors_paper.board import (
    BLACK,
    FLAG,
    PAPER,
    ROCK,
    SCISSORS,
    SIDE_NAMES,
    SIDES,
    WHITE,
    board_from_json,
    height_of,
    kind_of,
    side_of,
    token,
)
from adjudicator.games.rock_scissors_paper.orders import parse_order

_SIDE_NAME = dict(zip(SIDES, SIDE_NAMES, strict=True))


def _pieces(state: Mapping[str, Any]) -> dict[int, int]:
    """The board as {cell: piece code}, read by the game's own board reader (which refuses
    anything that is not a piece)."""
    board = board_from_json(state["board"])
    return {cell: code for cell, code in enumerate(board) if code}


def last_move_cells(
    state: Mapping[str, Any], last_move: str | None = None
) -> tuple[int, list[int]] | None:
    """The last move's origin and the cells it went to or through: the middle cell and target
    of a Scissors, every cell of a spread, the target of anything else. ``None`` if no move."""
    move = marked_move(state, last_move, parse_order, "Rock, Scissors, Paper")
    if move is None:
        return None
    if move.drops:  # a spread: every cell from the origin to the target
        line = hexes.line_between(move.origin, move.target)
        if line is not None:
            return move.origin, list(hexes.RAYS[move.origin][line[0]][: line[1]])
    return move.origin, [c for c in (move.via, move.target) if c is not None]


def _caption(state: Mapping[str, Any], last_move: str | None) -> list[str]:
    notes = []
    move = last_move if last_move is not None else state.get("last_move")
    if move:
        notes.append(f"last move {move}")
    if state.get("to_move") in _SIDE_NAME:
        notes.append(f"{_SIDE_NAME[state['to_move']]} to move")
    lost = state.get("flags_lost")
    if isinstance(lost, Mapping) and lost:
        notes.append("flags lost: " + ", ".join(f"{p} {n}" for p, n in lost.items()))
    return notes


def position_words(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """The position in sentences, for a reader who cannot see the diagram: each side's
    pieces by kind with their cells (a Paper stack with its height), then the last move, the
    side to move and the flags lost."""
    pieces = _pieces(state)
    sentences = []
    for side in (WHITE, BLACK):
        kinds = []
        for kind in (FLAG, ROCK, SCISSORS, PAPER):
            cells = [
                hexes.cell_name(cell)
                + (f" ({height_of(code)} high)" if height_of(code) > 1 else "")
                for cell, code in sorted(pieces.items())
                if side_of(code) == side and kind_of(code) == kind
            ]
            if cells:
                kinds.append(f"{_KIND_PLURAL[kind]} on {', '.join(cells)}")
        sentences.append(f"{SIDE_NAMES[side]}: {'; '.join(kinds) or 'no piece'}.")
    notes = "; ".join(_caption(state, last_move))
    if notes:
        sentences.append(notes[0].upper() + notes[1:] + ".")
    return " ".join(sentences)


_KIND_PLURAL = {FLAG: "Flags", ROCK: "Rocks", SCISSORS: "Scissors", PAPER: "Papers"}


# --- text --------------------------------------------------------------------------------

_PITCH = 3  # characters per half-cell: neighbours in a row are 6 characters apart
_LEFT = 10  # characters left of the column of E1


def _text_column(column: int) -> int:
    return _LEFT + (column + 2) * _PITCH


def text_diagram(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """A monospace diagram, row I at the top. The last move's origin is in ``( )``, the cells
    it went to in ``[ ]``::

                   I  bS    bF    bR    bF    bS
                ...
          E   .     .     .     .     .     .     .     .     .
                ...
                   A  wS    wF    wR    wF    wS  6
                       1     2     3     4     5
    """
    pieces = _pieces(state)
    marked = last_move_cells(state, last_move)
    origin, targets = marked if marked else (None, [])
    width = _text_column(16) + 3
    lines: list[str] = []
    for row in range(8, -2, -1):
        chars = [" "] * width
        first, last = hexes.row_range(row) if row >= 0 else (1, 5)
        if row >= 0:
            _put(chars, _text_column(2 * (first - 1) - row), hexes.ROW_LETTERS[row])
            for diagonal in range(first, last + 1):
                cell = hexes.cell(row, diagonal)
                text = token(pieces[cell]) if cell in pieces else "."
                if cell == origin:
                    text = f"({text})"
                elif cell in targets:
                    text = f"[{text}]"
                _put(chars, _text_column(hexes.column(cell)), text)
        # Diagonal numbers below the lowest cell of each diagonal: 1-5 under row A, 6-9 at the
        # right end of rows A-D.
        for diagonal in range(1, 10):
            if max(-1, diagonal - 6) == row:
                _put(chars, _text_column(2 * diagonal - row), str(diagonal))
        lines.append("".join(chars).rstrip())
        if row > -1:
            lines.append("")
    lines.append("")
    lines.append("w White, b Black; F Flag, R Rock, S Scissors, P Paper (P3: a stack of 3)")
    notes = _caption(state, last_move)
    if marked:
        notes.insert(1, "from ( ) to [ ]")
    if notes:
        lines.append("; ".join(notes))
    return "\n".join(lines) + "\n"


def _put(chars: list[str], centre: int, text: str) -> None:
    start = centre - (len(text) - 1) // 2
    chars[start : start + len(text)] = list(text)


# --- SVG ---------------------------------------------------------------------------------

_R = 30.0  # hexagon radius (centre to corner)
_W = math.sqrt(3) * _R  # hexagon width (flat side to flat side)
_MARGIN = 46.0
_BOARD_WIDTH = 9 * _W
_BOARD_HEIGHT = 8 * 1.5 * _R + 2 * _R
_SVG_WIDTH = _BOARD_WIDTH + 2 * _MARGIN
_SVG_HEIGHT = _BOARD_HEIGHT + 2 * _MARGIN + 26
_COLOURS = {WHITE: ("#f7f1e1", "#4a3b22"), BLACK: ("#2d3142", "#e9e4d4")}  # (body, ink)
_CELL_FILL = ("#dcc9a0", "#e8d9b5", "#cfb98b")
_FROM, _TO, _ARROW = "#f3e08a", "#f5c542", "#2f6b3a"


def _centre(cell: int) -> tuple[float, float]:
    x = _MARGIN + _W / 2 + (hexes.column(cell) + 2) * _W / 2
    y = _MARGIN + _R + (8 - hexes.row_of(cell)) * 1.5 * _R
    return x, y


def _hexagon(x: float, y: float, radius: float) -> str:
    corners = (
        (x + radius * math.cos(math.radians(a)), y + radius * math.sin(math.radians(a)))
        for a in range(30, 390, 60)
    )
    return " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in corners)


def _flag(x: float, y: float, body: str, ink: str) -> str:
    return (
        f'<g class="flag"><line x1="{x - 9:.1f}" y1="{y - 15:.1f}" x2="{x - 9:.1f}" '
        f'y2="{y + 15:.1f}" stroke="{ink}" stroke-width="3" stroke-linecap="round"/>'
        f'<path d="M{x - 8:.1f},{y - 15:.1f} L{x + 14:.1f},{y - 8:.1f} L{x - 8:.1f},{y - 1:.1f} z"'
        f' fill="{body}" stroke="{ink}" stroke-width="2" stroke-linejoin="round"/></g>'
    )


def _rock(x: float, y: float, body: str, ink: str) -> str:
    points = ((-15, 4), (-11, -9), (-2, -14), (10, -11), (16, -1), (12, 11), (-1, 14), (-12, 11))
    path = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in points)
    return (
        f'<polygon class="rock" points="{path}" fill="{body}" stroke="{ink}" '
        'stroke-width="2.5" stroke-linejoin="round"/>'
    )


def _scissors(x: float, y: float, body: str, ink: str) -> str:
    blades = (
        f'<line x1="{x - 7:.1f}" y1="{y + 6:.1f}" x2="{x + 11:.1f}" y2="{y - 15:.1f}"/>'
        f'<line x1="{x + 7:.1f}" y1="{y + 6:.1f}" x2="{x - 11:.1f}" y2="{y - 15:.1f}"/>'
    )
    rings = (
        f'<circle cx="{x - 8:.1f}" cy="{y + 10:.1f}" r="5.5"/>'
        f'<circle cx="{x + 8:.1f}" cy="{y + 10:.1f}" r="5.5"/>'
    )
    return (
        f'<g class="scissors"><circle cx="{x:.1f}" cy="{y:.1f}" r="19" fill="{body}" '
        f'stroke="{ink}" stroke-width="1.5"/><g stroke="{ink}" stroke-width="3.2" '
        f'stroke-linecap="round" fill="none">{blades}{rings}</g></g>'
    )


def _paper(x: float, y: float, body: str, ink: str, height: int) -> str:
    sheets = []
    for layer in range(min(height, 4) - 1, -1, -1):
        dx, dy = x - 11 + 3 * layer, y - 14 - 3 * layer
        sheets.append(
            f'<path d="M{dx:.1f},{dy:.1f} h16 l6,6 v22 h-22 z" fill="{body}" stroke="{ink}" '
            'stroke-width="1.8" stroke-linejoin="round"/>'
        )
    fold_x, fold_y = x + 5, y - 14
    sheets.append(
        f'<path d="M{fold_x:.1f},{fold_y:.1f} v6 h6" fill="none" stroke="{ink}" '
        'stroke-width="1.5"/>'
    )
    if height > 1:
        sheets.append(
            f'<circle cx="{x + 13:.1f}" cy="{y + 12:.1f}" r="9" fill="#b3262b" stroke="#fff" '
            f'stroke-width="1.5"/><text x="{x + 13:.1f}" y="{y + 16.5:.1f}" font-size="13" '
            f'font-weight="bold" fill="#fff" text-anchor="middle">{height}</text>'
        )
    return f'<g class="paper">{"".join(sheets)}</g>'


def _piece(x: float, y: float, code: int) -> str:
    body, ink = _COLOURS[side_of(code)]
    kind = kind_of(code)
    if kind == FLAG:
        return _flag(x, y, body, ink)
    if kind == ROCK:
        return _rock(x, y, body, ink)
    if kind == SCISSORS:
        return _scissors(x, y, body, ink)
    return _paper(x, y, body, ink, height_of(code))


def svg_diagram(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """A standalone SVG picture: hex cells, coordinates, pieces (Flag, Rock, Scissors, Paper
    sheets with the stack height in a red badge) in the side's colours, and the last move's
    cells highlighted with an arrow from its origin to where it went."""
    pieces = _pieces(state)
    marked = last_move_cells(state, last_move)
    notes = _caption(state, last_move)
    title = "Rock, Scissors, Paper" + (": " + "; ".join(notes) if notes else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_SVG_WIDTH:.0f}" '
        f'height="{_SVG_HEIGHT:.0f}" viewBox="0 0 {_SVG_WIDTH:.0f} {_SVG_HEIGHT:.0f}" '
        'font-family="DejaVu Sans, Verdana, sans-serif">',
        f"<title>{escape(title)}</title>",
        '<defs><marker id="head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" '
        f'markerHeight="3.2" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{_ARROW}"/>'
        "</marker></defs>",
        f'<rect width="{_SVG_WIDTH:.0f}" height="{_SVG_HEIGHT:.0f}" fill="#fbf7ee"/>',
        f'<polygon points="{_hexagon(*_centre(hexes.parse_cell("E5")), 5 * _W + 10)}" '
        f'transform="rotate(30 {_centre(hexes.parse_cell("E5"))[0]:.1f} '
        f'{_centre(hexes.parse_cell("E5"))[1]:.1f})" fill="#8a5a2b"/>',
    ]
    parts += _cells(marked)
    parts += _coordinates()
    for cell, piece in sorted(pieces.items()):
        parts.append(_piece(*_centre(cell), piece))
    if marked:
        parts.append(_arrow(marked[0], marked[1][-1]))
    if notes:
        parts.append(
            f'<text x="{_SVG_WIDTH / 2:.1f}" y="{_SVG_HEIGHT - 12:.1f}" font-size="15" '
            f'fill="#4a3b22" text-anchor="middle">{escape("; ".join(notes))}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _cells(marked: tuple[int, list[int]] | None) -> list[str]:
    parts = []
    for cell in range(hexes.SIZE):
        x, y = _centre(cell)
        row, diagonal = hexes.COORDINATES[cell]
        fill = _CELL_FILL[(row + diagonal) % 3]
        if marked and cell == marked[0]:
            fill = _FROM
        elif marked and cell in marked[1]:
            fill = _TO
        parts.append(
            f'<polygon class="cell" points="{_hexagon(x, y, _R - 1)}" fill="{fill}" '
            'stroke="#8a5a2b" stroke-width="1.5"/>'
        )
    return parts


def _coordinates() -> list[str]:
    """Row letters left of each row; diagonal numbers below the lowest cell of each diagonal."""
    style = 'font-size="15" font-weight="bold" fill="#f6ead0" text-anchor="middle"'
    parts = []
    for row in range(9):
        first, _ = hexes.row_range(row)
        x, y = _centre(hexes.cell(row, first))
        parts.append(
            f'<text x="{x - _W:.1f}" y="{y + 5:.1f}" {style}>{hexes.ROW_LETTERS[row]}</text>'
        )
    for diagonal in range(1, 10):
        lowest = hexes.cell(max(0, diagonal - 5), diagonal)
        x, y = _centre(lowest)
        parts.append(
            f'<text x="{x + _W / 2:.1f}" y="{y + 1.5 * _R + 5:.1f}" {style}>{diagonal}</text>'
        )
    return parts


def _arrow(origin: int, target: int) -> str:
    (x1, y1), (x2, y2) = _centre(origin), _centre(target)
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    x2, y2 = x2 - (x2 - x1) / length * 14, y2 - (y2 - y1) / length * 14
    return (
        f'<line class="last-move" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{_ARROW}" stroke-width="6" stroke-linecap="round" opacity="0.8" '
        'marker-end="url(#head)"/>'
    )
