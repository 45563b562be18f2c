"""A player across games, as pure values: how he kept each round (:class:`Mark`), his record
(:class:`PlayerRecord`), his reliability (:func:`reliability`, docs/club.md) and a game's
rating band (:func:`parse_band`).

The service reads the marks from stored rounds (``readmodel/club.py``); here they are only
counted, so that the formula can be read, and tested, in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

WINDOW = 20
"""The rounds reliability looks at: the player's most recent ones, across all his games."""
LATE_WEIGHT = 0.5
"""A round ordered late (after the deadline, in its grace) counts as half a round on time."""
ABANDON_COST = 10
"""Points taken off for each seat left before its game ended, in :data:`ABANDON_DAYS`."""
ABANDON_DAYS = 365
"""How long a seat left behind counts against a player (from the start of its game)."""
NO_ROUNDS = 100
"""A player with no counted round yet: nothing is held against him."""


class Mark(StrEnum):
    """How a player kept one round he was to order in."""

    ON_TIME = "on-time"  # orders in by the deadline (or a round with none)
    LATE = "late"  # orders in after the deadline, before the round closed
    MISSED = "missed"  # no orders of his by the time the round closed


@dataclass(frozen=True)
class PlayerRecord:
    """A person's record across every game he played (docs/club.md, "A player's record")."""

    played: int = 0  # games he held a seat in, to their end or not
    finished: int = 0  # games over with him in his seat at the end
    won: int = 0  # of those, the games he won (a shared win counts)
    resigned: int = 0  # seats he left by RESIGN
    taken_over: int = 0  # seats he took from another player
    abandoned: int = 0  # seats he left before the end: resigned, removed or passed on
    on_time: int = 0
    late: int = 0
    missed: int = 0
    recent: tuple[Mark, ...] = ()  # his last :data:`WINDOW` rounds, newest first
    recent_abandoned: int = 0  # seats left in games begun in the last :data:`ABANDON_DAYS`

    @property
    def reliability(self) -> int:
        return reliability(self.recent, abandoned=self.recent_abandoned)


def reliability(recent: Sequence[Mark], *, abandoned: int) -> int:
    """Reliability from 0 to 100, in the spirit of njudge's dedication (docs/club.md):

    ``100 x (on time + 1/2 x late) / rounds`` over the player's last :data:`WINDOW` rounds
    (:data:`NO_ROUNDS` when he has none), less :data:`ABANDON_COST` for each seat he left
    before its game ended in the last :data:`ABANDON_DAYS`, rounded half up, never below 0."""
    window = list(recent)[:WINDOW]
    if window:
        kept = sum(1 for m in window if m is Mark.ON_TIME)
        kept_late = sum(1 for m in window if m is Mark.LATE)
        share = 100 * (kept + LATE_WEIGHT * kept_late) / len(window)
    else:
        share = NO_ROUNDS
    return max(0, int(share - ABANDON_COST * abandoned + 0.5))


class BandError(ValueError):
    """A rating band that does not read as ``LOW-HIGH``."""


_BAND = re.compile(r"\s*(\d{1,5})?\s*-\s*(\d{1,5})?\s*")


@dataclass(frozen=True)
class Band:
    """The ratings a game is open to: ``low`` to ``high``, both included (None: no bound)."""

    low: int | None
    high: int | None

    def admits(self, rating: int) -> bool:
        return (self.low is None or rating >= self.low) and (
            self.high is None or rating <= self.high
        )

    def text(self) -> str:
        return f"{'' if self.low is None else self.low}-{'' if self.high is None else self.high}"


def parse_band(text: str) -> Band:
    """``1400-1800``, ``1400-`` (1400 or more) or ``-1800`` (1800 or less)."""
    match = _BAND.fullmatch(text)
    if match is None or (match.group(1) is None and match.group(2) is None):
        raise BandError(f"not a rating band: {text!r} (write it like 1400-1800)")
    low = int(match.group(1)) if match.group(1) else None
    high = int(match.group(2)) if match.group(2) else None
    if low is not None and high is not None and low > high:
        raise BandError(f"not a rating band: {text!r} (its low end is above its high end)")
    return Band(low, high)
