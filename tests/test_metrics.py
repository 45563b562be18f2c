"""Metrics and health: the page parses as Prometheus text, its counters move with the work, and
the health check fails when intake or sending is stuck. Over real HTTP on loopback."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import SmtpSink, free_port, running_smtp_sink
from needs import require_extra
from playing import SERVICE, Clock, new_game
from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import select

from adjudicator.base.config import Config, HealthConfig, ServiceConfig
from adjudicator.mail.maildir import ensure_maildir
from adjudicator.mail.smtp import LocalMaildirSender, SmtpSender, SmtpSettings
from adjudicator.notify.outbox import Lanes, send_due
from adjudicator.serve.metrics import INTAKE_STUCK, SENDING_STUCK, Metrics, MetricsServer
from adjudicator.service.app import App, make_app
from adjudicator.service.closing import sweep
from adjudicator.service.games import Credentials
from adjudicator.service.intake import store_raw
from adjudicator.storage.db import aware, make_engine, session_scope
from adjudicator.storage.models import OutboxMail, OutboxStatus


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    config = Config(service=ServiceConfig(data_dir=str(tmp_path), address="judge@pbem.test"))
    application = make_app(config)
    application.clock = Clock()
    yield application
    application.engine.dispose()


@pytest.fixture
def creds(app: App) -> dict[str, Credentials]:
    return new_game(
        app, ["ann", "ben", "cat"], name="gw1", settings={"early_close": False}, welcome=True
    )


@pytest.fixture
def served(app: App) -> Iterator[tuple[Metrics, MetricsServer]]:
    metrics = Metrics(app.engine, clock=app.clock)
    server = metrics.serve(address="127.0.0.1", port=0)
    yield metrics, server
    server.close()


def _mail(handle: str, secret: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{handle}@example.org"
    message["To"] = "judge@pbem.test"
    message["Subject"] = "[gw1] orders"
    message["Message-ID"] = f"<{handle}-{number}@example.org>"
    message.set_content(f"PASSWORD {secret}\n{body}\n")
    return message.as_bytes()


def _get(server: MetricsServer, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=10) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _samples(server: MetricsServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, text = _get(server, "/metrics")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_the_counters_move_with_the_work(
    app: App, creds: dict[str, Credentials], served: tuple[Metrics, MetricsServer], tmp_path: Path
) -> None:
    _, server = served
    before = _samples(server)
    assert before[("adjudicator_outbox_depth", ())] == 3  # the welcome mails
    assert ("adjudicator_mails_received_total", (("outcome", "accepted"),)) not in before
    app.ingest(_mail("ann", creds["ann"].secret, "GIVE 3 TO ben", 1), channel="pipe")
    app.ingest(_mail("ben", creds["ben"].secret, "GIVE 9 TO ann", 2), channel="pipe")
    app.ingest(_mail("cat", "wrong-password", "GIVE 3 TO ann", 3), channel="pipe")
    after = _samples(server)
    assert after[("adjudicator_mails_received_total", (("outcome", "accepted"),))] == 1
    assert after[("adjudicator_mails_received_total", (("outcome", "rejected"),))] == 2
    # confirmation, rejection, and one refusal: it tells the real player of the wrong password
    assert after[("adjudicator_outbox_depth", ())] == 3 + 3
    assert after[("adjudicator_rounds_closed_total", ())] == 0

    sender = LocalMaildirSender(ensure_maildir(tmp_path / "sent"))
    asyncio.run(
        send_due(
            app.engine,
            sender,
            bounce_address="judge@pbem.test",
            now=app.clock,
            on_recorded=served[0].confirmations_sent,
        )
    )
    sent = _samples(server)
    assert sent[("adjudicator_outbox_depth", ())] == 0
    assert sent[("adjudicator_mails_sent_total", (("kind", "confirmation"),))] == 1
    assert sent[("adjudicator_mails_sent_total", (("kind", "welcome"),))] == 3
    assert sent[("adjudicator_confirmation_seconds_count", ())] == 1


def test_health_fails_when_a_stored_mail_waits_and_recovers_when_it_is_processed(
    app: App, creds: dict[str, Credentials], served: tuple[Metrics, MetricsServer]
) -> None:
    metrics, server = served
    asyncio.run(
        send_due(
            app.engine,
            LocalMaildirSender(ensure_maildir(Path(app.config.data_path) / "o")),
            bounce_address="judge@pbem.test",
            now=app.clock,
        )
    )
    assert _get(server, "/healthz") == (200, "ok\n")
    with session_scope(app.engine) as session:  # stored, and then the process was stuck
        store_raw(
            session,
            _mail("ann", creds["ann"].secret, "GIVE 3 TO ben", 1),
            channel="pipe",
            now=app.clock(),
        )
    clock = app.clock
    assert isinstance(clock, Clock)
    clock.advance(seconds=INTAKE_STUCK.total_seconds() + 1)
    metrics.loop_turned()
    status, text = _get(server, "/healthz")
    assert status == 503
    assert "waits unprocessed" in text
    assert app.process_pending() == 1
    assert _get(server, "/healthz") == (200, "ok\n")  # its confirmation is due, not late


def test_health_fails_when_a_due_mail_is_not_sent_for_too_long(
    app: App, creds: dict[str, Credentials], served: tuple[Metrics, MetricsServer]
) -> None:
    metrics, server = served
    clock = app.clock
    assert isinstance(clock, Clock)
    clock.advance(seconds=SENDING_STUCK.total_seconds() - 60)
    metrics.loop_turned()
    assert _get(server, "/healthz")[0] == 200  # the welcomes are due, but not for long
    clock.advance(seconds=120)
    status, text = _get(server, "/healthz")
    assert status == 503
    assert "has not been sent" in text


def test_health_fails_when_the_main_loop_stops_turning(
    app: App, served: tuple[Metrics, MetricsServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics, server = served
    metrics.loop_turned()
    assert _get(server, "/healthz")[0] == 200
    monkeypatch.setattr("adjudicator.serve.metrics.LOOP_STUCK", timedelta(seconds=-1))
    status, text = _get(server, "/healthz")
    assert status == 503
    assert "main loop has not turned" in text


def test_metrics_and_health_answer_while_the_database_does_not(tmp_path: Path) -> None:
    """PostgreSQL restarting (here: nothing listens where it should): the page once failed
    with a server error, hiding the very counter that says the service waits for it. It shows
    the process's counters and ``adjudicator_database_up 0``; the health check says why."""
    require_extra("psycopg", package="psycopg", extra="postgresql")
    engine = make_engine(f"postgresql://nobody@127.0.0.1:{free_port()}/nothing")
    metrics = Metrics(engine, clock=Clock())
    metrics.database_retries.inc()
    server = metrics.serve(address="127.0.0.1", port=0)
    try:
        samples = _samples(server)
        assert samples[("adjudicator_database_up", ())] == 0
        assert samples[("adjudicator_database_retries_total", ())] == 1
        status, text = _get(server, "/healthz")
        assert status == 503
        assert "the database does not answer" in text
    finally:
        server.close()
        engine.dispose()


def test_health_fails_when_a_mail_the_smtp_server_keeps_refusing_waits_too_long(
    app: App, creds: dict[str, Credentials], served: tuple[Metrics, MetricsServer]
) -> None:
    """A mail retried with backoff is due later after every refusal; what the operator must
    hear is that it has waited since it was queued. The health check once looked at its next
    attempt only, and so stayed 200 for a mail refused for days."""
    metrics, server = served
    clock = app.clock
    assert isinstance(clock, Clock)
    limit = HealthConfig().outbox_seconds

    async def retried(sink: SmtpSink) -> None:
        """Sent at once and refused, then retried (and refused) now and then, last just now."""
        senders = Lanes([SmtpSender(SmtpSettings(host=sink.host, port=sink.port))])
        for _ in range(3):
            await send_due(app.engine, senders, bounce_address=SERVICE, now=clock)
            clock.advance(seconds=limit / 2)
        await send_due(app.engine, senders, bounce_address=SERVICE, now=clock)
        await senders.close()

    with running_smtp_sink() as sink:
        sink.refuse("rcpt", "450 4.2.0 Mailbox busy, try again later")
        asyncio.run(retried(sink))
    metrics.loop_turned()
    assert sink.received == []
    with session_scope(app.engine) as session:
        mails = session.exec(select(OutboxMail)).all()
        assert {m.status for m in mails} == {OutboxStatus.PENDING}
        assert all(aware(m.next_attempt_at) > clock() for m in mails)  # not due: backing off
    status, text = _get(server, "/healthz")
    assert status == 503
    assert "has not been sent" in text
    assert "SMTP server refuses it" in text
    assert _samples(server)[("adjudicator_outbox_oldest_seconds", ())] > limit


def test_health_fails_when_a_due_round_is_not_closed_and_recovers_when_it_is(
    app: App, creds: dict[str, Credentials], served: tuple[Metrics, MetricsServer]
) -> None:
    metrics, server = served
    clock = app.clock
    assert isinstance(clock, Clock)
    sent = ensure_maildir(Path(app.config.data_path) / "o")
    asyncio.run(send_due(app.engine, LocalMaildirSender(sent), bounce_address=SERVICE, now=clock))
    clock.advance(hours=72, seconds=HealthConfig().overdue_seconds - 60)  # the deadline: 72 h
    metrics.loop_turned()
    assert _get(server, "/healthz") == (200, "ok\n")  # due, but closing may take a moment
    assert _samples(server)[("adjudicator_rounds_overdue", ())] == 1
    clock.advance(seconds=120)
    status, text = _get(server, "/healthz")
    assert status == 503
    assert "round 1 of gw1 was due at" in text
    assert "is not closed" in text
    assert _samples(server)[("adjudicator_rounds_overdue_oldest_seconds", ())] > 600

    sweep(app.engine, ctx=app.ctx, now=clock())  # the deadline kept at last
    asyncio.run(send_due(app.engine, LocalMaildirSender(sent), bounce_address=SERVICE, now=clock))
    assert _get(server, "/healthz") == (200, "ok\n")
    assert _samples(server)[("adjudicator_rounds_overdue", ())] == 0
