"""Draining the outbox with the database work in a thread: every due mail is sent once per
pass over one SMTP connection, failures are kept for later, and the event loop keeps running
while SQLite's write lock is held by someone else."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest
from mailservers import SmtpSink, running_smtp_sink
from playing import close_open_round, new_game, player_mail, queue_test_mails, queued
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from adjudicator.mail.smtp import SmtpSender, SmtpSettings
from adjudicator.notify.outbox import MAX_ATTEMPTS, ServerUnavailable, send_due
from adjudicator.service.app import App
from adjudicator.storage.models import OutboxMail, OutboxStatus

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank")


def queue(engine: Engine, count: int) -> None:
    queue_test_mails(engine, range(count), now=NOW)


def drain(engine: Engine, sink: SmtpSink) -> int:
    async def run() -> int:
        async with SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) as sender:
            return await send_due(engine, sender, bounce_address="judge@pbem.test", now=lambda: NOW)

    return asyncio.run(run())


def statuses(engine: Engine) -> dict[str, OutboxStatus]:
    with Session(engine) as session:
        return {
            m.key: m.status for m in session.exec(select(OutboxMail).order_by(col(OutboxMail.id)))
        }


def test_every_due_mail_is_sent_once_over_one_connection(sqlite_engine: Engine) -> None:
    queue(sqlite_engine, 120)  # more than two batches: the third is claimed while one records
    with running_smtp_sink() as sink:
        assert drain(sqlite_engine, sink) == 120
        subjects = [m.content.split(b"Subject: ", 1)[1].split(b"\r\n", 1)[0] for m in sink.received]
        assert sorted(subjects) == sorted(f"mail {n}".encode() for n in range(120))
        assert sink.connections == 1
    assert set(statuses(sqlite_engine).values()) == {OutboxStatus.SENT}
    with running_smtp_sink() as sink:  # a second pass finds nothing to send
        assert drain(sqlite_engine, sink) == 0
        assert sink.received == []


def test_several_connections_send_a_batch_at_once_and_each_mail_once(
    sqlite_engine: Engine,
) -> None:
    """With four SMTP connections the outbox shares each batch among them: four connections
    are opened (each kept for the whole pass), every mail arrives once, and every row is
    marked sent; a refusal on one connection leaves only that mail for later."""
    queue(sqlite_engine, 120)

    async def run(sink: SmtpSink) -> int:
        senders = [SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) for _ in range(4)]
        try:
            return await send_due(
                sqlite_engine, senders, bounce_address="judge@pbem.test", now=lambda: NOW
            )
        finally:
            for sender in senders:
                await sender.close()

    with running_smtp_sink() as sink:
        sink.refuse("rcpt", "450 4.2.0 Mailbox busy", address="p7@example.org")
        assert asyncio.run(run(sink)) == 119
        subjects = [m.content.split(b"Subject: ", 1)[1].split(b"\r\n", 1)[0] for m in sink.received]
        assert sorted(subjects) == sorted(f"mail {n}".encode() for n in range(120) if n != 7)
        assert sink.connections == 4
    rows = statuses(sqlite_engine)
    assert rows.pop("test:7") == OutboxStatus.PENDING
    assert set(rows.values()) == {OutboxStatus.SENT}


def test_a_refused_recipient_is_kept_for_later_and_the_rest_is_sent(sqlite_engine: Engine) -> None:
    queue(sqlite_engine, 5)
    with running_smtp_sink() as sink:
        sink.refuse("rcpt", "450 4.2.0 Mailbox busy", address="p3@example.org")
        sink.refuse("rcpt", "550 5.1.1 No such user", address="p4@example.org")
        assert drain(sqlite_engine, sink) == 3
    assert statuses(sqlite_engine) == {
        "test:0": OutboxStatus.SENT,
        "test:1": OutboxStatus.SENT,
        "test:2": OutboxStatus.SENT,
        "test:3": OutboxStatus.PENDING,  # temporary: retried after the backoff
        "test:4": OutboxStatus.FAILED,  # permanent
    }


def test_the_event_loop_runs_while_the_database_is_locked(sqlite_engine: Engine) -> None:
    """Another writer holds SQLite's write lock while the pass wants to record its results:
    the record waits in its thread, and the loop's other tasks go on meanwhile. Here one of
    them is what releases the lock, so a pass that blocked the loop would wait for the lock
    holder's own time-out instead."""
    queue(sqlite_engine, 10)
    database = sqlite_engine.url.database
    assert database is not None
    locked, release = threading.Event(), threading.Event()
    released_by_the_loop: list[bool] = []

    def hold_the_write_lock() -> None:
        connection = sqlite3.connect(database, isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        locked.set()
        released_by_the_loop.append(release.wait(5))  # False: gave up waiting for the loop
        connection.execute("COMMIT")
        connection.close()

    async def run(sink: SmtpSink) -> int:
        async def release_once_all_are_sent() -> None:
            while len(sink.received) < 10:
                await asyncio.sleep(0.01)
            for _ in range(5):  # a few turns of the loop while the pass is recording
                await asyncio.sleep(0.01)
            release.set()

        holder = threading.Thread(target=hold_the_write_lock)
        holder.start()
        assert locked.wait(5)
        releaser = asyncio.ensure_future(release_once_all_are_sent())
        async with SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) as sender:
            sent = await send_due(
                sqlite_engine, sender, bounce_address="judge@pbem.test", now=lambda: NOW
            )
        await releaser
        await asyncio.to_thread(holder.join)
        return sent

    with running_smtp_sink() as sink:
        assert asyncio.run(run(sink)) == 10
    assert released_by_the_loop == [True]
    assert set(statuses(sqlite_engine).values()) == {OutboxStatus.SENT}


def test_an_smtp_server_away_leaves_the_mails_due_and_their_attempts_unspent(
    sqlite_engine: Engine,
) -> None:
    """The SMTP server is down: the pass says so (``ServerUnavailable``) and records nothing,
    so that the mails go as soon as it is back, however long it was away. They were once
    pushed back 30 s, 1 min, 2 min... per try, and given up after eight tries (about an hour)."""
    queue(sqlite_engine, 3)
    with running_smtp_sink() as sink:
        sink.stop()
        for _ in range(MAX_ATTEMPTS + 1):  # longer than the tries a mail has
            with pytest.raises(ServerUnavailable, match="connect"):
                drain(sqlite_engine, sink)
        with Session(sqlite_engine) as session:
            mails = session.exec(select(OutboxMail)).all()
            assert {(m.status, m.attempts) for m in mails} == {(OutboxStatus.PENDING, 0)}
        sink.start_again()
        assert drain(sqlite_engine, sink) == 3  # at once: nothing was pushed back
    assert set(statuses(sqlite_engine).values()) == {OutboxStatus.SENT}


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_an_answer_goes_out_before_the_results_queued_ahead_of_it(
    database: str, request: pytest.FixtureRequest
) -> None:
    """A deadline has just queued three games' results when a player sends orders: the player
    is waiting for the answer and nobody waits for one result more than another, so over one
    connection the answer is sent first, then every result, each once."""
    app: App = request.getfixturevalue("app" if database == "sqlite" else "pg_app")
    games = {name: new_game(app, PLAYERS, name=name) for name in ("g1", "g2", "g3")}
    for name in games:
        close_open_round(app, name)
    results = queued(app, "result")
    assert len(results) == 3 * len(PLAYERS)
    body = f"PASSWORD {games['g2']['carol'].secret}\nGIVE 1 TO alice"
    app.ingest(player_mail("g2", "carol", body), channel="pipe")  # answered either way

    with running_smtp_sink() as sink:

        async def run() -> int:
            async with SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) as sender:
                return await send_due(
                    app.engine, sender, bounce_address="judge@pbem.test", now=app.clock
                )

        assert asyncio.run(run()) == len(results) + 1
        received = [message_from_bytes(m.content, policy=policy.default) for m in sink.received]
    first = received[0]
    assert first["To"] == "carol@example.org"
    assert first["In-Reply-To"] == "<carol-0@example.org>"
    assert first["Auto-Submitted"] == "auto-replied"
    assert sorted(m["Message-ID"] for m in received[1:]) == sorted(m["Message-ID"] for m in results)


def test_a_mail_read_during_a_long_send_pass_is_answered_in_it(app: App) -> None:
    """A pass sending a deadline's results takes a while; the mail read between two of its
    batches (``send_due``'s ``meanwhile``, where the service reads its Maildir) is answered
    in the next batch of the same pass, before the results still waiting."""
    games = {name: new_game(app, PLAYERS, name=name) for name in ("g1", "g2", "g3", "g4")}
    for name in games:
        close_open_round(app, name)
    results = queued(app, "result")
    batch = 5
    assert len(results) > 2 * batch
    calls = 0

    async def read_new_mail() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:  # the player writes while the first batch goes out
            body = f"PASSWORD {games['g3']['bob'].secret}\nGIVE 1 TO alice"
            await asyncio.to_thread(app.ingest, player_mail("g3", "bob", body), channel="pipe")

    with running_smtp_sink() as sink:

        async def run() -> int:
            async with SmtpSender(SmtpSettings(host=sink.host, port=sink.port)) as sender:
                return await send_due(
                    app.engine,
                    sender,
                    bounce_address="judge@pbem.test",
                    now=app.clock,
                    batch=batch,
                    meanwhile=read_new_mail,
                )

        assert asyncio.run(run()) == len(results) + 1
        received = [message_from_bytes(m.content, policy=policy.default) for m in sink.received]
    answers = [n for n, m in enumerate(received) if m["In-Reply-To"] == "<bob-0@example.org>"]
    assert answers == [batch]  # the first mail of the second batch
    assert calls >= len(results) // batch
