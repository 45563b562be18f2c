"""SET ABSENCE by mail, end to end: the player's mail is appended to a real Dovecot, the running
service (IMAP IDLE, SQLite, the outbox over SMTP) takes the absence from the game's allowance
and announces it, and every mail arrives at a real aiosmtpd receiver. What is asserted is what
each reader must learn (docs/commands.md "Time away")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import Table, make_service, serving, started_game

from adjudicator.service.games import Credentials
from adjudicator.storage.db import session_scope

PLAYERS = ("alice", "bob", "carol")


@pytest.fixture
def table(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[Table, dict[str, Credentials]]]:
    """Giveaway gw7 (alice, bob, carol), 10 days of absence each, deadlines that wait."""
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    with session_scope(app.engine) as session:
        settings = {"absence_days": 10, "absence": "wait"}
        _, _, creds = started_game(session, app, "gw7", PLAYERS, settings=settings)
    with serving(app):
        yield Table(app, dovecot, imap_user, smtp_sink), {c.handle: c for c in creds}


def test_an_absence_by_mail_is_confirmed_announced_and_ended_by_a_reply(
    table: tuple[Table, dict[str, Credentials]],
) -> None:
    """carol announces three days away: she is told what it costs and what is left; every
    player and the game master learn who is away until when and that deadlines wait. A reply
    to the announcement (to her seat's own address, no password) brings her back, and everyone
    is told again; a second absence beyond what is left is refused with the days left."""
    t, creds = table
    t.send("carol@example.org", f"GAME gw7\nPASSWORD {creds['carol'].secret}\nSET ABSENCE 3d\n")
    mails = t.expect(5)
    answer = next(m for m in mails if m.subject == "[gw7] Absence set")
    assert answer.to == "carol@example.org"
    assert "It costs 3 days; you have 7 days of absence left" in answer.flat
    told = sorted(m.to for m in mails if m is not answer)
    assert told == ["alice@example.org", "bob@example.org", "carol@example.org", "gm@example.org"]
    to_alice = next(m for m in mails if m.to == "alice@example.org")
    assert to_alice.subject.startswith("[gw7] carol is away until ")
    assert "the game's deadlines wait for carol" in to_alice.flat
    assert "7 days left" in to_alice.flat
    to_carol = next(m for m in mails if m.to == "carol@example.org" and m is not answer)
    reply_to = str(to_carol.message["Reply-To"])
    assert reply_to.startswith("judge+r")  # her seat's own address: a reply needs no password

    t.send("carol@example.org", "SET ABSENCE OFF\n\n> carol will be away", to=reply_to)
    back = t.expect(5)
    assert sorted(m.to for m in back if m.subject == "[gw7] carol is back") == told
    answer = next(m for m in back if m.subject == "[gw7] Absence ended")
    assert "you have 9 days of absence left" in answer.flat  # the day begun stays spent

    t.send("carol@example.org", "SET ABSENCE 12d", to=reply_to)
    refused = t.one("Answer")
    assert "that is 12 days away, and you have 9 of your 10 days" in refused.flat
