"""Reporting an adjudicated round: its pictures made outside every transaction, then the round
marked reported and its result mails queued, in one transaction.

A round goes open -> closing -> adjudicated in the closing transaction (``closing.py``), which
also opens the next round; this step takes it from adjudicated to reported. Between the two no
transaction is open while the round's pictures are converted. A crash between them leaves the
round adjudicated, and the next sweep reports it. The reporting transaction starts with the
compare-and-set adjudicated -> reported: a second reporter (another instance, a retry) loses it
and queues nothing, and a crash before the commit undoes the step with its mails. A reporter
first claims the round (``storage/claims.py``) and leaves one another reporter has in hand:
the round's closer reports it right after its commit, and the pass after a batch of mail or
the sweeper, which see it waiting meanwhile, would make its pictures for nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from adjudicator.base.faults import crash_point
from adjudicator.base.logs import events as events_of
from adjudicator.games import kind_of
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.queue import queue_notice
from adjudicator.readmodel.stored import rules_of
from adjudicator.service.observers import observer_result_mails
from adjudicator.service.pictures import keep_pngs, make_pngs, missing_pngs
from adjudicator.service.round_results import round_result_mails
from adjudicator.service.rounds import Adjudicated, mark_reported
from adjudicator.storage import queries
from adjudicator.storage.claims import claimed
from adjudicator.storage.db import inserts_held, session_scope
from adjudicator.storage.models import Game, OutboxMail, Round, RoundState
from adjudicator.storage.write_lock import sqlite_write_lock

events = events_of("adjudicator.rounds")


def adjudicated_round(session: Session, round_id: int) -> Adjudicated | None:
    """What the closing produced, read back: the round, its result, the game, the next round."""
    round_ = session.get(Round, round_id)
    game = session.get(Game, round_.game_id) if round_ is not None else None
    result = queries.result_of(session, round_id)
    if round_ is None or game is None or result is None:
        return None
    rules = rules_of(game)
    state = rules.load(result.state)
    next_round = queries.round_numbered(session, game.id, round_.number + 1)
    return Adjudicated(game, round_, result, state, rules.outcome(state), next_round)


def report_round(engine: Engine, round_id: int, *, ctx: ServiceContext, now: datetime) -> bool:
    """Make the round's pictures and render its result mails (reads only, no transaction
    open), then mark it reported and queue the mails (one short transaction). False when it
    was not waiting to be reported, or another reporter has it in hand (``claims.py``)."""
    with claimed(engine, round_id) as mine:
        return mine and _report(engine, round_id, ctx=ctx, now=now)


def _report(engine: Engine, round_id: int, *, ctx: ServiceContext, now: datetime) -> bool:
    with Session(engine) as session:  # reads: SQLite's write lock is not taken
        waiting = adjudicated_round(session, round_id)
        if waiting is None or waiting.round.state != RoundState.ADJUDICATED:
            return False
        result = waiting.result
        pictures = kind_of(waiting.game.kind).pictures(
            result.public_state, result.report.get("public", {})
        )
        missing = missing_pngs(session, ctx, pictures)
    made = make_pngs(ctx, missing)
    crash_point("converted")
    with Session(engine) as session:
        mails = round_result_mails(
            session, ctx=ctx, adjudicated=waiting, now=now, pictures=pictures
        )
        mails += observer_result_mails(
            session, ctx=ctx, adjudicated=waiting, now=now, pictures=pictures
        )
    with sqlite_write_lock(engine), session_scope(engine) as session:
        keep_pngs(session, made, now=now)
        if not mark_reported(session, round_id, now=now):
            return False  # another reporter was first
        with inserts_held(session, OutboxMail, key="key"):  # one statement for all the mails
            for mail in mails:
                queue_notice(session, mail, ctx=ctx, now=now)
        crash_point("queued")
    events.info(
        "round.reported",
        game=waiting.game.name,
        round=waiting.round.number,
        pictures=len(pictures),
        converted=len(made),
    )
    return True


def report_adjudicated(engine: Engine, *, ctx: ServiceContext, now: datetime) -> list[int]:
    """Report every round waiting to be reported; the ids of those reported now."""
    with Session(engine) as session:
        waiting = queries.adjudicated_rounds(session)
    return [r for r in waiting if report_round(engine, r, ctx=ctx, now=now)]
