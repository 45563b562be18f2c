"""Playing a legal move: its steps in order, what they capture, and how the game ends
(docs/rules/rock-scissors-paper.md).

A move is played step by step on a working copy of the board, and every step is recorded as an
event (plain data for the report). A Paper's path is entered cell by cell; the end rules are
applied after the step that captures a flag (our decision: once the game is over, the rest of
the move is not played).
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.core.game import JSON
from adjudicator.core.hexes import CELL_NAMES, NEIGHBOURS, RAYS, STEPS, line_between
from adjudicator.games.rock_scissors_paper.board import (
    FLAG,
    PAPER,
    ROCK,
    SCISSORS,
    SIDES,
    Ending,
    State,
    height_of,
    kind_of,
    piece,
    position_key,
    side_of,
    token,
)
from adjudicator.games.rock_scissors_paper.moves import has_legal_move
from adjudicator.games.rock_scissors_paper.orders import Move

Event = dict[str, JSON]


class _Play:
    """The working copy of one move being played."""

    def __init__(self, state: State) -> None:
        self.cells = bytearray(state.board)
        self.flags_lost = list(state.flags_lost)
        self.flags = state.flags
        self.events: list[Event] = []
        self.loser: int | None = None

    def event(self, name: str, **data: JSON) -> None:
        self.events.append({"event": name, **data})

    def capture_flag(self, cell: int, by: int) -> None:
        """A flag is captured by an enemy piece ending on it or a friendly piece forced onto
        it: its owner loses it all the same. One-flag game: the first flag captured ends the
        game and its owner loses; two-flag game: a player who has lost both flags loses (our
        decision for custom positions: or every flag they had)."""
        owner = side_of(self.cells[cell])
        self.cells[cell] = by
        self.flags_lost[owner] += 1
        self.event("flag-captured", cell=CELL_NAMES[cell], owner=SIDES[owner], by=token(by))
        if self.loser is None and (
            self.flags_lost[owner] >= self.flags or piece(owner, FLAG) not in self.cells
        ):
            self.loser = owner

    def end_on(self, origin: int, target: int) -> None:
        """A Rock or a Scissors goes from ``origin`` to end on ``target``: an enemy piece there
        is captured (a Flag with the flag rules) and the mover stands on the cell."""
        mover = self.cells[origin]
        self.cells[origin] = 0
        code = self.cells[target]
        if code and kind_of(code) == FLAG:
            self.capture_flag(target, mover)
        elif code:
            self.event("captured", piece=token(code), cell=CELL_NAMES[target])
        self.cells[target] = mover

    def cut(self, cell: int, side: int) -> bool:
        """Scissors cut Papers: a cell holding or next to an enemy Scissors, locked or not."""
        scissors = piece(side ^ 1, SCISSORS)
        cells = self.cells
        return cells[cell] == scissors or any(cells[n] == scissors for n in NEIGHBOURS[cell])

    def knock_back(self, cell: int, direction: int) -> None:
        """Papers landing on an enemy Rock push it one cell further along their direction of
        travel: into an empty cell it moves; onto a Flag of either side it moves and captures
        it; otherwise (edge, any other piece) it is covered and removed."""
        rock = self.cells[cell]
        beyond = STEPS[cell][direction]
        self.cells[cell] = 0
        if beyond is not None and self.cells[beyond] == 0:
            self.cells[beyond] = rock
            self.event(
                "knocked_back", piece=token(rock), cell=CELL_NAMES[cell], to=CELL_NAMES[beyond]
            )
        elif beyond is not None and kind_of(self.cells[beyond]) == FLAG:
            self.event(
                "knocked_back", piece=token(rock), cell=CELL_NAMES[cell], to=CELL_NAMES[beyond]
            )
            self.capture_flag(beyond, rock)
        else:
            self.event("covered", piece=token(rock), cell=CELL_NAMES[cell])

    def land(self, cell: int, side: int, count: int, direction: int) -> None:
        """``count`` Papers come down on ``cell``: they join a friendly Paper, knock back an
        enemy Rock, capture a Flag or simply settle on an empty cell."""
        code = self.cells[cell]
        if code and kind_of(code) == PAPER:
            count += height_of(code)
            self.event("joined", cell=CELL_NAMES[cell], height=count)
        elif code and kind_of(code) == ROCK:
            self.knock_back(cell, direction)
        elif code and kind_of(code) == FLAG:
            self.capture_flag(cell, piece(side, PAPER, count))
        self.cells[cell] = piece(side, PAPER, count)


def _papers(play: _Play, move: Move, side: int) -> None:
    """Float or spread. Every cell on the path is entered in turn, floated-over cells included;
    a Paper entering a cut cell is destroyed at once with every Paper still carried, and the
    move ends there (before it joins, knocks back or captures anything on that cell)."""
    carried = height_of(play.cells[move.origin])
    play.cells[move.origin] = 0
    found = line_between(move.origin, move.target)
    if found is None:
        raise ValueError(f"not a legal Paper move: {move}")
    direction, length = found
    path = RAYS[move.origin][direction][:length]
    for step, cell in enumerate(path):
        if play.cut(cell, side):
            play.event("cut", cell=CELL_NAMES[cell], papers=carried)
            return
        if move.drops:
            play.land(cell, side, move.drops[step], direction)
            carried -= move.drops[step]
            if play.loser is not None:
                return
    if not move.drops:
        play.land(move.target, side, carried, direction)


def _scissors(play: _Play, move: Move, side: int) -> None:
    """The Scissors ends on the target: it cuts an enemy Paper stack or captures an enemy Flag,
    and locks with every enemy Scissors next to it that it was not locked with."""
    cells, origin, target = play.cells, move.origin, move.target
    play.end_on(origin, target)
    enemy = piece(side ^ 1, SCISSORS)
    for n in NEIGHBOURS[target]:
        if cells[n] == enemy and n not in NEIGHBOURS[origin]:
            play.event("locked", cells=[CELL_NAMES[target], CELL_NAMES[n]])


def _rock(play: _Play, move: Move) -> None:
    """The Rock ends on the target, crushing an enemy Scissors or capturing an enemy Flag."""
    play.end_on(move.origin, move.target)


def apply_move(state: State, move: Move) -> tuple[State, list[Event]]:
    """The position after the legal ``move`` (not checked here) and the events of its steps.

    End rules, in order: a flag loss that loses the game (during the move); the same position
    with the same side to move for the third time (draw); the side to move has no legal move
    (it loses).
    """
    play = _Play(state)
    side = state.turn
    kind = kind_of(state.board[move.origin])
    if kind == ROCK:
        _rock(play, move)
    elif kind == SCISSORS:
        _scissors(play, move, side)
    else:
        _papers(play, move, side)
    board = bytes(play.cells)
    turn = side ^ 1
    key = position_key(board, turn)
    after = replace(
        state,
        board=board,
        turn=turn,
        flags_lost=(play.flags_lost[0], play.flags_lost[1]),
        history=(*state.history, key),
        last_move=move,
    )
    ending = None
    if play.loser is not None:
        ending = Ending("flag-captured", play.loser)
    elif after.history.count(key) >= 3:
        ending = Ending("repetition", None)
    elif not has_legal_move(after):
        ending = Ending("no-legal-move", turn)
    return (replace(after, ending=ending) if ending else after), play.events


def play(state: State, move: Move) -> State:
    """The position after the legal ``move`` (not checked here): the fast path for playouts."""
    return apply_move(state, move)[0]
