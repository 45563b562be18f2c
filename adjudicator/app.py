"""The service's parts assembled from a configuration: the database, the intake context and the
two-transaction ingest (store the raw mail, then process it)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.engine import Engine

from adjudicator.config import Config
from adjudicator.mail.compose import Identity, Renderer
from adjudicator.security import load_or_create_key
from adjudicator.service.context import ServiceContext
from adjudicator.service.intake import (
    pending_submissions,
    process_submission,
    store_raw,
)
from adjudicator.storage.db import make_engine, migrate, session_scope
from adjudicator.storage.models import Submission, SubmissionStatus

log = logging.getLogger("adjudicator")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class App:
    config: Config
    engine: Engine
    ctx: ServiceContext
    clock: Callable[[], datetime] = utcnow

    def ingest(self, raw: bytes, *, channel: str) -> SubmissionStatus | None:
        """Store ``raw`` (committed first), then process it. ``None`` for a re-delivery."""
        with session_scope(self.engine) as session:
            submission_id = store_raw(session, raw, channel=channel, now=self.clock())
        if submission_id is None:
            log.info("duplicate delivery ignored (%s)", channel)
            return None
        return self.process(submission_id)

    def process(self, submission_id: int) -> SubmissionStatus | None:
        try:
            with session_scope(self.engine) as session:
                status = process_submission(session, submission_id, ctx=self.ctx, now=self.clock())
        except Exception:
            log.exception("processing submission %s failed; it stays stored", submission_id)
            self._mark_failed(submission_id)
            return SubmissionStatus.FAILED
        log.info("submission %s: %s", submission_id, status)
        return status

    def _mark_failed(self, submission_id: int) -> None:
        with session_scope(self.engine) as session:
            submission = session.get(Submission, submission_id)
            if submission is not None and submission.status == SubmissionStatus.RECEIVED:
                submission.status = SubmissionStatus.FAILED
                session.add(submission)

    def process_pending(self) -> int:
        """Process whatever was stored but not processed (after a crash)."""
        with session_scope(self.engine) as session:
            pending = pending_submissions(session)
        for submission_id in pending:
            self.process(submission_id)
        return len(pending)


def make_app(config: Config, *, migrate_schema: bool = True) -> App:
    engine = make_engine(config.database_url)
    if migrate_schema:
        migrate(engine)
    ctx = ServiceContext(
        identity=Identity(config.service.address, config.service.name),
        renderer=Renderer(),
        receipt_key=load_or_create_key(config.secret_key_path),
        max_bytes=config.service.max_message_bytes,
    )
    return App(config=config, engine=engine, ctx=ctx)
