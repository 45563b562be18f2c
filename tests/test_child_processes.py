"""The processes the service hands work to (``adjudicator/child_processes.py``). They are forked
from a fork server that may have started long before, in another environment: each must still
have the service's environment as it was when its pool was made, as a fresh interpreter would
(the crash points of the crash tests, ``XDG_CACHE_HOME`` for the solutions, ``TMPDIR``). And
neither they nor the fork server may end on the SIGTERM that systemd sends to every process
of the service when it stops it: the service finishes the work in hand with them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from adjudicator.child_processes import process_pool

NAME = "ADJUDICATOR_TEST_CHILD_ENVIRONMENT"


def _seen(pool: ProcessPoolExecutor) -> str | None:
    return pool.submit(os.getenv, NAME).result(timeout=120)


def test_a_process_has_the_environment_of_the_service_when_its_pool_was_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(NAME, "first")
    first = process_pool(1, time.sleep, (0,))
    try:
        assert _seen(first) == "first"
        monkeypatch.setenv(NAME, "second")
        second = process_pool(1, time.sleep, (0,))
        try:
            assert _seen(second) == "second"
        finally:
            second.shutdown()
        assert _seen(first) == "first"  # a running process keeps the one it started with
        monkeypatch.delenv(NAME)
        third = process_pool(1, time.sleep, (0,))
        try:
            assert _seen(third) is None
        finally:
            third.shutdown()
    finally:
        first.shutdown()


def _fork_servers() -> list[int]:
    """This process's children that are multiprocessing fork servers (none where processes are
    fresh interpreters)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and b"multiprocessing.forkserver" in command:
                found.append(int(entry.name))
    return found


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_sigterm_of_a_stop_by_systemd_leaves_the_pools_working() -> None:
    """A fork server that ended on the SIGTERM broke every pool: a pool counts the processes a
    fork server forked as dead once it is gone."""
    pool = process_pool(1, time.sleep, (0,))
    try:
        worker = pool.submit(os.getpid).result(timeout=120)
        servers = _fork_servers()
        assert servers or "forkserver" not in multiprocessing.get_all_start_methods()
        for pid in [worker, *servers]:
            os.kill(pid, signal.SIGTERM)
        # A round trip through the pool: by then a process ended by the signal is a zombie
        # (this process, its parent, has not reaped it), and the pool has seen it go.
        assert pool.submit(os.getpid).result(timeout=120) == worker
        assert [pid for pid in servers if _state(pid) in ("Z", "X")] == []
    finally:
        pool.shutdown()
