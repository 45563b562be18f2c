"""A deadline inside a worker: CPU a round to close, adjudicate, draw and report it.

Run: .venv/bin/python bench/round_cpu.py [--games 120] [--players 6] [--repeat 3]
     [--database sqlite|postgresql] [--pg-admin URL]

bench/deadline_burst.py measures a burst of deadlines end to end, with the service, its worker
processes and the SMTP sink sharing the machine; its ratio moves with the load of the machine
by a quarter and more. This measures what one worker does for one round, in one process, as
CPU time (``time.process_time``), steadier from run to run:

1. Setup: a fresh database (SQLite, or with ``--database postgresql`` a new PostgreSQL
   database made through ``--pg-admin`` and dropped after) with the deadline bench's games
   (``--games`` Giveaway games of ``--players``, every player's orders in: a ring of gifts),
   their deadline passed.
2. Rounds: ``workers.round_is_due`` for each round, as a worker runs it at the deadline: close
   the round, adjudicate it, open the next, make its pictures (no transaction open) and queue
   every player's result mail. The first ``WARM_UP`` rounds warm the process up (templates
   compiled, fonts loaded, statements cached) and are not counted. Each round is timed alone;
   the figure is the median round. The converter's share (the SVGs made PNG) is measured
   apart.
3. Floor, same run, the same rounds: the game's own work with no database and no mail, which
   any service pays: the round resolved from its orders (``rules.resolve``), its pictures
   drawn and made PNG.

Each of ``--repeat`` rounds starts from a fresh database; the figures are the median and the
lowest (the least disturbed by other work on the machine). The last line printed is a JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deadline_burst import JUDGE, TALK, database, seed

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.games import kind_of
from adjudicator.readmodel.stored import game_state, rules_of
from adjudicator.serve.workers import round_is_due
from adjudicator.service.app import make_app
from adjudicator.storage.models import Game, OrderSet, Round, Seat

WARM_UP = 10


class TimedConverter:
    """The service's converter, with the CPU seconds its calls took."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter
        self.seconds = 0.0

    def to_png(self, svg: str) -> bytes | None:
        started = time.process_time()
        try:
            png: bytes | None = self.converter.to_png(svg)
            return png
        finally:
            self.seconds += time.process_time() - started


def game_work(session: Session, round_: Round) -> tuple[Game, Any, dict[str, list[Any]]]:
    """A round's game, state and checked orders, read before the rounds are closed."""
    game = session.get(Game, round_.game_id)
    assert game is not None
    rules = rules_of(game)
    state = game_state(game)
    handles = {s.id: s.handle for s in session.exec(select(Seat).where(Seat.game_id == game.id))}
    lines = {
        handles[o.seat_id]: o.lines
        for o in session.exec(select(OrderSet).where(OrderSet.round_id == round_.id))
    }
    orders = {h: list(rules.check(state, h, ls).orders) for h, ls in lines.items()}
    return game, state, orders


def one_round(games: int, players: int, kind: str, admin_url: str) -> dict[str, float]:
    """CPU seconds a round: the worker's whole work, its converter's share, and the floor."""
    data = Path(tempfile.mkdtemp(prefix="adjudicator-round-cpu-"))
    try:
        with database(kind, data, admin_url) as url:
            return rounds_in(url, data, games, players)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def rounds_in(url: str, data: Path, games: int, players: int) -> dict[str, float]:
    """The rounds of :func:`one_round`, in the database at ``url``."""
    deadline = datetime.now(UTC) - timedelta(minutes=1)
    seed(url, games, players, deadline)
    config = Config(service=ServiceConfig(data_dir=str(data), address=JUDGE, database_url=url))
    app = make_app(config)
    timed = TimedConverter(app.ctx.converter)
    object.__setattr__(app.ctx, "converter", timed)  # the context is frozen
    with Session(app.engine) as session:
        rounds = session.exec(
            select(Round).join(Game).where(Game.name != TALK).order_by(col(Round.id))
        ).all()
        work = [game_work(session, r) for r in rounds]
    ids = [r.id for r in rounds if r.id is not None]
    now = datetime.now(UTC)
    for round_id in ids[:WARM_UP]:
        assert round_is_due(app, round_id, now) is not None
    # Each round timed alone, and the median taken: a moment of other work on the
    # machine moves a few rounds, not the figure.
    whole, converting, floor = [], [], []
    for round_id in ids[WARM_UP:]:
        timed.seconds = 0.0
        started = time.process_time()
        closed = round_is_due(app, round_id, now)
        whole.append(time.process_time() - started)
        converting.append(timed.seconds)
        assert closed is not None, f"round {round_id} was not closed"
    converter = timed.converter
    for game, state, orders in work[WARM_UP:]:
        started = time.process_time()
        rules = rules_of(game)
        resolution = rules.resolve(state, orders)
        pictures = kind_of(game.kind).pictures(
            rules.public_state(resolution.state), resolution.report.public
        )
        for picture in pictures:
            converter.to_png(picture.svg)
        floor.append(time.process_time() - started)
    app.engine.dispose()
    return {
        "round_ms": 1000 * statistics.median(whole),
        "converter_ms": 1000 * statistics.median(converting),
        "floor_ms": 1000 * statistics.median(floor),
        "rounds": len(whole),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--pg-admin", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    args = parser.parse_args()
    if args.games <= WARM_UP:
        parser.error(f"--games must be more than the {WARM_UP} of the warm-up")
    runs = [
        one_round(args.games, args.players, args.database, args.pg_admin)
        for _ in range(args.repeat)
    ]
    figures: dict[str, object] = {
        "database": args.database,
        "games": args.games,
        "players": args.players,
        "rounds_counted": int(runs[0]["rounds"]),
        "repeat": args.repeat,
    }
    medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    for key in ("round_ms", "converter_ms", "floor_ms"):
        figures[f"{key}_median"] = round(medians[key], 2)
        figures[f"{key}_min"] = round(min(run[key] for run in runs), 2)
    figures["round_over_floor"] = round(medians["round_ms"] / medians["floor_ms"], 2)
    print(
        f"a round: {figures['round_ms_median']} ms of CPU (median of {args.repeat}; lowest"
        f" {figures['round_ms_min']}), of which the pictures made PNG"
        f" {figures['converter_ms_median']} ms; floor (resolve, draw, convert)"
        f" {figures['floor_ms_median']} ms"
    )
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
