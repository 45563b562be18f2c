"""Deadlines on APScheduler 3.11, with the database as the source of truth.

Only the in-memory job store is used (3.x cannot share a job store between processes). On start
every open round of the database is planned: a job at each reminder time and at the close (the
deadline, or the end of a grace period). A time that passed while the service was down fires at
once (``misfire_grace_time=None``); a sweeper catches anything missed. What another process
changes (the game master's command line, a mail command, another instance) is followed within
``FOLLOW_SECONDS``: the times of the open rounds are read again, and when they differ from the
last reading the plan is made again from the database, withdrawing the jobs of rounds that were
paused, moved, rolled back or removed. The jobs are idempotent: closing a round is a
compare-and-set that holds only while its game runs, reminders and grace periods are claimed the
same way, so a job that fires twice, or late, or races with the sweeper, another instance or a
game master's command, does nothing twice and closes no round of a paused game.
Under ``adjudicate serve`` the jobs and the sweeper hand their rounds to worker processes
(``workers.py``). Every ``DIGEST_SECONDS`` the daily digests due are queued
(``notify/digest.py``), each in the transaction that marks the notices it carries.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Collection
from datetime import datetime

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy.exc import OperationalError

from adjudicator.notify.digest import DIGEST_SECONDS
from adjudicator.serve.workers import Closed, RoundWorkers, round_is_due, sweep_rounds
from adjudicator.service.app import App
from adjudicator.service.closing import wake_plan
from adjudicator.service.digests import send_due_digests
from adjudicator.storage import queries
from adjudicator.storage.db import session_scope, unavailable

log = logging.getLogger("adjudicator.scheduler")
SWEEP_SECONDS = 30
ROUND_JOB = "round:"
"""How the id of a round's job begins (``_job_id``): the jobs a plan may withdraw."""
FOLLOW_SECONDS = 2.0
"""How often the times of the open rounds are read again (``DeadlineScheduler.follow``): a
query of three columns of the open rounds (10-40 ms for 1,000 of them, SQLite or PostgreSQL,
on a busy machine of two cores), the plan made again only when they changed."""
ROUND_THREADS = 8
"""Due rounds handled at once: each thread closes one (or waits for a worker process that
does); the others wait their turn in the scheduler's queue."""


class DeadlineScheduler:
    """``workers``: run due rounds in worker processes (``workers.py``) instead of this
    process's scheduler threads."""

    def __init__(
        self,
        app: App,
        *,
        on_closed: Callable[[list[Closed]], object] | None = None,
        workers: RoundWorkers | None = None,
        on_digests: Callable[[], object] | None = None,
    ):
        self.app = app
        self.on_closed = on_closed
        self.on_digests = on_digests  # digests queued: the outbox has mail to send
        self.workers = workers
        # Threads of the scheduler's own: APScheduler would run the jobs in the event loop's
        # default executor, which the service's own thread work (reading the Maildir, the
        # outbox's claims and records) shares; a deadline's hundreds of due rounds queued
        # there made a player who wrote meanwhile wait for all of them to be answered.
        self.scheduler = AsyncIOScheduler(
            timezone="UTC", executors={"default": ThreadPoolExecutor(ROUND_THREADS)}
        )
        self._planning = threading.Lock()  # one plan at a time: read, then add and withdraw
        self._followed: frozenset[object] | None = None  # the round times last read
        self._past_planned = False  # the first plan, which also plans the times gone by

    def start(self) -> None:
        # The periodic jobs: one run at a time each, a late run made once, however late.
        for job, seconds, name in (
            (self.sweep, SWEEP_SECONDS, "sweeper"),
            (self.follow, FOLLOW_SECONDS, "follower"),
            (self.digests, DIGEST_SECONDS, "digests"),
        ):
            self.scheduler.add_job(
                job,
                "interval",
                seconds=seconds,
                id=name,
                coalesce=True,
                max_instances=1,
                misfire_grace_time=None,
            )
        self._plan_first()
        self.scheduler.start()

    def _plan_first(self) -> None:
        """The first plan, with what came due while the service was down (at once). A
        database away at the start (a restart, a failover) is one line: ``follow`` makes this
        plan as soon as it is back."""
        try:
            self.plan_all(include_past=True)
            self._past_planned = True
        except OperationalError as error:
            log.warning(
                "planning the deadlines waits, database unavailable: %s", unavailable(error)
            )

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def plan_all(
        self, *, include_past: bool = False, of_rounds: Collection[int] | None = None
    ) -> int:
        """Plan every open round's reminders and close from the database (with ``of_rounds``,
        those of these rounds' games only); the number of jobs added. Past times are left to
        the sweeper, except on start. A whole plan (no ``of_rounds``) also withdraws every
        job the database no longer asks for: a round no longer open, of a game paused or
        gone, or a time moved (``withdraw``)."""
        now = self.app.clock()
        with self._planning:
            with session_scope(self.app.engine) as session:
                plan = wake_plan(session, of_rounds=of_rounds)
            wanted = {_job_id(round_id, moment) for round_id, times in plan for moment in times}
            withdrawn = self.withdraw(keep=wanted) if of_rounds is None else 0
            count = 0
            for round_id, times in plan:
                for moment in times:
                    if include_past or moment > now:
                        count += self.plan(round_id, moment)
        if withdrawn:
            log.info("%d planned time(s) withdrawn: rounds closed, paused or moved", withdrawn)
        return count

    def withdraw(self, *, keep: Collection[str]) -> int:
        """Remove the rounds' jobs not in ``keep``; how many. A job running now has left the
        job store already; one that fires anyway (planned by another thread meanwhile) finds
        its round as the database has it, and does nothing it should not."""
        withdrawn = 0
        for job in self.scheduler.get_jobs():
            if job.id.startswith(ROUND_JOB) and job.id not in keep:
                with contextlib.suppress(JobLookupError):
                    job.remove()
                    withdrawn += 1
        return withdrawn

    def follow(self) -> None:
        """Read the times of the open rounds of running games; when they changed since the last
        reading (a round paused, resumed, moved, rolled back, opened or removed by another
        process, or closed here), make the whole plan again."""
        try:
            if not self._past_planned:
                self.plan_all(include_past=True)
                self._past_planned = True
            with session_scope(self.app.engine) as session:
                times = queries.closing_times(session)
            if times == self._followed:
                return
            self.plan_all()
            self._followed = times  # after the plan: a plan that failed is made again
        except OperationalError as error:  # the main loop and the sweeper say it too
            log.debug("following the plan waits, database unavailable: %s", unavailable(error))

    def plan(self, round_id: int, moment: datetime) -> bool:
        """Add a job unless it is planned already; True when added."""
        job_id = _job_id(round_id, moment)
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
        now = self.app.clock()
        try:
            if self.workers is not None:
                closed = self.workers.round_is_due(round_id, now)
            else:
                closed = round_is_due(self.app, round_id, now)
            if closed is not None:
                self._closed([closed])
        except OperationalError as error:
            # The database went away during the closing or while planning what it opened:
            # one line, and the sweeper finds both again (APScheduler would log a traceback).
            log.warning(
                "round %s left to the sweeper, database unavailable: %s",
                round_id,
                unavailable(error),
            )

    def sweep(self) -> None:
        """Close and report what no job did (``closing.sweep``): in a worker where there are
        workers."""
        now = self.app.clock()
        try:
            if self.workers is not None:
                self._closed(self.workers.sweep(now))
            else:
                self._closed(sweep_rounds(self.app, now))
            self.plan_all()  # as ``follow`` does, and reminders moved by quiet hours too
        except OperationalError as error:  # one line, not a traceback every 30 s
            log.warning("sweep skipped, database unavailable: %s", unavailable(error))

    def digests(self) -> None:
        """Queue the daily digests due (``notify/digest.py``); the outbox sends them."""
        try:
            queued = send_due_digests(self.app.engine, ctx=self.app.ctx, now=self.app.clock())
        except OperationalError as error:  # held notices stay held: the next pass sends them
            log.warning("digests wait, database unavailable: %s", unavailable(error))
            return
        if queued:
            log.info("%d daily digest(s) queued", queued)
            if self.on_digests is not None:
                self.on_digests()

    def _closed(self, closed: list[Closed]) -> None:
        for item in closed:
            if item.error:
                log.error("round %s not adjudicated: %s", item.round_id, item.error)
            elif item.waiting_until:
                log.info("round %s waits until %s", item.round_id, item.waiting_until)
            else:
                log.info("round %s adjudicated", item.round_id)
        if closed:
            # The rounds the closed ones opened, and grace periods: only their games, so that
            # a burst of closings does not read every open round once per closing.
            self.plan_all(of_rounds=[item.round_id for item in closed])
            if self.on_closed is not None:
                self.on_closed(closed)


def _job_id(round_id: int, moment: datetime) -> str:
    """A round's job at ``moment``: planned once however often the plan is made."""
    return f"{ROUND_JOB}{round_id}:{int(moment.timestamp())}"
