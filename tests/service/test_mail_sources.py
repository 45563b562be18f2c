"""The service's sources of mail (``mail/source.py``): each hands its batches to one handler
(``serve.runner.ingesting``), which stores every mail with the channel it came by and as of
its delivery; the service keeps its sources in one list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from playing import clock_of, new_game, player_mail
from sqlmodel import Session, select

from adjudicator.mail.imap import ImapPoller
from adjudicator.mail.maildir import deliver
from adjudicator.serve.runner import Service, ingesting, make_maildir_reader
from adjudicator.service.app import App
from adjudicator.storage.models import Submission


def _stored(app: App) -> list[Submission]:
    with Session(app.engine) as session:
        return list(session.exec(select(Submission).order_by(Submission.id)))  # type: ignore[arg-type]


def _ago(app: App, stored: Submission) -> timedelta:
    """How long before the service's now the mail counts as received."""
    return clock_of(app).now - stored.received_at.replace(tzinfo=UTC)


def test_mail_from_the_maildir_is_stored_as_come_by_maildir(app: App) -> None:
    new_game(app, ["alice", "bob", "carol"])
    deliver(Path(app.config.maildir_path), player_mail("gw1", "alice", "GIVE 3 TO bob"))
    assert make_maildir_reader(app).run_once() == 1
    (stored,) = _stored(app)
    assert stored.channel == "maildir"
    assert timedelta(0) <= _ago(app, stored) < timedelta(minutes=1)  # just delivered


def test_an_imap_batch_is_stored_as_come_by_imap_as_of_its_delivery(app: App) -> None:
    """The IMAP poller's batches go through the same handler, with its own channel: a mail
    the server delivered an hour ago (its INTERNALDATE) counts from an hour before now."""
    new_game(app, ["alice", "bob", "carol"])
    handle = ingesting(app, ImapPoller.channel)
    an_hour_ago = datetime.now(UTC) - timedelta(hours=1)
    handle([player_mail("gw1", "bob", "GIVE 2 TO alice")], [an_hour_ago])
    (stored,) = _stored(app)
    assert stored.channel == "imap"
    assert abs(_ago(app, stored) - timedelta(hours=1)) < timedelta(minutes=1)


def test_a_stop_stops_every_source_of_the_service(app: App) -> None:
    """SIGTERM stops every source after the batch in hand: a pass after it hands nothing
    over, and the mail waits in its folder for the next start."""
    service = Service(app)
    reader = make_maildir_reader(app)
    service.sources = [reader]
    deliver(Path(app.config.maildir_path), player_mail("gw1", "alice", "GIVE 3 TO bob"))
    service.request_stop()
    assert reader.run_once() == 0
    assert _stored(app) == []
