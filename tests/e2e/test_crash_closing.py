"""kill -9 at each step of closing a round, then a restart: the round is adjudicated exactly
once, its result queued once per player and mailed at least once (SMTP is at-least-once; a
repeat carries the same Message-ID), and the next round opens once.

The service runs as a real process (``adjudicate serve --once``) against a real SQLite file or
PostgreSQL and a real SMTP receiver; ``ADJUDICATOR_CRASH_AT`` makes it SIGKILL itself at the
named step (``adjudicator/base/faults.py``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from mailservers import SmtpSink
from sqlmodel import Session, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Round,
    RoundResult,
    RoundState,
    Seat,
)

STEPS = ["closed", "adjudicated", "committed", "converted", "queued", "sent"]
ADJUDICATE = Path(sys.executable).parent / "adjudicate"


def _environment(data: Path, database_url: str, sink: SmtpSink) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    env |= {
        "ADJUDICATOR_DATA_DIR": str(data),
        "ADJUDICATOR_DATABASE_URL": database_url,
        "ADJUDICATOR_ADDRESS": "judge@pbem.test",
        "ADJUDICATOR_SMTP_HOST": sink.host,
        "ADJUDICATOR_SMTP_PORT": str(sink.port),
    }
    return env


def _seed(
    data: Path,
    database_url: str,
    *,
    settings: dict[str, Any] | None = None,
    gm_address: str | None = None,
) -> datetime:
    """A duel whose round 1 deadline passed an hour ago, with ann's orders in and ben's
    missing (``settings`` beside no reminders); the deadline."""
    app = make_app(
        Config(
            service=ServiceConfig(
                data_dir=str(data), database_url=database_url, address="judge@pbem.test"
            )
        )
    )
    opened = datetime.now(UTC) - timedelta(hours=2)
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="duel",
            kind="starship-combat",
            players=[PlayerSpec("ann", "ann@example.org"), PlayerSpec("ben", "ben@example.org")],
            options={},
            schedule="1h",
            settings={"reminders": [], **(settings or {})},
            gm_address=gm_address,
            now=opened,
        )
        round_ = start_game(session, game, now=opened)
        session.flush()
        ann = session.exec(select(Seat).where(Seat.handle == "ann")).one()
        assert round_.id is not None
        assert ann.id is not None
        assert round_.deadline is not None
        deadline = round_.deadline
        session.add(
            OrderSet(
                round_id=round_.id, seat_id=ann.id, lines=["SHIELD"], receipt="r", created_at=opened
            )
        )
        # the welcome mails count as sent: this test is about the result mails
        for mail in session.exec(select(OutboxMail)):
            mail.status = OutboxStatus.SENT
            session.add(mail)
    app.engine.dispose()
    return deadline


def _serve(env: dict[str, str], crash_at: str | None) -> int:
    run_env = env | ({"ADJUDICATOR_CRASH_AT": crash_at} if crash_at else {})
    done = subprocess.run(
        [str(ADJUDICATE), "serve", "--once"],
        env=run_env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    if crash_at is None:
        assert done.returncode == 0, done.stderr.decode()
    return done.returncode


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
@pytest.mark.parametrize("step", STEPS)
def test_a_crash_at_any_step_of_closing_neither_loses_nor_repeats(
    step: str, database: str, tmp_path: Path, smtp_sink: SmtpSink, request: pytest.FixtureRequest
) -> None:
    data = tmp_path / "data"
    if database == "sqlite":
        url = f"sqlite:///{data / 'adjudicator.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    _seed(data, url)
    env = _environment(data, url, smtp_sink)

    assert _serve(env, crash_at=step) == -signal.SIGKILL  # it died at that step
    _serve(env, crash_at=None)  # the restart finishes the work
    _serve(env, crash_at=None)  # and a further pass finds nothing to do

    app = make_app(Config(service=ServiceConfig(data_dir=str(data), database_url=url)))
    with Session(app.engine) as session:
        rounds = {r.number: r.state for r in session.exec(select(Round))}
        assert rounds == {1: RoundState.REPORTED, 2: RoundState.OPEN}
        assert len(session.exec(select(RoundResult)).all()) == 1
        results = session.exec(select(OutboxMail).where(OutboxMail.kind == "result")).all()
        assert sorted(m.recipient for m in results) == ["ann@example.org", "ben@example.org"]
        assert {m.status for m in results} == {OutboxStatus.SENT}
    app.engine.dispose()

    received = [message_from_bytes(r.content, policy=policy.default) for r in smtp_sink.received]
    per_player = Counter(str(m["To"]) for m in received)
    assert set(per_player) == {"ann@example.org", "ben@example.org"}
    if step != "sent":
        assert per_player == {"ann@example.org": 1, "ben@example.org": 1}
    # a repeat is the same mail: one Message-ID per player, however often it arrived
    distinct = {(str(m["To"]), str(m["Message-ID"])) for m in received}
    assert sorted(to for to, _ in distinct) == ["ann@example.org", "ben@example.org"]
