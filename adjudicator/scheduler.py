"""Deadlines on APScheduler 3.11, with the database as the source of truth.

Only the in-memory job store is used (3.x cannot share a job store between processes). On start
every open round of the database is planned: a job at each reminder time and at the close (the
deadline, or the end of a grace period). A time that passed while the service was down fires at
once (``misfire_grace_time=None``); a sweeper catches anything missed and plans what other
instances or the game master's commands changed. The jobs are idempotent: closing a round is a
compare-and-set, reminders and grace periods are claimed the same way, so a job that fires twice,
or races with the sweeper, another instance or a game master's command, does nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from adjudicator.app import App
from adjudicator.faults import crash_point
from adjudicator.service.closing import ClosingOutcome, close_or_remind, sweep, wake_plan
from adjudicator.service.reporting import report_round
from adjudicator.storage.db import session_scope

log = logging.getLogger("adjudicator.scheduler")
SWEEP_SECONDS = 30


class DeadlineScheduler:
    def __init__(
        self, app: App, *, on_closed: Callable[[list[ClosingOutcome]], None] | None = None
    ):
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
        self.plan_all(include_past=True)  # what came due while the service was down: at once
        self.scheduler.start()

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def plan_all(
        self, *, include_past: bool = False, of_rounds: Collection[int] | None = None
    ) -> int:
        """Plan every open round's reminders and close from the database (with ``of_rounds``,
        those of these rounds' games only); the number of jobs. Past times are left to the
        sweeper, except on start."""
        now = self.app.clock()
        with session_scope(self.app.engine) as session:
            plan = wake_plan(session, of_rounds=of_rounds)
        count = 0
        for round_id, times in plan:
            for moment in times:
                if include_past or moment > now:
                    count += self.plan(round_id, moment)
        return count

    def plan(self, round_id: int, moment: datetime) -> bool:
        """Add a job unless it is planned already; True when added."""
        job_id = f"round:{round_id}:{int(moment.timestamp())}"
        if self.scheduler.get_job(job_id) is not None:
            return False
        self.scheduler.add_job(
            self.round_is_due,
            "date",
            run_date=moment,
            args=[round_id],
            id=job_id,
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
        )
        return True

    def round_is_due(self, round_id: int) -> None:
        """A planned time of an open round has come: remind, wait or close, then report."""
        with session_scope(self.app.engine) as session:
            closed = close_or_remind(session, round_id, ctx=self.app.ctx, now=self.app.clock())
        crash_point("committed")
        if closed is not None and closed.adjudicated is not None:
            # This round only: the other threads report their own, and the sweeper picks up a
            # round a crash left adjudicated. Two threads never draw the same pictures.
            report_round(self.app.engine, round_id, ctx=self.app.ctx, now=self.app.clock())
        if closed is not None:
            self._closed([closed])

    def sweep(self) -> None:
        self._closed(sweep(self.app.engine, ctx=self.app.ctx, now=self.app.clock()))
        self.plan_all()  # rounds opened or moved by other instances or by the game master

    def _closed(self, closed: list[ClosingOutcome]) -> None:
        for item in closed:
            if item.error:
                log.error("round %s not adjudicated: %s", item.round_id, item.error)
            elif item.waiting_until:
                log.info("round %s: grace period until %s", item.round_id, item.waiting_until)
            else:
                log.info("round %s adjudicated", item.round_id)
        if closed:
            # The rounds the closed ones opened, and grace periods: only their games, so that
            # a burst of closings does not read every open round once per closing.
            self.plan_all(of_rounds=[item.round_id for item in closed])
            if self.on_closed is not None:
                self.on_closed(closed)
