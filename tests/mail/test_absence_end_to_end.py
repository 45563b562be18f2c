"""SET ABSENCE by mail, end to end: the player's mail is appended to a real Dovecot, the running
service (IMAP IDLE, SQLite, the outbox over SMTP) takes the absence from the game's allowance
and announces it, and every mail arrives at a real aiosmtpd receiver. What is asserted is what
each reader must learn (docs/commands.md "Time away")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mailservers import IMAP_PASSWORD, Dovecot, SmtpSink
from test_conversation_end_to_end import Table
from test_service_end_to_end import Running

from adjudicator.app import make_app
from adjudicator.config import Config, ImapConfig, ServiceConfig, SmtpConfig
from adjudicator.service.games import Credentials, PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope

SERVICE = "judge@pbem.test"
PLAYERS = ("alice", "bob", "carol")


@pytest.fixture
def table(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[tuple[Table, dict[str, Credentials]]]:
    """Giveaway gw7 (alice, bob, carol), 10 days of absence each, deadlines that wait."""
    config = Config(
        service=ServiceConfig(data_dir=str(tmp_path / "data"), address=SERVICE),
        smtp=SmtpConfig(host="127.0.0.1", port=smtp_sink.port),
        imap=ImapConfig(
            host="127.0.0.1",
            port=dovecot.port,
            username=imap_user,
            password=IMAP_PASSWORD,
            poll_seconds=2,
        ),
    )
    app = make_app(config)
    with session_scope(app.engine) as session:
        game, creds = create_game(
            session,
            name="gw7",
            kind="giveaway",
            schedule="72h",
            settings={"absence_days": 10, "absence": "wait"},
            options={},
            players=[PlayerSpec(p, f"{p}@example.org") for p in PLAYERS],
            now=app.clock(),
            gm_address="gm@example.org",
        )
        start_game(session, game, now=app.clock())
    running = Running(app)
    running.thread.start()
    try:
        yield Table(app, dovecot, imap_user, sink=smtp_sink), {c.handle: c for c in creds}
    finally:
        running.stop()
        app.engine.dispose()


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
    answer = next(m for m in mails if "Answer to your mail" in m.subject)
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
    answer = next(m for m in back if "Answer" in m.subject)
    assert "you have 9 days of absence left" in answer.flat  # the day begun stays spent

    t.send("carol@example.org", "SET ABSENCE 12d", to=reply_to)
    refused = t.one("Answer")
    assert "that is 12 days away, and you have 9 of your 10 days" in refused.flat
