"""The processes the service hands work to (``adjudicator/serve/child_processes.py``). They are forked
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

import pytest

from adjudicator.serve.child_processes import process_pool

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


def test_the_sigterm_of_a_stop_by_systemd_leaves_the_pools_working() -> None:
    """A fork server that ended on the SIGTERM broke every pool: a pool counts the processes a
    fork server forked as dead once it is gone."""
    pool = process_pool(1, time.sleep, (0,))
    try:
        worker = pool.submit(os.getpid).result(timeout=120)
        server = pool.submit(os.getppid).result(timeout=120)  # what the worker was forked from
        if "forkserver" in multiprocessing.get_all_start_methods():
            assert server != os.getpid()
        os.kill(worker, signal.SIGTERM)
        if server != os.getpid():
            os.kill(server, signal.SIGTERM)
        # A new pool needs the fork server to fork again, which it does only after it has
        # taken the signal: one that ended on it cannot, and a new fork server would start.
        later = process_pool(1, time.sleep, (0,))
        try:
            assert later.submit(os.getppid).result(timeout=120) == server
        finally:
            later.shutdown()
        assert pool.submit(os.getpid).result(timeout=120) == worker
    finally:
        pool.shutdown()
