"""Orders read over IMAP count as of when the IMAP server delivered them (INTERNALDATE,
RFC 3501 2.3.3), not as of when the service came to fetch them: a mail delivered before the
deadline while the service was down (killed, restarting, waiting for its database) is taken
before the due round is closed, and counts.

Real parts: Dovecot, the service's own loop on a SQLite file."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from mailservers import Dovecot
from sqlmodel import Session, select
from test_serve_outages import deliver_then_let_the_deadline_pass, serve_until_reported
from test_serve_signals import ADDRESS, _order_mail, _seed

from adjudicator.base.config import Config, ImapConfig, ServiceConfig
from adjudicator.service.app import make_app
from adjudicator.storage.models import RoundResult, Submission


def test_an_imap_order_delivered_before_the_deadline_counts_after_a_restart(
    tmp_path: Path, dovecot: Dovecot, imap_user: str
) -> None:
    credentials = _seed(tmp_path)
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path), address=ADDRESS, workers=1),
        imap=ImapConfig(
            host=dovecot.host, port=dovecot.port, username=imap_user, password=dovecot.password
        ),
    )
    app = make_app(config)
    giver, taker = credentials[0], credentials[1]
    mail = _order_mail(giver, taker.handle, 1)
    deadline = deliver_then_let_the_deadline_pass(app, lambda: dovecot.append(imap_user, mail))
    try:
        serve_until_reported(app)
        with Session(app.engine) as session:
            submission = session.exec(select(Submission)).one()
            result = session.exec(select(RoundResult)).one()
        assert submission.channel == "imap"
        # Stored after the deadline, yet received (delivered) before it.
        assert submission.received_at.replace(tzinfo=UTC) <= deadline
        assert result.orders[giver.handle] == [f"GIVE 3 TO {taker.handle}"]
    finally:
        app.engine.dispose()
