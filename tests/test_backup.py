"""A backup restored into a fresh database replays every game to the same states: the game
records read from the restored database, replayed by the rules, give every stored round's
state. On SQLite (online backup) and on PostgreSQL (pg_dump, then pg_restore)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from playing import Clock, add_orders, close_open_round, new_game
from sqlmodel import Session, col, select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.games import read_record, replay_record
from adjudicator.readmodel.read import game_view
from adjudicator.readmodel.record import game_record
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.service.app import App, make_app
from adjudicator.service.games import find_game
from adjudicator.storage.backup import BackupError, backup
from adjudicator.storage.db import make_engine
from adjudicator.storage.models import Game, Round, RoundResult

GAMES = {"gw": ("giveaway", ("ann", "ben", "cat")), "tm": ("three-musketeers", ("dan", "eve"))}


def _app(data: Path, database_url: str = "") -> App:
    config = Config(
        service=ServiceConfig(data_dir=str(data), database_url=database_url, address="j@pbem.test")
    )
    app = make_app(config)
    app.clock = Clock()
    return app


def _play(app: App, rounds: int = 4) -> None:
    rng = random.Random(7)
    for name, (kind, players) in GAMES.items():
        new_game(app, players, name=name, kind=kind, schedule="48h")
        for _ in range(rounds):
            with Session(app.engine) as session:
                game = find_game(session, name)
                rules, state = rules_of(game), game_state(game)
                movers = rules.to_move(state)
            for player in movers:
                add_orders(app, name, player, *rules.sample_orders(state, player, rng))
            close_open_round(app, name)


def _states_replay(engine_url: str) -> int:
    """Replay every game of the database from its record; the number of rounds checked."""
    engine = make_engine(engine_url)
    checked = 0
    with Session(engine) as session:
        for game in session.exec(select(Game)).all():
            replayed = replay_record(read_record(game_record(game_view(session, game))))["rounds"]
            stored = session.exec(
                select(RoundResult)
                .join(Round, col(Round.id) == col(RoundResult.round_id))
                .where(Round.game_id == game.id)
                .order_by(col(Round.number))
            ).all()
            assert [r["state"] for r in replayed] == [s.public_state for s in stored]
            checked += len(stored)
    engine.dispose()
    return checked


def test_a_sqlite_backup_restored_replays_every_game(tmp_path: Path) -> None:
    app = _app(tmp_path / "live")
    _play(app)
    copy = tmp_path / "backup" / "adjudicator.db"
    assert "copied" in backup(app.config.database_url, copy)
    close_open_round(app, "gw")  # the live game goes on; the copy keeps the moment it was made
    assert _states_replay(app.config.database_url) == 9
    app.engine.dispose()
    restored = tmp_path / "restored" / "adjudicator.db"
    restored.parent.mkdir()
    shutil.copy(copy, restored)
    assert _states_replay(f"sqlite:///{restored}") == 8
    with pytest.raises(BackupError, match="exists already"):
        backup(app.config.database_url, copy)


def test_a_postgresql_dump_restored_replays_every_game(tmp_path: Path, pg_url: str) -> None:
    if shutil.which("pg_restore") is None:
        pytest.skip("pg_restore is not installed")
    app = _app(tmp_path / "live", pg_url)
    _play(app)
    dump = tmp_path / "adjudicator.dump"
    assert "dumped" in backup(pg_url, dump)
    app.engine.dispose()
    fresh = pg_url.rsplit("/", 1)[0] + "/" + pg_url.rsplit("/", 1)[1] + "_restored"
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", fresh.rsplit("/", 1)[1]],
                   check=True, capture_output=True)  # fmt: skip
    try:
        subprocess.run(
            ["pg_restore", "--no-owner", "-d", fresh.replace("+psycopg", ""), str(dump)],
            check=True,
            capture_output=True,
        )
        assert _states_replay(fresh) == 8
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--force",
                        fresh.rsplit("/", 1)[1]], check=False, capture_output=True)  # fmt: skip
