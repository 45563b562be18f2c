"""Deadlines on APScheduler 3.11, with the database as the source of truth.

Only the in-memory job store is used (3.x cannot share a job store between processes). On start
every open round of the database is scheduled; a deadline that passed while the service was down
fires at once (``misfire_grace_time=None``); a sweeper catches anything missed. The job itself is
idempotent: closing a round is a compare-and-set, so a job that fires twice, or races with the
sweeper or a game master's command, does nothing the second time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from adjudicator.app import App
from adjudicator.service.closing import Closed, close_and_adjudicate, open_deadlines, sweep
from adjudicator.storage.db import session_scope

log = logging.getLogger("adjudicator.scheduler")
SWEEP_SECONDS = 30


class DeadlineScheduler:
    def __init__(self, app: App, *, on_closed: Callable[[list[Closed]], None] | None = None):
        self.app = app
        self.on_closed = on_closed
        self.scheduler = AsyncIOScheduler(timezone="UTC")

    def start(self) -> None:
        self.scheduler.add_job(
            self.sweep,
            "interval",
            seconds=SWEEP_SECONDS,
            id="sweeper",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=None,
        )
        self.plan_all()
        self.scheduler.start()

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def plan_all(self) -> int:
        """Schedule every open round's deadline from the database."""
        with session_scope(self.app.engine) as session:
            deadlines = open_deadlines(session)
        for round_id, deadline in deadlines:
            self.plan(round_id, deadline)
        return len(deadlines)

    def plan(self, round_id: int, deadline: datetime) -> None:
        self.scheduler.add_job(
            self.close,
            "date",
            run_date=deadline,
            args=[round_id],
            id=f"round:{round_id}",
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
        )

    def close(self, round_id: int) -> None:
        with session_scope(self.app.engine) as session:
            closed = close_and_adjudicate(session, round_id, ctx=self.app.ctx, now=self.app.clock())
        if closed is not None:
            self._closed([closed])

    def sweep(self) -> None:
        self._closed(sweep(self.app.engine, ctx=self.app.ctx, now=self.app.clock()))
        self.plan_all()  # rounds opened by other instances or by the game master

    def _closed(self, closed: list[Closed]) -> None:
        for item in closed:
            if item.error:
                log.error("round %s not adjudicated: %s", item.round_id, item.error)
            else:
                log.info("round %s adjudicated", item.round_id)
        if closed:
            self.plan_all()  # the rounds that the closed ones opened
            if self.on_closed is not None:
                self.on_closed(closed)
