"""Due rounds closed by worker processes (``adjudicator/serve/workers.py``): the same effects as in
the service's own process, several rounds at once, and a worker killed in the middle of a round
loses nothing and does nothing twice. Real processes, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playing import close_open_round, new_game, poll, running
from sqlmodel import Session, col, func, select

import adjudicator.serve.workers
from adjudicator.base.faults import ENVIRONMENT_VARIABLE
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.serve.scheduler import DeadlineScheduler
from adjudicator.serve.workers import RoundWorkers
from adjudicator.service import closing
from adjudicator.service.app import App
from adjudicator.service.closing import sweep
from adjudicator.service.games import find_game
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.models import OutboxMail, Round, RoundResult, RoundState


def _duel(app: App, name: str) -> int:
    """A started Starship Combat duel; its open round's id."""
    new_game(
        app, [f"{name}a", f"{name}b"], name=name, kind="starship-combat", settings={"reminders": []}
    )
    with Session(app.engine) as session:
        round_ = open_round_of(session, find_game(session, name))
        assert round_ is not None
        assert round_.id is not None
        return round_.id


@contextmanager
def _workers(app: App) -> Iterator[RoundWorkers]:
    """Two worker processes for ``app``, stopped when the block ends."""
    workers = RoundWorkers(app.config, 2)
    try:
        yield workers
    finally:
        workers.shutdown()


def _round(app: App, round_id: int) -> tuple[RoundState, int, int]:
    """The round's state, its stored results and its queued result mails."""
    with Session(app.engine) as session:
        round_ = session.get(Round, round_id)
        assert round_ is not None
        results = session.exec(
            select(func.count()).where(col(RoundResult.round_id) == round_id)
        ).one()
        mails = session.exec(
            select(func.count()).where(
                col(OutboxMail.round_id) == round_id, col(OutboxMail.kind) == "result"
            )
        ).one()
        return round_.state, results, mails


@pytest.fixture(params=["sqlite", "postgresql"])
def any_app(request: pytest.FixtureRequest) -> App:
    app: App = request.getfixturevalue("app" if request.param == "sqlite" else "pg_app")
    return app


def test_workers_close_several_due_rounds_at_once_each_exactly_once(any_app: App) -> None:
    app = any_app
    rounds = [_duel(app, f"duel{n}") for n in range(4)]
    app.clock.advance(hours=72)  # type: ignore[attr-defined]
    with _workers(app) as workers:
        scheduler = DeadlineScheduler(app, workers=workers)
        # Each round is due twice at once (a job and its repeat), from four threads.
        jobs = [threading.Thread(target=scheduler.round_is_due, args=(r,)) for r in rounds * 2]
        for job in jobs:
            job.start()
        for job in jobs:
            job.join(120)
        assert not any(job.is_alive() for job in jobs)
    for round_id in rounds:
        # Adjudicated once, reported, and one result mail for each of the two players.
        assert _round(app, round_id) == (RoundState.REPORTED, 1, 2)


def test_a_worker_killed_mid_round_loses_nothing_and_the_sweeper_finishes_it(
    any_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = any_app
    first, second = _duel(app, "first"), _duel(app, "second")
    app.clock.advance(hours=72)  # type: ignore[attr-defined]
    # The worker kills itself (SIGKILL) right after the closing transaction commits, before
    # the round's results are queued.
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "committed")
    with _workers(app) as workers:
        assert workers.round_is_due(first, app.clock()) is None
        assert _round(app, first) == (RoundState.ADJUDICATED, 1, 0)
        monkeypatch.delenv(ENVIRONMENT_VARIABLE)
        closed = workers.round_is_due(second, app.clock())  # a new pool, without the crash
        assert closed is not None
        assert closed.adjudicated
        assert _round(app, second) == (RoundState.REPORTED, 1, 2)
    sweep(app.engine, ctx=app.ctx, now=app.clock())  # reports what the dead worker left
    assert _round(app, first) == (RoundState.REPORTED, 1, 2)


SERVICE_WITH_WORKERS = """
import sys
from adjudicator.service.app import make_app
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.serve.workers import RoundWorkers, _ready

config = Config(service=ServiceConfig(data_dir=sys.argv[1]))
make_app(config)  # as serve does: the database and its key file first; workers only read them
workers = RoundWorkers(config, 2)
assert workers.pool is not None
assert workers.pool.submit(_ready).result(timeout=120)
print(*workers.pool._processes, flush=True)
sys.stdin.read()  # until killed
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_workers_of_a_killed_service_end_too(tmp_path: Path) -> None:
    """``adjudicate serve`` killed with SIGKILL: its worker processes once lived on for good,
    one pool more at each kill; they end by themselves now."""
    service = subprocess.Popen(
        [sys.executable, "-c", SERVICE_WITH_WORKERS, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert service.stdout is not None
        workers = [int(pid) for pid in service.stdout.readline().split()]
        assert len(workers) == 2
        assert all(running(pid) for pid in workers)
    finally:
        service.kill()
        service.wait()
    poll(lambda: not any(running(pid) for pid in workers), timeout=60)
    left = [pid for pid in workers if running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_an_archive_pass_rebuilds_the_pages_in_a_worker(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, the archive pass hands each game to a worker process: the pages of both
    games with a reported round are written although this process cannot build any (its
    ``ArchiveKeeper.build`` fails here, not in the worker's fresh interpreter)."""
    for name in ("gw1", "gw2"):
        new_game(app, ["alice", "bob", "carol"], name=name)
        close_open_round(app, name)

    def not_here(self: ArchiveKeeper, name: str) -> None:
        raise AssertionError(f"game {name} built in the service's own process")

    monkeypatch.setattr(ArchiveKeeper, "build", not_here)
    keeper = ArchiveKeeper(app.engine, app.config, authority=app.ctx.identity.domain)
    with _workers(app) as workers:
        keeper.builder = workers.archive_game
        assert set(keeper.run_once()) == {"gw1", "gw2"}
    for name in ("gw1", "gw2"):
        page = (app.config.archive_path / name / "round-1.html").read_text(encoding="utf-8")
        assert "alice" in page
    assert keeper.run_once() == []  # each game once


def test_a_game_whose_archiving_worker_died_is_rebuilt_on_the_next_pass(
    app: App, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The worker is killed (SIGKILL) while it archives the game: the pass counts the game
    as not built, and the next pass builds it with a new worker."""
    new_game(app, ["alice", "bob", "carol"], name="gw1")
    close_open_round(app, "gw1")
    keeper = ArchiveKeeper(app.engine, app.config, authority=app.ctx.identity.domain)
    with _workers(app) as workers:
        keeper.builder = workers.archive_game
        monkeypatch.setattr(adjudicator.serve.workers, "_archive_game", _die)
        assert keeper.run_once() == []  # the worker died: nothing counted as built
        assert "a worker process died archiving game gw1" in caplog.text
        monkeypatch.undo()
        assert keeper.run_once() == ["gw1"]  # a new pool, the game built
    assert (app.config.archive_path / "gw1" / "round-1.html").is_file()


def _die(name: str) -> bool:
    os.kill(os.getpid(), signal.SIGKILL)
    return False


def test_the_sweeper_closes_and_reports_in_a_worker(
    any_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in the service's process: there, the pictures of the rounds it reports would take
    the memory and the CPU of the mail."""
    app = any_app
    rounds = [_duel(app, f"duel{n}") for n in range(2)]
    app.clock.advance(hours=72)  # type: ignore[attr-defined]

    def not_here(*_: object, **__: object) -> None:
        raise AssertionError("the sweep reported a round in the service's process")

    # The workers' processes are not patched: they are forked from a process of their own.
    monkeypatch.setattr(closing, "report_round", not_here)
    monkeypatch.setattr(closing, "report_adjudicated", not_here)
    with _workers(app) as workers:
        DeadlineScheduler(app, workers=workers).sweep()
    for round_id in rounds:
        assert _round(app, round_id) == (RoundState.REPORTED, 1, 2)


def test_a_worker_killed_mid_sweep_leaves_the_round_to_the_next_sweep(
    any_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = any_app
    round_id = _duel(app, "duel")
    app.clock.advance(hours=72)  # type: ignore[attr-defined]
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "committed")  # dies once the closing commits
    with _workers(app) as workers:
        assert workers.sweep(app.clock()) == []
        assert _round(app, round_id) == (RoundState.ADJUDICATED, 1, 0)
        monkeypatch.delenv(ENVIRONMENT_VARIABLE)
        # A new pool: nothing left to close, and it reports what the dead worker left.
        assert workers.sweep(app.clock()) == []
    assert _round(app, round_id) == (RoundState.REPORTED, 1, 2)
