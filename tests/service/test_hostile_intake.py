"""Hostile mail at the intake: what one forged or replayed mail can make the service do.

Each test is an attack from the reliability harness (``bench/reliability.py``) that succeeded
once; none may succeed again."""

from __future__ import annotations

from datetime import timedelta
from email.utils import format_datetime

from test_intake import creds, make_mail, outbox, stored_orders

from adjudicator.app import App
from adjudicator.service.games import Credentials
from adjudicator.service.intake import MAX_SECTIONS
from adjudicator.storage.models import SubmissionStatus

__all__ = ["creds"]


def test_a_mail_naming_thousands_of_games_gets_a_bounded_answer(
    app: App, creds: dict[str, Credentials]
) -> None:
    """One forged mail with thousands of GAME lines once brought thousands of answers to its forged sender.
    Only the first sections are read; one mail says how many were left out."""
    body = "\n".join(f"GAME nosuch{i}\nGIVE 1 TO bob" for i in range(2000))
    raw = make_mail(body, sender="victim@example.net", subject="orders")
    app.ingest(raw, channel="pipe")
    mails = outbox(app)
    assert len(mails) <= MAX_SECTIONS + 1
    [(_, to, text)] = [m for m in mails if m[0] == "too_many_sections"]
    assert to == "victim@example.net"
    assert f"{2000 - MAX_SECTIONS} were NOT read" in " ".join(text.split())
    assert "nosuch5" in text  # the first one left out is named
    assert "nosuch1999" not in text  # ... but not every one


def test_a_rejection_lists_a_bounded_number_of_problems(
    app: App, creds: dict[str, Credentials]
) -> None:
    secret = creds["alice"].secret
    body = f"PASSWORD {secret}\n" + "\n".join(f"GIVE 1 TO nobody{i}" for i in range(2000))
    assert app.ingest(make_mail(body), channel="pipe") == SubmissionStatus.REJECTED
    [(kind, _, text)] = outbox(app)
    assert kind == "rejection"
    assert len(text) < 20_000
    assert "more, not listed here" in text


def _with_received(raw: bytes, hop: str) -> bytes:
    """The same mail as one more relay hands it on: one more Received line on top."""
    return f"Received: from {hop} by mx.pbem.test; Mon, 2 Mar 2026 12:00:00 +0000\n".encode() + raw


def test_a_copy_of_a_mail_with_one_more_received_line_is_not_new(
    app: App, creds: dict[str, Credentials]
) -> None:
    """The same Message-ID with one more Received line was processed again, and its older
    orders replaced the newer ones."""
    secret = creds["alice"].secret
    first = make_mail(f"PASSWORD {secret}\nGIVE 3 TO bob")
    newer = make_mail(f"PASSWORD {secret}\nGIVE 3 TO carol")
    assert app.ingest(first, channel="pipe") == SubmissionStatus.ACCEPTED
    assert app.ingest(newer, channel="pipe") == SubmissionStatus.ACCEPTED
    assert app.ingest(_with_received(first, "relay.example.net"), channel="pipe") == (
        SubmissionStatus.IGNORED
    )
    assert stored_orders(app) == [["GIVE 3 TO bob"], ["GIVE 3 TO carol"]]
    assert [kind for kind, _, _ in outbox(app)] == ["confirmation", "confirmation"]


def test_an_order_mail_written_before_the_round_opened_is_not_applied_to_it(
    app: App, creds: dict[str, Credentials]
) -> None:
    """An old order mail (a new Message-ID: resent by a mail program or replayed) arriving
    after its round closed was applied to the next round. Its Date says when it was written:
    before this round opened, so for an earlier one; the player is told and nothing changes."""
    secret = creds["alice"].secret
    opened = app.clock()  # the fixture's game opened round 1 now
    app.clock.advance(hours=1)  # type: ignore[attr-defined]
    old = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO bob",
        Date=format_datetime(opened - timedelta(days=3)),
    )
    assert app.ingest(old, channel="pipe") == SubmissionStatus.REJECTED
    assert stored_orders(app) == []
    [(kind, to, text)] = outbox(app)
    assert (kind, to) == ("stale", "alice@example.org")
    assert "before round 1 opened" in " ".join(text.split())
    # Written after it opened (or with a clock a minute slow), the same orders count.
    fresh = make_mail(
        f"PASSWORD {secret}\nGIVE 3 TO bob\n", Date=format_datetime(opened - timedelta(minutes=1))
    )
    assert app.ingest(fresh, channel="pipe") == SubmissionStatus.ACCEPTED
