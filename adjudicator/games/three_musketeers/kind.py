"""Three Musketeers as one :class:`GameKind` (docs/rules/three-musketeers.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.core.kind import Counts, GameKind, Measure, Solution, Vocabulary
from adjudicator.games.three_musketeers import pictures as tm
from adjudicator.games.three_musketeers.board import (
    CARDINAL,
    KIND_OF_SIDE,
    MAN,
    MUSKETEER,
    MUSKETEERS,
    SIDES,
    cells_from_rows,
)
from adjudicator.games.three_musketeers.hints import hint
from adjudicator.games.three_musketeers.rules import RULES
from adjudicator.games.three_musketeers.solution import (
    FILE_NAME,
    OLD_FILE_NAMES,
    SIZE,
    layered_game,
)
from adjudicator.games.three_musketeers.standin import install, stand_in
from adjudicator.pictures import board_after_last_move

TERMINATIONS = frozenset({"forfeit", "musketeers-in-line", "no-legal-move"})
PROBLEM_CODES = frozenset(
    {"game-over", "no-move", "not-a-player", "not-your-turn", "one-move-per-turn", "syntax"}
)


def pieces_on_the_board(state: Mapping[str, Any], players: Sequence[str]) -> Counts:
    """Seat 0 plays the Musketeers, seat 1 the Cardinal's men (docs/rules/three-musketeers.md)."""
    cells = cells_from_rows(state["board"])
    return {players[0]: cells.count(MUSKETEER), players[1]: cells.count(MAN)}


def seat_position(view: Mapping[str, Any], _player: str) -> dict[str, Any]:
    """The player's side and how many pieces each side has (docs/rules/three-musketeers.md,
    "Players and board": three Musketeers against the Cardinal's 22 men)."""
    cells = cells_from_rows(view["board"])
    side = view.get("side")
    counts = {MUSKETEERS: cells.count(MUSKETEER), CARDINAL: cells.count(MAN)}
    other = next((s for s in SIDES if s != side), None)
    return {
        "side": side,
        "pieces": counts.get(side or "", 0),
        "their_pieces": counts.get(other or "", 0),
        "to_move": view["to_move"],
    }


KIND = GameKind(
    name="three-musketeers",
    title="Three Musketeers",
    rules=RULES,
    vocabulary=Vocabulary(
        owners=SIDES, pieces=tuple(KIND_OF_SIDE[side] for side in SIDES), sides=SIDES
    ),
    measures=(Measure("pieces", "Pieces on the board", pieces_on_the_board),),
    pictures=board_after_last_move(tm.text_diagram, tm.svg_diagram, tm.position_words),
    stand_in=stand_in,
    seat_position=seat_position,
    hint=hint,
    solution=Solution(
        file_name=FILE_NAME,
        size=SIZE,
        game=layered_game,
        install=install,
        old_file_names=OLD_FILE_NAMES,
    ),
    text_diagram=tm.text_diagram,
    seat_titles=(
        "the Musketeers",
        "the Cardinal's men",
    ),  # docs/rules/three-musketeers.md: the first seat plays the Musketeers
    terminations=TERMINATIONS,
    problem_codes=PROBLEM_CODES,
)
