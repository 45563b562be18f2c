"""The sweeper with nothing due: what every open round costs it every 30 seconds.

A fresh SQLite database holds ``--games`` Giveaway games of ``--players`` players, round 1 open
(72 h, the default reminders); the sweeper runs at times when no deadline and no reminder is
due: it reads every open round and works out whether a reminder is due. Timed twice: with no
player keeping quiet hours, and with ``--quiet`` of the players (a share) having SET QUIET and
SET WEEKEND, whose reminders are worked out one by one.

Usage: ``.venv/bin/python bench/idle_sweep.py [--games 300] [--players 6] [--quiet 0.2]``. The
last line printed is a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import select

from adjudicator.base.config import Config, ServiceConfig
from adjudicator.service.app import make_app
from adjudicator.service.closing import sweep
from adjudicator.service.games import PlayerSpec, create_game
from adjudicator.service.rounds import start_game
from adjudicator.storage.db import session_scope
from adjudicator.storage.models import Seat

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RUNS = 7


def _timed(games: int, players: int, quiet: float) -> float:
    """The median time of a sweep with nothing due, in seconds."""
    with tempfile.TemporaryDirectory() as folder:
        config = Config(service=ServiceConfig(data_dir=str(Path(folder) / "data")))
        app = make_app(config)
        with session_scope(app.engine) as session:
            for number in range(games):
                game, _ = create_game(
                    session,
                    name=f"g{number}",
                    kind="giveaway",
                    schedule="72h",
                    players=[
                        PlayerSpec(f"p{i}", f"p{i}.g{number}@example.org") for i in range(players)
                    ],
                    options={},
                    now=START,
                )
                start_game(session, game, now=START)
            seats = list(session.exec(select(Seat)))
            for seat in seats[: int(len(seats) * quiet)]:
                seat.time_zone, seat.quiet_hours, seat.weekend = (
                    "Europe/Paris",
                    "22:00-07:00",
                    "sun",
                )
                session.add(seat)
        times = []
        for run in range(RUNS):
            now = START + timedelta(hours=1, minutes=run)
            began = time.perf_counter()
            sweep(app.engine, ctx=app.ctx, now=now)
            times.append(time.perf_counter() - began)
        app.engine.dispose()
        return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--quiet", type=float, default=0.2)
    args = parser.parse_args()
    plain = _timed(args.games, args.players, 0.0)
    quiet = _timed(args.games, args.players, args.quiet)
    print(f"{args.games} open games of {args.players} players, a sweep with nothing due:")
    for label, seconds in (
        ("no quiet hours", plain),
        (f"{args.quiet:.0%} of players quiet", quiet),
    ):
        each = seconds / args.games * 1e6
        print(f"  {label:<24} {seconds * 1000:8.1f} ms ({each:.0f} us a round)")
    figures = {
        "games": args.games,
        "players": args.players,
        "quiet_share": args.quiet,
        "sweep_ms": round(plain * 1000, 1),
        "sweep_quiet_ms": round(quiet * 1000, 1),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
