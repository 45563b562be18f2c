"""Seats the computer plays: the game's own stand-in player (``GameKind.stand_in``, see
docs/stand-ins.md) sends the seat's orders, stored like a player's, so that they are in the
record, the archive and every replay.

A seat is played by a stand-in when the game master says so (``adjudicate player stand-in``),
when the game was created with it (``--setting stand_ins=cat``), or, under the setting
``absent=stand-in``, once its player has missed ``missed_rounds_limit`` rounds in a row. It
stays so until the game master turns it off or replaces the player; a player who sends orders
for a round the stand-in played has the last word for that round, as always.

The stand-in moves when its round opens (or at once when it is put in the seat), with a
``random.Random`` seeded from the game, the round and the seat: the same game plays the same.
Its order sets carry the receipt :data:`STAND_IN` instead of a code.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from adjudicator.games import kind_of
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.rounds import orders_in_force
from adjudicator.service.settings import settings_of
from adjudicator.service.solutions import request
from adjudicator.storage import queries
from adjudicator.storage.models import Game, OrderSet, Round, RoundState, Seat

STAND_IN = "stand-in"
"""The receipt of an order set a stand-in sent."""


def stand_in_seats(game: Game) -> tuple[str, ...]:
    """The handles the computer plays now."""
    return settings_of(game).stand_ins


def set_stand_in(game: Game, handle: str, *, on: bool) -> None:
    """Put a stand-in in the seat of ``handle``, or take it out (the caller checks the seat)."""
    playing = [h for h in stand_in_seats(game) if h != handle]
    game.settings = {**game.settings, "stand_ins": [*playing, handle] if on else playing}


def play_stand_ins(session: Session, game: Game, round_: Round, *, now: datetime) -> list[str]:
    """Store the orders of every stand-in seat ``round_`` (open, or closing now) waits for and
    has none yet; the handles that moved."""
    playing = stand_in_seats(game)
    kind = kind_of(game.kind)
    stand_in = kind.stand_in
    open_ = round_.state in (RoundState.OPEN, RoundState.CLOSING)
    if not playing or stand_in is None or not open_ or round_.id is None:
        return []
    if kind.solution is not None:
        request(kind)  # never waits: the solution is made beside, if it is not there yet
    rules, state = rules_of(game), game_state(game)
    have = orders_in_force(session, round_)
    moved = []
    for seat in queries.seats_of(session, game.id):
        if seat.handle not in playing or seat.id in have or not seat.active:
            continue
        if seat.handle not in rules.to_move(state):
            continue
        rng = random.Random(f"{game.name}:{round_.number}:{seat.handle}")
        checked = rules.check(state, seat.handle, stand_in(state, seat.handle, rng))
        if not checked.ok:  # never: every stand-in is checked by the contract test
            raise AssertionError(f"the stand-in of {game.kind} sent orders its game refuses")
        assert seat.id is not None
        session.add(
            OrderSet(
                round_id=round_.id,
                seat_id=seat.id,
                lines=[rules.format_order(order) for order in checked.orders],
                receipt=STAND_IN,
                created_at=now,
            )
        )
        moved.append(seat.handle)
    session.flush()
    return moved


def stand_ins_of_round(
    session: Session, round_: Round, *, seats: Sequence[Seat] | None = None
) -> list[str]:
    """The handles whose orders in force in the round a stand-in sent, in seat order
    (``seats``: the game's seats, when the caller has read them)."""
    played = {
        seat_id for seat_id, o in orders_in_force(session, round_).items() if o.receipt == STAND_IN
    }
    if seats is None:
        seats = queries.seats_of(session, round_.game_id)
    return [s.handle for s in seats if s.id in played]
