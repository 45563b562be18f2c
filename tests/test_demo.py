"""The README's first command: the demonstration plays one game of every kind to its end
through the real intake, closing, reporting and outbox, and its summary is true: the counts it
prints are the counts in the database and in the outbox Maildir."""

from __future__ import annotations

from email.parser import BytesParser
from email.policy import default
from pathlib import Path

from sqlmodel import Session, func, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.cli.demo import DemoClock, describe, play_demo
from adjudicator.games import KINDS
from adjudicator.service.app import make_app, utcnow
from adjudicator.storage.models import Game, GameStatus, OutboxMail, Submission


def test_the_demonstration_plays_every_game_to_its_end_and_says_so(tmp_path: Path) -> None:
    app = make_app(Config(service=ServiceConfig(data_dir=str(tmp_path), address="judge@localhost")))
    app.clock = DemoClock(utcnow())
    said: list[str] = []
    summary = play_demo(app, say=said.append)
    text = "\n".join(describe(summary))

    with Session(app.engine) as session:
        games = session.exec(select(Game)).all()
        assert sorted(g.kind for g in games) == sorted(k.name for k in KINDS)
        assert {g.status for g in games} == {GameStatus.FINISHED}
        received = session.exec(select(func.count()).select_from(Submission)).one()
        sent = session.exec(select(func.count()).select_from(OutboxMail)).one()
    assert sum(summary.received.values()) == received
    assert f"Mails received: {received} (" in text
    assert f"mails sent: {sent}." in text
    outbox = list((tmp_path / "outbox-maildir" / "new").iterdir())
    assert len(outbox) == sent  # every mail went out, once
    assert summary.received["rejected"] >= 1  # the typo, refused before it was corrected
    for game in summary.games:
        assert game.ending.startswith(("won by", "a draw", "nobody"))
        assert game.name in text
    assert (tmp_path / "archive" / "index.html").exists()
    assert summary.example_result is not None
    result = BytesParser(policy=default).parse(summary.example_result.open("rb"))
    assert "Round" in str(result["Subject"])
    assert any("games over" in line for line in said)  # progress while it plays
    app.engine.dispose()
