"""Fixtures of the game tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adjudicator.games.three_musketeers import standin


@pytest.fixture
def searching() -> Iterator[None]:
    """The Three Musketeers stand-in and hints without the complete solution, on their own
    search, as before the solution is made (another test may have installed it)."""
    kept = list(standin.SOLUTION)
    standin.SOLUTION.clear()
    yield
    standin.SOLUTION[:] = kept
