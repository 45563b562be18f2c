"""Three Musketeers (docs/rules/three-musketeers.md): three Musketeers against the Cardinal's 22
men.

Sequential: a round is one move by the side to move. The package: :mod:`.board` holds
positions, move generation (:func:`legal_moves`, :func:`play`: the fast path), the end rules
and custom setups; :mod:`.orders` reads, writes and explains moves; :mod:`.rules` is the
``Rules`` object; :mod:`.kind`, :mod:`.pictures` and :mod:`.standin` as in every game, with
:mod:`.solution` (the game solved) and :mod:`.hints` after the game; its templates are in
``templates/``.

No position can occur twice in a game, so there is no repetition rule: every Musketeer move
captures a man, so the number of men drops by one every second move and never rises again.
"""

from __future__ import annotations

from adjudicator.games.three_musketeers.board import (
    CARDINAL,
    EMPTY,
    GRID,
    MAN,
    MUSKETEER,
    MUSKETEERS,
    SIDES,
    START_CELLS,
    Move,
    State,
    has_legal_move,
    legal_moves,
    musketeers_in_line,
    other_side,
    outcome,
    play,
    side_of,
)
from adjudicator.games.three_musketeers.orders import format_order, move_problem, parse_order
from adjudicator.games.three_musketeers.rules import RULES, ThreeMusketeers

__all__ = [
    "CARDINAL",
    "EMPTY",
    "GRID",
    "MAN",
    "MUSKETEER",
    "MUSKETEERS",
    "RULES",
    "SIDES",
    "START_CELLS",
    "Move",
    "State",
    "ThreeMusketeers",
    "format_order",
    "has_legal_move",
    "legal_moves",
    "move_problem",
    "musketeers_in_line",
    "other_side",
    "outcome",
    "parse_order",
    "play",
    "side_of",
]
