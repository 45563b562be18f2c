"""Absences: a player's days away from a game, within the allowance its game master set.

A game with ``absence_days`` gives each player that many days. They are spent two ways:

- asked for, by ``SET ABSENCE`` (``absence_mail.py``): a window of whole days, refused when it
  costs more than the days left;
- taken automatically, in a game whose deadlines wait (``absence=wait``): when a deadline comes
  with a player's orders missing and the player has a day left, the deadline waits a day and
  that day is spent (:func:`wait_for_absent`). Only when the allowance is spent does the game's
  no-orders rule (a sequential game's grace period and forfeit) apply.

At a deadline in such a game, a player inside an absence window holds the round until a day
after the window ends (:data:`BACK_IN`): time to read the position and send orders, with the
game's reminders as usual once he is back, at no cost to his allowance. In a game where
absences do not wait (``absence=nmr``) the no-orders rule applies to an absent player as
always, but he gets no reminders and his missed rounds are not counted toward
``missed_rounds_limit``. Every use is announced to every player and the game master.

Moving the deadline is a compare-and-set on ``Round.deadline`` (and ``grace_until``), and each
absence row has a unique key, so the scheduler, the sweeper and a second instance racing at the
same deadline move it once and spend the day once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

from adjudicator.base.faults import crash_point
from adjudicator.core.away import DAY, Window
from adjudicator.notify.calendar import deadline_attachment
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.notify.times import local_time
from adjudicator.service.deadlines import missing_seats
from adjudicator.service.game_context import base_context
from adjudicator.service.games import active_seats
from adjudicator.service.rounds import RoundContext, closes_at
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.storage import queries
from adjudicator.storage.db import insert_new
from adjudicator.storage.models import Absence, Game, GameStatus, Round, RoundState, Seat

BACK_IN = DAY
"""A round held for an absent player waits this long after his absence ends."""


def days_left(session: Session, settings: GameSettings, seat_id: int | None) -> int:
    spent = sum(a.days for a in queries.absences_of(session, seat_id))
    return max(settings.absence_days - spent, 0)


def absence_status(session: Session, game: Game, seat: Seat) -> dict[str, Any] | None:
    """What STATUS says of a seat's absences in ``game`` (None: the game has none)."""
    settings = settings_of(game)
    if not settings.absence_days:
        return None
    zone = seat.time_zone or game.time_zone
    windows = [
        {"starts": local_time(a.starts_at, zone), "ends": local_time(a.ends_at, zone)}
        for a in queries.absences_of(session, seat.id)
        if not a.automatic and a.ends_at > a.starts_at
    ]
    return {
        "allowance": settings.absence_days,
        "left": days_left(session, settings, seat.id),
        "windows": windows,
        "wait": settings.absence_wait,
    }


def record_absence(
    session: Session,
    *,
    game: Game,
    seat: Seat,
    window: Window,
    key: str,
    automatic: bool,
    now: datetime,
) -> bool:
    """Store an absence unless one with ``key`` is stored already; True when stored now."""
    assert game.id is not None
    assert seat.id is not None
    values = {
        "key": key,
        "game_id": game.id,
        "seat_id": seat.id,
        "starts_at": window.starts_at,
        "ends_at": window.ends_at,
        "days": window.days,
        "automatic": automatic,
        "created_at": now,
    }
    return insert_new(session, Absence, values, key="key")


def wait_for_absent(
    session: Session, context: RoundContext, *, ctx: ServiceContext, now: datetime
) -> datetime | None:
    """At the round's close, in a game whose deadlines wait for absent players: the new
    deadline when the round waits (a missing player is inside an absence window: until a day
    after it ends; else a missing player has allowance left: a day, spent), None when it
    closes."""
    game, round_, settings = context.game, context.round, context.settings
    close = closes_at(round_)
    if not (settings.absence_wait and settings.absence_days) or close is None or close > now:
        return None
    if round_.id is None or game.id is None or game.status != GameStatus.RUNNING:
        return None
    missing = missing_seats(session, game, round_, state=context.state)
    if not missing:
        return None
    away = queries.absent_at(session, game.id, now)
    windows = [away[s.id].ends_at for s in missing if s.id in away]
    spending = [] if windows else [s for s in missing if days_left(session, settings, s.id) > 0]
    if not windows and not spending:
        return None
    until = max(windows) + BACK_IN if windows else max(close, now) + DAY
    moved = session.execute(
        update(Round)
        .where(col(Round.id) == round_.id, col(Round.state) == RoundState.OPEN)
        .where(col(Round.deadline) == round_.deadline)
        .where(
            col(Round.grace_until).is_(None)
            if round_.grace_until is None
            else col(Round.grace_until) == round_.grace_until
        )
        .values(deadline=until, grace_until=None)
    )
    if getattr(moved, "rowcount", 0) != 1:
        session.refresh(round_)
        return closes_at(round_)  # another instance moved it first: the round waits all the same
    session.refresh(round_)
    for seat in spending:
        record_absence(
            session,
            game=game,
            seat=seat,
            window=Window(close, until, 1),
            key=f"auto:{round_.id}:{seat.id}:{int(close.timestamp())}",
            automatic=True,
            now=now,
        )
    players = spending or [s for s in missing if s.id in away]
    announce(
        session,
        ctx=ctx,
        game=game,
        round_=round_,
        event_name="waited",
        key=f"waited:{round_.id}:{int(until.timestamp())}",
        now=now,
        players=[
            {
                "handle": s.handle,
                "days_left": days_left(session, settings, s.id),
                "automatic": s in spending,
            }
            for s in players
        ],
        old_deadline=close,
    )
    crash_point("absence")
    return until


def announce(
    session: Session,
    *,
    ctx: ServiceContext,
    game: Game,
    round_: Round | None,
    event_name: str,
    key: str,
    now: datetime,
    **details: Any,
) -> None:
    """Tell every player of the game, and its game master, of an absence (``event_name``:
    ``set``, ``off`` or ``waited``); times in ``details`` are shown in each reader's zone."""
    readers: list[tuple[Seat | None, str]] = [(s, s.address) for s in active_seats(session, game)]
    # A deadline that moved replaces the players' calendar entry, as the game master's does.
    event = deadline_attachment(ctx, game, round_, now=now) if event_name == "waited" else None
    if game.gm_address:
        readers.append((None, game.gm_address))
    for seat, address in readers:
        zone = (seat.time_zone if seat else None) or game.time_zone
        shown = {
            name: local_time(value, zone) if isinstance(value, datetime) else value
            for name, value in details.items()
        }
        queue_notice(
            session,
            Notice(
                "absence",
                address,
                {
                    **base_context(game, seat, round_),
                    **shown,
                    "event": event_name,
                },
                key=f"absence:{game.id}:{key}:{seat.id if seat else 'gm'}",
                game_id=game.id,
                round_id=round_.id if round_ else None,
                seat_id=seat.id if seat else None,
                attachments=[event] if event is not None and seat is not None else [],
            ),
            ctx=ctx,
            now=now,
        )
