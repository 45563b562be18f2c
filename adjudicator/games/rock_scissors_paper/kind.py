"""Rock, Scissors, Paper as one :class:`GameKind` (docs/rules/rock-scissors-paper.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.core.kind import Counts, GameKind, Measure, Vocabulary, counter
from adjudicator.games.rock_scissors_paper import pictures as rsp
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    KIND_NAMES,
    SIDES,
    board_from_json,
    height_of,
    kind_of,
    side_of,
)
from adjudicator.games.rock_scissors_paper.rules import RULES
from adjudicator.games.rock_scissors_paper.standin import stand_in
from adjudicator.pictures import board_after_last_move

TERMINATIONS = frozenset({"flag-captured", "forfeit", "no-legal-move", "repetition"})
PROBLEM_CODES = frozenset(
    {
        "bad-path",
        "bad-target",
        "blocked",
        "drop-count",
        "drop-total",
        "empty-cell",
        "empty-drop",
        "flag-cannot-move",
        "game-over",
        "lock-stops",
        "locked",
        "middle-cell",
        "no-move",
        "not-a-player",
        "not-a-stack",
        "not-in-line",
        "not-your-piece",
        "not-your-turn",
        "one-move-per-turn",
        "own-flag",
        "same-cell",
        "short-spread",
        "single-paper",
        "syntax",
        "too-far",
    }
)


def pieces_on_the_board(state: Mapping[str, Any], players: Sequence[str]) -> Counts:
    """Seat 0 plays White, seat 1 Black; a Paper stack counts its height, a Flag does not
    count (flags lost are their own measure)."""
    counts = dict.fromkeys(players[:2], 0)
    for code in board_from_json(state["board"]):
        if code and kind_of(code) != FLAG:
            counts[players[side_of(code)]] += height_of(code)
    return counts


def seat_position(view: Mapping[str, Any], _player: str) -> dict[str, Any]:
    """The player's side, their pieces by kind (a Paper stack counts its height) and the flags
    that end the game (docs/rules/rock-scissors-paper.md, "Setup" and "End of the game")."""
    side = view.get("side")
    pieces = {name.lower(): 0 for name in KIND_NAMES.values()}
    for code in board_from_json(view["board"]):
        if code and side is not None and SIDES[side_of(code)] == side:
            pieces[KIND_NAMES[kind_of(code)].lower()] += height_of(code)
    return {"side": side, "pieces": pieces, "flags": view.get("flags"), "to_move": view["to_move"]}


KIND = GameKind(
    name="rock-scissors-paper",
    title="Rock, Scissors, Paper",
    rules=RULES,
    vocabulary=Vocabulary(
        owners=SIDES,
        pieces=tuple(name.lower() for name in KIND_NAMES.values()),
        sides=SIDES,
    ),
    measures=(
        Measure("pieces", "Pieces on the board", pieces_on_the_board),
        Measure("flags_lost", "Flags lost", counter("flags_lost")),
    ),
    pictures=board_after_last_move(rsp.text_diagram, rsp.svg_diagram, rsp.position_words),
    stand_in=stand_in,
    seat_position=seat_position,
    text_diagram=rsp.text_diagram,
    seat_titles=("White", "Black"),  # docs/rules/rock-scissors-paper.md: the first seat is White
    terminations=TERMINATIONS,
    problem_codes=PROBLEM_CODES,
)
