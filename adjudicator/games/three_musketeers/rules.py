"""The ``Rules`` object of Three Musketeers (docs/rules/three-musketeers.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from adjudicator.core.errors import SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Setup, move_report
from adjudicator.core.options import choice_option, resolve_options
from adjudicator.games.three_musketeers.board import (
    GRID,
    MUSKETEER,
    MUSKETEERS,
    START_CELLS,
    Move,
    State,
    board_rows,
    cells_from_pieces,
    cells_from_rows,
    legal_moves,
    outcome,
    parse_side,
    play,
    side_of,
)
from adjudicator.games.three_musketeers.orders import (
    check_moves,
    format_order,
    move_problem,
    parse_order,
)


class ThreeMusketeers:
    """The :class:`~adjudicator.core.game.Rules` of Three Musketeers."""

    name: str = "three-musketeers"
    sequential: bool = True
    min_players: int = 2
    max_players: int | None = 2
    option_defaults: Mapping[str, str] = {"timeout": "forfeit"}

    def start(self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup) -> State:
        if len(players) != 2 or players[0].lower() == players[1].lower():
            raise SetupError(
                "Three Musketeers needs two different players (Musketeers, then Cardinal); "
                f"got {', '.join(players) or 'none'}"
            )
        choice_option(resolve_options(options, self.option_defaults), "timeout", ("forfeit",))
        if setup.colours or setup.start:
            raise SetupError("Three Musketeers has no colours and no counters to set")
        cells = cells_from_pieces(setup.pieces) if setup.pieces else START_CELLS
        turn = parse_side(setup.to_move, "to-move") if setup.to_move else MUSKETEERS
        state = State((players[0], players[1]), cells, turn)
        ended = outcome(state)
        if ended is not None:
            # Our decision: a position that is already decided is a mistake in the record.
            raise SetupError(
                f"this position is already over before the first move ({ended.termination})"
            )
        return state

    def parse_order(self, text: str) -> Move:
        return parse_order(text)

    def format_order(self, order: Move) -> str:
        return format_order(order)

    def check(self, state: State, player: str, lines: Sequence[str]) -> Checked[Move]:
        return check_moves(state, player, lines)

    def to_move(self, state: State) -> tuple[str, ...]:
        return () if outcome(state) is not None else (state.player_of(state.turn),)

    def resolve(self, state: State, orders: Mapping[str, Sequence[Move]]) -> Resolution[State]:
        if outcome(state) is not None:
            raise ValueError("the game is over")
        mover = state.player_of(state.turn)
        moves = orders.get(mover, ())
        if not moves:
            # NMR (timeout=forfeit): called once the grace period is over; the mover forfeits.
            after = replace(state, forfeited=state.turn)
            return Resolution(after, self._report(state, after, mover, None))
        if len(moves) != 1 or move_problem(state, moves[0]) is not None:
            raise ValueError(f"unchecked orders for {mover}: {list(map(str, moves))}")
        after = play(state, moves[0])
        return Resolution(after, self._report(state, after, mover, moves[0]))

    def _report(self, before: State, after: State, mover: str, move: Move | None) -> Report:
        captured = move is not None and before.cells[move.origin] == MUSKETEER
        return move_report(
            self.public_state(after),
            mover=mover,
            side=before.turn,
            move=move,
            captured=GRID.square_name(move.target) if move and captured else None,
            last_move=after.last_move,
            ended=outcome(after),
        )

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def public_state(self, state: State) -> dict[str, JSON]:
        return {"board": board_rows(state.cells), "to_move": state.turn}

    def player_view(self, state: State, player: str) -> dict[str, JSON]:
        side = side_of(state, player)
        own_turn = side == state.turn and outcome(state) is None
        return {
            **self.public_state(state),
            "last_move": None if state.last_move is None else str(state.last_move),
            "side": side,
            "legal_moves": [str(m) for m in legal_moves(state)] if own_turn else [],
        }

    def dump(self, state: State) -> dict[str, JSON]:
        return {
            "players": list(state.players),
            "board": board_rows(state.cells),
            "to_move": state.turn,
            "last_move": None if state.last_move is None else str(state.last_move),
            "forfeited": state.forfeited,
        }

    def load(self, data: Mapping[str, JSON]) -> State:
        first, second = data["players"]
        last = data["last_move"]
        forfeited = data["forfeited"]
        return State(
            players=(str(first), str(second)),
            cells=cells_from_rows(data["board"]),
            turn=parse_side(str(data["to_move"]), "to_move"),
            last_move=None if last is None else parse_order(str(last)),
            forfeited=None if forfeited is None else parse_side(str(forfeited), "forfeited"),
        )

    def sample_orders(self, state: State, player: str, rng: random.Random) -> list[str]:
        if outcome(state) is not None or side_of(state, player) != state.turn:
            return []
        return [str(rng.choice(legal_moves(state)))]


RULES = ThreeMusketeers()
