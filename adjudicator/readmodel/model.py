"""What the archive shows, as plain values: the only thing the pages are rendered from.

The reading layer (:mod:`adjudicator.readmodel.read`) fills these from the database and copies only
what players may see: handles (never addresses or secrets), the public state and the public
report of each round (never ``report["private"]``). Rendering never touches the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adjudicator.core.game import Setup


@dataclass(frozen=True)
class Player:
    handle: str
    seat: int
    active: bool = True


@dataclass(frozen=True)
class PublicPress:
    """A press message sent to every player: who wrote it (None: anonymous press) and what."""

    sender: str | None
    text: str


@dataclass(frozen=True)
class ReportedRound:
    """One reported round: its times, the orders in force and what everybody was told."""

    number: int
    opened_at: datetime
    deadline: datetime | None
    adjudicated_at: datetime | None
    orders: Mapping[str, tuple[str, ...]]
    public_state: Mapping[str, Any]
    report: Mapping[str, Any]  # report["public"] only
    finished: bool = False
    winners: tuple[str, ...] = ()
    draw: bool = False
    termination: str | None = None  # how the game ended, the game's own code
    press: tuple[PublicPress, ...] = ()  # the public press sent while the round was open


@dataclass(frozen=True)
class OpenRound:
    number: int
    opened_at: datetime
    deadline: datetime | None


@dataclass(frozen=True)
class GameView:
    """One game, everything its pages need."""

    name: str
    kind: str
    status: str
    time_zone: str
    created_at: datetime
    finished_at: datetime | None
    options: Mapping[str, str]
    setup: Setup
    players: tuple[Player, ...]
    start_state: Mapping[str, Any]  # the public state before round 1
    rounds: tuple[ReportedRound, ...] = ()
    open_round: OpenRound | None = None
    sequential: bool = False  # one player moves a round (the board games)

    @property
    def last(self) -> ReportedRound | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def updated_at(self) -> datetime:
        """When the game's pages last changed: its newest adjudication, else its creation."""
        times = [r.adjudicated_at for r in self.rounds if r.adjudicated_at is not None]
        return max([self.created_at, *times])


@dataclass(frozen=True)
class GameSummary:
    """One row of the index of games."""

    name: str
    kind: str
    status: str
    time_zone: str
    created_at: datetime
    updated_at: datetime
    players: tuple[str, ...]
    rounds: int  # reported rounds
    winners: tuple[str, ...] = ()
    draw: bool = False
    termination: str | None = None  # how the game ended, the game's own code


@dataclass(frozen=True)
class Archive:
    """What one build shows: the games whose pages are (re)built, and the index of all games."""

    games: tuple[GameView, ...]
    index: tuple[GameSummary, ...]
