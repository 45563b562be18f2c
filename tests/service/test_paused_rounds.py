"""No round of a paused game closes, whoever tries (README: "no round closes while paused").

Several instances may share one PostgreSQL database, and each plans deadlines in memory: a
job planned before the game master paused the game, by this instance or another, still fires.
The closing itself must refuse, in the transaction that closes the round, and a pause that
commits while a closing is under way must either come first (the round stays open) or wait
for it (the round closed before the pause)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from playing import clock_of, new_game, poll
from sqlalchemy import text
from sqlmodel import Session, select

from adjudicator.serve.scheduler import DeadlineScheduler
from adjudicator.service import gm
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import find_game
from adjudicator.service.rounds import close_round, open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import GameStatus, OutboxMail, Round, RoundState


def _open_round_id(app: App) -> int:
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, "gw1"))
        assert round_ is not None
        assert round_.id is not None
        return round_.id


def _round_state(app: App, round_id: int) -> RoundState:
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        assert round_ is not None
        return round_.state


def _results(app: App) -> int:
    with Session(app.engine) as session:
        return len(session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all())


def test_a_job_planned_before_the_pause_closes_nothing_on_postgresql(pg_app: App) -> None:
    app = pg_app
    new_game(app, ["ann", "ben", "cat"], settings={"early_close": False, "reminders": []})
    round_id = _open_round_id(app)
    scheduler = DeadlineScheduler(app)  # another instance, say, that planned the deadline
    with session_scope(app.engine) as session:
        gm.pause(session, find_game(session, "gw1"), ctx=app.ctx, now=app.clock())
    clock_of(app).advance(hours=73)  # past the deadline
    scheduler.round_is_due(round_id)  # the job planned before the pause fires
    sweep(app.engine, ctx=app.ctx, now=app.clock())
    with session_scope(app.engine) as session:
        assert not close_round(session, round_id, now=app.clock())  # asked directly
    assert _round_state(app, round_id) == RoundState.OPEN
    assert _results(app) == 0


def test_a_pause_committing_during_a_closing_keeps_the_round_open_on_postgresql(
    pg_app: App,
) -> None:
    """The pause holds the game's row when the deadline job starts to close the round: the
    closing waits for it, then sees the game paused and leaves the round open."""
    app = pg_app
    new_game(app, ["ann", "ben", "cat"], settings={"early_close": False, "reminders": []})
    round_id = _open_round_id(app)
    clock_of(app).advance(hours=73)
    scheduler = DeadlineScheduler(app)
    pausing = Session(app.engine)
    try:
        gm.pause(pausing, find_game(pausing, "gw1"), ctx=app.ctx, now=app.clock())
        pausing.flush()  # the game's row is the pause's until it commits
        job = threading.Thread(target=scheduler.round_is_due, args=[round_id])
        job.start()
        assert poll(lambda: _waiting_for_a_lock(app) or not job.is_alive(), timeout=30)
        pausing.commit()
    finally:
        pausing.close()
    job.join(timeout=60)
    assert not job.is_alive()
    assert _round_state(app, round_id) == RoundState.OPEN
    with Session(app.engine) as session:
        assert find_game(session, "gw1").status == GameStatus.PAUSED
    assert _results(app) == 0


def _waiting_for_a_lock(app: App) -> bool:
    """Whether a session of the test's database waits for a row lock."""
    with app.engine.connect() as connection:
        waiting = connection.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
        ).scalar_one()
    return bool(waiting)


def _planned(scheduler: DeadlineScheduler, round_id: int) -> set[datetime]:
    """When the scheduler will look at the round (its jobs' run times)."""
    return {
        job.trigger.run_date
        for job in scheduler.scheduler.get_jobs()
        if job.id.startswith(f"round:{round_id}:")
    }


def test_the_scheduler_follows_a_pause_and_a_resume_made_by_another_process(app: App) -> None:
    """The plan is the database's: a pause withdraws the round's deadline job, a resume plans
    the moved deadline, as soon as the scheduler reads the rounds' times again."""
    new_game(app, ["ann", "ben", "cat"], settings={"early_close": False, "reminders": []})
    round_id = _open_round_id(app)
    scheduler = DeadlineScheduler(app)
    scheduler.plan_all()
    scheduler.follow()
    with Session(app.engine) as session:
        deadline = session.get(Round, round_id).deadline  # type: ignore[union-attr]
    assert _planned(scheduler, round_id) == {deadline}
    with session_scope(app.engine) as session:  # the command line, say
        gm.pause(session, find_game(session, "gw1"), ctx=app.ctx, now=app.clock())
    scheduler.follow()
    assert _planned(scheduler, round_id) == set()
    clock_of(app).advance(hours=1)
    with session_scope(app.engine) as session:
        gm.resume(session, find_game(session, "gw1"), ctx=app.ctx, now=app.clock())
    scheduler.follow()
    assert deadline is not None
    assert _planned(scheduler, round_id) == {deadline + timedelta(hours=1)}
