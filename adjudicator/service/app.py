"""The service's parts assembled from a configuration: the database, the intake context and the
two-step ingest (store the raw mail and commit, then process it), one mail at a time or a batch
at a time (``batch_intake.py``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from adjudicator.base.config import Config
from adjudicator.base.logs import events as events_of
from adjudicator.games import KINDS
from adjudicator.mail.compose import Identity, Renderer
from adjudicator.mail.reading import Readings
from adjudicator.mail.smtp import SendResult
from adjudicator.mail.vips import VipsConverter
from adjudicator.notify.context import ServiceContext
from adjudicator.notify.webhook import WebhookChannel
from adjudicator.service.batch_intake import (
    PROCESS_BATCH,
    Processed,
    Stored,
    mark_failed,
    process_batch,
    store_batch,
)
from adjudicator.service.closing import close_and_report_completed
from adjudicator.service.intake import digest_of, pending_submissions
from adjudicator.service.refused import tell_refused
from adjudicator.service.solutions import load_all
from adjudicator.storage import queries
from adjudicator.storage.db import make_engine, session_scope
from adjudicator.storage.models import OutboxMail, SubmissionStatus
from adjudicator.storage.opening import check_schema, known_key, open_key
from adjudicator.storage.write_lock import sqlite_write_lock

log = logging.getLogger("adjudicator")
events = events_of("adjudicator.intake")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class App:
    config: Config
    engine: Engine
    ctx: ServiceContext
    clock: Callable[[], datetime] = utcnow
    report_later: Callable[[], object] | None = None
    """Set by ``adjudicate serve``: rounds whose last orders came in are closed and reported
    by its own reporter (in a worker process where it has them), not in the thread that reads
    the mail (which goes on reading)."""
    read_ahead: Callable[[Sequence[bytes]], Readings] | None = None
    """Set by ``adjudicate serve`` where it has a reader process (``reader_process.py``): the
    mails of a batch are read there while they are stored."""

    def ingest(
        self, raw: bytes, *, channel: str, arrived: datetime | None = None
    ) -> SubmissionStatus | None:
        """Store ``raw`` (committed first), then process it. ``None`` for a re-delivery.
        ``arrived``: when it reached the service's mailbox, if known: orders count as of then."""
        done = self.ingest_batch([raw], channel=channel, arrived=[arrived])
        return done[0][1] if done else None

    def ingest_batch(
        self,
        raws: Sequence[bytes],
        *,
        channel: str,
        arrived: Sequence[datetime | None] | None = None,
    ) -> list[tuple[int, SubmissionStatus | None]]:
        """Store ``raws`` in one transaction (committed first), then process the new ones in
        batches, and the re-delivered ones still waiting to be processed; return (submission
        id, status) of each mail processed now (re-deliveries of processed mail are left out).
        An exception means nothing was stored, or a mail is left to process: deliver the
        mails again."""
        read: Readings = self.read_ahead(raws) if self.read_ahead is not None else {}
        with sqlite_write_lock(self.engine), session_scope(self.engine) as session:
            stored = store_batch(session, raws, channel=channel, now=self.clock(), arrived=arrived)
            unprocessed: list[int] = []
            if len(stored) < len(raws):  # copies among them: of mail never processed?
                fresh = {mail.id for mail in stored}
                digests = list(dict.fromkeys(digest_of(raw) for raw in raws))
                unprocessed = [
                    i for i in queries.received_with_digests(session, digests) if i not in fresh
                ]
        for mail in stored:
            events.info("mail.stored", submission=mail.id, channel=channel, bytes=len(mail.raw))
        if len(stored) < len(raws):
            log.info("%d duplicate deliveries ignored (%s)", len(raws) - len(stored), channel)
        results: list[tuple[int, SubmissionStatus | None]] = []
        for start in range(0, len(stored), PROCESS_BATCH):
            results += self._process_batch(stored[start : start + PROCESS_BATCH], read)
        # A re-delivery of a mail stored but never processed (its process was killed, or the
        # database went away in between) is processed now rather than dropped as a copy.
        for start in range(0, len(unprocessed), PROCESS_BATCH):
            results += self._process_batch(unprocessed[start : start + PROCESS_BATCH], read)
        return results

    def _process_batch(
        self, batch: Sequence[Stored] | Sequence[int], read: Readings | None = None
    ) -> list[tuple[int, SubmissionStatus | None]]:
        try:
            with sqlite_write_lock(self.engine), session_scope(self.engine) as session:
                processed = process_batch(session, batch, ctx=self.ctx, now=self.clock(), read=read)
        except OperationalError:
            # The database is locked or away: the mails stay received, and are processed
            # when it is back (``process_pending``); marking them failed would lose them.
            raise
        except Exception as error:
            # The transaction itself failed (a failing mail is failed inside it): the mails
            # one by one, so that only a mail that cannot be processed at all is failed.
            ids = [m.id if isinstance(m, Stored) else m for m in batch]
            if len(ids) > 1:
                log.exception("processing a batch failed; processing its mails one by one")
                return [done for i in ids for done in self._process_batch([i])]
            log.exception("processing submission %s failed; it stays stored", ids[0])
            with session_scope(self.engine) as session:
                mark_failed(session, ids[0], error, now=self.clock())
            return [(ids[0], SubmissionStatus.FAILED)]
        _log_outcomes(processed)  # once committed
        # Rounds whose last orders came in: closed, then their pictures and results.
        if self.report_later is not None:
            self.report_later()
        else:
            self.report()
        return [(i, None if done is None else done.status) for i, done in processed.items()]

    def report(self) -> list[int]:
        """Close the rounds whose last orders came in (``closing.close_completed``), then report
        the rounds adjudicated and not yet reported (``service/reporting.py``): their pictures
        are made outside any transaction, then their result mails are queued."""
        return close_and_report_completed(self.engine, ctx=self.ctx, now=self.clock())

    def tell_refused(
        self, session: Session, mail: OutboxMail, result: SendResult, *, now: datetime
    ) -> object:
        """The outbox's ``on_refused``: a seat's address refused for good is told to the game
        master (``service/refused.py``)."""
        return tell_refused(session, mail, result, ctx=self.ctx, now=now)

    def process_pending(self) -> int:
        """Process whatever was stored but not processed (after a crash), in batches."""
        with session_scope(self.engine) as session:
            pending = pending_submissions(session)
        for start in range(0, len(pending), PROCESS_BATCH):
            self._process_batch(pending[start : start + PROCESS_BATCH])
        return len(pending)


def _log_outcomes(processed: dict[int, Processed | None]) -> None:
    """One line per mail processed: what became of it and why, with its ids."""
    for submission, done in processed.items():
        if done is not None:
            status, message_id, note = done
            events.info(f"mail.{status}", submission=submission, message_id=message_id, why=note)


def make_app(config: Config, *, check: bool = True) -> App:
    """The service's parts, once the database's schema is this version's (a new database gets
    it) and the key file is the one its mail was made with (``storage/opening.py``, whose
    ``NotReady`` says otherwise what to do). ``check=False``: a worker of a checked service."""
    engine = make_engine(config.database_url)
    if check:
        check_schema(engine)
        key = open_key(engine, config.secret_key_path, now=utcnow()).key
    else:
        key = known_key(config.secret_key_path)
    ctx = ServiceContext(
        identity=Identity(config.service.address, config.service.name),
        renderer=Renderer(),
        receipt_key=key,
        max_bytes=config.service.max_message_bytes,
        archive_url=config.service.archive_url,
        converter=VipsConverter(),
        channels=(WebhookChannel(config.webhooks),),
    )
    load_all(config.solutions_path, KINDS)  # cheap: a memory map of each file already made
    return App(config=config, engine=engine, ctx=ctx)
