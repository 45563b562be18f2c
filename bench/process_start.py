"""How long the service's processes take to start, and what they cost the machine.

Run: .venv/bin/python bench/process_start.py [--workers 2] [--repeat 3]

The service hands its work to processes (``adjudicator/serve/child_processes.py``): the round
workers, the mail reader and the sender. Each must have the service's modules imported before
it can take work. This times, in a fresh interpreter that has imported only what the service
imports:

1. The first pool of ``--workers`` round workers (``RoundWorkers``), from the call until every
   worker has answered: the wall time, and the CPU its processes used (user and system, from
   ``/proc``; with a fork server, the fork server's own CPU is given apart, since it imports
   once for the service's whole life).
2. Each later pool (``--repeat`` of them), as after a worker died, or the reader or sender
   restarted: the same figures.
3. Floor, same run: a pool of as many bare processes (``spawn``, no initializer), the least a
   new Python process costs.

The last line printed is a JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def cpu_of(pid: int) -> float:
    """CPU seconds (user and system) used so far by the process ``pid``
    (``deadline_burst.cpu_s``, which imports the service: imported late, see ``main``)."""
    from deadline_burst import cpu_s

    return cpu_s(pid) or 0.0


def worker_pool(config: Any, count: int) -> dict[str, float]:
    """One pool of round workers, until each has answered; its wall time and CPU, and the
    process they were forked from (``parent``: this process when there is no fork server)."""
    from adjudicator.serve.workers import RoundWorkers, _ready

    started = time.perf_counter()
    workers = RoundWorkers(config, count)
    assert workers.pool is not None
    for future in [workers.pool.submit(_ready) for _ in range(count)]:
        assert future.result(timeout=300)
    wall = time.perf_counter() - started
    cpu = sum(cpu_of(pid) for pid in workers.pool._processes)
    parent = workers.pool.submit(os.getppid).result(timeout=300)
    workers.shutdown()
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "parent": parent}


def bare_pool(count: int) -> dict[str, float]:
    """A pool of ``count`` bare spawned processes, until each has answered."""
    started = time.perf_counter()
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"))
    for future in [pool.submit(os.getpid) for _ in range(count)]:
        future.result(timeout=300)
    wall = time.perf_counter() - started
    cpu = sum(cpu_of(pid) for pid in pool._processes)
    pool.shutdown()
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # Imported here, not at the top: a spawned process runs this file's top level again, and
    # the floor's bare processes must not import the service.
    import adjudicator.serve.workers  # noqa: F401 - as the service has, before its pools
    from adjudicator.base.config import Config, ServiceConfig

    config = Config(service=ServiceConfig(data_dir=tempfile.mkdtemp(prefix="adjudicator-bench-")))

    first = worker_pool(config, args.workers)
    server = first.pop("parent")
    forked = server != os.getpid()
    server_cpu = round(cpu_of(server), 3) if forked else 0.0
    later = [worker_pool(config, args.workers) for _ in range(args.repeat)]
    floors = [bare_pool(args.workers) for _ in range(args.repeat)]

    def median(runs: list[dict[str, float]], key: str) -> float:
        return round(statistics.median(run[key] for run in runs), 3)

    figures = {
        "workers": args.workers,
        "repeat": args.repeat,
        "first_pool": first,
        "fork_server": forked,
        "fork_server_cpu_s": server_cpu,
        "later_pool_wall_s": median(later, "wall_s"),
        "later_pool_cpu_s": median(later, "cpu_s"),
        "floor_wall_s": median(floors, "wall_s"),
        "floor_cpu_s": median(floors, "cpu_s"),
    }
    print(
        f"first pool of {args.workers} workers: {first['wall_s']:.2f} s,"
        f" {first['cpu_s']:.2f} s of CPU in the workers"
        + (f" (the fork server: {server_cpu:.2f} s, once)" if forked else " (no fork server)")
    )
    print(
        f"a later pool: {figures['later_pool_wall_s']:.2f} s,"
        f" {figures['later_pool_cpu_s']:.2f} s of CPU (median of {args.repeat})"
    )
    print(
        f"floor, {args.workers} bare spawned processes: {figures['floor_wall_s']:.2f} s,"
        f" {figures['floor_cpu_s']:.2f} s of CPU"
    )
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
