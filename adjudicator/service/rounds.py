"""A round's life cycle: open -> closing -> adjudicated -> reported.

Every step is a compare-and-set on ``Round.state`` so that the scheduler, the sweeper, a second
service instance and the game master's command may race without harm: whoever loses the race
sees a row count of 0 and does nothing. Adjudicating a round stores its result, the game's new
state and the next round in one transaction; marking it reported goes with its result mails in
another (``reporting.py``), once its pictures are made with no transaction open.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Update, bindparam, exists, select, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session

from adjudicator.core.errors import AdjudicationLimitError
from adjudicator.core.game import Outcome, Resolution, Rules
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service import ServiceError
from adjudicator.service.games import seats_of
from adjudicator.service.settings import GameSettings, settings_of
from adjudicator.storage import queries
from adjudicator.storage.models import (
    Game,
    GameStatus,
    OrderSet,
    Round,
    RoundResult,
    RoundState,
)


@dataclass(frozen=True)
class Adjudicated:
    """What adjudicating a round produced (for the notifier and the command line)."""

    game: Game
    round: Round
    result: RoundResult
    state: Any  # the game's state after the round
    outcome: Outcome | None
    next_round: Round | None


@dataclass
class RoundContext:
    """A round and what every step of closing it needs, read once per use case and passed
    down: its game, the game's rules, settings and current state."""

    game: Game
    round: Round
    rules: Rules[Any, Any]
    settings: GameSettings
    state: Any

    @classmethod
    def load(cls, session: Session, round_id: int) -> RoundContext | None:
        round_ = session.get(Round, round_id)
        game = session.get(Game, round_.game_id) if round_ is not None else None
        if round_ is None or game is None:
            return None
        return cls(game, round_, rules_of(game), settings_of(game), game_state(game))


def open_round(
    session: Session, game: Game, *, now: datetime, settings: GameSettings | None = None
) -> Round:
    assert game.id is not None
    number = game.current_round + 1
    round_ = Round(
        game_id=game.id,
        number=number,
        opened_at=now,
        deadline=(settings or settings_of(game)).deadline(now),
    )
    game.current_round = number
    session.add(round_)
    session.add(game)
    session.flush()
    return round_


def closes_at(round_: Round) -> datetime | None:
    """When the round closes: its deadline, or the end of its grace period once one started."""
    return round_.grace_until or round_.deadline


def takes_orders(game: Game, round_: Round | None, now: datetime) -> bool:
    """Whether orders for ``round_`` count if they arrive at ``now``: the round is open and it
    has not closed yet, counting the grace period the game allows after the deadline."""
    if round_ is None or round_.state != RoundState.OPEN:
        return False
    if game.status == GameStatus.PAUSED:
        return True  # the deadline moves when the game resumes
    if round_.grace_until is not None:
        return now < round_.grace_until
    if round_.deadline is None or now < round_.deadline:
        return True
    grace_end = settings_of(game).grace_end(round_.deadline)
    return grace_end is not None and now < grace_end


def open_round_of(session: Session, game: Game) -> Round | None:
    return queries.open_round(session, game.id)


def start_game(session: Session, game: Game, *, now: datetime) -> Round:
    """Open round 1 of a game that has not started."""
    if game.status != GameStatus.SETUP:
        raise ServiceError(f"game {game.name!r} has started already ({game.status})")
    game.status = GameStatus.RUNNING
    return open_round(session, game, now=now)


def _step(
    session: Session,
    round_id: int,
    old: RoundState,
    new: RoundState,
    *,
    moment: str,
    at: datetime,
    statement: Update | None = None,
) -> bool:
    """Compare-and-set the round's state; True when this caller made the step (``statement``:
    another than the step's plain one, :data:`_CLOSING`).

    A statement on the table, built once (``_STEPS``), not an ORM update, which is built again,
    keyed and matched against the session's rows on every call (three times a round). The
    ORM's two duties are done here: pending changes are flushed first (as its autoflush
    would), and a Round row the session holds takes the new values as stored."""
    if session.autoflush:
        session.flush()
    result = session.execute(
        _STEPS[moment] if statement is None else statement,
        {"round_id": round_id, "old": old, "new": new, "at": at},
    )
    if getattr(result, "rowcount", 0) != 1:
        return False
    held = session.identity_map.get(identity_key(Round, round_id))
    if held is not None:
        set_committed_value(held, "state", new)
        set_committed_value(held, moment, at)
    return True


def _stepping(moment: str) -> Update:
    rounds = Round.metadata.tables["round"]
    return (
        update(rounds)
        .where(rounds.c.id == bindparam("round_id"), rounds.c.state == bindparam("old"))
        .values({"state": bindparam("new"), moment: bindparam("at")})
    )


_STEPS = {moment: _stepping(moment) for moment in ("closed_at", "adjudicated_at", "reported_at")}
"""The steps' statements, by the moment each one stamps."""


def _closing() -> Update:
    """open -> closing, only while the round's game is running: a paused game's round (or one
    of a game gone) stays open whoever asks, a deadline job planned before the pause, the
    sweeper, or another instance. On PostgreSQL the game's row is locked as the closing's
    update of it will (``FOR NO KEY UPDATE``; SQLite takes its one write lock for the statement
    anyway), so a pause committing meanwhile either comes first, and the round stays open, or
    waits until this closing has committed. Locked before the round, as a pause or a resume
    locks them: a share lock here deadlocked two closers of one round, each holding it while
    waiting to update the game."""
    rounds, games = Round.metadata.tables["round"], Game.metadata.tables["game"]
    running = (
        select(games.c.id)
        .where(games.c.id == rounds.c.game_id, games.c.status == GameStatus.RUNNING)
        .with_for_update(key_share=True)
    )
    return _stepping("closed_at").where(exists(running))


_CLOSING = _closing()


def close_round(session: Session, round_id: int, *, now: datetime) -> bool:
    """open -> closing, if the round's game is running (:func:`_closing`). Orders arriving
    after this are refused as late."""
    return _step(
        session,
        round_id,
        RoundState.OPEN,
        RoundState.CLOSING,
        moment="closed_at",
        at=now,
        statement=_CLOSING,
    )


def orders_in_force(session: Session, round_: Round) -> dict[int, OrderSet]:
    """The newest accepted order set of each seat in this round."""
    newest: dict[int, OrderSet] = {}
    for order_set in queries.order_sets_of(session, round_.id):
        newest[order_set.seat_id] = order_set
    return newest


def previous_orders(session: Session, round_id: int, seat_id: int) -> OrderSet | None:
    """The order set of one seat in force in a round (one indexed row, not the whole round)."""
    return queries.newest_order_set(session, round_id, seat_id)


def lines_in_force(session: Session, game: Game, round_: Round) -> dict[str, list[str]]:
    """Each player's order lines in force in ``round_`` (the newest accepted set)."""
    handles = {seat.id: seat.handle for seat in seats_of(session, game)}
    return {handles[seat_id]: o.lines for seat_id, o in orders_in_force(session, round_).items()}


def check_stored(
    rules: Rules[Any, Any], state: Any, lines: dict[str, list[str]]
) -> tuple[dict[str, list[Any]], dict[str, list[str]], list[dict[str, str]]]:
    """Read stored order lines against ``state`` for the players it waits for: the orders, the
    lines they came from, and the problems of any set that no longer checks (a safety net: the
    lines were accepted against the same state)."""
    movers = set(rules.to_move(state))
    orders: dict[str, list[Any]] = {}
    used: dict[str, list[str]] = {}
    rejected: list[dict[str, str]] = []
    for handle, player_lines in lines.items():
        if handle not in movers:
            continue
        checked = rules.check(state, handle, player_lines)
        if checked.ok:
            orders[handle], used[handle] = list(checked.orders), list(player_lines)
        else:
            rejected += [
                {"player": handle, "order": p.line or "", "error": p.message}
                for p in checked.problems
            ]
    return orders, used, rejected


def adjudicate_round(
    session: Session, context: RoundContext, *, now: datetime
) -> Adjudicated | None:
    """closing -> adjudicated: resolve the round from the orders in force.

    Returns ``None`` when another caller adjudicated it first. When the game's work budget is
    exceeded the round stays ``closing`` with the reason in ``Round.error`` for the game master.
    """
    round_, game, rules, state = context.round, context.game, context.rules, context.state
    round_id = round_.id
    if round_id is None or round_.state != RoundState.CLOSING:
        return None
    orders, lines, rejected = check_stored(rules, state, lines_in_force(session, game, round_))
    try:
        resolution = rules.resolve(state, orders)
    except AdjudicationLimitError as error:
        round_.error = str(error)
        session.add(round_)
        session.flush()
        return None
    if not _step(
        session,
        round_id,
        RoundState.CLOSING,
        RoundState.ADJUDICATED,
        moment="adjudicated_at",
        at=now,
    ):
        return None
    session.refresh(round_)
    return _record_result(
        session, context, resolution=resolution, lines=lines, rejected=rejected, now=now
    )


def _record_result(
    session: Session,
    context: RoundContext,
    *,
    resolution: Resolution[Any],
    lines: dict[str, list[str]],
    rejected: list[dict[str, str]],
    now: datetime,
) -> Adjudicated:
    game, round_, rules = context.game, context.round, context.rules
    assert round_.id is not None
    outcome = rules.outcome(resolution.state)
    report = resolution.report
    result = RoundResult(
        round_id=round_.id,
        orders=lines,
        rejected=rejected,
        public_state=rules.public_state(resolution.state),
        report={
            "public": report.public,
            "private": {k: dict(v) for k, v in report.private.items()},
            "codes": {k: list(v) for k, v in report.codes.items()},
        },
        state=rules.dump(resolution.state),
        finished=outcome is not None,
        winners=list(outcome.winners) if outcome else [],
        draw=outcome.draw if outcome else False,
        created_at=now,
    )
    session.add(result)
    game.state = result.state
    next_round = None
    if outcome is not None:
        game.status = GameStatus.FINISHED
        game.finished_at = now
    else:
        next_round = open_round(session, game, now=now, settings=context.settings)
    session.add(game)
    session.flush()
    return Adjudicated(game, round_, result, resolution.state, outcome, next_round)


def mark_reported(session: Session, round_id: int, *, now: datetime) -> bool:
    """adjudicated -> reported, once every result mail has been queued."""
    return _step(
        session,
        round_id,
        RoundState.ADJUDICATED,
        RoundState.REPORTED,
        moment="reported_at",
        at=now,
    )
