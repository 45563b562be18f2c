"""Stand-in players: time per move and strength, on one core.

For every game kind: the stand-in's time per move (median and worst over every move it made in
the games below) beside the random player's (``sample_orders``, the floor measured in the same
run); its results against random players, in each seat; and against itself. For Starship
Combat the first move's time with the shipped equilibrium table, and the time to build that
table from nothing and its size. For Three Musketeers the complete solution: its size, and
when this run makes it (``--solve-into DIR`` makes it afresh there; by default the machine's
own file is used, made first if missing) the time, CPU and peak memory of ``adjudicate solve``
in a child process, then a game against the computer played to its end in that process
(``--memory-limit MB``: both under ``ulimit -v``), beside a fixed piece of NumPy work timed in
the same run (``machine_floor``: how much of the machine there was); ``--old-maker REV`` makes
the solution of the maker at git revision ``REV`` too, in a temporary tree, side by side. Then
the start's value read from it, and the installed size of the dependencies in pyproject.toml.

Usage: ``.venv/bin/python bench/stand_ins.py [--games 40] [--seed 1] [--solve-into DIR]
[--memory-limit MB] [--old-maker REV]``. The last line printed is a JSON object with the
figures.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

from adjudicator.base.config import Config
from adjudicator.core.game import Setup
from adjudicator.core.kind import GameKind
from adjudicator.games import KINDS
from adjudicator.games.starship_combat import standin as starship
from adjudicator.games.three_musketeers import play as play_move
from adjudicator.games.three_musketeers import standin as musketeers
from adjudicator.games.three_musketeers.board import State
from adjudicator.games.three_musketeers.kind import KIND as THREE_MUSKETEERS
from adjudicator.service import solutions

ROUND_LIMIT = 400
POSITIONS_UP_TO_SYMMETRY = 526_871_061
"""Three Musketeers' positions reachable from the start (docs/stand-ins.md)."""
ROOT = Path(__file__).resolve().parents[1]

MAKE = """
import os, resource, sys, time
if len(sys.argv) > 2:
    limit = int(sys.argv[2]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
os.environ["ADJUDICATOR_SOLUTIONS_DIR"] = sys.argv[1]
sys.argv[1:] = ["solve"]
start, cpu = time.perf_counter(), time.process_time()
from adjudicator.cli.entry import main  # the whole ``adjudicate solve``, its imports too
try:
    main()
except SystemExit as end:
    if end.code:
        raise
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
# this process's peak and its children's (none today: a maker that forks is counted too)
own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print("made-cpu", cpu + children.ru_utime + children.ru_stime)
print("made-peak-kb", max(own.ru_maxrss, children.ru_maxrss))
import random
from adjudicator.games.three_musketeers import legal_moves, outcome, play, standin
from adjudicator.games.three_musketeers.board import State
state, rng = State(("m", "c")), random.Random(1)
while outcome(state) is None:  # a game against the computer, under the same limit
    if state.turn == "cardinal":
        state = play(state, standin.choose(state, rng).move)
    else:
        state = play(state, rng.choice(legal_moves(state)))
print("game-won-by", outcome(state).winners)
print("made-in", seconds)
"""
FLOOR = """
import time
import numpy as np
a = np.arange(1 << 22, dtype=np.int8)
b = a[::-1].copy()
backwards = np.arange(a.size - 1, -1, -1, dtype=np.int32)
start = time.perf_counter()
for _ in range(160):
    np.minimum(a, b, out=a)
    a = a.take(backwards)
print("made-in", time.perf_counter() - start)
"""
"""A fixed piece of NumPy work (minimums and copies over 4 MB, 160 times; run first, and its
peak memory below the making's): its wall clock and CPU in the same run say how much of the
machine the making had."""


def make_in_child(code: str, args: list[str], path: str | None = None) -> dict[str, Any]:
    """Run ``code`` (which prints ``made-in SECONDS``, and ``made-cpu SECONDS`` and
    ``made-peak-kb KB`` when it measures itself) in a child process: its wall-clock time, its
    CPU time (every thread's, and its children's) and its peak resident memory (its own or
    its children's, whichever is larger). A child that does not measure itself is measured
    from outside (the CPU of all this process's children during it; the peak only when it
    is above every earlier child's)."""
    env = None if path is None else {"PYTHONPATH": path, "PATH": "/usr/bin:/bin"}
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        # ``-c`` puts the working folder first on the path: the old tree's own folder, so that
        # the old maker is not the checkout's
        cwd=None if path is None else path.split(":")[0],
        check=False,
    )
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu
    if done.returncode != 0:
        return {"failed": done.stderr[-2000:]}

    def said(word: str) -> str | None:
        return done.stdout.split(word)[-1].split("\n")[0].strip() if word in done.stdout else None

    own_cpu, own_peak = said("made-cpu"), said("made-peak-kb")
    return {
        "made_s": round(float(said("made-in") or "nan"), 1),
        "cpu_s": round(float(own_cpu) if own_cpu else cpu, 1),
        # other work on the machine: the load average (runnable processes) before, and after
        "load_before": round(load, 1),
        "load_after": round(os.getloadavg()[0], 1),
        "game_won_by": said("game-won-by"),
        "peak_rss_mb": round(int(own_peak) / 1024)
        if own_peak
        else (round(peak / 1024) if peak > before else None),
    }


def old_maker(revision: str, memory_limit: int | None, ours: Path) -> dict[str, Any]:
    """The table of the solver at ``revision`` (its own ``adjudicate solve`` from a temporary
    tree, under the same limit, then a game), made side by side with the new one; and whether
    the two files are the same, byte for byte."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        tree.mkdir()
        archive = subprocess.run(
            # the package and the folders it ships (templates/, docs/rules/), which it finds
            # beside itself in a checkout
            ["git", "-C", str(ROOT), "archive", revision, "adjudicator", "templates", "docs/rules"],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        site = next(p for p in sys.path if p.endswith("site-packages"))
        made = Path(folder) / "made"
        limit = [str(memory_limit)] if memory_limit else []
        figures = make_in_child(MAKE, [str(made), *limit], f"{tree}:{site}")
        tables = sorted(made.glob("*.table"))
        figures["bytes"] = sum(f.stat().st_size for f in tables)
        figures["same_file_as_new"] = bool(tables) and all(
            (ours / table.name).is_file() and filecmp.cmp(table, ours / table.name, shallow=False)
            for table in tables
        )
        return figures


def installed_bytes() -> dict[str, int]:
    """Bytes installed by each distribution the service needs at run time (the dependencies
    of this checkout's pyproject.toml, and theirs), by name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    sizes: dict[str, int] = {}
    waiting = [Requirement(line).name for line in project["project"]["dependencies"]]
    while waiting:
        current = waiting.pop()
        try:
            found = distribution(current)
        except PackageNotFoundError:
            continue
        key = found.metadata["Name"].lower()
        if key in sizes:
            continue
        sizes[key] = sum((f.size or 0) for f in found.files or () if not str(f).endswith(".pyc"))
        for line in found.requires or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                waiting.append(requirement.name)
    return sizes


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


def self_play_lengths(games: int, seed: int) -> dict[str, int]:
    """Plies of the stand-in's games against itself from the start (33 with perfect play):
    how far past the fastest win its grain lets the winner wander."""
    lengths = []
    for n in range(games):
        rng, state = random.Random(seed + n), State(("m", "c"))
        plies = 0
        while THREE_MUSKETEERS.rules.outcome(state) is None:
            state = play_move(state, musketeers.choose(state, rng).move)
            plies += 1
        lengths.append(plies)
    return {
        "shortest": min(lengths),
        "median": int(statistics.median(lengths)),
        "longest": max(lengths),
    }


def three_musketeers_figures(args: argparse.Namespace) -> dict[str, Any]:
    """The complete solution's figures, and the stand-in's games against itself."""
    result: dict[str, Any] = {}
    folder = args.solve_into or Config().solutions_path
    assert THREE_MUSKETEERS.solution is not None
    made_here = not solutions.ready(folder, THREE_MUSKETEERS.solution)
    making: dict[str, Any] = {}
    if made_here:
        result["machine_floor"] = make_in_child(FLOOR, [])
        limit = [str(args.memory_limit)] if args.memory_limit else []
        making = make_in_child(MAKE, [str(folder), *limit])
        print(f"Three Musketeers: `adjudicate solve` in a child process: {making}")
    solutions.make(folder, THREE_MUSKETEERS, progress=print)
    size = THREE_MUSKETEERS.solution.size
    result["tm_solution_bytes"] = size
    result["tm_solution_floor_bytes"] = POSITIONS_UP_TO_SYMMETRY // 8
    result["tm_solution_over_floor"] = round(size / (POSITIONS_UP_TO_SYMMETRY / 8), 2)
    result["tm_solution_made_s"] = making.get("made_s")
    result["tm_solution_peak_rss_mb"] = making.get("peak_rss_mb")
    result["tm_solution_made_cpu_s"] = making.get("cpu_s")
    result["tm_solution_made_load_before"] = making.get("load_before")
    result["tm_solution_made_load_after"] = making.get("load_after")
    result["tm_cores"] = os.cpu_count()
    result["tm_solution_game_won_by"] = making.get("game_won_by")
    if "failed" in making:
        result["tm_solution_failed"] = making["failed"]
    result["tm_solution_memory_limit_mb"] = args.memory_limit
    if args.old_maker:
        old = result["tm_old_solution"] = old_maker(args.old_maker, args.memory_limit, folder)
        print(f"Three Musketeers: the old solution ({args.old_maker}): {old}")
        result["tm_side_by_side"] = {
            "cores": os.cpu_count(),
            "new": {k: making.get(k) for k in ("made_s", "cpu_s", "peak_rss_mb", "load_before")},
            "old": {k: old.get(k) for k in ("made_s", "cpu_s", "peak_rss_mb", "load_before")},
            "old_revision": args.old_maker,
        }
        print(f"Three Musketeers: side by side: {result['tm_side_by_side']}")
    opening = State(("m", "c"))
    worth = musketeers.exact_value(musketeers.position_of(opening), [0])
    result["tm_start_value"] = {"musketeers_win": worth > 0, "plies": musketeers.WIN - abs(worth)}
    result["tm_self_play_plies"] = self_play_lengths(args.games, args.seed)
    result["installed_dependency_bytes"] = installed_bytes()
    result["installed_dependency_total_bytes"] = sum(result["installed_dependency_bytes"].values())
    print(
        f"Three Musketeers: the solution, {size:,} bytes "
        f"({result['tm_solution_over_floor']} times the one-bit floor), "
        + (f"made in {result['tm_solution_made_s']} s; " if made_here else "already made; ")
        + f"the start: {result['tm_start_value']}; "
        f"self-play lengths: {result['tm_self_play_plies']}"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solve-into", type=Path, default=None)
    parser.add_argument("--memory-limit", type=int, default=None)
    parser.add_argument("--old-maker", default=None)
    args = parser.parse_args()
    result: dict[str, Any] = {"games": args.games, "seed": args.seed}

    result.update(three_musketeers_figures(args))
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
