"""A deadline job when PostgreSQL goes away in the middle of it.

APScheduler runs the scheduler's jobs and logs a traceback for any exception that leaves one.
A database that goes away is expected (a restart, a failover): the job must say so in one line
and leave the round to the sweeper, whichever of its transactions the outage hits (closing,
reporting, or planning the rounds the closing opened). Afterwards nothing is lost and nothing
is done twice."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from pg_outage import Outage
from playing import new_game
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from adjudicator.serve.scheduler import ROUND_JOB, DeadlineScheduler
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.storage.models import Game, OutboxMail, Round, RoundResult, RoundState


def _duel(app: App, name: str) -> int:
    """A two-player game (three days a round, no reminders) and its open round's id."""
    new_game(app, ["ann", "ben"], name=name, kind="starship-combat", settings={"reminders": []})
    with Session(app.engine) as session:
        game = session.exec(select(Game).where(Game.name == name)).one()
        round_ = session.exec(select(Round).where(Round.game_id == game.id)).one()
        assert round_.id is not None
        return round_.id


@contextmanager
def commits_counted(after: int | None, outage: Outage) -> Iterator[list[int]]:
    """Count the commits of every session; with ``after``, take the database away right after
    that many."""
    count = [0]

    def committed(_session: Any) -> None:
        count[0] += 1
        if after is not None and count[0] == after and not outage.away:
            outage.take_away()

    event.listen(OrmSession, "after_commit", committed)
    try:
        yield count
    finally:
        event.remove(OrmSession, "after_commit", committed)


def test_a_deadline_job_hit_by_an_outage_logs_one_line_and_the_sweeper_finishes(
    pg_app: App, pg_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = pg_app
    outage = Outage(pg_server, app.engine.url.database or "")
    try:
        scheduler = DeadlineScheduler(app)
        # A job that meets no outage: how many transactions it commits.
        calm = _duel(app, "calm")
        app.clock.advance(hours=72)  # type: ignore[attr-defined]
        with commits_counted(None, outage) as count:
            scheduler.round_is_due(calm)
        commits = count[0]
        assert commits >= 3  # closing, reporting, planning the next round at least
        # The same job, the database gone after each of its commits but the last.
        rounds = [_duel(app, f"hit{k}") for k in range(1, commits)]
        app.clock.advance(hours=72)  # type: ignore[attr-defined]
        caplog.set_level(logging.WARNING, logger="adjudicator.scheduler")
        for k, round_id in enumerate(rounds, start=1):
            with commits_counted(k, outage):
                scheduler.round_is_due(round_id)  # raises nothing
            assert outage.away, f"no outage after commit {k}"
            outage.bring_back()
        warnings = [r for r in caplog.records if "database unavailable" in r.getMessage()]
        assert len(warnings) == len(rounds), [r.getMessage() for r in caplog.records]
        assert all(r.exc_info is None for r in warnings)
        # Back again: the sweeper closes and reports what the outages interrupted.
        sweep(app.engine, ctx=app.ctx, now=app.clock())
        app.report()
        with Session(app.engine) as session:
            hit = {session.get(Round, round_id).game_id for round_id in rounds}  # type: ignore[union-attr]
            states = {
                (r.game_id, r.number): r.state
                for r in session.exec(select(Round))
                if r.game_id in hit
            }
            assert states == {
                **{(game_id, 1): RoundState.REPORTED for game_id in hit},
                **{(game_id, 2): RoundState.OPEN for game_id in hit},
            }
            closed = session.exec(select(RoundResult).where(col(RoundResult.round_id).in_(rounds)))
            assert len(closed.all()) == len(rounds)  # each once
            results = session.exec(
                select(OutboxMail).where(
                    OutboxMail.kind == "result", col(OutboxMail.round_id).in_(rounds)
                )
            ).all()
            # Each player of each game once.
            assert sorted(m.recipient for m in results) == sorted(
                ["ann@example.org", "ben@example.org"] * len(rounds)
            )
    finally:
        if outage.away:
            outage.bring_back()
        outage.admin.dispose()


def test_a_database_away_when_serve_starts_is_one_line_and_the_plan_is_made_once_it_is_back(
    pg_app: App, pg_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``serve`` starting (or restarting) while PostgreSQL restarts: planning the deadlines
    must wait the database out like everything else, not end the service; the rounds that came
    due meanwhile are planned at once when it is back."""
    app = pg_app
    due = _duel(app, "due")
    app.clock.advance(hours=72)  # type: ignore[attr-defined]  # its deadline has passed
    outage = Outage(pg_server, app.engine.url.database or "")
    scheduler = DeadlineScheduler(app)
    caplog.set_level(logging.WARNING, logger="adjudicator.scheduler")

    def planned() -> list[str]:
        return [
            job.id
            for job in scheduler.scheduler.get_jobs()
            if job.id.startswith(f"{ROUND_JOB}{due}:")
        ]

    async def starting() -> tuple[list[str], list[str]]:
        # Nothing awaited in here: the scheduler's jobs cannot run before the checks.
        outage.take_away()
        try:
            scheduler.start()  # raises nothing
            while_away = planned()
            outage.bring_back()
            scheduler.follow()  # the scheduler's own 2-second job
            return while_away, planned()
        finally:
            scheduler.shutdown()

    try:
        while_away, once_back = asyncio.run(starting())
    finally:
        if outage.away:
            outage.bring_back()
        outage.admin.dispose()
    assert while_away == []
    assert len(once_back) == 1, once_back  # the close that came due, planned at once
    warnings = [r for r in caplog.records if "database unavailable" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    assert warnings[0].exc_info is None
