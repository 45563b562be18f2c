"""``adjudicate serve`` when the database is locked or a mail was left half done: it waits,
retries with backoff, says so in its log and metrics, and carries on with nothing lost.

The service runs as a real process on a real SQLite file and Maildir folder; the lock is a
real writer's lock, taken by the test on the same file."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mailservers import free_port
from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import Session, select
from test_serve_signals import ADJUDICATE, _environment, _order_mail, _seed

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import deliver
from adjudicator.serve import runner
from adjudicator.serve.runner import Service
from adjudicator.service.app import App, make_app
from adjudicator.service.intake import store_raw
from adjudicator.storage.db import make_engine, session_scope
from adjudicator.storage.models import Round, RoundResult, RoundState, Submission, SubmissionStatus

ADDRESS = "judge@pbem.test"


def _retries(port: int) -> float | None:
    """The service's count of database waits, or None while its metrics do not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    except OSError:
        return None
    for family in text_string_to_metric_families(text):
        if family.name == "adjudicator_database_retries":
            return sum(s.value for s in family.samples if s.name.endswith("_total"))
    return None


def _statuses(path: Path) -> list[SubmissionStatus]:
    engine = make_engine(f"sqlite:///{path}")
    try:
        with Session(engine) as session:
            return list(session.exec(select(Submission.status)).all())
    finally:
        engine.dispose()


@pytest.mark.slow
def test_serve_waits_out_a_locked_database_and_then_takes_the_mail(tmp_path: Path) -> None:
    """A mail arrives while another program holds the SQLite write lock longer than the busy
    timeout: the service once exited (code 1); now it logs, counts, waits and takes the mail."""
    credentials = _seed(tmp_path)
    port = free_port()
    env = _environment(tmp_path, ADJUDICATOR_METRICS_PORT=str(port))
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    locker = sqlite3.connect(tmp_path / "adjudicator.db", isolation_level=None, timeout=30)
    try:
        deadline = time.monotonic() + 60
        while _retries(port) is None and time.monotonic() < deadline:
            time.sleep(0.1)  # until it serves
        locker.execute("BEGIN IMMEDIATE")  # the write lock, held
        deliver(tmp_path / "maildir", _order_mail(credentials[0], credentials[1].handle, 1))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if (_retries(port) or 0) >= 1:
                break
            time.sleep(0.2)
        assert process.poll() is None, "serve exited while the database was locked"
        assert (_retries(port) or 0) >= 1
        locker.execute("ROLLBACK")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and _statuses(tmp_path / "adjudicator.db") != [
            SubmissionStatus.ACCEPTED
        ]:
            time.sleep(0.2)
        assert _statuses(tmp_path / "adjudicator.db") == [SubmissionStatus.ACCEPTED]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        locker.close()
        if process.poll() is None:
            process.kill()
        _, stderr = process.communicate(timeout=30)
    assert b"database unavailable" in stderr, stderr.decode()[-2000:]


def test_a_stored_mail_left_unprocessed_is_taken_by_the_running_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A piped mail whose ``adjudicate receive`` was killed after storing it once waited for
    the next restart; the running service's sweep takes it."""
    credentials = _seed(tmp_path)
    monkeypatch.setattr(runner, "PENDING_SECONDS", 0.2)
    app = make_app(Config(service=ServiceConfig(data_dir=str(tmp_path), address=ADDRESS)))
    raw = _order_mail(credentials[0], credentials[1].handle, 1)
    passes: list[int] = []  # what each pass over stored-but-unprocessed mail took up
    take_pending = app.process_pending

    def counted() -> int:
        passes.append(take_pending())
        return passes[-1]

    monkeypatch.setattr(app, "process_pending", counted)

    async def scenario() -> list[SubmissionStatus]:
        service = Service(app)
        running = asyncio.ensure_future(service.run())
        deadline = time.monotonic() + 30
        while not passes and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # until the start's recovery pass is over
        assert passes == [0]
        with session_scope(app.engine) as session:
            store_raw(session, raw, channel="pipe", now=app.clock())  # then killed
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            statuses = await asyncio.to_thread(_statuses, tmp_path / "adjudicator.db")
            if statuses != [SubmissionStatus.RECEIVED]:
                break
            await asyncio.sleep(0.1)
        service.request_stop()
        await running
        return statuses

    try:
        assert asyncio.run(scenario()) == [SubmissionStatus.ACCEPTED]
    finally:
        app.engine.dispose()
    assert passes[0] == 0  # the start found nothing: a later pass of the running service
    assert sum(passes[1:]) == 1  # took the mail, once


def test_the_redelivery_of_a_mail_left_unprocessed_is_processed(tmp_path: Path) -> None:
    """The mail server retries a pipe whose process was killed after storing the mail: the
    retry was once dropped as a copy; it is processed now, once."""
    credentials = _seed(tmp_path)
    app = make_app(Config(service=ServiceConfig(data_dir=str(tmp_path), address=ADDRESS)))
    raw = _order_mail(credentials[0], credentials[1].handle, 1)
    try:
        with session_scope(app.engine) as session:
            store_raw(session, raw, channel="pipe", now=app.clock())  # then killed
        assert app.ingest(raw, channel="pipe") == SubmissionStatus.ACCEPTED
        assert app.ingest(raw, channel="pipe") is None  # processed: now a mere copy
        assert _statuses(tmp_path / "adjudicator.db") == [SubmissionStatus.ACCEPTED]
    finally:
        app.engine.dispose()


def test_orders_that_came_before_the_deadline_while_the_service_was_down_count(
    tmp_path: Path,
) -> None:
    """An order mail reaches the Maildir before the deadline while the service is down (killed,
    restarting, waiting for its database); the service starts after the deadline. The order
    counts: it is taken before the due round is closed, and judged by when it arrived. It was
    once refused as late, and the round closed without it."""
    credentials = _seed(tmp_path)
    config = Config(service=ServiceConfig(data_dir=str(tmp_path), address=ADDRESS, workers=1))
    app = make_app(config)
    mail = _order_mail(credentials[0], credentials[1].handle, 1)
    deliver_then_let_the_deadline_pass(app, lambda: deliver(config.maildir_path, mail))
    try:
        serve_until_reported(app)
        assert _statuses(tmp_path / "adjudicator.db") == [SubmissionStatus.ACCEPTED]
        with Session(app.engine) as session:
            result = session.exec(select(RoundResult)).one()
        assert result.orders[credentials[0].handle] == [f"GIVE 3 TO {credentials[1].handle}"]
    finally:
        app.engine.dispose()


def serve_until_reported(app: App, number: int = 1) -> None:
    """Run the service's main loop until round ``number`` is reported (at most 60 s), then
    stop it as SIGTERM would."""

    def reported() -> bool:
        with Session(app.engine) as session:
            round_ = session.exec(select(Round).where(Round.number == number)).one()
            return round_.state == RoundState.REPORTED

    async def scenario() -> None:
        service = Service(app)
        running = asyncio.ensure_future(service.run())
        limit = time.monotonic() + 60
        while not await asyncio.to_thread(reported) and time.monotonic() < limit:
            await asyncio.sleep(0.1)
        service.request_stop()
        await running

    asyncio.run(scenario())


def deliver_then_let_the_deadline_pass(app: App, delivery: Callable[[], object]) -> datetime:
    """The order mail arrives first; then the open round's deadline is set a second ahead (as a
    game master's extend would) and passes while the service is down. The mail is in time
    however long the delivery took on a busy machine. The deadline is returned."""
    delivery()
    deadline = datetime.now(UTC) + timedelta(seconds=1)
    with session_scope(app.engine) as session:
        round_ = session.exec(select(Round)).one()
        round_.deadline = deadline
        session.add(round_)
    while datetime.now(UTC) <= deadline:
        time.sleep(0.05)  # waiting for the clock is the point: the deadline must pass
    return deadline
