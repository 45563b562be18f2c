"""Closing rounds: the one use-case behind the scheduler, the sweeper and ``adjudicate --round``.

Closing and adjudicating a round (and opening the next) happen in one transaction: a crash
before the commit leaves the round open or closing, and it is closed again on restart. The
result mails are queued after the commit, by the reporting step (``reporting.py``), once the
round's pictures are made outside any transaction. A second caller loses the compare-and-set
and does nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from adjudicator.base.faults import crash_point
from adjudicator.base.logs import events as events_of
from adjudicator.core.schedule import duration_in_words
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.times import local_time
from adjudicator.readmodel.stored import rules_of
from adjudicator.service import tournament_rounds
from adjudicator.service.absence import wait_for_absent
from adjudicator.service.announcements import tell_game_over
from adjudicator.service.deadlines import (
    QuietSeats,
    missing_among,
    nudge_moment,
    queue_nudges,
    queue_reminders,
    reminder_pending,
    start_grace,
    waiting_for,
    wake_times,
)
from adjudicator.service.notices import queue_gm_notice
from adjudicator.service.offers import offer_seat
from adjudicator.service.reporting import report_adjudicated, report_round
from adjudicator.service.rounds import (
    Adjudicated,
    RoundContext,
    adjudicate_round,
    close_round,
    closes_at,
    open_round_of,
    start_game,
)
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.service.stand_ins import play_stand_ins, set_stand_in
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus, Round, RoundState, Seat

events = events_of("adjudicator.rounds")
CLOSED_LATE = timedelta(minutes=10)
"""A round closed this long after its deadline (or grace) was closed by a service that was not
running then: its game master is told."""


@dataclass(frozen=True)
class ClosingOutcome:
    round_id: int
    adjudicated: Adjudicated | None
    error: str | None = None
    waiting_until: datetime | None = None  # a grace period or an absence holds it
    chained: tuple[int, ...] = ()  # rounds closed after it at once: stand-ins moved in them


CHAIN_LIMIT = 20
"""Rounds closed one after the other in one closing, while stand-ins are the only ones to move
(two stand-ins playing each other go on at the next deadline)."""


def close_and_adjudicate(
    session: Session, round_id: int, *, ctx: ServiceContext, now: datetime, force: bool = False
) -> ClosingOutcome | None:
    """Close a round whose time has come (or any open round with ``force``) and adjudicate it;
    its result mails are queued after the commit (``reporting.py``). At the deadline, with
    orders missing, a game whose deadlines wait for absent players (``absence.py``), and then
    a game with a grace period, waits instead (``ClosingOutcome.waiting_until``).
    ``None`` when there was nothing to do.

    When the next round waits only for stand-ins (``stand_ins.py``), which move as it opens,
    it is closed at once too, and so on (``ClosingOutcome.chained``, at most ``CHAIN_LIMIT``)."""
    outcome = _close_one(session, round_id, ctx=ctx, now=now, force=force)
    if outcome is None or outcome.adjudicated is None:
        return outcome
    chained: list[int] = []
    following = outcome.adjudicated.next_round
    while following is not None and following.id is not None and len(chained) < CHAIN_LIMIT:
        if not _closes_early(session, following):
            break
        more = _close_one(session, following.id, ctx=ctx, now=now, force=True)
        if more is None or more.adjudicated is None:
            break
        chained.append(following.id)
        following = more.adjudicated.next_round
    return replace(outcome, chained=tuple(chained))


def _close_one(
    session: Session, round_id: int, *, ctx: ServiceContext, now: datetime, force: bool
) -> ClosingOutcome | None:
    context = RoundContext.load(session, round_id)
    if context is None:
        return None
    round_, game = context.round, context.game
    close = closes_at(round_)
    if round_.state == RoundState.OPEN:
        if game.status != GameStatus.RUNNING:
            # A job planned before the game master paused the game (or by an instance that
            # has not heard yet): no grace, no absence, no closing. ``close_round`` checks the
            # same in the database, against a pause committed since this was read.
            events.info("round.held", game=game.name, round=round_.number, status=game.status)
            return None
        if not force:
            if close is None or close > now:
                return None
            waits_until = wait_for_absent(session, context, ctx=ctx, now=now)
            if waits_until is not None:
                events.info(
                    "round.absence", game=game.name, round=round_.number, until=str(waits_until)
                )
                return ClosingOutcome(round_id, None, waiting_until=waits_until)
            if start_grace(session, context, ctx=ctx, now=now):
                events.info(
                    "round.grace",
                    game=game.name,
                    round=round_.number,
                    until=str(round_.grace_until),
                )
                return ClosingOutcome(round_id, None, waiting_until=round_.grace_until)
        if not close_round(session, round_id, now=now):
            return None
        crash_point("closed")
        session.refresh(round_)
    if round_.state != RoundState.CLOSING:
        return None
    play_stand_ins(session, game, round_, now=now)  # a stand-in put in since the round opened
    waiting = waiting_for(session, game, state=context.state)
    adjudicated = adjudicate_round(session, context, now=now)
    crash_point("adjudicated")
    if adjudicated is None:
        session.refresh(round_)
        if round_.error:
            queue_gm_notice(
                session,
                ctx=ctx,
                game=game,
                notice="adjudication_failed",
                key=f"{round_id}:{round_.error}",
                now=now,
                round_=round_,
                reason=round_.error,
            )
        events.error("round.failed", game=game.name, round=round_.number, why=round_.error)
        return ClosingOutcome(round_id, None, round_.error)
    events.info(
        "round.adjudicated",
        game=game.name,
        round=round_.number,
        finished=adjudicated.outcome is not None,
        winners=list(adjudicated.outcome.winners) if adjudicated.outcome else [],
    )
    _count_missed(session, adjudicated, waiting, ctx=ctx, now=now, settings=context.settings)
    if adjudicated.next_round is not None:
        play_stand_ins(session, game, adjudicated.next_round, now=now)
    if adjudicated.outcome is not None:
        tell_game_over(session, ctx=ctx, adjudicated=adjudicated, now=now)
        # A tournament's game: its round may be over (the next one's games begun here).
        tournament_rounds.game_ended(session, game, ctx=ctx, now=now, begin=begin_game)
    if not force and close is not None and now - close > CLOSED_LATE:
        _tell_closed_late(session, adjudicated, close, ctx=ctx, now=now)
    return ClosingOutcome(round_id, adjudicated)


def _tell_closed_late(
    session: Session,
    adjudicated: Adjudicated,
    close: datetime,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> None:
    """The service was not running at the deadline: the game master hears when the round
    closed instead, and what that means."""
    game, round_ = adjudicated.game, adjudicated.round
    queue_gm_notice(
        session,
        ctx=ctx,
        game=game,
        notice="closed_late",
        key=str(round_.id),
        now=now,
        round_=round_,
        deadline=local_time(close, game.time_zone),
        closed=local_time(now, game.time_zone),
        late=duration_in_words(now - close),
    )


def _count_missed(
    session: Session,
    adjudicated: Adjudicated,
    waiting: list[Seat],
    *,
    ctx: ServiceContext,
    now: datetime,
    settings: GameSettings,
) -> None:
    """Count missed rounds in a row; at the game's limit the game master is told."""
    game, round_ = adjudicated.game, adjudicated.round
    missed_limit = settings.missed_rounds_limit
    away = queries.absent_at(session, game.id, now)  # an announced absence is not a missed round
    for seat in waiting:
        if seat.id in away and seat.handle not in adjudicated.result.orders:
            continue
        seat.missed_rounds = (
            0 if seat.handle in adjudicated.result.orders else seat.missed_rounds + 1
        )
        session.add(seat)
        if seat.missed_rounds == missed_limit:
            if settings.absent_stand_in:
                set_stand_in(game, seat.handle, on=True)
                session.add(game)
            if settings.absent_offer and game.status == GameStatus.RUNNING:
                offer_seat(session, game, seat, ctx=ctx, now=now, reason="absent")
            queue_gm_notice(
                session,
                ctx=ctx,
                game=game,
                notice="missed_rounds",
                key=f"{seat.id}:{round_.id}",
                now=now,
                round_=round_,
                player=seat.handle,
                address=seat.address,
                missed=seat.missed_rounds,
                stand_in=settings.absent_stand_in,
                offered=settings.absent_offer,
            )


def close_if_complete(
    session: Session, round_id: int, *, ctx: ServiceContext, now: datetime
) -> ClosingOutcome | None:
    """Adjudicate now if every player's orders are in and the game closes rounds early: a
    sequential game always does (a valid move is applied at once), the others by their
    ``early_close`` setting unless a player asked for the full time (``SET WAIT``). Never
    while the game is paused."""
    round_ = session.get(Round, round_id)
    if round_ is None or not _closes_early(session, round_):
        return None
    return close_and_adjudicate(session, round_id, ctx=ctx, now=now, force=True)


def mark_if_complete(session: Session, round_: Round, *, now: datetime) -> bool:
    """Note that ``round_`` has every order in and closes early (``Round.complete_at``), for
    :func:`close_completed` to close it once the mail's transaction has committed; True when
    it does. The mail that completed it is answered at once: adjudicating, drawing and
    reporting the round is not the mail reader's work. A game played in turns is closed by
    :func:`close_if_complete` instead, as its confirmation tells the move applied."""
    if not _closes_early(session, round_):
        return False
    if round_.complete_at is None:
        round_.complete_at = now
        session.add(round_)
    return True


def close_completed(engine: Engine, *, ctx: ServiceContext, now: datetime) -> list[ClosingOutcome]:
    """Close the rounds :func:`mark_if_complete` noted, each in a transaction of its own, when
    they still close early (a player may have asked for the full time since, or the game
    master paused the game); a round that no longer does loses its note, and waits for its
    deadline. Run after each batch of mail, by the reporter, and by the sweeper (a note that a
    crash left behind). A second caller loses the round's compare-and-set and does nothing."""
    with Session(engine) as session:
        noted = queries.completed_rounds(session)
    closed = []
    for round_id in noted:
        with session_scope(engine) as session:
            outcome = close_if_complete(session, round_id, ctx=ctx, now=now)
            round_ = session.get(Round, round_id)
            if outcome is None and round_ is not None and round_.state == RoundState.OPEN:
                round_.complete_at = None
                session.add(round_)
        crash_point("committed")
        if outcome is not None:
            closed.append(outcome)
    return closed


def close_and_report_completed(engine: Engine, *, ctx: ServiceContext, now: datetime) -> list[int]:
    """What follows a batch of mail: the rounds its last orders completed are closed
    (:func:`close_completed`), then every round waiting to be reported is (those, and any a
    crash left); the ids of the rounds reported now."""
    close_completed(engine, ctx=ctx, now=now)
    return report_adjudicated(engine, ctx=ctx, now=now)


def begin_game(session: Session, game: Game, *, ctx: ServiceContext, now: datetime) -> Round:
    """Open round 1 (``rounds.start_game``) and let the seats the computer plays move; when
    it waits only for them (the computer moves first), it closes at once. The round open now."""
    first = start_game(session, game, now=now)
    assert first.id is not None
    play_stand_ins(session, game, first, now=now)
    close_if_complete(session, first.id, ctx=ctx, now=now)
    return open_round_of(session, game) or first


def _closes_early(session: Session, round_: Round) -> bool:
    """Whether the open ``round_`` has every order in and its game closes rounds early."""
    if round_.state != RoundState.OPEN:
        return False
    game = session.get(Game, round_.game_id)
    assert game is not None
    if game.status != GameStatus.RUNNING:
        return False
    sequential = rules_of(game).sequential
    if not (sequential or settings_of(game).early_close):
        return False
    active = [seat for seat in queries.seat_roll(session, game.id) if seat.active]
    if not sequential and any(seat.wait for seat in active):
        return False  # a player asked for the full time (SET WAIT)
    return not missing_among(session, active, game, round_)


def sweep(engine: Engine, *, ctx: ServiceContext, now: datetime) -> list[ClosingOutcome]:
    """Close every due round and send every due reminder, each in its own transaction."""
    closed = close_completed(engine, ctx=ctx, now=now)  # noted complete before a crash
    with session_scope(engine) as session:
        work = queries.due_rounds(session, now=now)
        open_rounds, quiet = _open_rounds_and_quiet_seats(session)
        reminders = [
            r.id
            for r in open_rounds
            if r.id is not None
            and r.id not in work
            and reminder_pending(session, r, now, quiet=quiet)
        ]
        nudges = [
            r.id
            for r in open_rounds
            if r.id is not None and r.id not in work and _nudge_due(session, r, now)
        ]
    report_adjudicated(engine, ctx=ctx, now=now)  # left adjudicated by a crash
    for round_id in work:
        done = close_due_round(engine, round_id, ctx=ctx, now=now)
        if done is not None:
            closed.append(done)
    for round_id in reminders:
        with session_scope(engine) as session:
            round_ = session.get(Round, round_id)
            if round_ is not None:
                queue_reminders(session, round_, ctx=ctx, now=now)
    for round_id in nudges:
        with session_scope(engine) as session:
            round_ = session.get(Round, round_id)
            if round_ is not None:
                queue_nudges(session, round_, ctx=ctx, now=now)
    return closed


def _nudge_due(session: Session, round_: Round, now: datetime) -> bool:
    """Whether the round's nudge time has come (whether it went already is for
    :func:`queue_nudges` to tell)."""
    game = session.get(Game, round_.game_id)
    moment = nudge_moment(game, round_) if game is not None else None
    return moment is not None and moment <= now


def close_due_round(
    engine: Engine, round_id: int, *, ctx: ServiceContext, now: datetime, remind: bool = False
) -> ClosingOutcome | None:
    """A due round closed and adjudicated in its own transaction (``remind``: its due
    reminders queued first, as when a planned time of the round comes: ``close_or_remind``),
    then its results reported, and those of the rounds its stand-ins closed after it, each in
    a transaction of its own. The sweeper and the scheduler (in a worker process or not) both
    close a due round so; a round a crash left adjudicated is reported by the sweeper."""
    with session_scope(engine) as session:
        if remind:
            done = close_or_remind(session, round_id, ctx=ctx, now=now)
        else:
            done = close_and_adjudicate(session, round_id, ctx=ctx, now=now)
    crash_point("committed")
    if done is not None and done.adjudicated is not None:
        for adjudicated in (round_id, *done.chained):
            report_round(engine, adjudicated, ctx=ctx, now=now)
    return done


def close_or_remind(
    session: Session, round_id: int, *, ctx: ServiceContext, now: datetime
) -> ClosingOutcome | None:
    """What the scheduler does when an open round's time comes: remind, wait or close."""
    round_ = session.get(Round, round_id)
    game = session.get(Game, round_.game_id) if round_ is not None else None
    if round_ is None or game is None:
        return None
    # ``game`` is held until the round is closed: a session keeps only the rows that someone
    # holds, and the closing reads the game that the reminders read (one query, not two).
    queue_reminders(session, round_, ctx=ctx, now=now)
    queue_nudges(session, round_, ctx=ctx, now=now)
    return close_and_adjudicate(session, round_id, ctx=ctx, now=now)


def wake_plan(
    session: Session, *, of_rounds: Collection[int] | None = None
) -> list[tuple[int, list[datetime]]]:
    """(round id, times) of every open round: what the scheduler plans. With ``of_rounds``,
    only the open rounds of those rounds' games (what closing them opened or moved)."""
    rounds, quiet = _open_rounds_and_quiet_seats(session, of_rounds=of_rounds)
    return [(r.id, wake_times(session, r, quiet=quiet)) for r in rounds if r.id is not None]


def _open_rounds_and_quiet_seats(
    session: Session, *, of_rounds: Collection[int] | None = None
) -> tuple[list[Round], QuietSeats]:
    """The open rounds (``queries.open_rounds``) and the quiet seats of their games: the
    sweeper and the scheduler's plan read each round's reminders with them."""
    rounds = queries.open_rounds(session, of_rounds=of_rounds)
    return rounds, queries.quiet_seats(session, {r.game_id for r in rounds})
