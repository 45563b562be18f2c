"""Mail read ahead in a reader process (``adjudicator/serve/reader_process.py``): a batch read there is
decided exactly as one the service reads itself, and a reader that dies or hangs costs nothing
but the time: the service reads the mail itself."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playing import SERVICE, new_game, plain_mail, player_mail, poll
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import ensure_maildir
from adjudicator.mail.reading import Reading
from adjudicator.notify.context import ServiceContext
from adjudicator.serve import reader_process as readers_module
from adjudicator.serve import runner
from adjudicator.serve.reader_process import KEPT_AHEAD, READ_AHEAD_MIN, READ_PART, MailReaders
from adjudicator.service import batch_intake, intake
from adjudicator.service.app import App, make_app
from adjudicator.service.authentication import MAX_FAILED_LOGINS
from adjudicator.service.games import Credentials
from adjudicator.storage.models import OrderSet, OutboxMail, Submission

PLAYERS = ("alice", "bob", "carol")


@pytest.fixture
def reader(app: App) -> Iterator[MailReaders]:
    """A reader process for ``app``, up."""
    readers = MailReaders(own_addresses=app.ctx.own_addresses, max_bytes=app.ctx.max_bytes)
    assert poll(readers.ready, timeout=60)  # the reader starts
    app.read_ahead = readers.read_ahead
    yield readers
    readers.shutdown()


@pytest.fixture
def reads_by_the_service(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The mails the service's own process reads (from now on)."""
    read: list[bytes] = []
    original = intake.read_stored

    def counted(raw: bytes, *, ctx: ServiceContext) -> Reading:
        read.append(raw)
        return original(raw, ctx=ctx)

    monkeypatch.setattr(intake, "read_stored", counted)
    monkeypatch.setattr(batch_intake, "read_stored", counted)
    return read


def mails(creds: dict[str, Credentials]) -> list[bytes]:
    """Orders, orders replaced, a copy, a mail naming no game, wrong passwords that lock
    their source, and a mail that is not for the service at all."""

    def orders(handle: str, gift: str, n: int) -> bytes:
        return player_mail(
            "gw1", handle, f"PASSWORD {creds[handle].secret}\nGIVE 3 TO {gift}", number=n
        )

    alice_again = orders("alice", "carol", 2)
    return [
        orders("alice", "bob", 1),
        alice_again,
        alice_again.replace(b"Subject:", b"X-Relayed: yes\nSubject:"),
        orders("bob", "carol", 3),
        plain_mail(
            "carol@example.org",
            f"PASSWORD {creds['carol'].secret}\nGIVE 3 TO alice",
            subject="my orders",
            message_id="<carol-4@example.org>",
        ),
        *[
            player_mail("gw1", "carol", "PASSWORD wrong\nGIVE 3 TO bob", number=10 + n)
            for n in range(MAX_FAILED_LOGINS)
        ],
        orders("carol", "bob", 20),
        plain_mail(
            "mailer-daemon@example.org",
            "This is an automatically generated Delivery Status Notification.",
            subject="Undeliverable: [gw1] orders",
            message_id="<dsn-1@example.org>",
        ),
    ]


def decided(app: App) -> dict[str, object]:
    with Session(app.engine) as session:
        submissions = session.exec(select(Submission).order_by(col(Submission.id))).all()
        answers = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
        return {
            "statuses": [(s.sender, s.status, s.note) for s in submissions],
            "orders": [o.lines for o in session.exec(select(OrderSet).order_by(col(OrderSet.id)))],
            "answers": [(a.kind, a.recipient) for a in answers],
        }


def holding_a_password(app: App, creds: dict[str, Credentials]) -> list[int | None]:
    """The submissions whose stored bytes still hold a player's password."""
    secrets = [c.secret.encode() for c in creds.values()]
    with Session(app.engine) as session:
        stored = session.exec(select(Submission)).all()
        return [s.id for s in stored if any(secret in s.raw for secret in secrets)]


def test_a_batch_read_by_the_reader_is_decided_as_one_read_by_the_service(
    app: App,
    twin: App,
    reader: MailReaders,
    reads_by_the_service: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(readers_module, "READ_PART", 4)  # the batch read in several parts
    settings = {"early_close": True}
    twin.ingest_batch(mails(new_game(twin, PLAYERS, settings=settings)), channel="imap")
    creds = new_game(app, PLAYERS, settings=settings)
    batch = mails(creds)
    reads_by_the_service.clear()
    app.ingest_batch(batch, channel="imap")
    assert decided(app) == decided(twin)
    assert holding_a_password(app, creds) == []  # taken out of the stored bytes by the reader
    assert reads_by_the_service == []  # every mail was read by the reader
    assert reader.parts_read == -(-len(batch) // 4) > 1


def counted_parts(reader: MailReaders, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the parts handed to ``reader`` from now on."""
    assert reader.pool is not None
    handed: list[int] = []
    submit = reader.pool.submit

    def counting(function: Any, *args: Any) -> Any:
        if function is readers_module._read_part:
            handed.append(len(args[0]))
        return submit(function, *args)

    monkeypatch.setattr(reader.pool, "submit", counting)
    return handed


def test_a_batch_handed_over_when_fetched_is_read_once(
    app: App,
    reader: MailReaders,
    reads_by_the_service: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``read_soon`` (the IMAP reader, as it fetches a batch): the batch's later intake takes
    those readings, and nothing is read twice."""
    batch = mails(new_game(app, PLAYERS))
    handed = counted_parts(reader, monkeypatch)
    reader.read_soon(batch)
    assert sum(handed) == len(batch)
    app.ingest_batch(batch, channel="imap")
    assert sum(handed) == len(batch)  # not handed over again
    assert reads_by_the_service == []
    assert reader.parts_read == len(handed)


def test_only_the_batches_handed_over_last_are_kept_for_their_intake(
    app: App, reader: MailReaders, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch handed over early whose intake never came (the one before it failed) is
    dropped once newer ones are handed over: its intake, if it comes, hands it over again."""
    everything = mails(new_game(app, PLAYERS))
    size = READ_AHEAD_MIN
    batches = [everything[n : n + size] for n in range(0, (KEPT_AHEAD + 1) * size, size)]
    assert [len(batch) for batch in batches] == [size] * (KEPT_AHEAD + 1)
    for batch in batches:
        reader.read_soon(batch)
    handed = counted_parts(reader, monkeypatch)
    for batch in batches[1:]:
        app.ingest_batch(batch, channel="imap")
    assert handed == []  # the newest were kept
    app.ingest_batch(batches[0], channel="imap")
    assert sum(handed) == size  # the oldest was not
    assert reader.parts_read == len(batches) * -(-size // READ_PART)


def test_a_batch_too_small_to_hand_over_is_read_by_the_service(
    app: App, reader: MailReaders, reads_by_the_service: list[bytes]
) -> None:
    batch = mails(new_game(app, PLAYERS))[: READ_AHEAD_MIN - 1]
    app.ingest_batch(batch, channel="imap")
    assert reads_by_the_service == batch
    assert reader.parts_read == 0


def reader_pid(reader: MailReaders) -> int:
    assert reader.pool is not None
    return reader.pool.submit(os.getpid).result(timeout=30)


def test_when_the_reader_dies_the_service_reads_the_mail_and_starts_a_new_reader(
    app: App,
    reader: MailReaders,
    reads_by_the_service: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    creds = new_game(app, PLAYERS)
    first, second = mails(creds)[:4], mails(creds)[4:]
    monkeypatch.setattr(readers_module, "RESTART_SECONDS", 0.0)  # a new reader at once
    os.kill(reader_pid(reader), signal.SIGKILL)
    with caplog.at_level(logging.ERROR, logger="adjudicator.readers"):
        done = app.ingest_batch(first, channel="imap")
    assert [status for _, status in done] == ["accepted", "accepted", "ignored", "accepted"]
    assert reads_by_the_service == first
    assert "the service reads the mail itself" in caplog.text  # said, whichever way it failed
    assert poll(reader.ready, timeout=60)  # a new reader starts
    app.ingest_batch(second, channel="imap")
    assert reads_by_the_service == first  # the new reader read the second batch
    assert reader.parts_read == -(-len(second) // READ_PART)


def test_a_reader_that_hangs_is_given_up_after_its_time(
    app: App,
    reader: MailReaders,
    reads_by_the_service: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    batch = mails(new_game(app, PLAYERS))[:4]
    pid = reader_pid(reader)
    monkeypatch.setattr(readers_module, "READ_TIMEOUT", 0.5)
    os.kill(pid, signal.SIGSTOP)
    try:
        with caplog.at_level(logging.ERROR, logger="adjudicator.readers"):
            done = app.ingest_batch(batch, channel="imap")
    finally:
        os.kill(pid, signal.SIGKILL)
    assert [status for _, status in done] == ["accepted", "accepted", "ignored", "accepted"]
    assert reads_by_the_service == batch
    assert "the mail reader took over 0.5 s" in caplog.text
    assert not reader.ready()  # replaced only after RESTART_SECONDS


def test_the_running_service_has_its_mail_read_by_its_reader(
    tmp_path: Path, reads_by_the_service: list[bytes]
) -> None:
    """``adjudicate serve``'s main loop on a machine of several cores: a burst of mail
    delivered into its Maildir is answered, and read by the reader process."""
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path / "data"), address=SERVICE, workers=2)
    )
    app = make_app(config)
    creds = new_game(app, PLAYERS)
    burst = [
        player_mail("gw1", handle, f"PASSWORD {creds[handle].secret}\nGIVE 3 TO alice", number=n)
        for n in range(10)
        for handle in ("bob", "carol")
    ]
    folder = ensure_maildir(app.config.maildir_path)

    def answered() -> bool:
        with Session(app.engine) as session:
            statuses = session.exec(select(Submission.status)).all()
        return statuses.count("accepted") == len(burst)

    async def scenario() -> MailReaders:
        service = runner.Service(app)

        def up() -> bool:
            return service.readers is not None and service.readers.ready()

        running = asyncio.ensure_future(service.run())
        try:
            assert await asyncio.to_thread(poll, up, timeout=60)
            # Delivered as a mail server does, into tmp/ and then renamed into new/: all at
            # once, so that the service finds them together, as a burst.
            names = [f"{int(time.time())}.M{n:06d}P{os.getpid()}Q{n}.test" for n in range(20)]
            for name, raw in zip(names, burst, strict=True):
                (folder / "tmp" / name).write_bytes(raw)
            for name in names:
                os.rename(folder / "tmp" / name, folder / "new" / name)
            assert await asyncio.to_thread(poll, answered, timeout=120)
            assert service.readers is not None
            return service.readers
        finally:
            service.request_stop()
            await running

    try:
        readers = asyncio.run(scenario())
    finally:
        app.engine.dispose()
    assert readers.parts_read >= 1
    assert len(reads_by_the_service) < len(burst)
