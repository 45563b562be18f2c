"""The :class:`~adjudicator.core.game.Rules` object of Rock, Scissors, Paper
(docs/rules/rock-scissors-paper.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from adjudicator.core import hexes
from adjudicator.core.errors import Problem, SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Setup, move_report
from adjudicator.core.options import choice_option, resolve_options
from adjudicator.core.text import read_order_lines
from adjudicator.games.rock_scissors_paper.apply import apply_move
from adjudicator.games.rock_scissors_paper.board import (
    KIND_NAMES,
    SIDE_NAMES,
    SIDES,
    START_BOARD,
    Ending,
    State,
    board_from_json,
    board_from_pieces,
    board_to_json,
    kind_of,
    parse_side,
    position_key,
    side_of,
)
from adjudicator.games.rock_scissors_paper.legality import move_problem
from adjudicator.games.rock_scissors_paper.moves import has_legal_move, legal_moves
from adjudicator.games.rock_scissors_paper.orders import EXAMPLES, Move, parse_order

_LISTED = 12


def outcome(state: State) -> Outcome | None:
    ending = state.ending
    if ending is None:
        return None
    if ending.loser is None:
        return Outcome(ending.termination, (), draw=True)
    return Outcome(ending.termination, (state.player_of(ending.loser ^ 1),))


def side_of_player(state: State, player: str) -> int | None:
    """The side ``player`` plays (handles are case-insensitive), or ``None``."""
    handles = [handle.lower() for handle in state.players]
    return handles.index(player.lower()) if player.lower() in handles else None


def _seat_problem(state: State, player: str) -> Problem | None:
    side = side_of_player(state, player)
    if side is None:
        players = " and ".join(state.players)
        return Problem("not-a-player", f"{player} is not playing in this game ({players} are)")
    if state.ending is not None:
        return Problem("game-over", "the game is over")
    if side != state.turn:
        mover = state.player_of(state.turn)
        return Problem("not-your-turn", f"it is {SIDE_NAMES[state.turn]}'s turn; wait for {mover}")
    return None


def _piece_moves(state: State, origin: int) -> str | None:
    """A suggestion: the legal moves of the mover's piece on ``origin``."""
    code = state.board[origin]
    if not code or side_of(code) != state.turn:
        return None
    what = f"the {KIND_NAMES[kind_of(code)]} on {hexes.CELL_NAMES[origin]}"
    own = [str(m) for m in legal_moves(state) if m.origin == origin]
    if not own:
        return f"{what} has no legal move"
    more = f" and {len(own) - _LISTED} more" if len(own) > _LISTED else ""
    return f"legal moves of {what}: {', '.join(own[:_LISTED])}{more}"


def _problem(state: State, move: Move, line: str) -> Problem | None:
    problem = move_problem(state, move, line=line)
    if problem is None:
        return None
    return replace(problem, suggestion=_piece_moves(state, move.origin))


def _start_state(players: tuple[str, str], options: Mapping[str, str], setup: Setup) -> State:
    flags = int(choice_option(options, "flags", ("1", "2")))
    choice_option(options, "timeout", ("forfeit",))
    if setup.colours or setup.start:
        raise SetupError("Rock, Scissors, Paper has no colours and no counters to set")
    board = board_from_pieces(setup.pieces) if setup.pieces else START_BOARD
    turn = parse_side(setup.to_move, "to-move") if setup.to_move else 0
    state = State(players, board, turn, flags=flags, history=(position_key(board, turn),))
    if not has_legal_move(state):
        # Our decision (as in Three Musketeers): a position already decided is a mistake.
        raise SetupError(f"{SIDES[turn]} has no legal move in this position: the game is over")
    return state


class RockScissorsPaper:
    """Rock, Scissors, Paper on the hex board: White (first seat) against Black."""

    name: str = "rock-scissors-paper"
    sequential: bool = True
    min_players: int = 2
    max_players: int | None = 2
    option_defaults: Mapping[str, str] = {"flags": "1", "timeout": "forfeit"}

    def start(self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup) -> State:
        if len(players) != 2 or players[0].lower() == players[1].lower():
            raise SetupError(
                "Rock, Scissors, Paper needs two different players (White, then Black); "
                f"got {', '.join(players) or 'none'}"
            )
        merged = resolve_options(options, self.option_defaults)
        return _start_state((players[0], players[1]), merged, setup)

    def parse_order(self, text: str) -> Move:
        return parse_order(text)

    def format_order(self, order: Move) -> str:
        return str(order)

    def check(self, state: State, player: str, lines: Sequence[str]) -> Checked[Move]:
        read, problems, unrecognised = read_order_lines(lines, parse_order)
        orders = tuple(move for move, _ in read)
        seat = _seat_problem(state, player)
        if seat is not None:
            problems.insert(0, seat)
        elif len(orders) > 1:
            sent = ", ".join(map(str, orders))
            problems.append(Problem("one-move-per-turn", f"one move per turn; you sent {sent}"))
        elif not orders and not problems:
            problems.append(Problem("no-move", f"no move found; {EXAMPLES}"))
        elif orders:
            problem = _problem(state, *read[0])
            problems.extend([problem] if problem else [])
        return Checked(orders, tuple(problems), tuple(unrecognised))

    def to_move(self, state: State) -> tuple[str, ...]:
        return () if state.ending is not None else (state.player_of(state.turn),)

    def resolve(self, state: State, orders: Mapping[str, Sequence[Move]]) -> Resolution[State]:
        if state.ending is not None:
            raise ValueError("the game is over")
        mover = state.player_of(state.turn)
        moves = orders.get(mover, ())
        if not moves:
            # GameSettings and NMR as for Three Musketeers (timeout=forfeit): called once the grace
            # period is over, the silent mover forfeits.
            after = replace(state, ending=Ending("forfeit", state.turn))
            return Resolution(after, self._report(state, after, None, []))
        if len(moves) != 1 or move_problem(state, moves[0]) is not None:
            raise ValueError(f"unchecked orders for {mover}: {list(map(str, moves))}")
        after, events = apply_move(state, moves[0])
        return Resolution(after, self._report(state, after, moves[0], events))

    def _report(
        self, before: State, after: State, move: Move | None, events: list[dict[str, JSON]]
    ) -> Report:
        return move_report(
            self.public_state(after),
            mover=before.player_of(before.turn),
            side=SIDES[before.turn],
            move=move,
            events=events,
            last_move=after.last_move,
            ended=outcome(after),
        )

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def public_state(self, state: State) -> dict[str, JSON]:
        return {
            "board": board_to_json(state.board),
            "flags_lost": dict(zip(state.players, state.flags_lost, strict=True)),
            "to_move": SIDES[state.turn],
        }

    def player_view(self, state: State, player: str) -> dict[str, JSON]:
        side = side_of_player(state, player)
        own_turn = side == state.turn and state.ending is None
        return {
            **self.public_state(state),
            "last_move": None if state.last_move is None else str(state.last_move),
            "side": None if side is None else SIDES[side],
            "flags": state.flags,
            "legal_moves": [str(m) for m in legal_moves(state)] if own_turn else [],
        }

    def dump(self, state: State) -> dict[str, JSON]:
        ending = state.ending
        return {
            "players": list(state.players),
            "board": board_to_json(state.board),
            "to_move": SIDES[state.turn],
            "flags_lost": list(state.flags_lost),
            "flags": state.flags,
            "history": [key.hex() for key in state.history],
            "last_move": None if state.last_move is None else str(state.last_move),
            "ending": None
            if ending is None
            else {
                "termination": ending.termination,
                "loser": None if ending.loser is None else SIDES[ending.loser],
            },
        }

    def load(self, data: Mapping[str, JSON]) -> State:
        white, black = data["players"]
        lost_white, lost_black = data["flags_lost"]
        last, ending = data["last_move"], data["ending"]
        loser = None if ending is None else ending["loser"]
        return State(
            players=(str(white), str(black)),
            board=board_from_json(data["board"]),
            turn=parse_side(str(data["to_move"]), "to_move"),
            flags_lost=(int(lost_white), int(lost_black)),
            flags=int(data["flags"]),
            history=tuple(bytes.fromhex(key) for key in data["history"]),
            last_move=None if last is None else parse_order(str(last)),
            ending=None
            if ending is None
            else Ending(
                str(ending["termination"]),
                None if loser is None else parse_side(str(loser), "loser"),
            ),
        )

    def sample_orders(self, state: State, player: str, rng: random.Random) -> list[str]:
        if state.ending is not None or side_of_player(state, player) != state.turn:
            return []
        return [str(rng.choice(legal_moves(state)))]


RULES = RockScissorsPaper()
