"""The daily digest sent by the running service (issue 42, section 2): a player in three games
says SET DIGEST DAILY by mail; the press of the three games waits, and at her time of day the
running ``adjudicate serve`` (IMAP IDLE, SQLite, the outbox over SMTP) sends one mail holding
it, game by game; her reply to it with orders for two games is applied to both. Real Dovecot,
real aiosmtpd; the service's clock is the real one moved forward by the test."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import Table, make_service, serving, started_game
from playing import client_reply

from adjudicator.serve import scheduler
from adjudicator.service.games import Credentials
from adjudicator.storage.db import session_scope

ALICE = "alice@example.org"


class MovedClock:
    """The real clock, moved forward by ``ahead``: the deadlines planned stay in the future."""

    def __init__(self) -> None:
        self.ahead = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.ahead


@pytest.fixture
def table(
    tmp_path: Path,
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Table, dict[str, Credentials], MovedClock]]:
    """Alice plays gw1 (with bob, carol), gw2 (with dave, erin) and sf3 (SiSSYFiGHT, with fay
    and gus); the service looks for digests due every half second instead of 30."""
    monkeypatch.setattr(scheduler, "DIGEST_SECONDS", 0.5)
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    clock = MovedClock()
    app.clock = clock
    credentials: dict[str, Credentials] = {}
    with session_scope(app.engine) as session:
        for name, kind, players in (
            ("gw1", "giveaway", ("alice", "bob", "carol")),
            ("gw2", "giveaway", ("alice", "dave", "erin")),
            ("sf3", "sissyfight", ("alice", "fay", "gus")),
        ):
            _, _, creds = started_game(session, app, name, players, kind=kind)
            credentials |= {f"{name}:{c.handle}": c for c in creds}
    with serving(app):
        yield Table(app, dovecot, imap_user, smtp_sink), credentials, clock


def test_the_running_service_sends_one_digest_at_her_time_and_her_reply_plays_two_games(
    table: tuple[Table, dict[str, Credentials], MovedClock],
) -> None:
    t, creds, clock = table
    at = (clock() + timedelta(hours=1)).replace(second=0, microsecond=0)
    secret = creds["gw1:alice"].secret
    t.send(ALICE, f"PASSWORD {secret}\nSET DIGEST DAILY {at:%H:%M}", subject="my settings")
    answer = t.one("Daily digest set")
    assert f"SET DIGEST DAILY {at:%H:%M}" in answer.flat

    for game, handle in (("gw1", "bob"), ("gw2", "dave"), ("sf3", "fay")):
        password = creds[f"{game}:{handle}"].secret
        body = f"PASSWORD {password}\nPRESS\nNews from {game}\nENDPRESS"
        t.send(f"{handle}@example.org", body, subject=f"[{game}] press")
        mails = t.expect(2)  # the answer to the sender, the press to the third player
        assert ALICE not in {m.to for m in mails}

    clock.ahead = at - clock() + timedelta(seconds=1)  # her time of day has come
    (digest,) = t.expect(1)
    assert digest.to == ALICE
    assert digest.subject == "[gw1] [gw2] [sf3] Your daily digest: 3 mails from 3 games"
    for game in ("gw1", "gw2", "sf3"):
        assert f"News from {game}" in digest.text
    assert str(digest.message["Reply-To"]).count("judge+r") == 3

    # Her reply, with orders for two games, is applied to both: one answer confirms both.
    body = "GAME gw1\nGIVE 3 TO bob\n\nGAME gw2\nGIVE 3 TO dave\n"
    t.number += 1
    reply = client_reply(digest.message, body, sender=ALICE, message_id=f"<r{t.number}@x.org>")
    t.dovecot.append(t.user, reply)
    (confirmed,) = t.expect(1)  # and no second digest meanwhile
    assert confirmed.to == ALICE
    assert "GIVE 3 TO bob" in confirmed.text
    assert "GIVE 3 TO dave" in confirmed.text
    assert confirmed.text.lower().count("receipt") >= 2  # each game's orders stored
