"""Metrics and health for operators: Prometheus text on a local port, and ``/healthz``.

Most figures are read from the database when Prometheus scrapes, so that every instance of a
shared PostgreSQL deployment reports the same totals and a restart loses nothing: mails received
by outcome, mails sent by kind, bounces, rounds closed, rounds whose adjudication failed and
rounds overdue, the outbox's depth and the age of its oldest mail. What only a process knows is
counted in the process: the IMAP reader's connection, last read and refused logins, IMAP
reconnects, waits for the database and for the SMTP server, and the time from a mail's receipt
to its confirmation being taken by the SMTP server.

``/healthz`` answers 200 while the service keeps up and 503 with the reasons when it is stuck:
the main loop has not turned for a while, the IMAP intake has not read its folder for
``[health] intake_seconds`` (not connected: the server away, the login refused), a stored mail
waits unprocessed, the oldest mail waiting to be sent was queued more than ``outbox_seconds``
ago (the SMTP server refuses it or is away), or a round past its deadline is still not closed
after ``overdue_seconds``. What the health check judges is also on the metrics page, so that an
alert can be set on the figure rather than on the verdict.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, func, select

from adjudicator.base.config import HealthConfig
from adjudicator.storage.db import aware, listed, unavailable
from adjudicator.storage.models import (
    OutboxMail,
    OutboxStatus,
    Round,
    Submission,
    SubmissionStatus,
)
from adjudicator.storage.queries import Overdue, overdue_rounds

LOOP_STUCK = timedelta(minutes=2)
INTAKE_STUCK = timedelta(minutes=5)
"""A stored mail waits this long unprocessed."""
SENDING_STUCK = timedelta(seconds=HealthConfig().outbox_seconds)


class Intake(Protocol):
    """What the health check knows of a mail reader that keeps a connection (``ImapPoller``)."""

    read_at: float | None  # when it last read its folder (``time.time()``), None before
    problem: str  # why it last failed

    @property
    def connected(self) -> bool: ...

    def down_for(self) -> float:
        """Seconds it has not been able to read; 0 while it reads."""
        ...


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
        now = self.clock()
        late = overdue_rounds(session, now=now)
        yield GaugeMetricFamily(
            "adjudicator_rounds_overdue", "Rounds past their deadline and not closed", len(late)
        )
        age = (now - late[0].due).total_seconds() if late else 0.0
        yield GaugeMetricFamily(
            "adjudicator_rounds_overdue_oldest_seconds",
            "How long the longest overdue round has been past its deadline",
            max(age, 0.0),
        )


class _IntakeFigures(Collector):
    """The IMAP intake's state, read at each scrape; nothing while there is no IMAP reader."""

    def __init__(self) -> None:
        self.intake: Intake | None = None

    def collect(self) -> Iterator[Any]:
        intake = self.intake
        if intake is None:
            return
        yield GaugeMetricFamily(
            "adjudicator_imap_connected",
            "Whether the IMAP reader is connected and logged in",
            1 if intake.connected else 0,
        )
        yield GaugeMetricFamily(
            "adjudicator_imap_last_read_timestamp_seconds",
            "When the IMAP reader last read its folder (Unix time; 0: not yet)",
            intake.read_at or 0.0,
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

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], datetime],
        limits: HealthConfig | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.limits = limits or HealthConfig()
        self.registry = CollectorRegistry()
        self.registry.register(_DatabaseFigures(engine, clock))
        self._intake = _IntakeFigures()
        self.registry.register(self._intake)
        self.imap_reconnects = Counter(
            "adjudicator_imap_reconnects",
            "IMAP connections lost and made again",
            registry=self.registry,
        )
        self.imap_login_failures = Counter(
            "adjudicator_imap_login_failures",
            "IMAP logins the server refused (user name or password wrong)",
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

    def watch_intake(self, intake: Intake) -> None:
        """Show the IMAP reader's state on the metrics page and judge it in the health check."""
        self._intake.intake = intake

    def intake_down(self) -> str | None:
        """Why the IMAP intake counts as down (it has not read for ``intake_seconds``), or
        None while it reads (or there is none). The watchdog stops on this too (runner.py)."""
        intake = self._intake.intake
        if intake is None:
            return None
        down = intake.down_for()
        limit = self.limits.intake_seconds
        if down <= limit:
            return None
        state = (
            "connected, but its pass or its IDLE has not ended (the server silent?)"
            if intake.connected
            else f"not connected: {intake.problem}"
        )
        return f"the IMAP intake has not read mail for {down:.0f} s (limit {limit} s), {state}"

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
        intake = self.intake_down()
        if intake is not None:
            problems.append(intake)
        now = self.clock()
        try:
            waiting, queued, late = self._oldest(now)
        except OperationalError as error:
            return Health(False, (*problems, f"the database does not answer: {unavailable(error)}"))
        if waiting is not None and now - aware(waiting) > INTAKE_STUCK:
            problems.append(f"a mail stored at {waiting:%H:%M:%S} waits unprocessed")
        limit = self.limits
        if queued is not None and now - aware(queued) > timedelta(seconds=limit.outbox_seconds):
            minutes = (now - aware(queued)).total_seconds() / 60
            problems.append(
                f"a mail queued at {queued:%H:%M:%S} UTC has not been sent for {minutes:.0f} min "
                f"(limit {limit.outbox_seconds} s): the SMTP server refuses it or is away, "
                "see the log"
            )
        if late and now - late[0].due > timedelta(seconds=limit.overdue_seconds):
            problems.append(_overdue(late[0], now=now, limit=limit.overdue_seconds))
        return Health(not problems, tuple(problems))

    def _oldest(self, now: datetime) -> tuple[datetime | None, datetime | None, list[Overdue]]:
        """When the oldest mail waiting to be processed came, when the oldest mail waiting to
        be sent was queued, and the rounds due and not closed."""
        with Session(self.engine) as session:
            waiting = session.exec(
                select(func.min(Submission.received_at)).where(
                    Submission.status == SubmissionStatus.RECEIVED
                )
            ).one()
            queued = session.exec(
                select(func.min(OutboxMail.created_at)).where(
                    OutboxMail.status == OutboxStatus.PENDING
                )
            ).one()
            late = overdue_rounds(session, now=now)
        return waiting, queued, late

    def serve(self, *, address: str, port: int) -> MetricsServer:
        """Serve ``/metrics`` and ``/healthz`` on ``address:port`` in a thread; raises
        ``CannotListen`` when the port is taken or the address is not this machine's."""
        try:
            return MetricsServer(self, address=address, port=port)
        except OSError as error:
            raise CannotListen(cannot_listen(address, port, error)) from None


class CannotListen(Exception):
    """The metrics port cannot be opened; the message says why and how to fix it."""


def cannot_listen(address: str, port: int, error: OSError) -> str:
    """Why the metrics server cannot listen on ``address:port``, with the fix (``serve`` says
    it on exit, ``adjudicate doctor`` before)."""
    reason = os.strerror(error.errno) if error.errno else str(error)
    what = f"cannot listen for metrics on {address}:{port}: {reason}"
    settings = (
        "metrics.port and metrics.address (ADJUDICATOR_METRICS_PORT, ADJUDICATOR_METRICS_ADDRESS)"
    )
    if error.errno == errno.EADDRINUSE:
        return (
            f"{what}; another program holds the port (`ss -ltnp 'sport = :{port}'` names it): "
            f"stop it, or set {settings} to a free port"
        )
    if error.errno == errno.EACCES:
        return f"{what}; ports below 1024 need privileges: set {settings} to a port above 1024"
    return f"{what}; set {settings} to an address of this machine (127.0.0.1) and a free port"


def _overdue(late: Overdue, *, now: datetime, limit: int) -> str:
    minutes = (now - late.due).total_seconds() / 60
    why = (
        f"its adjudication stopped: {late.error[:200]}"
        if late.error
        else "deadlines are not being kept, see the log for why"
    )
    return (
        f"round {late.number} of {late.game} was due at {late.due:%Y-%m-%d %H:%M} UTC, "
        f"{minutes:.0f} min ago (limit {limit} s), and is not closed: {why}"
    )


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
