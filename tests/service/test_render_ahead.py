"""Answers rendered in the reader's process (``adjudicator/service/render_ahead.py``): the
bytes the service would have rendered itself, queued once each in the batch's transaction; a
reader that dies or hangs on them costs nothing but the time."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest
from playing import new_game, player_mail, poll
from sqlmodel import Session, select

from adjudicator.app import App
from adjudicator.mail.compose import Identity, Renderer
from adjudicator.readers import MailReaders
from adjudicator.service import render_ahead
from adjudicator.service.batch_intake import PROCESS_BATCH
from adjudicator.service.games import Credentials
from adjudicator.service.render_ahead import PART, Handed
from adjudicator.service.replies import Words, rendered
from adjudicator.storage.models import OutboxMail, Submission

PLAYERS = ("alice", "bob", "carol")

Hand = Callable[[Path, Identity, list[Words]], Handed | None]


@pytest.fixture
def reader(app: App) -> Iterator[MailReaders]:
    """A reader process for ``app``, up, reading its mail and rendering its answers."""
    readers = MailReaders(own_addresses=app.ctx.own_addresses, max_bytes=app.ctx.max_bytes)
    assert poll(readers.ready, timeout=60)
    app.read_ahead, app.render_ahead = readers.read_ahead, readers.render
    yield readers
    readers.shutdown()


@pytest.fixture
def handed(app: App, reader: MailReaders) -> list[list[Words]]:
    """The parts handed to the reader, by the service's own hand, watched."""
    parts: list[list[Words]] = []
    hand = app.render_ahead
    assert hand is not None

    def watched(folder: Path, identity: Identity, words: list[Words]) -> Handed | None:
        parts.append(list(words))
        return hand(folder, identity, words)

    app.render_ahead = watched
    return parts


@pytest.fixture
def rendered_here(monkeypatch: pytest.MonkeyPatch) -> list[Words]:
    """The answers of a batch that the service renders in its own process."""
    here: list[Words] = []

    def counted(renderer: Renderer, identity: Identity, words: Words) -> bytes:
        here.append(words)
        return rendered(renderer, identity, words)

    monkeypatch.setattr(render_ahead, "rendered", counted)
    return here


def orders(creds: dict[str, Credentials], count: int) -> list[bytes]:
    """``count`` valid order mails of the game's players in turn: each is confirmed."""
    handles = list(creds)
    return [
        player_mail(
            "gw1",
            handles[n % len(handles)],
            f"PASSWORD {creds[handles[n % len(handles)]].secret}\n"
            f"GIVE 3 TO {handles[(n + 1) % len(handles)]}",
            number=n,
        )
        for n in range(count)
    ]


def queued(app: App) -> dict[str, bytes]:
    """The answers in the outbox: each mail's bytes by its key."""
    with Session(app.engine) as session:
        return {m.key: m.message for m in session.exec(select(OutboxMail).where(OutboxMail.answer))}


def statuses(app: App) -> list[str]:
    with Session(app.engine) as session:
        return sorted(str(s) for s in session.exec(select(Submission.status)))


def test_answers_rendered_by_the_reader_are_the_bytes_the_service_renders(
    app: App, handed: list[list[Words]], rendered_here: list[Words]
) -> None:
    batch = orders(new_game(app, PLAYERS), PROCESS_BATCH)
    app.ingest_batch(batch, channel="imap")
    assert statuses(app) == ["accepted"] * len(batch)
    # Every answer but those to the last PART mails went to the reader, PART at a time.
    assert [len(part) for part in handed] == [PART] * (len(batch) // PART - 1)
    assert len(rendered_here) == PART
    words = [w for part in handed for w in part] + rendered_here
    assert len({w.key for w in words}) == len(batch)  # one answer a mail, each once
    outbox = queued(app)
    assert len(outbox) == len(batch)
    for one in words:  # the reader's bytes, as the service renders the same words
        assert outbox[one.key] == rendered(app.ctx.renderer, app.ctx.identity, one)


def test_a_batch_too_small_to_gain_renders_its_answers_itself(
    app: App, handed: list[list[Words]], rendered_here: list[Words]
) -> None:
    batch = orders(new_game(app, PLAYERS), 2 * PART - 1)
    app.ingest_batch(batch, channel="imap")
    assert statuses(app) == ["accepted"] * len(batch)
    assert handed == []
    assert len(queued(app)) == len(batch)


@pytest.fixture(params=[signal.SIGKILL, signal.SIGSTOP], ids=["dies", "hangs"])
def lost(app: App, reader: MailReaders, request: pytest.FixtureRequest) -> Iterator[list[int]]:
    """The reader's process is sent SIGKILL or SIGSTOP as the first part is handed to it
    (its reading of the batch done): its pid once sent. Killed at the end."""
    assert reader.pool is not None
    pid = reader.pool.submit(os.getpid).result(timeout=30)
    hand = app.render_ahead
    assert hand is not None
    sent: list[int] = []

    def stopping(folder: Path, identity: Identity, words: list[Words]) -> Handed | None:
        if not sent:
            os.kill(pid, request.param)
            sent.append(pid)
        return hand(folder, identity, words)

    app.render_ahead = stopping
    yield sent
    with contextlib.suppress(ProcessLookupError):  # gone already (SIGKILL)
        os.kill(pid, signal.SIGKILL)


def test_a_reader_lost_on_the_answers_costs_only_time(
    app: App,
    lost: list[int],
    rendered_here: list[Words],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    batch = orders(new_game(app, PLAYERS), PROCESS_BATCH)
    monkeypatch.setattr(render_ahead, "TIMEOUT", 0.5)
    with caplog.at_level(logging.ERROR, logger="adjudicator.readers"):
        app.ingest_batch(batch, channel="imap")
    assert lost  # the reader was lost on the first part
    assert statuses(app) == ["accepted"] * len(batch)
    # Every answer rendered here instead, once, with the words the reader was given.
    assert len({w.key for w in rendered_here}) == len(rendered_here) == len(batch)
    outbox = queued(app)
    assert len(outbox) == len(batch)
    for one in rendered_here:
        assert outbox[one.key] == rendered(app.ctx.renderer, app.ctx.identity, one)
    assert "the service reads the mail itself" in caplog.text  # the reader given up, said
    assert app.render_ahead is not None
    # Given up: no reader takes answers until RESTART_SECONDS have passed.
    assert app.render_ahead(app.ctx.renderer.folder, app.ctx.identity, []) is None


def test_a_part_that_does_not_come_is_rendered_here_and_the_rest_are_not_handed(
    app: App, rendered_here: list[Words], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parts' bookkeeping with a hand whose first part never comes back."""
    monkeypatch.setattr(render_ahead, "TIMEOUT", 0.05)
    given_up: list[str] = []
    parts: list[list[Words]] = []

    def never(folder: Path, identity: Identity, words: list[Words]) -> Handed:
        parts.append(words)
        return Future(), given_up.append

    app.render_ahead = never
    batch = orders(new_game(app, PLAYERS), PROCESS_BATCH)
    app.ingest_batch(batch, channel="imap")
    assert statuses(app) == ["accepted"] * len(batch)
    # All four parts were handed before the first was waited for, at the batch's end.
    assert len(parts) == len(batch) // PART - 1
    assert given_up == [f"the mail reader took over 0.05 s to render {PART} answers"]
    assert len(rendered_here) == len(queued(app)) == len(batch)
