"""``adjudicate serve`` as systemd runs it: READY=1 once it serves, WATCHDOG=1 while its loop
turns, metrics and health on a local port, STOPPING=1 and a clean exit on SIGTERM; and a SIGTERM
in the middle of the intake and of the sending loses nothing and repeats nothing.

The service runs as a real process on a real SQLite file and Maildir folders; systemd's
notification socket is a real datagram socket of the test's."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import free_port
from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import Session, func, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.mail.maildir import deliver
from adjudicator.service.app import make_app
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import make_engine, session_scope
from adjudicator.storage.models import (
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Submission,
    SubmissionStatus,
)

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
ADDRESS = "judge@pbem.test"


@pytest.fixture
def notify_socket() -> Iterator[tuple[socket.socket, str]]:
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.5)
    yield sock, path
    sock.close()


def _environment(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ADJUDICATOR_", "NOTIFY_"))}
    return env | {"ADJUDICATOR_DATA_DIR": str(data), "ADJUDICATOR_ADDRESS": ADDRESS, **extra}


def _wait_for_state(sock: socket.socket, state: str, *, timeout: float = 60) -> list[str]:
    """Every notification until one holds ``state`` (a bounded wait)."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            seen.append(sock.recv(4096).decode())
        except TimeoutError:
            continue
        if any(state in line.splitlines() for line in seen):
            return seen
    raise AssertionError(f"no {state} within {timeout} s; got {seen}")


def _seed(data: Path, players: int = 3) -> list[Credentials]:
    app = make_app(Config(service=ServiceConfig(data_dir=str(data), address=ADDRESS)))
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            schedule="72h",
            settings={"early_close": False},
            players=[PlayerSpec(f"p{n}", f"p{n}@example.org") for n in range(players)],
            options={},
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())
    app.engine.dispose()
    return credentials


def _order_mail(cred: Credentials, other: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = cred.address
    message["To"] = ADDRESS
    message["Subject"] = "[gw1] orders"
    message["Message-ID"] = f"<{cred.handle}-{number}@example.org>"
    message.set_content(f"PASSWORD {cred.secret}\nGIVE 3 TO {other}\n")
    return message.as_bytes()


def test_serve_tells_systemd_serves_metrics_and_stops_cleanly_on_sigterm(
    tmp_path: Path, notify_socket: tuple[socket.socket, str]
) -> None:
    sock, path = notify_socket
    port = free_port()
    env = _environment(
        tmp_path,
        NOTIFY_SOCKET=path,
        WATCHDOG_USEC="2000000",
        ADJUDICATOR_METRICS_PORT=str(port),
    )
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        _wait_for_state(sock, "READY=1")
        _wait_for_state(sock, "WATCHDOG=1")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            names = {f.name for f in text_string_to_metric_families(reply.read().decode())}
        assert {"adjudicator_mails_received", "adjudicator_outbox_depth"} <= names
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as reply:
            assert reply.status == 200
        process.send_signal(signal.SIGTERM)
        _wait_for_state(sock, "STOPPING=1")
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
        _, stderr = process.communicate(timeout=30)
    assert b"Traceback" not in stderr, stderr.decode()


def test_sigterm_during_intake_and_sending_loses_and_repeats_nothing(tmp_path: Path) -> None:
    credentials = _seed(tmp_path)
    mails = 150
    for number in range(mails):
        cred = credentials[number % len(credentials)]
        other = credentials[(number + 1) % len(credentials)].handle
        deliver(tmp_path / "maildir", _order_mail(cred, other, number))
    env = _environment(tmp_path)
    engine = make_engine(f"sqlite:///{tmp_path / 'adjudicator.db'}")
    process = subprocess.Popen(
        [str(ADJUDICATE), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # stop it once the intake is under way
            with Session(engine) as session:
                done = session.exec(
                    select(func.count()).where(Submission.status != SubmissionStatus.RECEIVED)
                ).one()
            if done:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
    again = subprocess.run(
        [str(ADJUDICATE), "serve", "--once"], env=env, capture_output=True, timeout=300, check=False
    )
    assert again.returncode == 0, again.stderr.decode()

    with Session(engine) as session:
        statuses = session.exec(select(Submission.status)).all()
        assert len(statuses) == mails  # each mail stored once
        assert set(statuses) == {SubmissionStatus.ACCEPTED}
        assert session.exec(select(func.count()).select_from(OrderSet)).one() == mails
        confirmations = session.exec(
            select(OutboxMail).where(OutboxMail.kind == "confirmation")
        ).all()
        assert len(confirmations) == mails  # one answer a mail
        assert {m.status for m in confirmations} == {OutboxStatus.SENT}
        sent_ids = {
            message_from_bytes(m.message, policy=policy.default)["Message-ID"]
            for m in session.exec(select(OutboxMail)).all()
        }
    engine.dispose()
    outbox = tmp_path / "outbox-maildir" / "new"
    delivered = [
        message_from_bytes(f.read_bytes(), policy=policy.default)["Message-ID"]
        for f in outbox.iterdir()
    ]
    assert sorted(delivered) == sorted(sent_ids)  # every mail out once, none twice
