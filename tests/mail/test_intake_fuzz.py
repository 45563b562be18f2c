"""Property: whatever bytes arrive, intake (store, then process) never raises. Each mail ends
stored and processed: answered, ignored, or marked failed with a note saying why; a rejected
mail goes unanswered only while its sender's seat is locked out (the rate limit)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import App, make_app
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.intake import digest_of
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import (
    LoginFailure,
    OutboxMail,
    Seat,
    Submission,
    SubmissionStatus,
)

JUDGE = "judge@pbem.test"
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SECRET = "{secret}"  # replaced by alice's real secret, so that some mails are accepted

FIELDS = (
    "From", "To", "Cc", "Subject", "Message-ID", "In-Reply-To", "References", "Reply-To",
    "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Content-Disposition",
    "Auto-Submitted", "Precedence", "Return-Path", "X-Loop", "Delivered-To", "X-Original-To",
    "Authentication-Results", "List-Id",
)  # fmt: skip
VALUES = (
    "alice@example.org", "Alice <alice@example.org>", "bob@example.org", JUDGE, "<>",
    "judge+bounce-1-0123456789@pbem.test", "judge+abcdefgh12345678@pbem.test",
    "[gw1] orders", "Re: [gw1] Orders", "=?utf-8?q?J=C3=BCrgen?=", "=?x-klingon?b?////?=",
    "multipart/mixed; boundary=b", "multipart/alternative; boundary=b",
    "multipart/report; report-type=delivery-status; boundary=b", "message/rfc822",
    "text/plain; charset=x-unknown", "text/html; charset=utf-8", "text/plain; format=flowed",
    "base64", "quoted-printable", "8bit", "attachment; filename=orders.txt", "auto-replied",
    "bulk", "mx.pbem.test; dkim=pass", "<a@b> <c@d>",
)  # fmt: skip
LINES = (
    "GAME gw1", "game: nosuchgame", f"PASSWORD {SECRET}", "PASSWORD wrong", "GIVE 3 TO bob",
    "GIVE 2 TO carol", "give 1 to alice", "--b", "--b--", "-- ", "> GIVE 3 TO bob",
    "On Mon, 1 Jan 2024, Bob <b@x> wrote:", "Content-Type: text/plain", "Status: 5.1.1",
    "Final-Recipient: rfc822; bob@example.org", "=C3=BC=", "<html><b>GIVE 3 TO bob</b>", "",
)  # fmt: skip

header = st.tuples(
    st.one_of(st.sampled_from(FIELDS), st.text(min_size=1, max_size=12)),
    st.one_of(st.sampled_from(VALUES), st.text(max_size=60)),
)
body_line = st.one_of(st.sampled_from(LINES), st.text(max_size=50))


PLAYER_MAIL = [("From", "Alice <alice@example.org>"), ("To", JUDGE), ("Subject", "[gw1] orders")]


@st.composite
def mails(draw: st.DrawFn) -> bytes:
    """Mail-shaped bytes: assorted header fields (real and broken), a body of order lines,
    MIME boundaries, quotes and noise; any line ending; UTF-8 or Latin-1 or raw bytes. Half of
    them start as a player's mail to the judge, so that orders get checked and answered."""
    headers = draw(st.lists(header, max_size=12))
    lines = draw(st.lists(body_line, max_size=20))
    if draw(st.booleans()):
        headers = PLAYER_MAIL + headers[:3]
        if draw(st.booleans()):  # valid orders, perhaps with quotes, signature, noise around
            lines = [*lines[:2], f"PASSWORD {SECRET}", "GIVE 3 TO bob", *lines[2:4]]
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join([f"{name}: {value}" for name, value in headers] + ["", *lines])
    encoding = draw(st.sampled_from(["utf-8", "latin-1"]))
    raw = text.encode(encoding, "replace")
    return raw + draw(st.binary(max_size=40))


any_mail = st.one_of(st.binary(max_size=2000), mails())


@pytest.fixture
def intake(tmp_path: Path) -> Iterator[tuple[App, str]]:
    config = Config(service=ServiceConfig(data_dir=str(tmp_path / "data"), address=JUDGE))
    app = make_app(config)
    app.clock = lambda: NOW
    with session_scope(app.engine) as session:
        game, credentials = create_game(
            session,
            name="gw1",
            kind="giveaway",
            options={},
            players=[PlayerSpec(h, f"{h}@example.org") for h in ("alice", "bob", "carol")],
            gm_address="gm@example.net",
            now=NOW,
        )
        start_game(session, game, now=NOW)
    yield app, credentials[0].secret
    app.engine.dispose()


def forget_failed_logins(app: App) -> None:
    """Each example on its own: no lock-out left by the wrong passwords of earlier ones."""
    with session_scope(app.engine) as session:
        session.execute(update(Seat).values(failed_logins=0, locked_until=None))
        session.execute(delete(LoginFailure))


def check_outcome(app: App, raw: bytes) -> None:
    """The mail is stored and processed, and its status is one the service promises."""
    with Session(app.engine) as session:
        submission = session.exec(select(Submission).where(Submission.digest == digest_of(raw)))
        stored = submission.one()
        # The bytes received, but for passwords, which processing takes out (mail/redact.py).
        assert stored.raw == raw or b"*" * 4 in stored.raw
        assert stored.status != SubmissionStatus.RECEIVED
        event(f"status {stored.status}")
        # FAILED is what processing that raised leaves behind: never for any mail at all.
        assert stored.status != SubmissionStatus.FAILED, f"processing raised: {stored.note}"
        if stored.status == SubmissionStatus.IGNORED:
            return
        replies = session.exec(
            select(OutboxMail).where(col(OutboxMail.key).startswith(f"reply:{stored.id}:"))
        ).all()
        if stored.status == SubmissionStatus.ACCEPTED:  # the clock stands: answers run out
            # The confirmation, alone or as a part of the mail's one answer (with the answers
            # to its other sections).
            confirmed = any(r.kind in ("confirmation", "answer") for r in replies)
            assert confirmed or "confirmation to alice@example.org held back" in (stored.note or "")
        elif not replies:
            # Rejected without an answer: only when it was held back on purpose (a locked-out
            # source, a wrong password told once already, too many answers to the address).
            held = ("source locked", "wrong password again", "held back")
            assert any(why in (stored.note or "") for why in held), (
                f"rejected and unanswered: {stored.note!r}"
            )


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=any_mail)
def test_one_mail_at_a_time_never_raises(intake: tuple[App, str], raw: bytes) -> None:
    app, secret = intake
    raw = raw.replace(SECRET.encode(), secret.encode())
    forget_failed_logins(app)
    app.ingest(raw, channel="pipe")  # None for bytes seen before: they were processed then
    check_outcome(app, raw)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raws=st.lists(any_mail, min_size=1, max_size=6))
def test_a_batch_never_raises_and_each_mail_ends_on_its_own(
    intake: tuple[App, str], raws: list[bytes]
) -> None:
    """In a batch, each mail is processed in a savepoint of its own: whatever one mail does,
    the others end as they would alone."""
    app, secret = intake
    raws = [raw.replace(SECRET.encode(), secret.encode()) for raw in raws]
    forget_failed_logins(app)
    app.ingest_batch(raws, channel="imap")
    for raw in raws:
        check_outcome(app, raw)
