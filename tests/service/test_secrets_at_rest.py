"""Secrets at rest: what a copy of the database file, or a look at it, gives away."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

from playing import new_game
from sqlmodel import Session, select

from adjudicator.base.security import hash_password, verify_secret
from adjudicator.mail.smtp import LocalMaildirSender
from adjudicator.notify.outbox import send_due
from adjudicator.service.app import App
from adjudicator.storage.db import make_engine
from adjudicator.storage.models import OutboxMail, OutboxStatus


def test_a_sent_welcome_mail_keeps_no_password_in_the_outbox(app: App, tmp_path: Path) -> None:
    """Welcome mails stayed in the outbox table, password and reply token readable."""
    credentials = new_game(app, ["alice", "bob", "carol"], welcome=True)
    folder = tmp_path / "sent"
    sent = asyncio.run(
        send_due(
            app.engine, LocalMaildirSender(folder), bounce_address="judge@pbem.test", now=app.clock
        )
    )
    assert sent >= 3
    delivered = b"".join(f.read_bytes() for f in (folder / "new").iterdir())
    with Session(app.engine) as session:
        welcomes = session.exec(select(OutboxMail).where(OutboxMail.kind == "welcome")).all()
        assert {m.status for m in welcomes} == {OutboxStatus.SENT}
        kept = b"".join(m.message for m in welcomes)
    for cred in credentials.values():
        assert cred.secret.encode() in delivered  # the player got it
        assert cred.secret.encode() not in kept
        assert cred.reply_token.encode() not in kept
    assert b"Message-ID:" in kept  # the header fields stay, for the record


def test_the_database_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.db"
    engine = make_engine(f"sqlite:///{fresh}")
    engine.dispose()
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    older = tmp_path / "older.db"
    older.touch(mode=0o644)
    older.chmod(0o644)
    engine = make_engine(f"sqlite:///{older}")
    engine.dispose()
    assert stat.S_IMODE(older.stat().st_mode) == 0o600


def test_a_chosen_password_is_stored_with_a_slow_hash() -> None:
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt$")
    assert "correct horse" not in stored
    assert verify_secret("correct horse", stored)
    assert not verify_secret("correct horsf", stored)
