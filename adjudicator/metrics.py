"""Metrics and health for operators: Prometheus text on a local port, and ``/healthz``.

Most figures are read from the database when Prometheus scrapes, so that every instance of a
shared PostgreSQL deployment reports the same totals and a restart loses nothing: mails received
by outcome, mails sent by kind, bounces, rounds closed and rounds whose adjudication failed, the
outbox's depth and the age of its oldest due mail. What only a process knows is counted in the
process: IMAP reconnects, waits for the database and for the SMTP server, and the time from a
mail's receipt to its confirmation being taken by the SMTP server.

``/healthz`` answers 200 while the service keeps up and 503 with the reasons when it is stuck:
the main loop has not turned for a while, a stored mail waits unprocessed, or a due mail has not
gone out (the SMTP server has refused or been unreachable for that long).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, func, select

from adjudicator.storage.db import aware, listed, unavailable
from adjudicator.storage.models import (
    OutboxMail,
    OutboxStatus,
    Round,
    Submission,
    SubmissionStatus,
)

LOOP_STUCK = timedelta(minutes=2)
INTAKE_STUCK = timedelta(minutes=5)
SENDING_STUCK = timedelta(minutes=30)


class _DatabaseFigures(Collector):
    """The figures the database holds, read at each scrape."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime]) -> None:
        self.engine = engine
        self.clock = clock

    def collect(self) -> Iterator[Any]:
        """Every figure, or none while the database does not answer: the scrape still shows
        the process's own counters (the waits for the database among them) and ``up`` 0."""
        try:
            families = list(self._figures())
        except OperationalError:
            families = []
        yield GaugeMetricFamily(
            "adjudicator_database_up",
            "Whether the database answered this scrape",
            len(families) > 0,
        )
        yield from families

    def _figures(self) -> Iterator[Any]:
        with Session(self.engine) as session:
            received = CounterMetricFamily(
                "adjudicator_mails_received",
                "Mails stored, by what became of them",
                labels=["outcome"],
            )
            rows = session.exec(
                select(Submission.status, func.count()).group_by(col(Submission.status))
            )
            for status, count in rows:
                received.add_metric([str(status)], count)
            yield received
            bounces = session.exec(
                select(func.count()).where(col(Submission.note).startswith("bounce"))
            ).one()
            yield CounterMetricFamily("adjudicator_bounces", "Bounces received", value=bounces)
            sent = CounterMetricFamily(
                "adjudicator_mails_sent", "Mails taken by the SMTP server, by kind", labels=["kind"]
            )
            rows = session.exec(
                select(OutboxMail.kind, func.count())
                .where(OutboxMail.status == OutboxStatus.SENT)
                .group_by(col(OutboxMail.kind))
            )
            for kind, count in rows:
                sent.add_metric([kind], count)
            yield sent
            yield from self._outbox(session)
            yield from self._rounds(session)

    def _outbox(self, session: Session) -> Iterator[Any]:
        depth, oldest = session.exec(
            select(func.count(), func.min(OutboxMail.created_at)).where(
                OutboxMail.status == OutboxStatus.PENDING
            )
        ).one()
        yield GaugeMetricFamily("adjudicator_outbox_depth", "Mails waiting to be sent", depth)
        age = (self.clock() - aware(oldest)).total_seconds() if oldest else 0.0
        yield GaugeMetricFamily(
            "adjudicator_outbox_oldest_seconds", "Age of the oldest mail waiting", max(age, 0.0)
        )
        failed = session.exec(
            select(func.count()).where(OutboxMail.status == OutboxStatus.FAILED)
        ).one()
        yield GaugeMetricFamily("adjudicator_outbox_failed", "Mails given up", failed)

    def _rounds(self, session: Session) -> Iterator[Any]:
        closed = session.exec(select(func.count()).where(col(Round.closed_at).is_not(None))).one()
        yield CounterMetricFamily("adjudicator_rounds_closed", "Rounds closed", value=closed)
        failing = session.exec(select(func.count()).where(col(Round.error).is_not(None))).one()
        yield GaugeMetricFamily(
            "adjudicator_adjudication_failures", "Rounds whose adjudication stopped", failing
        )


@dataclass(frozen=True)
class Health:
    ok: bool
    problems: tuple[str, ...]


_RECEIVED = select(Submission.id, Submission.received_at).where(
    col(Submission.id).in_(listed("ids"))
)
"""When these submissions were received (built once, for every batch of mails sent)."""


class Metrics:
    """One process's metrics and health: a registry of its own (tests may make several)."""

    def __init__(self, engine: Engine, *, clock: Callable[[], datetime]) -> None:
        self.engine = engine
        self.clock = clock
        self.registry = CollectorRegistry()
        self.registry.register(_DatabaseFigures(engine, clock))
        self.imap_reconnects = Counter(
            "adjudicator_imap_reconnects",
            "IMAP connections lost and made again",
            registry=self.registry,
        )
        self.database_retries = Counter(
            "adjudicator_database_retries",
            "Turns of the main loop that found the database locked or unreachable and waited",
            registry=self.registry,
        )
        self.smtp_retries = Counter(
            "adjudicator_smtp_retries",
            "Passes of the outbox that found the SMTP server away and waited",
            registry=self.registry,
        )
        self.confirmation_seconds = Histogram(
            "adjudicator_confirmation_seconds",
            "From a mail's receipt to its confirmation taken by the SMTP server",
            buckets=(0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600),
            registry=self.registry,
        )
        self._loop_turned = time.monotonic()

    def loop_turned(self) -> None:
        """The main loop finished a turn (intake, sending and deadlines had their go)."""
        self._loop_turned = time.monotonic()

    def confirmations_sent(self, mails: Sequence[OutboxMail]) -> None:
        """Observe receipt-to-confirmation times of confirmations just sent. A reply's outbox
        key names its submission (``reply:<submission>:<section>:<kind>``)."""
        sent = {}
        for mail in mails:
            if mail.kind == "confirmation" and mail.sent_at and mail.key.startswith("reply:"):
                sent[int(mail.key.split(":")[1])] = mail.sent_at
        if not sent:
            return
        with Session(self.engine) as session:
            rows = session.exec(_RECEIVED, params={"ids": list(sent)})
            for submission_id, received_at in rows:
                if submission_id is not None:
                    delay = (aware(sent[submission_id]) - aware(received_at)).total_seconds()
                    self.confirmation_seconds.observe(max(delay, 0.0))

    def health(self) -> Health:
        problems = []
        idle = time.monotonic() - self._loop_turned
        if idle > LOOP_STUCK.total_seconds():
            problems.append(f"the main loop has not turned for {idle:.0f} s")
        now = self.clock()
        try:
            waiting, due = self._oldest()
        except OperationalError as error:
            return Health(False, (*problems, f"the database does not answer: {unavailable(error)}"))
        if waiting is not None and now - aware(waiting) > INTAKE_STUCK:
            problems.append(f"a mail stored at {waiting:%H:%M:%S} waits unprocessed")
        if due is not None and now - aware(due) > SENDING_STUCK:
            problems.append(f"a mail due at {due:%H:%M:%S} has not been sent")
        return Health(not problems, tuple(problems))

    def _oldest(self) -> tuple[datetime | None, datetime | None]:
        """When the oldest mail waiting to be processed came, and the oldest due mail's time."""
        with Session(self.engine) as session:
            waiting = session.exec(
                select(func.min(Submission.received_at)).where(
                    Submission.status == SubmissionStatus.RECEIVED
                )
            ).one()
            due = session.exec(
                select(func.min(OutboxMail.next_attempt_at)).where(
                    OutboxMail.status == OutboxStatus.PENDING
                )
            ).one()
        return waiting, due

    def serve(self, *, address: str, port: int) -> MetricsServer:
        """Serve ``/metrics`` and ``/healthz`` on ``address:port`` in a thread."""
        return MetricsServer(self, address=address, port=port)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds are not events."""


class MetricsServer:
    def __init__(self, metrics: Metrics, *, address: str, port: int) -> None:
        prometheus = make_wsgi_app(metrics.registry)

        def application(environ: dict[str, Any], start_response: Any) -> Any:
            if environ.get("PATH_INFO") == "/healthz":
                health = metrics.health()
                status = "200 OK" if health.ok else "503 Service Unavailable"
                body = ("ok\n" if health.ok else "\n".join(health.problems) + "\n").encode()
                start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
                return [body]
            return prometheus(environ, start_response)

        self.server: WSGIServer = make_server(
            address, port, application, handler_class=_QuietHandler
        )
        self.port = self.server.server_port
        self.thread = threading.Thread(
            target=self.server.serve_forever, name="metrics", daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
