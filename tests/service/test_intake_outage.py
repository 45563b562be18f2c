"""A mail being processed when PostgreSQL goes away.

The database going away is not the mail's fault: the mail stays stored as received, is
processed when the database is back, and is never marked failed (its orders would be lost to
the round) nor logged as a failure with a traceback. This holds also on the path where the
mails of a batch are processed one at a time because another mail of the batch failed."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import pytest
from pg_outage import Outage
from playing import new_game, player_mail
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from adjudicator.service import batch_intake
from adjudicator.service.app import App
from adjudicator.storage.models import OrderSet, Submission, SubmissionStatus


def test_an_outage_while_a_batch_is_processed_one_mail_at_a_time_fails_no_mail(
    pg_app: App, pg_server: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = pg_app
    creds = new_game(app, ["alice", "bob", "carol"])
    good = player_mail("gw1", "alice", f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", number=1)
    bad = player_mail("gw1", "carol", f"PASSWORD {creds['carol'].secret}\nGIVE 3 TO bob", number=2)
    outage = Outage(pg_server, app.engine.url.database or "")
    real = batch_intake.process_claimed
    calls: Counter[bytes] = Counter()

    def processed(session: Session, submission: Submission, raw: bytes, **kw: Any) -> Any:
        """carol's mail fails once its writes are done (as a failing template would), so the
        batch is processed again one mail at a time; the database goes away as alice's mail
        is processed the second time, alone."""
        calls[raw] += 1
        if raw == good and calls[raw] == 2 and not outage.away:
            outage.take_away()
        status = real(session, submission, raw, **kw)
        if raw == bad:
            raise RuntimeError("template exploded")
        return status

    monkeypatch.setattr(batch_intake, "process_claimed", processed)
    caplog.set_level(logging.INFO)
    try:
        with pytest.raises(OperationalError):
            app.ingest_batch([good, bad], channel="imap")
        assert outage.away
    finally:
        if outage.away:
            outage.bring_back()
        outage.admin.dispose()
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert tracebacks == [], tracebacks
    with Session(app.engine) as session:
        statuses = [s.status for s in session.exec(select(Submission).order_by(Submission.id))]
        assert statuses == [SubmissionStatus.RECEIVED] * 2  # both wait; nothing kept of them
        assert session.exec(select(OrderSet)).all() == []
    # Back: processed as any stored mail is.
    monkeypatch.undo()
    app.process_pending()
    with Session(app.engine) as session:
        statuses = [s.status for s in session.exec(select(Submission).order_by(Submission.id))]
        assert statuses == [SubmissionStatus.ACCEPTED] * 2
        assert [o.lines for o in session.exec(select(OrderSet))] == [["GIVE 3 TO bob"]] * 2
