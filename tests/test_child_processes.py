"""The processes the service hands work to (``adjudicator/child_processes.py``). They are forked
from a fork server that may have started long before, in another environment: each must still
have the service's environment as it was when its pool was made, as a fresh interpreter would
(the crash points of the crash tests, ``XDG_CACHE_HOME`` for the solutions, ``TMPDIR``)."""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor

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
