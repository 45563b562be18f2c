"""Mail intake in batches: the same two steps as ``intake.py`` at a fraction of the cost.

* ``store_batch`` stores every raw mail of one IMAP FETCH (or Maildir pass) in ONE transaction.
  The caller commits it before it marks the mails handled (flags, cursor), exactly as it does
  for a single mail; a crash before the commit delivers them all again, and the digest drops
  the copies of those that were stored.
* ``process_batch`` processes stored mails in ONE transaction, all in one savepoint. When the
  processing of one raises, that savepoint is rolled back and the mails are processed again,
  each in a savepoint of its own: the one whose processing raises is rolled back alone and
  marked ``failed`` with the error as its note; the others are kept. The raw bytes are passed
  in by the caller that has them (no second read of the ``raw`` column). Every mail is read
  first, and the questions the batch will ask the database (its games, their seats, login
  failures, open rounds and order sets, earlier copies) are asked once for all of them
  (``storage/prefetch.py``).

A crash before ``process_batch`` commits leaves the whole batch ``received``: the restart
processes it again, once, because a submission is claimed only while it is ``received``.

Writers take SQLite's single write lock in turn (``storage.write_lock.sqlite_write_lock``)
instead of starving one another.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import insert, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from adjudicator.mail.reading import Reading, Readings
from adjudicator.notify.context import ServiceContext
from adjudicator.service.intake import (
    digest_of,
    process_claimed,
    read_stored,
    received_time,
    store_raw,
)
from adjudicator.storage import queries
from adjudicator.storage.db import inserts_held, listed, on_postgresql
from adjudicator.storage.models import OutboxMail, Submission, SubmissionStatus
from adjudicator.storage.prefetch import prefetched

log = logging.getLogger(__name__)

PROCESS_BATCH = 25
"""Mails per processing transaction: large enough to share the commit, small enough that the
outbox (another thread) never waits long for SQLite's single write lock."""


class Processed(NamedTuple):
    """What became of a mail processed: its status, and the Message-ID and note stored."""

    status: SubmissionStatus
    message_id: str | None
    note: str | None


@dataclass(frozen=True)
class Stored:
    """A mail stored just now, with its bytes still in hand."""

    id: int
    raw: bytes


def store_batch(
    session: Session,
    raws: Sequence[bytes],
    *,
    channel: str,
    now: datetime,
    arrived: Sequence[datetime | None] | None = None,
) -> list[Stored]:
    """Store the mails not stored before (by digest), in this session's transaction; return
    the new ones in the order given. A mail given twice is stored once. ``arrived``: when each
    reached the service's mailbox, where known (``received_time``)."""
    fresh: dict[str, bytes] = {}
    arrivals: dict[str, datetime] = {}
    for raw, came in zip(raws, arrived or [None] * len(raws), strict=True):
        digest = digest_of(raw)
        fresh.setdefault(digest, raw)
        if came is not None:
            arrivals.setdefault(digest, came)
    if not fresh:
        return []
    known = queries.stored_digests(session, list(fresh))
    new = [(digest, raw) for digest, raw in fresh.items() if digest not in known]
    if not new:
        return []
    rows = [
        {
            "received_at": received_time(now, arrivals.get(digest)),
            "channel": channel,
            "digest": digest,
            "raw": raw,
            "status": SubmissionStatus.RECEIVED,
        }
        for digest, raw in new
    ]
    statement = insert(Submission).returning(
        col(Submission.id), col(Submission.digest), sort_by_parameter_order=True
    )
    try:
        with session.begin_nested():
            ids = {digest: id_ for id_, digest in session.execute(statement, rows)}
    except IntegrityError:
        # Another instance stored some of these a moment ago: one at a time, skipping those.
        stored = []
        for digest, raw in new:
            id_ = store_raw(session, raw, channel=channel, now=now, arrived=arrivals.get(digest))
            if id_ is not None:
                stored.append(Stored(id_, raw))
        return stored
    return [Stored(ids[digest], raw) for digest, raw in new]


def process_batch(
    session: Session,
    mails: Sequence[Stored] | Sequence[int],
    *,
    ctx: ServiceContext,
    now: datetime,
    read: Readings | None = None,
) -> dict[int, Processed | None]:
    """Process these submissions in this session's transaction (see the module's text).
    ``read``: mails read already (``adjudicator/serve/reader_process.py``), by their bytes; the
    others are read here.

    Returns what became of each id; ``None`` when it was not ``received`` (processed already,
    or claimed by another instance). A mail whose processing raised is ``failed``, with a note.
    Raises only when the transaction itself fails (the database went away): nothing of the
    batch is then kept, and every mail stays ``received``.
    """
    given = {m.id: m.raw for m in mails if isinstance(m, Stored)}
    ids = [m.id if isinstance(m, Stored) else m for m in mails]
    claimed = _claim_all(session, ids, with_raw=len(given) < len(ids))
    raws = {i: given.get(i) or s.raw for i, s in claimed.items()}
    read = {} if read is None else read  # not `or`: the length of mail read ahead waits for it
    readings = {i: read[raw] if raw in read else _read(raw, ctx) for i, raw in raws.items()}
    known = [r for r in readings.values() if r is not None]
    names = {section.game for r in known for section in r.sections if section.game}
    senders = {
        r.mail.sender for r in known if r.mail.sender and not all(s.game for s in r.sections)
    }
    message_ids = {r.mail.message_id for r in known if r.mail.message_id}
    writers = {r.mail.sender for r in known if r.mail.sender}
    mine = [(claimed[i], raws[i], readings[i]) for i in ids if i in claimed]
    with prefetched(
        session, game_names=names, senders=senders, message_ids=message_ids, writers=writers
    ):
        done = _process_together(session, mine, ctx=ctx, now=now)
        if done is None:  # one of them raised: each alone, so that only that one fails
            done = {s.id: _process_one(session, s, raw, r, ctx=ctx, now=now) for s, raw, r in mine}
    # From the rows in hand (one that failed is read again: its savepoint expired it).
    processed = {s.id: Processed(done[s.id], s.message_id, s.note) for s, _, _ in mine}
    return {i: processed.get(i) for i in ids}


def _process_together(
    session: Session,
    mails: Sequence[tuple[Submission, bytes, Reading | None]],
    *,
    ctx: ServiceContext,
    now: datetime,
) -> dict[int | None, SubmissionStatus] | None:
    """The claimed mails in one savepoint (two statements fewer a mail than a savepoint
    each); None, and nothing of them kept, when the processing of one of them raised."""
    if any(reading is None for _, _, reading in mails):
        return None  # a mail that cannot even be read fails: processed alone
    try:
        with session.begin_nested():
            with inserts_held(session, OutboxMail, key="key"):  # the answers, queued together
                done = {
                    s.id: process_claimed(session, s, raw, ctx=ctx, now=now, reading=reading)
                    for s, raw, reading in mails
                }
            session.flush()
    except OperationalError:
        raise  # the database is away: the whole batch waits
    except Exception as error:
        log.info("a mail of a batch failed (%r): processing them one at a time", error)
        return None
    return done


def _read(raw: bytes, ctx: ServiceContext) -> Reading | None:
    """A mail of the batch read before the batch asks the database anything; None when the
    reading raised (processing reads it again, and the mail fails alone)."""
    try:
        return read_stored(raw, ctx=ctx)
    except Exception:  # read again in its savepoint, where it fails alone, logged
        return None


def _process_one(
    session: Session,
    submission: Submission,
    raw: bytes,
    reading: Reading | None,
    *,
    ctx: ServiceContext,
    now: datetime,
) -> SubmissionStatus:
    """One claimed mail in a savepoint of its own; ``failed`` when its processing raised."""
    assert submission.id is not None
    try:
        with session.begin_nested():
            status = process_claimed(session, submission, raw, ctx=ctx, now=now, reading=reading)
            session.flush()
    except OperationalError:
        raise  # the database is away, not the mail at fault: it waits, stored, as received
    except Exception as error:  # one bad mail must not cost the others their answers
        log.exception("processing submission %s failed; it stays stored", submission.id)
        mark_failed(session, submission.id, error, now=now)
        return SubmissionStatus.FAILED
    return status


_IDS = listed("ids")
_WAITING = col(Submission.status) == SubmissionStatus.RECEIVED
_TAKE_WRITE_LOCK = (
    update(Submission)
    .where(col(Submission.id).in_(_IDS), _WAITING)
    .values(status=SubmissionStatus.RECEIVED)
)
_CLAIM = select(Submission).where(col(Submission.id).in_(_IDS), _WAITING)
_CLAIM_BARE = _CLAIM.options(defer(Submission.raw))  # type: ignore[arg-type]
_CLAIMED = {
    (True, False): _CLAIM,
    (False, False): _CLAIM_BARE,
    (True, True): _CLAIM.with_for_update(skip_locked=True),
    (False, True): _CLAIM_BARE.with_for_update(skip_locked=True),
}
"""The claiming statements (built once), by (with the raw bytes, on PostgreSQL)."""


def _claim_all(session: Session, ids: Sequence[int], *, with_raw: bool) -> dict[int, Submission]:
    """The submissions among ``ids`` still ``received``, locked for this transaction; their
    raw bytes read with them only ``with_raw`` (mail given by id alone: after a restart), not
    one query a mail later.

    PostgreSQL: row locks, skipping rows another instance holds. SQLite: a no-op UPDATE of the
    same rows first, which opens the transaction with the database's single write lock held.
    Without it the savepoints below would be outermost ones, and releasing an outermost
    savepoint commits (SQLite's rule): one transaction per mail instead of per batch.
    """
    postgresql = on_postgresql(session)
    query = _CLAIMED[(with_raw, postgresql)]
    if not postgresql:
        session.execute(_TAKE_WRITE_LOCK, {"ids": list(ids)})
    return {s.id: s for s in session.exec(query, params={"ids": list(ids)}) if s.id is not None}


def mark_failed(session: Session, submission_id: int, error: Exception, *, now: datetime) -> None:
    """A stored mail whose processing raised: kept, ``failed``, with the error as its note."""
    note = f"processing failed: {type(error).__name__}: {error}"[:500]
    session.execute(
        update(Submission)
        .where(col(Submission.id) == submission_id)
        .where(col(Submission.status) == SubmissionStatus.RECEIVED)
        .values(status=SubmissionStatus.FAILED, note=note, processed_at=now)
    )
