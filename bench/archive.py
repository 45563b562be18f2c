"""The archive site kept current: what rebuilding one game's pages costs after its round.

Run: .venv/bin/python bench/archive.py [--games 20] [--players 6] [--rounds 4]

``--games`` Giveaway games of ``--players`` players are played for ``--rounds`` rounds through
the real intake on SQLite (as ``bench/reports.py`` plays its game: random legal orders by mail,
each round closed and reported as at its deadline). Then each game's pages are rebuilt as the
service's archive pass rebuilds them after a round (``ArchiveKeeper.build``: the game's page,
its rounds' pages and pictures, its record and feed, the index, the style sheet and the rules
pages; a page whose bytes did not change is not written again). Per game, median over the games:

1. ``warm_ms``: by the running service's keeper (templates compiled and rules pages made by its
   earlier passes);
2. ``cold_ms``: by a keeper new to the process (templates and rules pages made again), as on the
   first pass after a start;
3. ``floor_ms``: writing the same pages' bytes into an empty folder, nothing rendered or read.

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reports import SERVICE, play

from adjudicator.archive.render import ArchiveRenderer, Site
from adjudicator.archive.rules import rules_page
from adjudicator.base.config import Config, ServiceConfig
from adjudicator.readmodel.read import read_archive
from adjudicator.serve.archiving import ArchiveKeeper
from adjudicator.service.app import make_app

AUTHORITY = "pbem.test"


def per_game(names: list[str], work: Callable[[str], object]) -> list[float]:
    times = []
    for name in names:
        start = time.perf_counter()
        work(name)
        times.append(time.perf_counter() - start)
    return times


def median_ms(times: list[float]) -> float:
    return round(statistics.median(times) * 1000, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        config = Config(service=ServiceConfig(data_dir=str(base / "data"), address=SERVICE))
        app = make_app(config)
        names = [f"g{n:03d}" for n in range(args.games)]
        start = time.perf_counter()
        for n, name in enumerate(names):
            play(app, args.players, args.rounds, args.seed + n, name)
        print(
            f"setup: {args.games} games x {args.players} players, {args.rounds} rounds each, "
            f"in {time.perf_counter() - start:.1f} s"
        )

        keeper = ArchiveKeeper(app.engine, config, authority=AUTHORITY)
        keeper.run_once()  # the first pass: every game, the rules pages; templates compiled
        warm = per_game(names, keeper.build)

        def cold_build(name: str) -> None:
            rules_page.cache_clear()
            ArchiveKeeper(app.engine, config, authority=AUTHORITY).build(name)

        cold = per_game(names, cold_build)

        renderer = ArchiveRenderer(keeper.renderer, site=Site(authority=AUTHORITY))
        floor = []
        for n, name in enumerate(names):
            pages = renderer.archive(read_archive(app.engine, game_name=name))
            start = time.perf_counter()
            for page in pages:
                path = base / f"floor{n}" / page.path
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(page.content)
            floor.append(time.perf_counter() - start)
        app.engine.dispose()

    figures = {
        "games": args.games,
        "players": args.players,
        "rounds": args.rounds,
        "warm_ms": median_ms(warm),
        "cold_ms": median_ms(cold),
        "floor_ms": median_ms(floor),
    }
    figures["floor_over_warm"] = round(figures["floor_ms"] / figures["warm_ms"], 3)
    print(
        f"one game's pages rebuilt: {figures['warm_ms']} ms by a running service, "
        f"{figures['cold_ms']} ms by a new one; the same pages written alone: "
        f"{figures['floor_ms']} ms"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
