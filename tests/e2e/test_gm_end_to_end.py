"""The game master by mail, end to end: the game master's mails come from the running service
(IMAP IDLE on a real Dovecot, SQLite, the outbox over SMTP to a real aiosmtpd receiver), and
the game master answers them. What each test asserts is what the game master and the players
must learn (docs/commands.md, "For the game master"): that only mail to the game master's own
reply address runs the game, that every change is told to the players, and that a refusal
names its cause."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from mailservers import Dovecot, SmtpSink
from mailtable import Mail, Running, Table, make_service, serving, started_game
from sqlmodel import Session, select

from adjudicator.service import gm
from adjudicator.service.announcements import tell_created
from adjudicator.service.closing import close_and_adjudicate
from adjudicator.service.games import Credentials
from adjudicator.service.rounds import open_round_of
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Game, GameStatus, Observer, Round, Seat

GM = "gm@example.org"
PLAYERS = ("alice", "bob", "carol")


@dataclass
class GmTable:
    t: Table
    running: Running
    creds: dict[str, Credentials]
    reply_to: str  # the game master's own address, from the creation mail

    def game(self) -> Game:
        with Session(self.t.app.engine) as session:
            return session.exec(select(Game).where(Game.name == "gw7")).one()

    def open_round(self) -> Round:
        with Session(self.t.app.engine) as session:
            round_ = open_round_of(session, self.game())
            assert round_ is not None
            return round_

    def gm_sends(self, body: str, *, sender: str = GM, to: str | None = None) -> None:
        self.t.send(sender, body, subject="Re: [gw7] Game created", to=to or self.reply_to)

    def close_round(self) -> None:
        """The open round's deadline is reached (as the CLI's ``--round N`` closes it)."""
        app = self.t.app
        with session_scope(app.engine) as session:
            round_ = open_round_of(session, self.game())
            assert round_ is not None
            assert round_.id is not None
            close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)
        app.report()
        self.running.wake()


@pytest.fixture
def gm_table(
    tmp_path: Path, dovecot: Dovecot, imap_user: str, smtp_sink: SmtpSink
) -> Iterator[GmTable]:
    """Giveaway gw7 (alice, bob, carol) running, with game master gm@example.org, who has got
    the creation mail, and an observer; the players' welcomes are not queued."""
    app = make_service(tmp_path, dovecot, imap_user, smtp_sink)
    with session_scope(app.engine) as session:
        game, first, creds = started_game(session, app, "gw7", PLAYERS, gm_address=GM)
        assert game.id is not None
        session.add(
            Observer(game_id=game.id, address="watcher@example.net", created_at=app.clock())
        )
        tell_created(session, ctx=app.ctx, game=game, first_round=first, now=app.clock())
    with serving(app) as running:
        t = Table(app, dovecot, imap_user, smtp_sink)
        created = t.one("Game created")
        assert created.to == GM
        reply_to = str(created.message["Reply-To"])
        yield GmTable(t, running, {c.handle: c for c in creds}, reply_to)


def _by_recipient(mails: list[Mail]) -> dict[str, list[Mail]]:
    found: dict[str, list[Mail]] = {}
    for mail in mails:
        found.setdefault(mail.to, []).append(mail)
    return found


def _answer(mails: list[Mail]) -> Mail:
    (answer,) = [m for m in mails if m.to == GM]
    return answer


def test_the_creation_mail_says_how_to_run_the_game_and_replying_pauses_and_resumes_it(
    gm_table: GmTable,
) -> None:
    """The game master's mails carry a reply address of the game master's own; a reply with
    PAUSE pauses the game and every player is told; RESUME, sent from another address to the
    same reply address, runs it again with the deadline moved, and the answer goes to the
    game master's registered address, not to the sender."""
    g = gm_table
    assert g.reply_to.startswith("judge+g")
    assert g.reply_to.endswith("@pbem.test")
    g.gm_sends("PAUSE\n\n> Hello game master of gw7,\n> game gw7 (Giveaway) is created")
    mails = g.t.expect(4)
    answer = _answer(mails)
    assert answer.message["Reply-To"] == g.reply_to  # answering the answer works too
    assert "paused" in answer.flat
    players = sorted(m.to for m in mails if m.to != GM)
    assert players == [f"{p}@example.org" for p in PLAYERS]
    assert all("paused" in m.subject for m in mails if m.to != GM)
    assert g.game().status == GameStatus.PAUSED

    deadline = g.open_round().deadline
    assert deadline is not None
    g.gm_sends("resume", sender="gm.on.the.road@mobile.example")
    mails = g.t.expect(4)
    assert "gm.on.the.road@mobile.example" not in {m.to for m in mails}
    assert "runs again" in _answer(mails).flat
    assert g.game().status == GameStatus.RUNNING
    moved = g.open_round().deadline
    assert moved is not None
    assert moved > deadline  # by the length of the pause
    told = [m for m in mails if m.to != GM]
    assert len(told) == 3
    assert all("deadline" in m.flat.lower() for m in told)


def test_extend_by_a_duration_or_until_a_time_and_an_earlier_time_only_when_said(
    gm_table: GmTable,
) -> None:
    g = gm_table
    before = g.open_round().deadline
    assert before is not None
    g.gm_sends("EXTEND 24h")
    mails = g.t.expect(4)  # the answer, and each player the new deadline
    after = g.open_round().deadline
    assert after == before + timedelta(hours=24)
    assert f"round 1 now closes {after:%A %d %B %Y, %H:%M}" in _answer(mails).flat

    # The game's zone is UTC; a time is written to the minute.
    earlier = (after - timedelta(hours=30)).replace(second=0, microsecond=0)
    g.gm_sends(f"EXTEND UNTIL {earlier:%Y-%m-%d %H:%M}")
    refused = g.t.one()
    assert refused.to == GM
    assert "NOT DONE" in refused.text
    assert "write EARLIER after the time" in refused.flat
    assert g.open_round().deadline == after

    g.gm_sends(f"EXTEND UNTIL {earlier:%Y-%m-%d %H:%M} EARLIER")
    mails = g.t.expect(4)
    assert "NOT DONE" not in _answer(mails).text
    assert g.open_round().deadline == earlier

    g.gm_sends("EXTEND soon\nEXTEND UNTIL 2026-02-30 21:00")
    bad = g.t.one()
    assert bad.text.count("NOT DONE") == 2
    assert "EXTEND 24h" in bad.text
    assert "is no date and time" in bad.flat
    assert g.open_round().deadline == earlier


def test_replace_remove_and_stand_in_are_told_to_the_game(gm_table: GmTable) -> None:
    """One mail, four commands: each is done or refused on its own, and one answer says which;
    the new player gets the game so far, the others (the former player too) hear who took the
    seat, who left and who the computer plays; the player taken out is told so (issue 40)."""
    g = gm_table
    g.gm_sends("REPLACE bob bob2@example.org\nREMOVE carol\nSTAND-IN alice\nREMOVE zed\n")
    mails = g.t.expect()
    by = _by_recipient(mails)
    # carol hears of bob's new player before she is out herself; bob of his seat passing on
    assert set(by) == {
        GM,
        "bob2@example.org",
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
    }
    answer = _answer(mails)
    assert answer.text.count("Done:") == 3
    assert "no player 'zed'" in answer.text
    assert any("You take over the seat bob" in m.subject for m in by["bob2@example.org"])
    assert [m.subject for m in by["bob@example.org"]] == [
        "[gw7] Your seat bob has passed to a new player"
    ]
    assert [m.subject for m in by["carol@example.org"]] == [  # the last mail of gw7 she gets
        "[gw7] A new player plays bob",
        "[gw7] The game master has taken you out of the game",
    ]
    for player in ("alice@example.org", "bob2@example.org"):
        subjects = " | ".join(m.subject for m in by[player])
        assert "carol is out of the game" in subjects
        assert "computer now plays alice" in subjects
    with Session(g.t.app.engine) as session:
        seats = {s.handle: s for s in session.exec(select(Seat))}
    assert seats["bob"].address == "bob2@example.org"
    assert not seats["carol"].active
    assert "alice" in g.game().settings.get("stand_ins", [])

    g.gm_sends("STAND-IN alice OFF")
    mails = g.t.expect(3)  # the answer; alice and bob told
    assert "alice plays their own seat again" in " ".join(m.subject for m in mails)
    assert "alice" not in g.game().settings.get("stand_ins", [])


def test_announce_copy_and_a_round_adjudicated_again_after_a_rollback(gm_table: GmTable) -> None:
    """ANNOUNCE reaches every player and the observer, as the game master's words in the
    body only (escaped in HTML); COPY ON brings the game master each round's public result;
    a round adjudicated again after a rollback says it replaces the result mailed before."""
    g = gm_table
    g.gm_sends(
        "ANNOUNCE\nThe server moves <b>tonight</b>.\nBcc: everyone@example.org\nENDANNOUNCE\n"
        "COPY ON"
    )
    mails = g.t.expect(5)
    by = _by_recipient(mails)
    assert set(by) == {GM, "watcher@example.net", *(f"{p}@example.org" for p in PLAYERS)}
    for mail in mails:
        assert mail.message["Bcc"] is None
    told = by["alice@example.org"][0]
    assert told.subject == "[gw7] Announcement from the game master"
    assert "The server moves <b>tonight</b>." in told.text
    assert "&lt;b&gt;tonight&lt;/b&gt;" in told.html
    assert "<b>tonight" not in told.html
    assert "observe game gw7" in by["watcher@example.net"][0].flat
    assert "every round's public result" in by[GM][0].flat

    g.close_round()
    mails = g.t.expect(5)  # three players, the observer, the game master's copy
    copy = _answer(mails)
    assert "copy for the game master" in copy.subject
    assert copy.message["Reply-To"] == g.reply_to
    first_results = [m for m in mails if m.to.endswith("@example.org") and m.to != GM]
    assert all("replaces" not in m.subject for m in first_results)

    with session_scope(g.t.app.engine) as session:
        game = session.exec(select(Game).where(Game.name == "gw7")).one()
        gm.rollback(session, game, 1, ctx=g.t.app.ctx, now=g.t.app.clock())
    g.t.expect(3)  # each player: round 1 is open again, with its deadline
    g.close_round()
    again = g.t.expect()  # and the game master may hear of missed rounds
    results = [m for m in again if "Round 1 result" in m.subject and m.to != GM]
    assert sorted(m.to for m in results) == sorted(
        ["watcher@example.net", *(f"{p}@example.org" for p in PLAYERS)]
    )
    results = [m for m in results if m.to != "watcher@example.net"]
    for result in results:
        assert "replaces the earlier result" in result.subject
        assert "this result replaces the one mailed to you for that round on" in result.flat
    assert "replaces the one mailed on" in _by_recipient(again)["watcher@example.net"][0].flat


def test_players_and_forged_game_master_mail_cannot_run_the_game(gm_table: GmTable) -> None:
    """A player's PAUSE, the game master's From without the reply address, a made-up reply
    address, and gw7's reply address used for another game: each refused with one mail that
    names why, to the sender, and nothing changes."""
    g = gm_table
    secret = g.creds["alice"].secret
    g.t.send("alice@example.org", f"GAME gw7\nPASSWORD {secret}\nPAUSE\n")
    refused = g.t.one("Answer")
    assert refused.to == "alice@example.org"
    assert "PAUSE: not done" in refused.text
    assert "came from a player of the game" in refused.flat

    g.t.send(GM, "PAUSE\nEXTEND 48h", subject="[gw7] pause please")
    refused = g.t.one("Answer")
    assert refused.to == GM
    assert "EXTEND, PAUSE: not done" in refused.text
    assert "the From line alone proves nothing" in refused.flat
    # To the game master's own address, as every mail about the game: answerable as his (the
    # forger, who wrote in his name, gets nothing).
    assert refused.message["Reply-To"] == g.reply_to

    forged = g.reply_to.split("-")[0] + "-" + "0" * 20 + "@pbem.test"
    g.gm_sends("PAUSE", to=forged)
    assert "the From line alone proves nothing" in g.t.one("Answer").flat

    with session_scope(g.t.app.engine) as session:
        started_game(session, g.t.app, "gw8", PLAYERS, settings={}, gm_address=GM)
    g.gm_sends("GAME gw8\nPAUSE")
    assert "did not go to that address" in g.t.one("Answer").flat
    assert g.game().status == GameStatus.RUNNING
    with Session(g.t.app.engine) as session:
        statuses = {game.name: game.status for game in session.exec(select(Game))}
    assert statuses == {"gw7": GameStatus.RUNNING, "gw8": GameStatus.RUNNING}
