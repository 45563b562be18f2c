"""Drawing helpers shared by the games' pictures: charts as monospace text and as SVG.

Each game draws its own pictures (``adjudicator/games/<game>/pictures.py``) from its public
state and report, and offers them through its ``GameKind.pictures``; this package holds only
what is not about one game. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from adjudicator.core.kind import Picture

__all__ = ["Picture", "board_after_last_move"]


class Diagram(Protocol):
    def __call__(self, state: Mapping[str, Any], *, last_move: str | None = None) -> str: ...


def board_after_last_move(
    text_diagram: Diagram, svg_diagram: Diagram, words: Diagram
) -> Callable[[Mapping[str, Any], Mapping[str, Any]], list[Picture]]:
    """The pictures of a board game: one, the board after the round's move (the report's
    ``last_move``, marked on the board), as monospace text, as SVG and in words (where each
    piece stands). After the move that ended the game (the report's ``result``, its
    termination) no side is shown to move."""

    def pictures(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
        last = report.get("last_move")
        if report.get("result"):  # the move ended the game: nobody is to move any more
            state = {key: value for key, value in state.items() if key != "to_move"}
        title = "The board" + (f" after {last}" if last else "")
        text = text_diagram(state, last_move=last)
        svg = svg_diagram(state, last_move=last)
        return [Picture("board", title, text, svg, words(state, last_move=last))]

    return pictures
