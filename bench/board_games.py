"""Random playouts per second for the sequential board games, on one core.

Two paths per game:

* fast: the game module's own ``legal_moves`` / ``play`` / ``outcome`` (what random-play tests
  and any search would use);
* protocol: the public ``Rules`` protocol exactly as the service drives it: ``to_move``,
  ``sample_orders``, ``check`` (parses the line and checks it), ``resolve``, ``outcome``.

Usage: ``.venv/bin/python bench/board_games.py [--seconds 3] [--seed 1]``. The last line
printed is a JSON object with the figures. Rock, Scissors, Paper is imported lazily and skipped
with a note when its module does not exist yet.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from adjudicator.core.game import Setup

PLY_LIMIT = 2000
"""A random game still running after this many moves is stopped and counted as unfinished."""


def _fast_game(module: Any, state: Any, rng: random.Random) -> tuple[int, str]:
    legal_moves, play, outcome = module.legal_moves, module.play, module.outcome
    plies = 0
    while plies < PLY_LIMIT:
        ended = outcome(state)
        if ended is not None:
            return plies, ended.termination
        state = play(state, rng.choice(legal_moves(state)))
        plies += 1
    return plies, "unfinished"


def _protocol_game(rules: Any, state: Any, rng: random.Random) -> tuple[int, str]:
    plies = 0
    while plies < PLY_LIMIT:
        movers = rules.to_move(state)
        if not movers:
            ended = rules.outcome(state)
            return plies, ended.termination
        orders = {}
        for player in movers:
            checked = rules.check(state, player, rules.sample_orders(state, player, rng))
            if not checked.ok:
                raise AssertionError(f"sample_orders gave a refused order: {checked.problems}")
            orders[player] = checked.orders
        state = rules.resolve(state, orders).state
        plies += 1
    return plies, "unfinished"


def _measure(
    play_one: Callable[[random.Random], tuple[int, str]], *, seconds: float, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    games = plies = 0
    endings: Counter[str] = Counter()
    began = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        length, ending = play_one(rng)
        games += 1
        plies += length
        endings[ending] += 1
        elapsed = time.perf_counter() - began
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "plies_per_second": round(plies / elapsed),
        "mean_plies": round(plies / games, 2),
        "endings": dict(sorted(endings.items())),
    }


def bench_game(module_name: str, *, seconds: float, seed: int) -> dict[str, Any]:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and module_name.startswith(error.name):
            return {"skipped": f"{module_name} does not exist yet"}
        raise
    rules = module.RULES
    start = rules.start(["first", "second"], options={}, setup=Setup())
    figures: dict[str, Any] = {}
    if all(hasattr(module, name) for name in ("legal_moves", "play", "outcome")):
        figures["fast"] = _measure(
            lambda rng: _fast_game(module, start, rng), seconds=seconds, seed=seed
        )
    else:
        figures["fast"] = {"skipped": "no legal_moves/play/outcome in the module"}
    figures["protocol"] = _measure(
        lambda rng: _protocol_game(rules, start, rng), seconds=seconds, seed=seed
    )
    return figures


def _print_figures(title: str, figures: dict[str, Any]) -> None:
    print(title)
    if "skipped" in figures:
        print(f"  skipped: {figures['skipped']}")
        return
    for path, values in figures.items():
        if "skipped" in values:
            print(f"  {path:9} skipped: {values['skipped']}")
            continue
        print(
            f"  {path:9} {values['games_per_second']:>9.1f} games/s "
            f"{values['plies_per_second']:>8} moves/s  mean {values['mean_plies']} moves  "
            f"({values['games']} games in {values['seconds']} s) endings {values['endings']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = {}
    for key, title, module_name in (
        ("three_musketeers", "Three Musketeers", "adjudicator.games.three_musketeers"),
        ("rock_scissors_paper", "Rock, Scissors, Paper", "adjudicator.games.rock_scissors_paper"),
    ):
        results[key] = bench_game(module_name, seconds=args.seconds, seed=args.seed)
        _print_figures(title, results[key])
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main()
