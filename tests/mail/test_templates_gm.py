"""The game master's mails by mail, as golden files: the summary at creation with the
commands, the one answer to a mail of commands (done and not done), the refusals, what the
players and observers get (an announcement, a seat taken out or played by the computer), the
game master's copy of a result, a result that replaces one mailed before a rollback, the
notice of a forfeit and of a renewed game master's address.

Secrets, tokens, the key and the clock are fixed (tests/mail/test_templates.py), so each mail
comes out the same every time. ``UPDATE_GOLDEN=1`` rewrites the files: read every changed one,
as the game master or player who gets it, before committing it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from test_templates import Clock, Sent, _HtmlCheck, make_service, outbox, readable

from adjudicator.service import gm
from adjudicator.service.announcements import tell_created
from adjudicator.service.app import App
from adjudicator.service.closing import close_and_adjudicate, sweep
from adjudicator.service.games import PlayerSpec, create_game, find_game
from adjudicator.service.gm_mail import renew_game_master
from adjudicator.service.rounds import open_round_of, start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Observer

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "gm"


def mail(sender: str, to: str, body: str, number: int) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: [g1] the game"
    message["Message-ID"] = f"<g{number}@example.org>"
    message["Date"] = "Mon, 02 Mar 2026 12:00:00 +0000"
    message.set_content(body)
    return message.as_bytes()


def _close(app: App, name: str) -> None:
    with session_scope(app.engine) as session:
        round_ = open_round_of(session, find_game(session, name))
        assert round_ is not None
        assert round_.id is not None
        close_and_adjudicate(session, round_.id, ctx=app.ctx, now=app.clock(), force=True)
    app.report()


def run_by_mail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Sent]:
    counter = itertools.count(1)
    monkeypatch.setattr("adjudicator.service.games.new_secret", lambda: f"secret{next(counter)}")
    monkeypatch.setattr("adjudicator.service.games.new_token", lambda: f"token{next(counter):0>10}")
    monkeypatch.setattr("adjudicator.service.games.new_gm_token", lambda: "gm-token")
    monkeypatch.setattr("adjudicator.service.gm_mail.new_gm_token", lambda: "gm-token-2")
    monkeypatch.setattr("adjudicator.service.gm.new_secret", lambda: f"secret{next(counter)}")
    monkeypatch.setattr("adjudicator.service.gm.new_token", lambda: f"token{next(counter):0>10}")
    app = make_service(tmp_path)
    clock = app.clock
    assert isinstance(clock, Clock)
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="g1",
            kind="giveaway",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("alice", "bob", "carol")],
            options={},
            schedule="72h",
            time_zone="Europe/Berlin",
            settings={"early_close": False},
            gm_address="gm@example.org",
            now=clock(),
        )
        first = start_game(session, game, now=clock())
        assert game.id is not None
        session.add(Observer(game_id=game.id, address="watcher@example.net", created_at=clock()))
        tell_created(session, ctx=app.ctx, game=game, first_round=first, now=clock())
    number = itertools.count(1)

    def send(sender: str, to: str, body: str) -> list[Sent]:
        before = len(outbox(app))
        app.ingest(mail(sender, to, body, next(number)), channel="test")
        return outbox(app)[before:]

    kept = _commands(app, send)
    clock.now += timedelta(hours=1)
    _close(app, "g1")
    kept["copy"] = next(s for s in outbox(app) if s.kind == "gm:copy")
    clock.now += timedelta(hours=1)
    with session_scope(app.engine) as session:
        gm.rollback(session, find_game(session, "g1"), 1, ctx=app.ctx, now=clock())
    clock.now += timedelta(hours=1)
    before = len(outbox(app))
    _close(app, "g1")
    again = outbox(app)[before:]
    kept["result-replaces"] = next(s for s in again if s.kind == "result")
    kept["copy-replaces"] = next(s for s in again if s.kind == "gm:copy")
    with session_scope(app.engine) as session:
        renew_game_master(session, find_game(session, "g1"), address=None, ctx=app.ctx, now=clock())
    kept["renewed"] = next(s for s in outbox(app) if s.kind == "gm:game_master")
    kept |= _forfeit(app, clock)
    return kept


def _commands(app: App, send: Callable[[str, str, str], list[Sent]]) -> dict[str, Sent]:
    """The game master's commands, and a player's and a forger's."""
    clock = app.clock
    assert isinstance(clock, Clock)
    kept: dict[str, Sent] = {}
    (created,) = outbox(app)
    kept["created"] = created
    reply_to = str(created.message["Reply-To"])
    clock.now += timedelta(hours=1)
    sent = send(
        "gm@example.org",
        reply_to,
        "EXTEND 24h\nREMOVE zed\nSTAND-IN carol\nCOPY ON\nANNOUNCE\n"
        "Round 1 runs a day longer: the server moves tonight.\nENDANNOUNCE\nEXTEND soon\n",
    )
    kept["answer"] = next(s for s in sent if s.kind == "answer")
    kept["announcement"] = next(s for s in sent if s.kind == "announcement")
    kept["announcement-observer"] = next(
        s for s in sent if s.kind == "announcement" and s.recipient == "watcher@example.net"
    )
    kept["stand-in"] = next(s for s in sent if s.kind == "game_change")
    clock.now += timedelta(hours=1)
    sent = send("gm@example.org", reply_to, "STAND-IN carol OFF\nREMOVE carol\nPAUSE\nRESUME\n")
    kept["answer-players"] = next(s for s in sent if s.kind == "answer")
    kept["removed"] = next(
        s
        for s in sent
        if s.kind == "game_change" and "out of the game" in str(s.message["Subject"])
    )
    clock.now += timedelta(hours=1)
    (kept["refused-player"],) = send(
        "alice@example.org", "judge@pbem.test", "GAME g1\nPASSWORD secret1\nPAUSE\n"
    )
    (kept["refused-forged"],) = send("gm@example.org", "judge@pbem.test", "GAME g1\nPAUSE\n")
    return kept


def _forfeit(app: App, clock: Clock) -> dict[str, Sent]:
    """Three Musketeers: the player to move stays silent past the grace period."""
    with session_scope(app.engine) as session:
        game, _ = create_game(
            session,
            name="tm1",
            kind="three-musketeers",
            players=[PlayerSpec(p, f"{p}@example.org") for p in ("dave", "erin")],
            options={},
            schedule="48h",
            settings={"reminders": []},
            gm_address="gm@example.org",
            now=clock(),
        )
        start_game(session, game, now=clock())
    clock.now += timedelta(hours=48)
    sweep(app.engine, ctx=app.ctx, now=clock())
    clock.now += timedelta(hours=24)
    sweep(app.engine, ctx=app.ctx, now=clock())
    app.report()
    return {"forfeit": next(s for s in outbox(app) if s.kind == "gm:game_over")}


def test_game_master_mails_match_their_golden_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    differ = []
    for stem, sent in run_by_mail(tmp_path, monkeypatch).items():
        text, html = readable(sent)
        assert html is not None
        checker = _HtmlCheck()
        checker.feed(html)
        checker.close()
        assert not checker.problems, f"{stem}: {checker.problems}"
        assert checker.open == [], f"{stem}: unclosed {checker.open}"
        body = text.split("\n\n", 1)[1]  # the headers as the test shows them aside
        long = [line for line in body.splitlines() if len(line) > 100]
        assert not long, f"{stem}: {long}"
        path = GOLDEN / f"{stem}.txt"
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            differ.append(path.name)
    assert not differ, f"mails differ from their golden files: {differ} (UPDATE_GOLDEN=1 rewrites)"
