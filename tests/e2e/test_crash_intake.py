"""Crash tests: the real service, as a real process, killed with SIGKILL at random moments many
times over, on a real Dovecot and a real SMTP receiver. After each restart and at the end:

* every mail appended to the INBOX is stored exactly once, and processed;
* every accepted mail's orders are applied exactly once (one order set per accepted mail);
* every answer is queued exactly once (its outbox key is unique) and sent at least once; a mail
  with orders and a command gets one answer that holds both;
* nothing is lost: every INBOX message ends flagged as handled, every answer reaches the
  receiver.

The service is ``adjudicate serve`` as installed: IMAP batches stored in one transaction each
(``App.ingest_batch``), processed in batches, the outbox drained with its database work in
threads. No hook in the service: the kills fall wherever the process happens to be.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import IMAP_PASSWORD, Dovecot, SmtpSink
from sqlmodel import Session, col, func, select

from adjudicator.base.config import load_config
from adjudicator.service.app import make_app
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    OrderSet,
    OutboxMail,
    OutboxStatus,
    Submission,
    SubmissionStatus,
)

pytestmark = pytest.mark.slow

JUDGE = "judge@pbem.test"
PLAYERS = 30
KILLS = 12
PROGRESS_BOUND = 180
FIRST_WAVE = 60  # mails in the INBOX before the first start
WAVE = 40  # mails appended before each restart
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>\r\n]+>)", re.MULTILINE | re.IGNORECASE)
HANDLED = b"$Adjudicated"


@dataclass(frozen=True)
class Sent:
    """A mail appended to the INBOX and what must become of it."""

    message_id: str
    raw: bytes
    expect: SubmissionStatus
    asks_help: bool = False  # orders and HELP: one answer holds the confirmation and the help


def order_mail(number: int, player: Credentials, others: list[str]) -> Sent:
    """Mostly valid orders; every 7th gives too much (rejected), every 11th is an auto-reply
    (ignored, never answered), every 5th asks for HELP too."""
    message = EmailMessage()
    message["From"] = player.address
    message["To"] = JUDGE
    message["Subject"] = "[crash] orders"
    message_id = f"<crash.{number}@players.example>"
    message["Message-ID"] = message_id
    amount, expect = 3, SubmissionStatus.ACCEPTED
    if number % 11 == 10:
        message["Auto-Submitted"] = "auto-replied"
        expect = SubmissionStatus.IGNORED
    elif number % 7 == 6:
        amount, expect = 5, SubmissionStatus.REJECTED
    target = others[number % len(others)]
    asks_help = number % 5 == 2
    help_line = "HELP\n" if asks_help else ""
    message.set_content(f"PASSWORD {player.secret}\nGIVE {amount} TO {target}\n{help_line}")
    return Sent(message_id, message.as_bytes(), expect, asks_help)


class Mails:
    """The order mails, appended wave by wave."""

    def __init__(self, dovecot: Dovecot, user: str, players: list[Credentials]) -> None:
        self.dovecot, self.user, self.players = dovecot, user, players
        self.sent: list[Sent] = []

    def append(self, count: int) -> None:
        wave = []
        for _ in range(count):
            number = len(self.sent)
            player = self.players[number % len(self.players)]
            others = [p.handle for p in self.players if p.handle != player.handle]
            wave.append(order_mail(number, player, others))
            self.sent.append(wave[-1])
        with self.dovecot.client(self.user) as client:
            client.multiappend("INBOX", [mail.raw for mail in wave])

    def unhandled(self) -> int:
        with self.dovecot.client(self.user) as client:
            client.select_folder("INBOX", readonly=True)
            return len(client.search(["UNKEYWORD", HANDLED]))


def write_config(path: Path, *, data: Path, dovecot: Dovecot, user: str, sink: SmtpSink) -> Path:
    path.write_text(
        f'[service]\ndata_dir = "{data}"\naddress = "{JUDGE}"\n'
        f'[smtp]\nhost = "{sink.host}"\nport = {sink.port}\n'
        f'[imap]\nhost = "{dovecot.host}"\nport = {dovecot.port}\nusername = "{user}"\n'
        f'password = "{IMAP_PASSWORD}"\npoll_seconds = 2\n',
        encoding="utf-8",
    )
    return path


def start(config: Path, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "from adjudicator.cli.main import main; main()",
        "--config",
        str(config),
        "serve",
    ]
    with log.open("ab") as output:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)


@dataclass
class State:
    """What the database holds, read from outside the service."""

    stored: int
    received: int
    pending: int

    @classmethod
    def read(cls, engine: object) -> State:
        with Session(engine) as session:  # type: ignore[arg-type]
            stored = session.exec(select(func.count()).select_from(Submission)).one()
            received = session.exec(
                select(func.count()).where(Submission.status == SubmissionStatus.RECEIVED)
            ).one()
            pending = session.exec(
                select(func.count()).where(OutboxMail.status == OutboxStatus.PENDING)
            ).one()
        return cls(stored, received, pending)


def test_kill_9_at_random_moments_loses_nothing_and_repeats_nothing(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> None:
    config = write_config(
        tmp_path / "adjudicator.toml",
        data=tmp_path / "data",
        dovecot=dovecot,
        user=imap_user,
        sink=smtp_sink,
    )
    app = make_app(load_config(config))
    with session_scope(app.engine) as session:
        game, players = create_game(
            session,
            name="crash",
            kind="giveaway",
            options={},
            players=[PlayerSpec(f"p{i:02d}", f"p{i:02d}@players.example") for i in range(PLAYERS)],
            settings={"early_close": False},
            now=app.clock(),
        )
        start_game(session, game, now=app.clock())  # no deadline: the round stays open
    mails = Mails(dovecot, imap_user, players)
    mails.append(FIRST_WAVE)
    log = tmp_path / "service.log"
    rng = random.Random(20260302)
    interrupted = 0
    for kill in range(KILLS):
        before = State.read(app.engine)
        process = start(config, log)
        if kill % 3 == 0:
            time.sleep(rng.uniform(0.2, 2.5))  # anywhere: start-up, recovery, intake, sending
        else:  # somewhere in the work: a random moment after the first mail of the wave is in
            wait_for_progress(app.engine, before, process, log)
            time.sleep(rng.uniform(0.0, 0.3))
        process.send_signal(signal.SIGKILL)
        process.wait()
        state = State.read(app.engine)
        unhandled = mails.unhandled()
        interrupted += bool(unhandled or state.received or state.pending)
        print(f"kill {kill}: {unhandled} mails unhandled in the INBOX, {state}")
        check_invariants(app.engine, mails, smtp_sink, final=False)
        mails.append(WAVE)

    process = start(config, log)
    try:
        wait_until_done(app.engine, mails, process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    check_invariants(app.engine, mails, smtp_sink, final=True)
    assert interrupted, "no kill interrupted any work: the test proved nothing"
    app.engine.dispose()


def wait_for_progress(
    engine: object, before: State, process: subprocess.Popen[bytes], log: Path
) -> None:
    # A bound, not a timing claim: on a loaded machine a fresh `serve` took over 30 s to start.
    deadline = time.monotonic() + PROGRESS_BOUND
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the service exited:\n{log.read_text()[-3000:]}"
        if State.read(engine) != before:
            return
        time.sleep(0.01)
    pytest.fail(f"no progress in {PROGRESS_BOUND} s: {before}\n{log.read_text()[-3000:]}")


def wait_until_done(
    engine: object, mails: Mails, process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the service exited:\n{log.read_text()[-3000:]}"
        state = State.read(engine)
        if state == State(len(mails.sent), 0, 0) and not mails.unhandled():
            return
        time.sleep(0.2)
    pytest.fail(f"not done in 120 s: {State.read(engine)}\n{log.read_text()[-3000:]}")


def check_invariants(engine: object, mails: Mails, sink: SmtpSink, *, final: bool) -> None:
    with Session(engine) as session:  # type: ignore[arg-type]
        submissions = session.exec(select(Submission).order_by(col(Submission.id))).all()
        order_sets = Counter(
            session.exec(select(OrderSet.submission_id)).all()  # type: ignore[call-overload]
        )
        outbox = session.exec(select(OutboxMail)).all()

    # Every stored mail is one of ours, stored once.
    by_message_id = Counter(
        found.group(1).decode() for s in submissions if (found := MESSAGE_ID.search(s.raw))
    )
    assert len(by_message_id) == len(submissions), "a mail without its Message-ID was stored"
    assert max(by_message_id.values(), default=1) == 1, "a mail was stored twice"
    expected = {mail.message_id: mail.expect for mail in mails.sent}
    helped = {mail.message_id for mail in mails.sent if mail.asks_help}
    by_key = {mail.key: mail for mail in outbox}
    assert set(by_message_id) <= set(expected)

    keys = Counter(mail.key for mail in outbox)
    assert max(keys.values(), default=1) == 1, "an answer was queued twice"
    for submission in submissions:
        assert submission.status != SubmissionStatus.FAILED, submission.note
        if submission.status == SubmissionStatus.RECEIVED:
            continue  # stored before the kill, processed after the restart
        found = MESSAGE_ID.search(submission.raw)
        assert found is not None
        assert submission.status == expected[found.group(1).decode()]
        accepted = submission.status == SubmissionStatus.ACCEPTED
        # The orders of an accepted mail are applied once; a rejected one applies nothing.
        assert order_sets[submission.id] == (1 if accepted else 0)
        answers = [k for k in keys if k.startswith(f"reply:{submission.id}:")]
        wanted = {"accepted": ["confirmation"], "rejected": ["rejection"]}.get(submission.status)
        if found.group(1).decode() in helped and wanted:
            # One answer: the orders' confirmation (or rejection) and the help, together.
            assert answers == [f"reply:{submission.id}:mail:0"]
            answer = message_from_bytes(by_key[answers[0]].message, policy=policy.default)
            plain = answer.get_body(preferencelist=("plain",))
            assert plain is not None
            text = str(plain.get_content())
            assert text.count("Receipt: ") == (1 if accepted else 0)
            assert "HELP" in text
            continue
        assert sorted(k.rsplit(":", 1)[1] for k in answers) == (wanted or [])

    # Sent at least once: every mail the outbox calls sent reached the receiver.
    received = Counter(
        found.group(1).decode()
        for message in sink.received
        if (found := MESSAGE_ID.search(message.content))
    )
    for mail in outbox:
        found = MESSAGE_ID.search(mail.message)
        assert found is not None
        if mail.status == OutboxStatus.SENT:
            assert received[found.group(1).decode()] >= 1, f"{mail.key} marked sent, not received"
        else:
            assert not final, f"{mail.key} is {mail.status} at the end"
    if final:
        assert set(by_message_id) == set(expected), "a mail appended to the INBOX was lost"
        assert mails.unhandled() == 0
        repeats = sum(n - 1 for n in received.values())
        print(f"{len(received)} answers received, {repeats} of them more than once")
