"""What happens around a deadline before the round closes: reminders and the grace period.

Both are idempotent and race-safe like the rest of the life cycle: a reminder is claimed by a
compare-and-set on ``Round.reminded_for`` and a grace period by one on ``Round.grace_until``,
so the scheduler, the sweeper and a second service instance may all try and only one mails.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, or_

from adjudicator.core.schedule import duration_in_words
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.context import ServiceContext
from adjudicator.service.games import active_seats
from adjudicator.service.replies import base_context, game_thread, local_time, queue_templated
from adjudicator.service.rounds import RoundContext, closes_at, orders_in_force
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.storage.models import Game, GameStatus, Round, RoundState, Seat


def waiting_for(session: Session, game: Game, *, state: Any = None) -> list[Seat]:
    """The active seats whose orders the game waits for this round (``state``: the game's
    current state when the caller has it loaded)."""
    state = game_state(game) if state is None else state
    movers = set(rules_of(game).to_move(state))
    return [seat for seat in active_seats(session, game) if seat.handle in movers]


def missing_seats(session: Session, game: Game, round_: Round, *, state: Any = None) -> list[Seat]:
    """The seats the game waits for that have no orders in force."""
    ordered = orders_in_force(session, round_)
    return [seat for seat in waiting_for(session, game, state=state) if seat.id not in ordered]


def due_reminder(pace: GameSettings, round_: Round, now: datetime) -> timedelta | None:
    """The reminder due at ``now``: the shortest one whose time has come (after a downtime,
    one reminder, the latest, rather than all that were missed). None before the first and
    after the deadline; reminders that would fall before the round opened are skipped."""
    deadline = round_.deadline
    if deadline is None or now >= deadline:
        return None
    due = [r for r in pace.reminders if round_.opened_at < deadline - r <= now]
    return min(due) if due else None


def reminder_times(pace: GameSettings, round_: Round) -> list[datetime]:
    deadline = round_.deadline
    if deadline is None:
        return []
    return [deadline - r for r in pace.reminders if deadline - r > round_.opened_at]


def _reminder_tag(round_: Round, before: timedelta) -> str:
    assert round_.deadline is not None
    return f"{int(round_.deadline.timestamp())}:{int(before.total_seconds() // 60)}"


def reminder_pending(session: Session, round_: Round, now: datetime) -> bool:
    """Whether a reminder is due that has not been sent (cheap: no mail is built)."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    before = due_reminder(settings_of(game), round_, now)
    return before is not None and round_.reminded_for != _reminder_tag(round_, before)


def queue_reminders(session: Session, round_: Round, *, ctx: ServiceContext, now: datetime) -> int:
    """Queue the reminder due now to every player without orders; the number queued."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    assert round_.id is not None
    if game.status != GameStatus.RUNNING or round_.state != RoundState.OPEN:
        return 0
    before = due_reminder(settings_of(game), round_, now)
    if before is None or round_.deadline is None:
        return 0
    tag = _reminder_tag(round_, before)
    claimed = session.execute(
        update(Round)
        .where(col(Round.id) == round_.id, col(Round.state) == RoundState.OPEN)
        .where(or_(col(Round.reminded_for).is_(None), col(Round.reminded_for) != tag))
        .values(reminded_for=tag)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        return 0
    missing = missing_seats(session, game, round_)
    for seat in missing:
        queue_templated(
            session,
            ctx=ctx,
            template="reminder",
            context={
                **base_context(game, seat, round_),
                "time_left": duration_in_words(round_.deadline - now),
                **_timeout(session, game, seat, round_),
            },
            kind="reminder",
            to=seat.address,
            key=f"reminder:{round_.id}:{seat.id}:{tag}",
            now=now,
            threading=game_thread(game, ctx),
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
        )
    return len(missing)


def start_grace(
    session: Session, context: RoundContext, *, ctx: ServiceContext, now: datetime
) -> bool:
    """At the deadline, with orders missing and a grace period allowed: the round waits until
    the grace period ends. The late players are told how long they have, the others why the
    result is late. False when there is no grace to start (the round should close)."""
    game, round_ = context.game, context.round
    assert round_.id is not None
    deadline, until = round_.deadline, context.settings.grace_end(round_.deadline)
    if deadline is None or until is None or round_.grace_until is not None:
        return False  # no deadline, no grace, or it started already
    if not deadline <= now < until:
        return False  # before the deadline, or the service was down past all of the grace
    missing = missing_seats(session, game, round_, state=context.state)
    if not missing:
        return False
    claimed = session.execute(
        update(Round)
        .where(col(Round.id) == round_.id, col(Round.state) == RoundState.OPEN)
        .where(col(Round.grace_until).is_(None))
        .values(grace_until=until)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        return True  # someone else started it: the round waits all the same
    session.refresh(round_)
    late = {seat.id for seat in missing}
    for seat in active_seats(session, game):
        template = "grace_late" if seat.id in late else "grace_wait"
        queue_templated(
            session,
            ctx=ctx,
            template=template,
            context={
                **base_context(game, seat, round_),
                "grace_until": local_time(until, seat.time_zone or game.time_zone),
                "missing": [s.handle for s in missing],
                **_timeout(session, game, seat, round_),
            },
            kind=template,
            to=seat.address,
            key=f"{template}:{round_.id}:{seat.id}:{int(until.timestamp())}",
            now=now,
            threading=game_thread(game, ctx),
            game_id=game.id,
            round_id=round_.id,
            seat_id=seat.id,
        )
    return True


def _timeout(session: Session, game: Game, seat: Seat, round_: Round) -> dict[str, Any]:
    """What a reminder or grace notice says of a game played in turns (``sequential``): a
    player who has not moved by the end of the grace period (or the deadline, without one)
    forfeits, and the others win (docs/rules/three-musketeers.md, docs/rules/
    rock-scissors-paper.md: option ``timeout=forfeit``). ``forfeit_at`` is in the seat's zone."""
    if not rules_of(game).sequential:
        return {"sequential": False}
    end = settings_of(game).grace_end(round_.deadline) or round_.deadline
    others = [s.handle for s in active_seats(session, game) if s.id != seat.id]
    return {
        "sequential": True,
        "forfeit_at": local_time(end, seat.time_zone or game.time_zone),
        "has_grace": round_.deadline is not None and end != round_.deadline,
        "others": others,
    }


def wake_times(session: Session, round_: Round) -> list[datetime]:
    """When the scheduler should look at an open round: its reminders and its close."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    times = reminder_times(settings_of(game), round_)
    close = closes_at(round_)
    return sorted(times + ([close] if close else []))
