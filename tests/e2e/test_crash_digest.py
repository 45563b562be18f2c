"""kill -9 while a daily digest is queued, then a restart: the notices held for it are neither
lost nor sent twice (issue 42, section 2).

The service runs as a real process (``adjudicate serve --once``: the sweep, then the digests
due, then the outbox) against a real SQLite file or PostgreSQL and a real SMTP receiver;
``ADJUDICATOR_CRASH_AT`` makes it SIGKILL itself at the named step
(``adjudicator/base/faults.py``): with the digest queued and its notices marked but not
committed (``digest``), and just after the commit, before it is sent (``digested``).
"""

from __future__ import annotations

import signal
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from mailservers import SmtpSink
from sqlmodel import Session, select
from test_crash_closing import _environment, _serve

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service import gm_news
from adjudicator.service.app import make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage import persons
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, HeldNotice, OutboxMail, OutboxStatus

ANN = "ann@example.org"


def _seed(data: Path, url: str) -> None:
    """Ann, on a daily digest at 00:00 UTC, plays two games whose game master announced
    something in each two days ago: both announcements are held for her, and due."""
    app = make_app(
        Config(
            service=ServiceConfig(data_dir=str(data), database_url=url, address="judge@pbem.test")
        )
    )
    before = datetime.now(UTC) - timedelta(days=2)
    with session_scope(app.engine) as session:
        for name in ("ga", "gb"):
            game, _ = create_game(
                session,
                name=name,
                kind="giveaway",
                players=[
                    PlayerSpec(p, f"{p}@example.org") for p in ("ann", f"b{name}", f"c{name}")
                ],
                options={},
                schedule="240h",
                settings={"reminders": []},
                gm_address="gm@example.org",
                now=before,
            )
            start_game(session, game, now=before)
        persons.set_digest(session, ANN, at="00:00", now=before)
    with session_scope(app.engine) as session:
        for name in ("ga", "gb"):
            game = session.exec(select(Game).where(Game.name == name)).one()
            gm_news.announce(session, game, f"News of {name}", key=name, ctx=app.ctx, now=before)
        for mail in session.exec(select(OutboxMail)):  # only the digest is this test's
            mail.status = OutboxStatus.SENT
            session.add(mail)
    with Session(app.engine) as session:
        assert len(session.exec(select(HeldNotice)).all()) == 2
    app.engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
@pytest.mark.parametrize("step", ["digest", "digested"])
def test_a_crash_while_a_digest_is_queued_loses_nothing_and_sends_it_once(
    step: str, database: str, tmp_path: Path, smtp_sink: SmtpSink, request: pytest.FixtureRequest
) -> None:
    data = tmp_path / "data"
    url = (
        f"sqlite:///{data / 'adjudicator.db'}"
        if database == "sqlite"
        else (request.getfixturevalue("pg_url"))
    )
    _seed(data, url)
    env = _environment(data, url, smtp_sink)

    assert _serve(env, crash_at=step) == -signal.SIGKILL
    _serve(env, crash_at=None)
    _serve(env, crash_at=None)

    app = make_app(Config(service=ServiceConfig(data_dir=str(data), database_url=url)))
    with Session(app.engine) as session:
        digests = [m for m in session.exec(select(OutboxMail)) if m.kind == "digest"]
        assert len(digests) == 1
        assert digests[0].status == OutboxStatus.SENT
        held = session.exec(select(HeldNotice)).all()
        assert {h.digest_key for h in held} == {digests[0].key}
    app.engine.dispose()
    received = [
        message_from_bytes(m.content, policy=policy.default)
        for m in smtp_sink.received
        if m.rcpt_tos == (ANN,)
    ]
    assert len(received) == 1
    body = received[0].get_body(preferencelist=("plain",))
    assert body is not None
    text = str(body.get_content())
    assert "News of ga" in text
    assert "News of gb" in text
