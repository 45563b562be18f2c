"""Stand-in players: time per move and strength, on one core.

For every game kind: the stand-in's time per move (median and worst over every move it made in
the games below) beside the random player's (``sample_orders``, the floor measured in the same
run); its results against random players, in each seat; and against itself. For Starship
Combat the first move's time with the shipped equilibrium table, and the time to build that
table from nothing and its size. For Three Musketeers the complete solution: its size, the
time to make it (wall clock, both cores) when this run makes it (``--solve-into DIR`` makes
it afresh there; by default the machine's own file is used, made first if missing), and the
start's value read from it.

Usage: ``.venv/bin/python bench/stand_ins.py [--games 40] [--seed 1] [--solve-into DIR]``.
The last line printed is a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from adjudicator.config import Config
from adjudicator.core.game import Setup
from adjudicator.core.kind import GameKind
from adjudicator.games import KINDS
from adjudicator.games.starship_combat import standin as starship
from adjudicator.games.three_musketeers import standin as musketeers
from adjudicator.games.three_musketeers.board import State
from adjudicator.games.three_musketeers.kind import KIND as THREE_MUSKETEERS
from adjudicator.service import solutions

ROUND_LIMIT = 400


def _players(kind: GameKind) -> list[str]:
    count = 4 if kind.rules.max_players is None or kind.rules.max_players > 2 else 2
    return [f"p{n}" for n in range(count)]


def play(
    kind: GameKind,
    players: list[str],
    stand_ins: set[str],
    seed: int,
    times: dict[str, list[float]],
) -> tuple[str, ...] | None:
    """One game; returns the winners (None when it did not end)."""
    rules, rng = kind.rules, random.Random(seed)
    state = rules.start(players, options={}, setup=Setup())
    assert kind.stand_in is not None
    for _ in range(ROUND_LIMIT):
        ended = rules.outcome(state)
        if ended is not None:
            return ended.winners
        orders = {}
        for player in rules.to_move(state):
            start = time.process_time()
            if player in stand_ins:
                lines = kind.stand_in(state, player, random.Random(rng.random()))
                times["stand_in"].append(time.process_time() - start)
            else:
                lines = rules.sample_orders(state, player, rng)
                times["random"].append(time.process_time() - start)
            orders[player] = list(rules.check(state, player, lines).orders)
        state = rules.resolve(state, orders).state
    return None


def match(kind: GameKind, games: int, seed: int, times: dict[str, list[float]]) -> dict[str, Any]:
    players = _players(kind)
    figures: dict[str, Any] = {}
    for seat, player in enumerate(players[:2]):
        won = unfinished = 0
        for n in range(games):
            winners = play(kind, players, {player}, seed + n, times)
            unfinished += winners is None
            won += winners is not None and player in winners
        figures[f"vs_random_seat{seat}_win_rate"] = round(won / games, 3)
        figures[f"vs_random_seat{seat}_unfinished"] = unfinished
        won = 0
        for n in range(games):
            winners = play(kind, players, set(), seed + n, {"random": [], "stand_in": []})
            won += winners is not None and player in winners
        figures[f"random_seat{seat}_win_rate"] = round(won / games, 3)
    self_wins = [0] * len(players)
    for n in range(games):
        winners = play(kind, players, set(players), seed + n, times) or ()
        for seat, player in enumerate(players):
            self_wins[seat] += player in winners
    figures["self_play_win_rate_by_seat"] = [round(w / games, 3) for w in self_wins]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solve-into", type=Path, default=None)
    args = parser.parse_args()
    result: dict[str, Any] = {"games": args.games, "seed": args.seed}

    folder = args.solve_into or Config().solutions_path
    assert THREE_MUSKETEERS.solution is not None
    made_here = not solutions.ready(folder, THREE_MUSKETEERS.solution)
    start = time.perf_counter()
    solutions.make(folder, THREE_MUSKETEERS, progress=print)
    result["tm_solution_bytes"] = THREE_MUSKETEERS.solution.size
    result["tm_solution_made_s"] = round(time.perf_counter() - start, 1) if made_here else None
    opening = State(("m", "c"))
    worth = musketeers.exact_value(musketeers.position_of(opening), [0])
    result["tm_start_value"] = {"musketeers_win": worth > 0, "plies": musketeers.WIN - abs(worth)}
    print(
        f"Three Musketeers: the solution, {result['tm_solution_bytes']:,} bytes, "
        + (f"made in {result['tm_solution_made_s']} s; " if made_here else "already made; ")
        + f"the start: {result['tm_start_value']}"
    )

    starship.SOLVED.clear()
    start = time.process_time()
    starship.solve(starship.START_POSITION)  # reads the shipped table
    result["starship_first_move_ms"] = round(1000 * (time.process_time() - start), 1)
    starship.SOLVED.clear()
    start = time.process_time()
    starship.solve(starship.START_POSITION, shipped=False)
    result["starship_table_build_s"] = round(time.process_time() - start, 2)
    result["starship_table_positions"] = len(starship.SOLVED)
    print(
        f"Starship Combat: first move {result['starship_first_move_ms']} ms CPU with the "
        f"shipped table; the table built from nothing: {result['starship_table_positions']} "
        f"positions, {result['starship_table_build_s']} s CPU"
    )

    for kind in KINDS:
        times: dict[str, list[float]] = {"random": [], "stand_in": []}
        games = args.games
        figures = match(kind, games, args.seed, times)
        for who, spent in times.items():
            figures[f"{who}_move_median_ms"] = round(1000 * statistics.median(spent), 3)
            figures[f"{who}_move_worst_ms"] = round(1000 * max(spent), 3)
            figures[f"{who}_moves"] = len(spent)
        figures["games"] = games
        result[kind.name] = figures
        print(kind.name, json.dumps(figures))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
