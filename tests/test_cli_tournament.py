"""``adjudicate tournament``, run as a game master runs it (Typer's runner, a real database)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from adjudicator.cli.main import app
from adjudicator.storage.db import make_engine
from adjudicator.storage.models import Game, OutboxMail
from adjudicator.storage.tournaments import Tournament

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADJUDICATOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ADJUDICATOR_ADDRESS", "judge@pbem.test")
    monkeypatch.delenv("ADJUDICATOR_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_create_show_withdraw_and_replace(env: Path) -> None:
    """Five players of Rock, Scissors, Paper, Swiss over two rounds: round 1 pairs a-b and
    c-d on both sides (four games) and gives e the bye; each player gets the round's mail."""
    players = [f"--player={h}={h}@example.org" for h in "abcde"]
    made = runner.invoke(
        app,
        ["tournament", "create", "cup", "--kind", "rock-scissors-paper", "--format", "swiss",
         "--rounds", "2", "--schedule", "72h", *players],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "tournament cup created (rock-scissors-paper, swiss, 5 players, 2 rounds)" in made.output
    engine = make_engine(f"sqlite:///{env / 'data' / 'adjudicator.db'}")
    with Session(engine) as session:
        assert sorted(g.name for g in session.exec(select(Game))) == [
            "cupr1g1",
            "cupr1g2",
            "cupr1g3",
            "cupr1g4",
        ]
        mails = session.exec(select(OutboxMail).where(OutboxMail.kind == "tournament")).all()
        assert sorted(m.recipient for m in mails) == [f"{h}@example.org" for h in "abcde"]
    engine.dispose()

    shown = runner.invoke(app, ["tournament", "show", "cup"])
    assert shown.exit_code == 0, shown.output
    assert "cup: rock-scissors-paper, swiss, round 1" in shown.output
    assert "round 1: e (bye)" in shown.output
    assert "@" not in shown.output

    replaced = runner.invoke(app, ["tournament", "replace", "cup", "b", "bea@example.org"])
    assert replaced.exit_code == 0, replaced.output
    assert "seats handed over in cupr1g1, cupr1g2" in replaced.output
    gone = runner.invoke(app, ["tournament", "withdraw", "cup", "e"])
    assert gone.exit_code == 0, gone.output
    assert "(withdrawn)" in runner.invoke(app, ["tournament", "show", "cup"]).output
    again = runner.invoke(app, ["tournament", "withdraw", "cup", "e"])
    assert again.exit_code != 0
    assert "e has withdrawn already" in again.output


def test_a_swiss_without_rounds_is_refused(env: Path) -> None:
    del env
    players = [f"--player={h}={h}@example.org" for h in "abcd"]
    result = runner.invoke(
        app,
        ["tournament", "create", "cup", "--kind", "rock-scissors-paper", "--format", "swiss",
         *players],
    )  # fmt: skip
    assert result.exit_code != 0
    assert "say how many rounds it plays (--rounds N)" in result.output


def test_a_tournament_made_for_sign_up_starts_by_command(env: Path) -> None:
    """``create --signup`` with two players named opens it to JOIN by mail and starts
    nothing; ``start`` pairs round 1 (a round-robin of two: one round, both sides) and says
    so, as ``create`` does for a tournament it starts at once."""
    del env
    players = [f"--player={h}={h}@example.org" for h in "ab"]
    made = runner.invoke(
        app,
        ["tournament", "create", "duo", "--kind", "three-musketeers", "--format",
         "round-robin", "--signup", *players],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "tournament duo created, open to JOIN by mail" in made.output
    started = runner.invoke(app, ["tournament", "start", "duo"])
    assert started.exit_code == 0, started.output
    assert "tournament duo started (1 round); round 1: duor1g1, duor1g2" in started.output
    again = runner.invoke(app, ["tournament", "start", "duo"])
    assert again.exit_code != 0
    assert "tournament duo has started already" in again.output


def test_absent_stand_in_is_refused_for_a_tournament_of_a_game_played_in_turns(
    env: Path,
) -> None:
    """Issue 40, finding 7: a game played in turns refuses absent=stand-in (its forfeit comes
    before a stand-in could play). A tournament open for sign-up makes its games only when it
    starts: it is refused at its creation, with the reason, not when its players have joined."""
    result = runner.invoke(
        app,
        ["tournament", "create", "cup", "--kind", "three-musketeers", "--format", "round-robin",
         "--signup", "--schedule", "72h", "--setting", "absent=stand-in"],
    )  # fmt: skip
    assert result.exit_code != 0
    said = " ".join(result.output.split())
    assert "absent=stand-in does not work in" in said
    assert "forfeits a player who misses his move deadline" in said
    engine = make_engine(f"sqlite:///{env / 'data' / 'adjudicator.db'}")
    with Session(engine) as session:
        assert session.exec(select(Tournament)).all() == []
    engine.dispose()
