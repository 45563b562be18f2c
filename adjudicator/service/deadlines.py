"""What happens around a deadline before the round closes: reminders and the grace period.

Reminders go to the players without orders, each at its usual time unless it would fall in
the player's quiet hours or weekend days (``SET QUIET``, ``SET WEEKEND``: then before them,
``core/away.py``), and never to a player who is away (``SET ABSENCE``). Each says who has
orders in and who not yet (handles only, never orders) unless the game master turned that off
(setting ``show_waiting``).

Both are idempotent and race-safe like the rest of the life cycle: a reminder is claimed by a
compare-and-set on ``Round.reminded_for`` and a grace period by one on ``Round.grace_until``,
so the scheduler, the sweeper and a second service instance may all try and only one mails.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from sqlalchemy import update
from sqlmodel import Session, col, or_

from adjudicator.core.away import parse_quiet, parse_weekend, reminder_moment
from adjudicator.core.schedule import duration_in_words
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.notice import Notice
from adjudicator.notify.queue import queue_notice
from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.game_context import base_context
from adjudicator.service.games import active_seats
from adjudicator.service.rounds import RoundContext, closes_at
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus, Round, RoundState, Seat


class Seated(Protocol):
    """A seat as :func:`waiting_among` needs it: a stored ``Seat`` or a ``SeatRoll``."""

    @property
    def id(self) -> int | None: ...

    @property
    def handle(self) -> str: ...


S = TypeVar("S", bound=Seated)


def waiting_for(session: Session, game: Game, *, state: Any = None) -> list[Seat]:
    """The active seats whose orders the game waits for this round (``state``: the game's
    current state when the caller has it loaded)."""
    return waiting_among(active_seats(session, game), game, state=state)


def waiting_among(seats: Iterable[S], game: Game, *, state: Any = None) -> list[S]:
    """Those of ``seats`` (active ones) whose orders the game waits for this round."""
    state = game_state(game) if state is None else state
    movers = set(rules_of(game).to_move(state))
    return [seat for seat in seats if seat.handle in movers]


def missing_seats(session: Session, game: Game, round_: Round, *, state: Any = None) -> list[Seat]:
    """The seats the game waits for that have no orders in force."""
    return missing_among(session, active_seats(session, game), game, round_, state=state)


def missing_among(
    session: Session, seats: Iterable[S], game: Game, round_: Round, *, state: Any = None
) -> list[S]:
    """Those of ``seats`` (active ones) the game waits for that have no orders in force."""
    ordered = queries.seats_with_orders(session, round_.id)
    return [seat for seat in waiting_among(seats, game, state=state) if seat.id not in ordered]


@dataclass(frozen=True)
class Progress:
    """Who the open round waits for: the handles of the seats with orders in force and of those
    still without, in seat order (setting ``show_waiting``). Handles only: what anybody ordered
    stays secret until the round is adjudicated."""

    ordered: tuple[str, ...]
    to_order: tuple[str, ...]


def progress_of(
    session: Session, game: Game, round_: Round, *, state: Any = None
) -> Progress | None:
    """The open round's :class:`Progress`, or None where the game master turned it off."""
    if not settings_of(game).show_waiting or round_.id is None:
        return None
    ordered = queries.seats_with_orders(session, round_.id)
    movers = waiting_for(session, game, state=state)
    return Progress(
        ordered=tuple(s.handle for s in movers if s.id in ordered),
        to_order=tuple(s.handle for s in movers if s.id not in ordered),
    )


Reminder = tuple[timedelta, datetime]
"""A reminder as one player gets it: how long before the deadline it is, and when it goes out
(earlier, or later but before the deadline, when it would fall in the player's quiet time)."""


def seat_reminders(
    pace: GameSettings,
    round_: Round,
    *,
    zone: str,
    quiet_hours: str | None = None,
    weekend: str | None = None,
) -> list[Reminder]:
    """The reminders of a player with these quiet times (as a seat stores them, read in
    ``zone``) in ``round_``; those that would fall before the round opened are skipped
    (``core/away.py`` moves them out of quiet hours and weekend days)."""
    if round_.deadline is None:
        return []
    return list(
        _reminders(
            pace.reminders,
            opened_at=round_.opened_at,
            deadline=round_.deadline,
            zone=zone,
            quiet_hours=quiet_hours,
            weekend=weekend,
        )
    )


@functools.lru_cache(maxsize=4096)
def _reminders(
    befores: tuple[timedelta, ...],
    *,
    opened_at: datetime,
    deadline: datetime,
    zone: str,
    quiet_hours: str | None,
    weekend: str | None,
) -> tuple[Reminder, ...]:
    """Kept for the sweeps to come: every 30 seconds the sweeper asks the same again."""
    quiet = parse_quiet(quiet_hours) if quiet_hours else None
    days = parse_weekend(weekend) if weekend else frozenset()
    found = []
    for before in befores:
        due = deadline - before
        if due <= opened_at:
            continue
        moment = reminder_moment(
            due, opened_at=opened_at, deadline=deadline, zone=zone, quiet=quiet, weekend=days
        )
        if moment is not None:
            found.append((before, moment))
    return tuple(found)


ReminderPlan = dict[int | None, list[Reminder]]
"""The reminders of a round by seat id, for the seats with quiet times; under None, those of
every other seat (their usual times)."""
QuietSeats = dict[int, list[Seat]]
"""The active seats with quiet hours or weekend days, by game id (``queries.quiet_seats``)."""


def reminder_plan(game: Game, round_: Round, quiet: list[Seat]) -> ReminderPlan:
    """The reminders of ``round_``: at their usual times, and moved for each seat of ``quiet``
    (the game's seats with quiet hours or weekend days)."""
    pace = settings_of(game)
    plan: ReminderPlan = {None: seat_reminders(pace, round_, zone=game.time_zone)}
    for seat in quiet:
        if seat.id is not None:
            plan[seat.id] = seat_reminders(
                pace,
                round_,
                zone=seat.time_zone or game.time_zone,
                quiet_hours=seat.quiet_hours,
                weekend=seat.weekend,
            )
    return plan


def _plan_of(session: Session, game: Game, round_: Round, quiet: QuietSeats | None) -> ReminderPlan:
    if quiet is None:
        quiet = queries.quiet_seats(session, [game.id] if game.id is not None else [])
    return reminder_plan(game, round_, quiet.get(game.id or 0, []))


def due_moment(plan: ReminderPlan, round_: Round, now: datetime) -> datetime | None:
    """The latest moment at or before ``now`` when some reminder goes out (after a downtime,
    the latest rather than all that were missed); None before the first and after the
    deadline."""
    if round_.deadline is None or now >= round_.deadline:
        return None
    due = [moment for reminders in plan.values() for _, moment in reminders if moment <= now]
    return max(due) if due else None


def reminder_times(
    session: Session, game: Game, round_: Round, *, quiet: QuietSeats | None = None
) -> list[datetime]:
    plan = _plan_of(session, game, round_, quiet)
    return sorted({moment for reminders in plan.values() for _, moment in reminders})


def _reminder_tag(round_: Round, before: timedelta) -> str:
    assert round_.deadline is not None
    return f"{int(round_.deadline.timestamp())}:{int(before.total_seconds() // 60)}"


def _moment_tag(round_: Round, moment: datetime) -> str:
    assert round_.deadline is not None
    return f"{int(round_.deadline.timestamp())}@{int(moment.timestamp())}"


def reminder_pending(
    session: Session, round_: Round, now: datetime, *, quiet: QuietSeats | None = None
) -> bool:
    """Whether a reminder is due that has not been sent (no mail is built). ``quiet``: the
    seats with quiet times of every game concerned, read once for many rounds."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    moment = due_moment(_plan_of(session, game, round_, quiet), round_, now)
    return moment is not None and round_.reminded_for != _moment_tag(round_, moment)


def queue_reminders(session: Session, round_: Round, *, ctx: ServiceContext, now: datetime) -> int:
    """Queue the reminders due now to the players without orders; the number queued. A player
    away (``SET ABSENCE``) gets none. Each player's reminder is claimed by the moment it goes out
    (``Round.reminded_for``) and its mail keyed by the reminder, so a reminder moved earlier for
    one player's quiet hours is not sent again at its usual time."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    assert round_.id is not None
    if game.status != GameStatus.RUNNING or round_.state != RoundState.OPEN:
        return 0
    plan = _plan_of(session, game, round_, None)
    moment = due_moment(plan, round_, now)
    if moment is None or round_.deadline is None:
        return 0
    tag = _moment_tag(round_, moment)
    claimed = session.execute(
        update(Round)
        .where(col(Round.id) == round_.id, col(Round.state) == RoundState.OPEN)
        .where(or_(col(Round.reminded_for).is_(None), col(Round.reminded_for) != tag))
        .values(reminded_for=tag)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        return 0
    away = queries.absent_at(session, game.id, now)
    progress = progress_of(session, game, round_)
    shown = asdict(progress) if progress is not None else None
    queued = 0
    for seat in missing_seats(session, game, round_):
        reminders = plan.get(seat.id, plan[None])
        due = [before for before, at in reminders if at <= now]
        if not due or seat.id in away:
            continue
        queue_notice(
            session,
            Notice(
                "reminder",
                seat.address,
                {
                    **base_context(game, seat, round_),
                    "time_left": duration_in_words(round_.deadline - now),
                    "progress": shown,
                    **_timeout(session, game, seat, round_),
                },
                key=f"reminder:{round_.id}:{seat.id}:{_reminder_tag(round_, min(due))}",
                game_id=game.id,
                round_id=round_.id,
                seat_id=seat.id,
            ),
            ctx=ctx,
            now=now,
        )
        queued += 1
    return queued


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
        queue_notice(
            session,
            Notice(
                template,
                seat.address,
                {
                    **base_context(game, seat, round_),
                    "grace_until": local_time(until, seat.time_zone or game.time_zone),
                    "missing": [s.handle for s in missing],
                    **_timeout(session, game, seat, round_),
                },
                key=f"{template}:{round_.id}:{seat.id}:{int(until.timestamp())}",
                game_id=game.id,
                round_id=round_.id,
                seat_id=seat.id,
            ),
            ctx=ctx,
            now=now,
        )
    return True


def nudge_moment(game: Game, round_: Round) -> datetime | None:
    """When the player whose turn it is gets a nudge (setting ``nudge``, games played in turns
    only), or None."""
    after = settings_of(game).nudge
    return round_.opened_at + after if after is not None else None


def _nudge_key(round_: Round, seat: Seat) -> str:
    return f"nudge:{round_.id}:{seat.id}"


def queue_nudges(session: Session, round_: Round, *, ctx: ServiceContext, now: datetime) -> int:
    """Once the turn has waited ``nudge`` for its player: a nudge to him, once a turn (the
    mail's key is the turn's and the seat's), never while he is away; the number queued."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    moment = nudge_moment(game, round_)
    if moment is None or now < moment:
        return 0
    if game.status != GameStatus.RUNNING or round_.state != RoundState.OPEN:
        return 0
    away = queries.absent_at(session, game.id, now)
    queued = 0
    for seat in missing_seats(session, game, round_):
        key = _nudge_key(round_, seat)
        if seat.id in away or queries.queued_key(session, key):
            continue
        context = {
            **base_context(game, seat, round_),
            "waited": duration_in_words(now - round_.opened_at),
            "has_deadline": round_.deadline is not None,
        }
        notice = Notice(
            "nudge", seat.address, context, key=key,
            game_id=game.id, round_id=round_.id, seat_id=seat.id,
        )  # fmt: skip
        queued += queue_notice(session, notice, ctx=ctx, now=now)
    return queued


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


def wake_times(
    session: Session, round_: Round, *, quiet: QuietSeats | None = None
) -> list[datetime]:
    """When the scheduler should look at an open round: its reminders, its nudge and its
    close."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    times = reminder_times(session, game, round_, quiet=quiet)
    close, nudge = closes_at(round_), nudge_moment(game, round_)
    return sorted(times + [t for t in (close, nudge) if t is not None])
