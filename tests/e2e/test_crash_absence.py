"""kill -9 while a deadline waits for a player with absence days left, then a restart: one day
of his allowance is taken, once; the deadline moves once; everybody is told once.

The service runs as a real process (``adjudicate serve --once``) against a real SQLite file or
PostgreSQL and a real SMTP receiver; ``ADJUDICATOR_CRASH_AT`` makes it SIGKILL itself at the
named step (``adjudicator/base/faults.py``): with the day taken and the mails queued but not
committed (``absence``), and just after the commit (``committed``).
"""

from __future__ import annotations

import signal
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from mailservers import SmtpSink
from sqlmodel import Session, select
from test_crash_closing import _environment, _seed, _serve

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import make_app
from adjudicator.storage.models import (
    Absence,
    OutboxMail,
    Round,
    RoundState,
)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
@pytest.mark.parametrize("step", ["absence", "committed"])
def test_a_crash_while_a_deadline_waits_takes_the_day_once(
    step: str, database: str, tmp_path: Path, smtp_sink: SmtpSink, request: pytest.FixtureRequest
) -> None:
    data = tmp_path / "data"
    if database == "sqlite":
        url = f"sqlite:///{data / 'adjudicator.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    absences = {"absence_days": 3, "absence": "wait"}
    deadline = _seed(data, url, settings=absences, gm_address="gm@example.org")
    env = _environment(data, url, smtp_sink)

    assert _serve(env, crash_at=step) == -signal.SIGKILL
    _serve(env, crash_at=None)
    _serve(env, crash_at=None)

    app = make_app(Config(service=ServiceConfig(data_dir=str(data), database_url=url)))
    with Session(app.engine) as session:
        (round_,) = session.exec(select(Round)).all()
        assert round_.state == RoundState.OPEN  # it waits for ben
        assert round_.deadline is not None
        assert round_.deadline > deadline + timedelta(hours=23)  # a day from when it moved
        absences = session.exec(select(Absence)).all()
        assert [(a.days, a.automatic) for a in absences] == [(1, True)]
        told = Counter(m.recipient for m in session.exec(select(OutboxMail)) if m.kind == "absence")
        assert told == {"ann@example.org": 1, "ben@example.org": 1, "gm@example.org": 1}
    app.engine.dispose()
