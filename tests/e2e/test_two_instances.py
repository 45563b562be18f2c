"""Two ``adjudicate serve`` processes on one PostgreSQL database and one IMAP mailbox: every
mail is stored and answered once, the round is closed once, every result is mailed once.

Real parts throughout: PostgreSQL, a Dovecot started by the tests, an aiosmtpd sink, and the
service as two real processes with separate data folders (as on two machines), sharing only
the database, the mailbox and the service key.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from sqlalchemy import update
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.db import make_engine, session_scope
from adjudicator.storage.models import OrderSet, Round, RoundResult, RoundState, Submission

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
JUDGE = "judge@pbem.test"
PLAYERS = ("ann", "ben", "cat")
ORDERS = {"ann": "GIVE 3 TO ben", "ben": "GIVE 3 TO cat", "cat": "GIVE 3 TO ann"}


def _order_mail(handle: str, secret: str, n: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"{handle}@example.org"
    message["To"] = JUDGE
    message["Subject"] = "[duo] orders"
    message["Message-ID"] = f"<{handle}-{n}-{time.monotonic_ns()}@example.org>"
    message.set_content(f"PASSWORD {secret}\n{ORDERS[handle]}\n")
    return message.as_bytes()


@pytest.fixture
def instances(
    tmp_path: Path, pg_url: str, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[str, dict[str, str], Callable[[], None]]]:
    """A game with round 1 open for an hour, the two services running on it, and a function
    that stops them."""
    key = tmp_path / "shared.key"
    config = Config(
        service=ServiceConfig(
            data_dir=str(tmp_path / "seed"),
            database_url=pg_url,
            address=JUDGE,
            secret_key_file=str(key),
        )
    )
    app = make_app(config)
    now = datetime.now(UTC)
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="duo",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            options={},
            schedule="1h",
            settings={"reminders": [], "early_close": False},
            now=now,
        )
        first = start_game(session, game, now=now)
        queue_welcome(
            session, ctx=app.ctx, game=game, credentials=credentials, first_round=first, now=now
        )
    app.engine.dispose()
    secrets = {c.handle: c.secret for c in credentials}
    base = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")} | {
        "ADJUDICATOR_DATABASE_URL": pg_url,
        "ADJUDICATOR_ADDRESS": JUDGE,
        "ADJUDICATOR_SECRET_KEY_FILE": str(key),
        "ADJUDICATOR_SMTP_HOST": smtp_sink.host,
        "ADJUDICATOR_SMTP_PORT": str(smtp_sink.port),
        "ADJUDICATOR_IMAP_HOST": dovecot.host,
        "ADJUDICATOR_IMAP_PORT": str(dovecot.port),
        "ADJUDICATOR_IMAP_USERNAME": imap_user,
        "ADJUDICATOR_IMAP_PASSWORD": dovecot.password,
        "ADJUDICATOR_IMAP_POLL_SECONDS": "2",
    }
    processes = []
    for n in (1, 2):
        env = base | {"ADJUDICATOR_DATA_DIR": str(tmp_path / f"instance{n}")}
        log = (tmp_path / f"instance{n}.log").open("wb")
        processes.append(
            subprocess.Popen(
                [str(ADJUDICATE), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        )

    def stop() -> None:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            process.wait(30)

    try:
        yield pg_url, secrets, stop
    finally:
        stop()
        for n in (1, 2):
            print(
                f"--- instance {n}\n" + (tmp_path / f"instance{n}.log").read_text(errors="replace")
            )


def test_two_instances_do_everything_exactly_once(
    instances: tuple[str, dict[str, str], Callable[[], None]],
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
    tmp_path: Path,
) -> None:
    url, secrets, stop = instances
    # The welcome mails: a busy machine starts two services slowly.
    smtp_sink.wait_for(3, timeout=180)
    for n, handle in enumerate(PLAYERS):
        dovecot.append(imap_user, _order_mail(handle, secrets[handle], n))
    dovecot.append(imap_user, _order_mail("ann", secrets["ann"], 9))  # ann again: a new set
    smtp_sink.wait_for(3 + 4, timeout=180)  # the confirmations
    # Every order is in: the deadline comes now. Both services' sweepers (every 30 s) see it.
    engine = make_engine(url)
    with session_scope(engine) as session:
        session.execute(
            update(Round).where(col(Round.number) == 1).values(deadline=datetime.now(UTC))
        )
    engine.dispose()
    smtp_sink.wait_for(3 + 4 + 3, timeout=240)  # the results
    stop()  # anything sent twice has been sent by now

    received = [message_from_bytes(r.content, policy=policy.default) for r in smtp_sink.received]
    kinds = Counter(
        (
            "welcome"
            if "Welcome" in str(m["Subject"])
            else "result"
            if "result" in str(m["Subject"])
            else "confirmation",
            str(m["To"]),
        )
        for m in received
    )
    assert kinds == {
        **{("welcome", f"{p}@example.org"): 1 for p in PLAYERS},
        **{("confirmation", f"{p}@example.org"): 1 for p in PLAYERS},
        ("confirmation", "ann@example.org"): 2,
        **{("result", f"{p}@example.org"): 1 for p in PLAYERS},
    }
    engine = make_engine(url)
    with Session(engine) as session:
        assert len(session.exec(select(Submission)).all()) == 4
        assert len(session.exec(select(OrderSet)).all()) == 4
        assert len(session.exec(select(RoundResult)).all()) == 1
        rounds = {r.number: r.state for r in session.exec(select(Round))}
        assert rounds == {1: RoundState.REPORTED, 2: RoundState.OPEN}
    engine.dispose()
