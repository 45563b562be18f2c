"""Rock, Scissors, Paper (Greg Lam, Pair-of-Dice Games, 2001) on the 61-cell hex board
(docs/rules/rock-scissors-paper.md). Sequential: White (first seat) against Black, one move a round.

The package: :mod:`.orders` reads and writes moves, :mod:`.board` holds pieces, positions and
the setup, :mod:`.moves` generates legal moves fast, :mod:`.legality` explains why a move is
illegal, :mod:`.apply` plays a move step by step and applies the end rules, and :mod:`.rules`
is the ``Rules`` object. :func:`legal_moves` and :func:`play` are the fast path for playouts.
:mod:`.kind`, :mod:`.pictures` and :mod:`.standin` as in every game; its templates are in
``templates/``. There are no hints after the game: no solution is known.
"""

from __future__ import annotations

from adjudicator.games.rock_scissors_paper.apply import apply_move, play
from adjudicator.games.rock_scissors_paper.board import BLACK, WHITE, Ending, State
from adjudicator.games.rock_scissors_paper.legality import move_problem
from adjudicator.games.rock_scissors_paper.moves import has_legal_move, legal_moves
from adjudicator.games.rock_scissors_paper.orders import Move, format_order, parse_order
from adjudicator.games.rock_scissors_paper.rules import RULES, RockScissorsPaper, outcome

__all__ = [
    "BLACK",
    "RULES",
    "WHITE",
    "Ending",
    "Move",
    "RockScissorsPaper",
    "State",
    "apply_move",
    "format_order",
    "has_legal_move",
    "legal_moves",
    "move_problem",
    "outcome",
    "parse_order",
    "play",
]
