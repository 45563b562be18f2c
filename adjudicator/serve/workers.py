"""Rounds closed in worker processes, so that a burst of deadlines uses every core.

Closing a round, drawing its pictures and rendering its result mails is Python work that holds
the interpreter lock; in one process a burst of deadlines runs on one core however many
scheduler threads wait. ``adjudicate serve`` therefore hands each due round to a pool of
worker processes (``service.workers``; 0, the default, means one per core), each with its own
database engine. A worker runs exactly what the scheduler runs in-process
(``closing.close_due_round``), in its own transactions: every step is the same
compare-and-set, so a worker that dies (SIGKILL, out of memory) loses nothing and does nothing
twice; the round is left to the sweeper, and the next due round starts a new pool.

The archive pass rebuilds each game's pages in a worker too (``archive_game``): a pass after a
burst of results costs tens of milliseconds a game, which the service's own process keeps for
the mail.

Workers ignore SIGINT and SIGTERM: the service stops them itself, after the round in hand. A
worker whose service was killed ends by itself within a second or so.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from adjudicator.base.config import Config
from adjudicator.base.logs import configure_logging
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.serve.child_processes import process_pool
from adjudicator.serve.garbage_collection import settle
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import (
    ClosingOutcome,
    close_and_report_completed,
    close_due_round,
    sweep,
)

log = logging.getLogger("adjudicator.workers")
T = TypeVar("T")


class WorkerDied(RuntimeError):
    """The worker process doing a job died (killed, out of memory) before it was done."""


@dataclass(frozen=True)
class Closed:
    """What became of a due round, as the scheduler logs it (sent back from a worker)."""

    round_id: int
    adjudicated: bool
    error: str | None = None
    waiting_until: datetime | None = None

    @classmethod
    def of(cls, outcome: ClosingOutcome) -> Closed:
        return cls(
            outcome.round_id, outcome.adjudicated is not None, outcome.error, outcome.waiting_until
        )


def round_is_due(app: App, round_id: int, now: datetime) -> Closed | None:
    """A planned time of an open round has come: remind, wait or close, then report this
    round's results (``closing.close_due_round``)."""
    closed = close_due_round(app.engine, round_id, ctx=app.ctx, now=now, remind=True)
    return None if closed is None else Closed.of(closed)


def report_waiting(app: App, now: datetime) -> int:
    """Close the rounds whose last orders came in, then report every round waiting to be
    reported (those, and any a crash left); how many were reported."""
    return len(close_and_report_completed(app.engine, ctx=app.ctx, now=now))


def sweep_rounds(app: App, now: datetime) -> list[Closed]:
    """The sweeper's pass (``closing.sweep``): what became of each round it closed."""
    return [Closed.of(outcome) for outcome in sweep(app.engine, ctx=app.ctx, now=now)]


def worker_count(configured: int) -> int:
    """``service.workers``: 0 means one per core; 1 (or a single core) means no pool."""
    return configured if configured > 0 else os.cpu_count() or 1


_app: App | None = None


def _start_worker(config: Config, level: str) -> None:
    global _app  # noqa: PLW0603 - one application per worker process
    configure_logging(
        log_format=config.service.log_format, level=level, log_file=config.service.log_file
    )
    _app = make_app(config, check=False)
    settle()


def _round_is_due(round_id: int, now: datetime) -> Closed | None:
    assert _app is not None, "a worker is started with its application"
    return round_is_due(_app, round_id, now)


def _report_waiting(now: datetime) -> int:
    assert _app is not None, "a worker is started with its application"
    return report_waiting(_app, now)


def _sweep(now: datetime) -> list[Closed]:
    assert _app is not None, "a worker is started with its application"
    return sweep_rounds(_app, now)


_keeper: ArchiveKeeper | None = None


def _archive_game(name: str) -> bool:
    """One game's archive pages, by this worker's keeper (its templates compiled once)."""
    global _keeper  # noqa: PLW0603 - one keeper per worker process, made on first use
    assert _app is not None, "a worker is started with its application"
    if _keeper is None:
        _keeper = ArchiveKeeper(_app.engine, _app.config, authority=_app.ctx.identity.domain)
    _keeper.build(name)
    return True


def _ready() -> bool:
    return _app is not None


class RoundWorkers:
    """A pool of worker processes that close due rounds (see the module's docstring)."""

    def __init__(self, config: Config, count: int) -> None:
        self.config, self.count = config, count
        self.level = logging.getLevelName(logging.getLogger().getEffectiveLevel()).lower()
        self.pool: ProcessPoolExecutor | None = None
        self._started()  # now, not at the first deadline

    def _started(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = process_pool(self.count, _start_worker, (self.config, self.level))
            for _ in range(self.count):
                self.pool.submit(_ready)
        return self.pool

    def round_is_due(self, round_id: int, now: datetime) -> Closed | None:
        """Run the round's due time in a worker and wait for it (``None`` when the worker
        died: see :meth:`_run`)."""
        return self._run(_round_is_due, round_id, now, what=f"closing round {round_id}")

    def report_waiting(self, now: datetime) -> int:
        """Report the rounds waiting to be reported, in a worker; how many."""
        return self._run(_report_waiting, now, what="reporting rounds") or 0

    def sweep(self, now: datetime) -> list[Closed]:
        """The sweeper's pass in a worker (``sweep_rounds``): the rounds it finds closed and
        reported there, their pictures made there, as every other round's, not in the
        service's process, which keeps its CPU and memory for the mail. What became of the
        rounds it closed; nothing when the worker died (the next pass does it again)."""
        return self._run(_sweep, now, what="sweeping", then="the next sweep takes it up") or []

    def archive_game(self, name: str) -> None:
        """Rebuild the archive pages of the game ``name`` in a worker (``ArchiveKeeper.build``),
        so that an archive pass after a burst of results (tens of milliseconds a game) leaves
        the service's own process to the mail. Raises :class:`WorkerDied` when the worker died:
        the game is rebuilt on the next pass."""
        if self._run(_archive_game, name, what=f"archiving game {name}", then=None) is None:
            raise WorkerDied(f"the worker archiving game {name} died")

    def _run(
        self,
        job: Callable[..., T],
        *args: object,
        what: str,
        then: str | None = "the sweeper takes it up",
    ) -> T | None:
        """``job(*args)`` in a worker. A worker that died leaves its round to the sweeper (its
        transactions rolled back or committed whole): ``None``, and the next job starts a
        new pool."""
        pool = self._started()
        try:
            return pool.submit(job, *args).result()
        except BrokenProcessPool:
            log.error("a worker process died %s%s", what, f"; {then}" if then else "")
            if self.pool is pool:
                self.pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            return None

    def shutdown(self) -> None:
        """Let the rounds in hand finish, then stop the workers."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
