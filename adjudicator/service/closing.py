"""Closing rounds: the one use-case behind the scheduler, the sweeper and ``adjudicate --round``.

Closing, adjudicating and queuing the result mails happen in one transaction: a crash anywhere
before the commit leaves the round open (it is closed again on restart); after the commit there
is nothing left to do. A second caller loses the compare-and-set and does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, or_, select

from adjudicator.service.context import ServiceContext
from adjudicator.service.replies import queue_round_result
from adjudicator.service.rounds import Adjudicated, adjudicate_round, close_round
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus, Round, RoundState


@dataclass(frozen=True)
class Closed:
    round_id: int
    adjudicated: Adjudicated | None
    error: str | None = None


def close_and_adjudicate(
    session: Session, round_id: int, *, ctx: ServiceContext, now: datetime, force: bool = False
) -> Closed | None:
    """Close a round whose deadline has passed (or any open round with ``force``), adjudicate
    it and queue its result. ``None`` when there was nothing to do."""
    round_ = session.get(Round, round_id)
    if round_ is None:
        return None
    due = round_.deadline is not None and round_.deadline <= now
    if round_.state == RoundState.OPEN:
        if not (due or force) or not close_round(session, round_id, now=now):
            return None
        session.refresh(round_)
    if round_.state != RoundState.CLOSING:
        return None
    adjudicated = adjudicate_round(session, round_id, now=now)
    if adjudicated is None:
        session.refresh(round_)
        return Closed(round_id, None, round_.error)
    queue_round_result(session, ctx=ctx, adjudicated=adjudicated, now=now)
    return Closed(round_id, adjudicated)


def due_rounds(session: Session, *, now: datetime) -> list[int]:
    """Open rounds past their deadline, and closing rounds not stopped by an error, of running
    games: the sweeper's work list."""
    query = (
        select(Round.id)
        .join(Game, col(Game.id) == col(Round.game_id))
        .where(Game.status == GameStatus.RUNNING)
        .where(
            or_(
                (col(Round.state) == RoundState.OPEN) & (col(Round.deadline) <= now),
                (col(Round.state) == RoundState.CLOSING) & col(Round.error).is_(None),
            )
        )
        .order_by(col(Round.deadline))
    )
    return [i for i in session.exec(query) if i is not None]


def sweep(engine: Engine, *, ctx: ServiceContext, now: datetime) -> list[Closed]:
    """Close every due round, each in its own transaction."""
    with session_scope(engine) as session:
        work = due_rounds(session, now=now)
    closed = []
    for round_id in work:
        with session_scope(engine) as session:
            done = close_and_adjudicate(session, round_id, ctx=ctx, now=now)
        if done is not None:
            closed.append(done)
    return closed


def open_deadlines(session: Session) -> list[tuple[int, datetime]]:
    """(round id, deadline) of every open round with a deadline: what the scheduler plans."""
    rows = session.exec(
        select(Round.id, Round.deadline)
        .join(Game, col(Game.id) == col(Round.game_id))
        .where(Round.state == RoundState.OPEN, Game.status == GameStatus.RUNNING)
        .where(col(Round.deadline).is_not(None))
    )
    return [(i, d) for i, d in rows if i is not None and d is not None]
