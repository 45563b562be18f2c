"""Pictures of a Three Musketeers position: a text diagram for plain-text mail and an SVG.

Both are pure functions of the public state (``board``: five strings, rank 5 first, ``M`` a
Musketeer, ``C`` a man, ``.`` empty; ``to_move``) as given by ``public_state`` or
``player_view``; the last move (canonical ``a1-a2``) is read from ``last_move`` when present or
passed explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from adjudicator.core.kind import marked_move
from adjudicator.games.three_musketeers.board import (
    CARDINAL,
    EMPTY,
    GRID,
    MAN,
    MUSKETEER,
    MUSKETEERS,
    board_rows,
    cells_from_rows,
)
from adjudicator.games.three_musketeers.orders import parse_order

_GRID = GRID
_FILES = "abcde"
_TEXT_PIECE = {MUSKETEER: "M", MAN: "o", EMPTY: " "}
_SIDE_NAME = {MUSKETEERS: "Musketeers", CARDINAL: "Cardinal"}


def _rows(state: Mapping[str, Any]) -> list[str]:
    """The board rows, rank 5 first, read by the game's own board reader."""
    return board_rows(cells_from_rows(state["board"]))


def _last_move_squares(state: Mapping[str, Any], last_move: str | None) -> tuple[str, str] | None:
    """``(origin, target)`` as square names, e.g. ``("c3", "c4")``, or ``None``."""
    move = marked_move(state, last_move, parse_order, "Three Musketeers")
    if move is None:
        return None
    return _GRID.square_name(move.origin), _GRID.square_name(move.target)


def _square_at(row_index: int, file_index: int) -> str:
    """The name of the square drawn in row ``row_index`` (0 is rank 5) and column ``file_index``."""
    return f"{_FILES[file_index]}{5 - row_index}"


def text_diagram(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """An ASCII diagram with coordinates; the last move's squares are in brackets::

        a   b   c   d   e
      +---+---+---+---+---+
    5 | o | o | o | o | M | 5
    ...
    """
    rows = _rows(state)
    marked = _last_move_squares(state, last_move)
    files = "     " + "   ".join(_FILES)
    rule = "   +" + "---+" * 5
    lines = [files, rule]
    for row_index, row in enumerate(rows):
        cells = []
        for file_index, piece in enumerate(row):
            symbol = _TEXT_PIECE[piece]
            if marked and _square_at(row_index, file_index) in marked:
                cells.append(f"[{symbol}]")
            else:
                cells.append(f" {symbol} ")
        rank = 5 - row_index
        lines += [f" {rank} |" + "|".join(cells) + f"| {rank}", rule]
    lines.append(files)
    lines.append("M Musketeer   o Cardinal's man")
    notes = []
    if marked:
        notes.append(f"last move {marked[0]}-{marked[1]} in [ ]")
    if state.get("to_move") in _SIDE_NAME:
        notes.append(f"{_SIDE_NAME[state['to_move']]} to move")
    if notes:
        lines.append("; ".join(notes))
    return "\n".join(lines) + "\n"


def position_words(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """The position in sentences, for a reader who cannot see the diagram: where the
    Musketeers stand, where the Cardinal's men stand (or, when fewer squares are empty, which
    squares are), the last move and the side to move."""
    squares: dict[str, list[str]] = {MUSKETEER: [], MAN: [], EMPTY: []}
    for row_index, row in enumerate(_rows(state)):
        for file_index, piece in enumerate(row):
            squares[piece].append(_square_at(row_index, file_index))
    ordered = {piece: sorted(names) for piece, names in squares.items()}
    sentences = [f"Musketeers on {', '.join(ordered[MUSKETEER])}."]
    men, empty = ordered[MAN], ordered[EMPTY]
    if len(men) <= len(empty):
        sentences.append(f"The Cardinal's men ({len(men)}) on {', '.join(men) or 'no square'}.")
    else:
        sentences.append(
            f"The Cardinal's men ({len(men)}) on every other square"
            + (f" but the empty {', '.join(empty)}." if empty else ".")
        )
    marked = _last_move_squares(state, last_move)
    if marked:
        sentences.append(f"Last move {marked[0]}-{marked[1]}.")
    if state.get("to_move") in _SIDE_NAME:
        sentences.append(f"{_SIDE_NAME[state['to_move']]} to move.")
    return " ".join(sentences)


# --- SVG ---------------------------------------------------------------------------------

_CELL = 64
_MARGIN = 36
_SIZE = 5 * _CELL + 2 * _MARGIN
_LIGHT, _DARK = "#f1e3c2", "#e2cc9c"
_HIGHLIGHT = "#f5d547"
_ARROW = "#2f6b3a"
_INK = "#5b4526"


def _centre(square: str) -> tuple[int, int]:
    file_index = _FILES.index(square[0])
    row_index = 5 - int(square[1:])
    return (_MARGIN + file_index * _CELL + _CELL // 2, _MARGIN + row_index * _CELL + _CELL // 2)


def _musketeer(x: int, y: int) -> str:
    """A blue tabard disc with a gold border and a gold cross."""
    arm, width = 13, 6
    return (
        f'<g class="musketeer">'
        f'<circle cx="{x}" cy="{y + 2}" r="24" fill="#000" fill-opacity="0.18"/>'
        f'<circle cx="{x}" cy="{y}" r="24" fill="#25467f" stroke="#d4a72c" stroke-width="3"/>'
        f'<rect x="{x - width // 2}" y="{y - arm}" width="{width}" height="{2 * arm}" '
        f'fill="#e9c25a"/>'
        f'<rect x="{x - arm}" y="{y - width // 2}" width="{2 * arm}" height="{width}" '
        f'fill="#e9c25a"/></g>'
    )


def _man(x: int, y: int) -> str:
    """A red disc, the Cardinal's guard colour."""
    return (
        f'<g class="man"><circle cx="{x}" cy="{y + 2}" r="19" fill="#000" fill-opacity="0.18"/>'
        f'<circle cx="{x}" cy="{y}" r="19" fill="#b3262b" stroke="#5e0f12" stroke-width="2"/>'
        f'<circle cx="{x - 5}" cy="{y - 6}" r="6" fill="#fff" fill-opacity="0.22"/></g>'
    )


def _arrow(origin: str, target: str) -> str:
    (x1, y1), (x2, y2) = _centre(origin), _centre(target)
    # Stop short of the target's centre so that the head sits on the piece's rim.
    dx, dy = (x2 - x1) // _CELL, (y2 - y1) // _CELL
    x2, y2 = x2 - dx * 20, y2 - dy * 20
    return (
        f'<line class="last-move" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{_ARROW}" '
        'stroke-width="7" stroke-linecap="round" opacity="0.85" marker-end="url(#head)"/>'
    )


def svg_diagram(state: Mapping[str, Any], *, last_move: str | None = None) -> str:
    """A standalone SVG picture: board, coordinates, pieces, last move highlighted with an
    arrow from its origin to its target."""
    rows = _rows(state)
    marked = _last_move_squares(state, last_move)
    title = "Three Musketeers"
    if state.get("to_move") in _SIDE_NAME:
        title += f", {_SIDE_NAME[state['to_move']]} to move"
    if marked:
        title += f", last move {marked[0]}-{marked[1]}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_SIZE}" height="{_SIZE}" '
        f'viewBox="0 0 {_SIZE} {_SIZE}" font-family="DejaVu Sans, Verdana, sans-serif">',
        f"<title>{escape(title)}</title>",
        '<defs><marker id="head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" '
        f'markerHeight="3.2" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{_ARROW}"/>'
        "</marker></defs>",
        f'<rect width="{_SIZE}" height="{_SIZE}" rx="14" fill="#8a5a2b"/>',
        f'<rect x="6" y="6" width="{_SIZE - 12}" height="{_SIZE - 12}" rx="10" fill="#f8efd9"/>',
    ]
    parts += _squares(marked)
    parts += _coordinates()
    for row_index, row in enumerate(rows):
        for file_index, piece in enumerate(row):
            x, y = _centre(_square_at(row_index, file_index))
            if piece == MUSKETEER:
                parts.append(_musketeer(x, y))
            elif piece == MAN:
                parts.append(_man(x, y))
    if marked:
        parts.append(_arrow(*marked))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _squares(marked: Sequence[str] | None) -> list[str]:
    parts = []
    for row_index in range(5):
        for file_index in range(5):
            square = _square_at(row_index, file_index)
            fill = _LIGHT if (row_index + file_index) % 2 == 0 else _DARK
            x, y = _MARGIN + file_index * _CELL, _MARGIN + row_index * _CELL
            parts.append(f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" fill="{fill}"/>')
            if marked and square in marked:
                parts.append(
                    f'<rect class="highlight" x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" '
                    f'fill="{_HIGHLIGHT}" fill-opacity="0.6"/>'
                )
    side = 5 * _CELL
    parts.append(
        f'<rect x="{_MARGIN}" y="{_MARGIN}" width="{side}" height="{side}" fill="none" '
        f'stroke="{_INK}" stroke-width="2"/>'
    )
    return parts


def _coordinates() -> list[str]:
    parts = []
    style = f'font-size="15" fill="{_INK}" text-anchor="middle"'
    for index in range(5):
        x = _MARGIN + index * _CELL + _CELL // 2
        y = _MARGIN + index * _CELL + _CELL // 2 + 5
        for pos in (_MARGIN - 12, _SIZE - _MARGIN + 22):
            parts.append(f'<text x="{x}" y="{pos}" {style}>{_FILES[index]}</text>')
        for pos in (_MARGIN // 2 + 1, _SIZE - _MARGIN // 2 - 1):
            parts.append(f'<text x="{pos}" y="{y}" {style}>{5 - index}</text>')
    return parts
