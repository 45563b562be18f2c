"""Hostile mail at the intake: what one forged or replayed mail can make the service do.

Each test is an attack from the reliability harness (``bench/reliability.py``) that succeeded
once; none may succeed again."""

from __future__ import annotations

from test_intake import creds, make_mail, outbox

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
