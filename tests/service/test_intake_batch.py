"""The batch intake: a batch is stored in one transaction and processed in one, each mail in a
savepoint of its own, and it ends exactly as processing the same mails one at a time would."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from playing import fail_processing_of, new_game
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service import batch_intake
from adjudicator.service.app import App, make_app
from adjudicator.service.batch_intake import store_batch
from adjudicator.service.games import Credentials
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import OrderSet, OutboxMail, Submission

PLAYERS = ("alice", "bob", "carol")
JUDGE = "judge@pbem.test"


def make_mail(body: str, *, sender: str, subject: str = "[gw1] orders", n: int = 0) -> bytes:
    message = EmailMessage()
    message["From"] = f"{sender}@example.org"
    message["To"] = JUDGE
    message["Subject"] = subject
    message["Message-ID"] = f"<batch.{sender}.{n}@example.org>"
    message.set_content(body)
    return message.as_bytes()


def start(app: App) -> dict[str, Credentials]:
    # the round stays open: intake is tested here
    return new_game(app, PLAYERS, name="gw1", settings={"early_close": False})


def assorted_mails(creds: dict[str, Credentials]) -> list[bytes]:
    """Accepted, replaced, rejected, refused, unnamed-game and robot mails."""
    alice, bob = creds["alice"].secret, creds["bob"].secret
    return [
        make_mail(f"PASSWORD {alice}\nGIVE 3 TO bob", sender="alice"),
        make_mail(f"PASSWORD {bob}\nGIVE 5 TO alice", sender="bob"),
        make_mail(f"PASSWORD {alice}\nGIVE 3 TO carol", sender="alice", n=1),
        make_mail("PASSWORD guessed\nGIVE 3 TO bob", sender="carol"),
        make_mail("GIVE 3 TO bob", sender="stranger", subject="orders"),
        make_mail(f"PASSWORD {bob}\nGIVE 1 TO alice\nGIVE 2 TO carol", sender="bob", n=1),
        make_mail("I am away until Monday.", sender="carol", subject="Auto-reply: orders"),
    ]


def outcome(app: App) -> dict[str, Any]:
    """Everything the intake decided, without ids and times."""
    with Session(app.engine) as session:
        submissions = session.exec(select(Submission).order_by(col(Submission.id))).all()
        outbox = session.exec(select(OutboxMail).order_by(col(OutboxMail.id))).all()
        order_sets = session.exec(select(OrderSet).order_by(col(OrderSet.id))).all()
        return {
            "statuses": [(s.sender, s.status, s.note) for s in submissions],
            "orders": [o.lines for o in order_sets],
            "outbox": [(m.kind, m.recipient, m.key.split(":", 2)[2]) for m in outbox],
        }


@pytest.fixture
def twin(tmp_path: Path) -> Iterator[App]:
    """A second service on a SQLite database of its own, at the fixtures' start time, to
    compare with."""
    data = tmp_path / "twin"
    application = make_app(Config(service=ServiceConfig(data_dir=str(data), address=JUDGE)))
    application.clock = lambda: datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    yield application
    application.engine.dispose()


def test_a_batch_ends_as_one_mail_at_a_time_would(app: App, twin: App) -> None:
    creds, twin_creds = start(app), start(twin)
    for raw in assorted_mails(twin_creds):
        twin.ingest(raw, channel="imap")
    results = app.ingest_batch(assorted_mails(creds), channel="imap")
    assert len(results) == 7
    expected = outcome(twin)
    # The secrets differ between the two databases; everything the intake decided does not.
    assert outcome(app) == expected
    assert [status for _, status, _ in expected["statuses"]] == [
        "accepted", "rejected", "accepted", "rejected", "rejected", "accepted", "ignored",
    ]  # fmt: skip


def test_the_same_bytes_twice_in_a_batch_or_again_later_are_stored_once(app: App) -> None:
    creds = start(app)
    raw = make_mail(f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO alice", sender="bob")
    other = make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", sender="alice")
    assert len(app.ingest_batch([raw, raw, other], channel="imap")) == 2
    assert app.ingest_batch([other, raw], channel="imap") == []
    assert outcome(app)["orders"] == [["GIVE 3 TO alice"], ["GIVE 3 TO bob"]]


def test_a_mail_whose_processing_raises_fails_alone(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its savepoint is rolled back (no orders, no answer) and it is marked failed with the
    error; the mails before and after it in the batch keep their orders and answers."""
    creds = start(app)
    mails = [
        make_mail(f"PASSWORD {creds[p].secret}\nGIVE 3 TO {q}", sender=p)
        for p, q in (("alice", "bob"), ("bob", "carol"), ("carol", "alice"))
    ]
    fail_processing_of(monkeypatch, "bob@example.org")
    statuses = [status for _, status in app.ingest_batch(mails, channel="imap")]
    assert statuses == ["accepted", "failed", "accepted"]
    result = outcome(app)
    assert result["orders"] == [["GIVE 3 TO bob"], ["GIVE 3 TO alice"]]
    assert [to for _, to, _ in result["outbox"]] == ["alice@example.org", "carol@example.org"]
    [(_, _, note)] = [s for s in result["statuses"] if s[1] == "failed"]
    assert note == "processing failed: RuntimeError: template exploded"


def test_a_crash_between_storing_and_processing_a_batch_repeats_nothing(app: App) -> None:
    creds = start(app)
    raws = [
        make_mail(f"PASSWORD {creds[p].secret}\nGIVE 3 TO {q}", sender=p)
        for p, q in (("alice", "bob"), ("bob", "carol"))
    ]
    with session_scope(app.engine) as session:
        assert len(store_batch(session, raws, channel="imap", now=app.clock())) == 2
    # ... the process dies here: stored, not processed ...
    assert app.process_pending() == 2
    assert app.process_pending() == 0
    assert app.ingest_batch(raws, channel="imap") == []  # the IMAP re-delivery
    result = outcome(app)
    assert result["orders"] == [["GIVE 3 TO bob"], ["GIVE 3 TO carol"]]
    assert [kind for kind, _, _ in result["outbox"]] == ["confirmation", "confirmation"]


def test_an_interrupted_batch_keeps_nothing_and_is_processed_once_later(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One transaction per batch: when the process is interrupted at the last mail (SystemExit
    is no error of a mail, so nothing catches it), the mails processed before it in the batch
    are not committed either. All stay stored and ``received`` for the restart."""
    creds = start(app)
    mails = [
        make_mail(f"PASSWORD {creds[p].secret}\nGIVE 3 TO {q}", sender=p)
        for p, q in (("alice", "bob"), ("bob", "carol"), ("carol", "alice"))
    ]
    real = batch_intake.process_claimed

    def interrupted_at_carol(
        session: Session, submission: Submission, raw: bytes, **kw: Any
    ) -> Any:
        if b"From: carol@" in raw:
            raise SystemExit("killed")
        return real(session, submission, raw, **kw)

    monkeypatch.setattr(batch_intake, "process_claimed", interrupted_at_carol)
    with pytest.raises(SystemExit):
        app.ingest_batch(mails, channel="imap")
    stored = outcome(app)
    assert [status for _, status, _ in stored["statuses"]] == ["received"] * 3
    assert stored["orders"] == stored["outbox"] == []
    monkeypatch.setattr(batch_intake, "process_claimed", real)
    assert app.process_pending() == 3
    result = outcome(app)
    assert [status for _, status, _ in result["statuses"]] == ["accepted"] * 3
    assert len(result["orders"]) == len(result["outbox"]) == 3


def test_on_postgresql_a_batch_ends_as_one_mail_at_a_time_would(pg_app: App, twin: App) -> None:
    """Savepoints and row locks (FOR UPDATE SKIP LOCKED) on PostgreSQL."""
    creds, twin_creds = start(pg_app), start(twin)
    for raw in assorted_mails(twin_creds):
        twin.ingest(raw, channel="imap")
    pg_app.ingest_batch(assorted_mails(creds), channel="imap")
    assert outcome(pg_app) == outcome(twin)


def test_each_mail_processed_is_logged_once_with_what_became_of_it_and_why(
    app: App, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One line a mail, as stored once the batch committed: accepted, rejected with its
    reason, failed with its error (its savepoint rolled back, the others kept)."""
    creds = start(app)
    mails = [
        make_mail(f"PASSWORD {creds['alice'].secret}\nGIVE 3 TO bob", sender="alice"),
        make_mail(f"PASSWORD {creds['bob'].secret}\nGIVE 3 TO carol", sender="bob"),
        make_mail("PASSWORD guessed\nGIVE 3 TO bob", sender="carol"),
    ]
    fail_processing_of(monkeypatch, "bob@example.org")
    with caplog.at_level("INFO", logger="adjudicator.intake"):
        done = app.ingest_batch(mails, channel="imap")
    logged = [
        (record.submission, record.msg, record.why)  # type: ignore[attr-defined]
        for record in caplog.records
        if str(record.msg).startswith("mail.") and record.msg != "mail.stored"
    ]
    with Session(app.engine) as session:
        stored = {s.id: s for s in session.exec(select(Submission)).all()}
    assert sorted(logged) == sorted(
        (i, f"mail.{stored[i].status}", stored[i].note) for i, _ in done
    )
    assert [status for _, status in done] == ["accepted", "failed", "rejected"]
    assert logged[1][2] == "processing failed: RuntimeError: template exploded"
    assert "password" in str(logged[2][2]).lower()
