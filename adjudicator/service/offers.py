"""Seat offers: a seat of a game under way offered to the players waiting for a seat in a game
of its kind (``standby.py``), taken by the first who accepts by mail (``TAKE gw42 CODE``).

A seat is offered by the game master (``adjudicate player offer``), by a player's resignation
(``RESIGN``), or, under the setting ``absent=offer``, once its player has missed
``missed_rounds_limit`` rounds in a row. Each address on the standby list gets the offer with a
code of its own (a MAC under the service key over the offer and the address), so a TAKE with it
proves the mail came through that mailbox. Taking is a compare-and-set on the offer's
``taken_at``: of two takers at once exactly one gets the seat, the other is told it is taken.
The seat then passes as ``handover.py`` says: the newcomer gets the game so far, everybody is
told. While the offer is open the seat goes on as before: its player (if he has not resigned)
may still send orders, and a stand-in plays it where the game says so (``absent=stand-in,offer``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from adjudicator.base.security import take_code
from adjudicator.games import game_title
from adjudicator.mail.commands import Take
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.service import ServiceError, club, conversation
from adjudicator.service.game_context import base_context
from adjudicator.service.handling import AnswerPart, SectionHandling
from adjudicator.service.handover import hand_over
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.rounds import open_round_of
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Seat, SeatOffer
from adjudicator.storage.models import Standby as StandbyEntry

REASONS = ("gm", "absent", "resigned")
"""Why a seat is offered: the game master, missed rounds (``absent=offer``), a resignation."""


def open_offer(session: Session, seat: Seat) -> SeatOffer | None:
    return session.exec(
        select(SeatOffer).where(SeatOffer.seat_id == seat.id, col(SeatOffer.taken_at).is_(None))
    ).first()


def offer_seat(
    session: Session,
    game: Game,
    seat: Seat,
    *,
    ctx: ServiceContext,
    now: datetime,
    reason: str,
) -> SeatOffer:
    """Offer ``seat`` to the standby list of its game's kind (an open offer of the seat is
    kept, and mailed to nobody again); its player, if still in the seat, and the game master
    are told (of a resignation, the game master's notice of it says so)."""
    if reason not in REASONS:
        raise ValueError(f"unknown reason to offer a seat: {reason!r}")
    if game.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
        raise ServiceError(
            f"game {game.name} is {game.status}: only a seat of a game under way is offered"
        )
    kept = open_offer(session, seat)
    if kept is not None:
        return kept
    assert game.id is not None
    assert seat.id is not None
    offer = SeatOffer(game_id=game.id, seat_id=seat.id, reason=reason, opened_at=now)
    session.add(offer)
    session.flush()
    taken = {s.address for s in queries.seats_of(session, game.id) if s.active}
    waiting = [a for a in standby_addresses(session, game.kind) if a not in taken]
    for address in waiting:
        _mail_offer(session, ctx=ctx, offer=offer, game=game, seat=seat, to=address, now=now)
    if seat.active:  # a player who has not resigned hears it from us first
        _tell_holder(session, ctx=ctx, offer=offer, game=game, seat=seat, now=now)
    if reason == "resigned":
        return offer  # the game master's notice of the resignation says it is offered
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="offered",
        key=f"{game.id}:offer:{offer.id}",
        now=now,
        round_=open_round_of(session, game),
        player=seat.handle,
        reason=reason,
        standby=len(waiting),
    )
    return offer


def standby_addresses(session: Session, kind: str) -> list[str]:
    rows = session.exec(
        select(StandbyEntry.address)
        .where(StandbyEntry.kind == kind)
        .order_by(col(StandbyEntry.created_at), col(StandbyEntry.id))
    )
    return list(rows)


def _offer_context(
    session: Session, *, key: bytes, offer: SeatOffer, game: Game, seat: Seat, to: str
) -> dict[str, Any]:
    assert offer.id is not None
    round_ = open_round_of(session, game)
    return {
        **base_context(game, None, round_),
        "player": seat.handle,
        "reason": offer.reason,
        "players": len(queries.seats_of(session, game.id)),
        "code": take_code(key, offer.id, to),
        "paused": game.status == GameStatus.PAUSED,
    }


def _mail_offer(
    session: Session,
    *,
    ctx: ServiceContext,
    offer: SeatOffer,
    game: Game,
    seat: Seat,
    to: str,
    now: datetime,
) -> None:
    queue_notice(
        session,
        Notice(
            "seat_offer",
            to,
            _offer_context(session, key=ctx.receipt_key, offer=offer, game=game, seat=seat, to=to),
            key=f"seat_offer:{offer.id}:{to}",
            game_id=game.id,
        ),
        ctx=ctx,
        now=now,
    )


def _tell_holder(
    session: Session,
    *,
    ctx: ServiceContext,
    offer: SeatOffer,
    game: Game,
    seat: Seat,
    now: datetime,
) -> None:
    round_ = open_round_of(session, game)
    queue_notice(
        session,
        Notice(
            "seat_offered",
            seat.address,
            {
                **base_context(game, seat, round_),
                "reason": offer.reason,
                "missed": seat.missed_rounds,
            },
            key=f"seat_offered:{offer.id}",
            game_id=game.id,
            seat_id=seat.id,
        ),
        ctx=ctx,
        now=now,
    )


def offers_for_newcomer(
    session: Session, *, key: bytes, kind: str, address: str
) -> list[dict[str, Any]]:
    """The seats of ``kind`` on offer now, each with its code for ``address`` (a game where
    ``address`` plays already is left out): told to an address just put on the standby list."""
    found = []
    rows = session.exec(
        select(SeatOffer, Game, Seat)
        .join(Game, col(Game.id) == SeatOffer.game_id)
        .join(Seat, col(Seat.id) == SeatOffer.seat_id)
        .where(Game.kind == kind, col(SeatOffer.taken_at).is_(None))
        .where(col(Game.status).in_([GameStatus.RUNNING, GameStatus.PAUSED]))
        .order_by(col(SeatOffer.id))
    )
    for offer, game, seat in rows:
        if queries.seat_at_address(session, game.id, address) is not None:
            continue
        found.append(
            _offer_context(session, key=key, offer=offer, game=game, seat=seat, to=address)
        )
    return found


# --- TAKE --------------------------------------------------------------------------------------


def _take_one(handling: SectionHandling, command: Take) -> str | None:
    session, address = handling.session, handling.sender.strip().lower()
    name, game = conversation.game_asked(handling, command.game)
    if game is None or game.id is None:
        return f"there is no game called {name!r} here" if name else "name it: TAKE gw42 CODE"
    offers = session.exec(select(SeatOffer).where(SeatOffer.game_id == game.id)).all()
    offer = next(
        (
            o
            for o in offers
            if o.id is not None
            and take_code(handling.ctx.receipt_key, o.id, address) == command.code
        ),
        None,
    )
    if offer is None:
        return (
            f"that is not a code of a seat game {game.name} offered to this address; the "
            "offer mail has the line to send"
        )
    if game.status == GameStatus.FINISHED:  # before the claim: the offer ended with the game
        return f"game {game.name} is over: its seats are no longer on offer"
    seat = session.get(Seat, offer.seat_id)
    assert seat is not None
    context = {"game": game.name, "game_title": game_title(game.kind), "player": seat.handle}
    mine = queries.seat_at_address(session, game.id, address)
    if mine is not None and mine.active:
        return f"you play {mine.handle} in game {game.name} already"
    refused = club.refusal_to_seat(session, game, address, now=handling.now, joining=False)
    if refused is not None:
        return refused
    if offer.taken_at is not None or not _claim(session, offer, address=address, now=handling.now):
        _answer(handling, game, context | {"step": "taken"})
        handling.notes.append(f"{seat.handle} of {game.name} was taken before")
        return None
    try:
        hand_over(session, game, seat, address, ctx=handling.ctx, now=handling.now, how="offer")
    except ServiceError as error:
        return str(error)
    _answer(handling, game, context | {"step": "yours"})
    handling.notes.append(f"{address} took {seat.handle} of {game.name}")
    return None


take = conversation.one_by_one(Take, _take_one)


def _answer(handling: SectionHandling, game: Game, context: dict[str, Any]) -> None:
    """To the sender, under the game's tag (its subject names the game). The code was mailed
    to this address alone, so the answer goes to a proven address: never held back by the
    answer limits for strangers (``throttle.py``), or a taker might not learn he has a seat."""
    handling.answer.add(
        handling.sender, AnswerPart("take", context, game.name, game.id, proven=True)
    )


def _claim(session: Session, offer: SeatOffer, *, address: str, now: datetime) -> bool:
    """Compare-and-set: the offer becomes ``address``'s only if nobody took it first (on
    PostgreSQL a second taker waits for the first's row lock, then finds it taken)."""
    result = session.execute(
        update(SeatOffer)
        .where(col(SeatOffer.id) == offer.id, col(SeatOffer.taken_at).is_(None))
        .values(taken_at=now, taken_by=address)
        .execution_options(synchronize_session=False)
    )
    won = int(getattr(result, "rowcount", 0)) == 1
    if won:
        session.refresh(offer)
    return won
