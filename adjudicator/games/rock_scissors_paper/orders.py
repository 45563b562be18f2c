"""Orders of Rock, Scissors, Paper: reading and writing them (docs/rules/rock-scissors-paper.md,
Orders).

Canonical forms: ``B2-D2`` (a piece or a whole stack from B2 to D2), ``B2-C3-D3`` (a Scissors
that turns, with its middle cell), ``C4-E4 1,2`` (a spread: the Papers dropped on each cell in
turn, starting next to C4). Accepted variants: any case, extra spaces, ``x``, ``to``, ``→``,
``->``, a space or a comma between the cells, a leading ``move``, ``spread`` or ``float``,
counts separated by commas, spaces or slashes, optionally after a colon or in brackets.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from adjudicator.core import hexes
from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.text import normalise_line


class Move(NamedTuple):
    """One move: the piece or stack on ``origin`` goes to ``target``.

    ``via`` is the middle cell a turning Scissors names (optional); ``drops`` are the counts of
    a spread, one per cell from the one next to ``origin`` up to ``target`` (empty for any other
    move).
    """

    origin: int
    target: int
    via: int | None = None
    drops: tuple[int, ...] = ()

    def __str__(self) -> str:
        cells = [self.origin] if self.via is None else [self.origin, self.via]
        text = "-".join(hexes.CELL_NAMES[c] for c in [*cells, self.target])
        return f"{text} {','.join(map(str, self.drops))}" if self.drops else text


EXAMPLES = "write a move as B2-D2, B2-C3-D3 (a Scissors that turns) or C4-E4 1,2 (a spread)"

_ATTEMPT = re.compile(r"(?:(?:move|spread|float)\b\W*)?[a-z][0-9]|pass\b", re.ASCII)
_SEP = r"\s*(?:-+>?|=>|→|–|—|x|×|to\b|,|\s)\s*"
_CELL = r"[a-z][0-9]{1,3}"
_MOVE = re.compile(
    r"(?:(?:move|spread|float)\b:?\s*)?"
    rf"(?P<origin>{_CELL}){_SEP}(?P<second>{_CELL})(?:{_SEP}(?P<third>{_CELL}))?"
    r"(?:\s*[:(\[]?\s*(?P<drops>[0-9]{1,3}(?:\s*[,/+\s]\s*[0-9]{1,3})*)\s*[)\]]?)?\Z",
    re.ASCII,
)


def _cell(text: str) -> int:
    try:
        return hexes.parse_cell(text)
    except hexes.InvalidCell as error:
        raise OrderSyntaxError(str(error), suggestion=hexes.NAMING_HINT) from None


def parse_order(text: str) -> Move:
    """``B2-D2``, ``b2 to d2``, ``B2xD2``, ``move b2 d2``, ``B2-C3-D3``, ``C4-E4 1,2`` ->
    :class:`Move`. Raises :class:`NotAnOrder` for chatter, :class:`OrderSyntaxError` for a
    line that looks like a move but cannot be read."""
    line = normalise_line(text).lower()
    if not _ATTEMPT.match(line):
        raise NotAnOrder(f"{text!r} is not a Rock, Scissors, Paper move")
    if line.startswith("pass"):
        raise OrderSyntaxError("passing is not allowed: you must move a piece or a stack")
    match = _MOVE.match(line)
    if match is None:
        raise OrderSyntaxError(
            f"cannot read {normalise_line(text)!r} as a move", suggestion=EXAMPLES
        )
    origin, second = _cell(match["origin"]), _cell(match["second"])
    via, target = (None, second) if match["third"] is None else (second, _cell(match["third"]))
    drops: tuple[int, ...] = ()
    if match["drops"]:
        drops = tuple(int(n) for n in re.split(r"[,/+\s]+", match["drops"].strip()))
        if via is not None:
            raise OrderSyntaxError(
                "a spread goes along a straight line: give its first and last cells only, "
                "then the counts",
                suggestion=f"{hexes.CELL_NAMES[origin]}-{hexes.CELL_NAMES[target]} "
                + ",".join(map(str, drops)),
            )
    return Move(origin, target, via, drops)


def format_order(move: Move) -> str:
    return str(move)
