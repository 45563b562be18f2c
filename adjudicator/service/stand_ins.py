"""Seats the computer plays: the game's own stand-in player (``GameKind.stand_in``, see
docs/stand-ins.md) sends the seat's orders, stored like a player's, so that they are in the
record, the archive and every replay.

A seat is played by a stand-in when the game master says so (``adjudicate player stand-in``),
when the game was created with it (``--setting stand_ins=cat``), or, under the setting
``absent=stand-in``, once its player has missed ``missed_rounds_limit`` rounds in a row. It
stays so until a person takes the seat back (:func:`take_back`): the game master turns the
stand-in off, a newcomer takes the seat (a replacement, a taken offer), or its own player
sends orders again. A seat given back to a person has no orders but that person's: the
stand-in's orders for the open round are withdrawn at once (kept, marked ``WITHDRAWN``), so
the round waits for the person's (or its deadline), never closes early on the computer's.

The stand-in moves when its round opens (or at once when it is put in the seat), with a
``random.Random`` seeded from the game, the round and the seat: the same game plays the same.
Its order sets carry the receipt :data:`STAND_IN` instead of a code.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy import literal, update
from sqlmodel import Session, col

from adjudicator.games import kind_of
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.rounds import orders_in_force
from adjudicator.service.settings import settings_of
from adjudicator.service.solutions import request
from adjudicator.storage import queries
from adjudicator.storage.models import (
    WITHDRAWN,
    Game,
    GameStatus,
    OrderSet,
    Round,
    RoundState,
    Seat,
    standing_order_sets,
)

STAND_IN = "stand-in"
"""The receipt of an order set a stand-in sent."""


def stand_in_seats(game: Game) -> tuple[str, ...]:
    """The handles the computer plays now."""
    return settings_of(game).stand_ins


def set_stand_in(game: Game, handle: str, *, on: bool) -> None:
    """Put a stand-in in the seat of ``handle``, or take it out (the caller checks the seat)."""
    playing = [h for h in stand_in_seats(game) if h != handle]
    game.settings = {**game.settings, "stand_ins": [*playing, handle] if on else playing}


def take_back(
    session: Session, game: Game, seat: Seat, round_: Round | None, *, newcomer: bool = False
) -> bool:
    """A person takes ``seat`` from the computer: its stand-in stops, and the orders stored for
    the open ``round_`` that are not that person's are withdrawn: the stand-in's, and with
    ``newcomer`` (a new player takes the seat) the former player's too. True when the seat had
    a stand-in or orders were withdrawn."""
    had_stand_in = seat.handle in stand_in_seats(game)
    if had_stand_in:
        set_stand_in(game, seat.handle, on=False)
        session.add(game)
    if round_ is None or round_.id is None or round_.state != RoundState.OPEN:
        return had_stand_in
    withdrawing = (
        update(OrderSet)
        .where(col(OrderSet.round_id) == round_.id, col(OrderSet.seat_id) == seat.id)
        .where(standing_order_sets())
        .values(receipt=literal(WITHDRAWN) + col(OrderSet.receipt))
    )
    if not newcomer:
        withdrawing = withdrawing.where(col(OrderSet.receipt) == STAND_IN)
    # A note that the round is complete (``closing.mark_if_complete``) is checked again before
    # the round closes, and dropped: the round then waits for the person's orders.
    withdrawn = session.execute(withdrawing.execution_options(synchronize_session="fetch"))
    return had_stand_in or getattr(withdrawn, "rowcount", 0) > 0


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


def given_back_in_round(
    session: Session, round_: Round, orders: Mapping[str, object], *, seats: Sequence[Seat]
) -> list[dict[str, object]]:
    """The seats a person took back from the stand-in while ``round_`` was open (its orders
    for the round withdrawn), in seat order: each with whether the person's own orders stood
    (``orders``: the round's result's orders in force, by handle)."""
    taken_back = {
        o.seat_id
        for o in queries.withdrawn_order_sets(session, round_.id)
        if o.receipt == WITHDRAWN + STAND_IN
    }
    return [{"player": s.handle, "own": s.handle in orders} for s in seats if s.id in taken_back]


# --- a move answered by the computer at once -------------------------------------------------


def answered_by_stand_ins(session: Session, round_: Round | None) -> bool:
    """Whether ``round_`` is closed and only stand-ins moved in it: in a game played in turns
    against the computer, the computer's answer to the move before it, made in the same
    moment. The mover then gets one mail for the two rounds (``round_results.round_result_mails``):
    his move taken, the computer's answer and the new position."""
    if round_ is None or round_.state not in (RoundState.ADJUDICATED, RoundState.REPORTED):
        return False
    orders = orders_in_force(session, round_).values()
    return bool(orders) and all(o.receipt == STAND_IN for o in orders)


def ended_by_own_move(session: Session, game: Game, round_: Round, seat: Seat) -> bool:
    """Whether ``seat``'s player ended a game played in turns against the computer with a move
    of his own in ``round_``: he then gets one mail for it, the game's last result, as the
    answer to his mail, and no confirmation before it (issue 40, finding 19: one answer per
    mail received, one notice per event)."""
    if game.status != GameStatus.FINISHED or not rules_of(game).sequential:
        return False
    computer = set(stand_in_seats(game))
    others = [s for s in queries.seats_of(session, game.id) if s.id != seat.id and s.active]
    if not others or any(s.handle not in computer for s in others):
        return False
    return own_move(session, round_, seat) is not None


def own_move(session: Session, round_: Round, seat: Seat) -> OrderSet | None:
    """The orders ``seat``'s player himself sent that stood in ``round_``, or None (he did not
    move, or the stand-in moved for him)."""
    assert seat.id is not None
    mine = orders_in_force(session, round_).get(seat.id)
    return mine if mine is not None and mine.receipt != STAND_IN else None
