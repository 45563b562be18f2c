"""Creating a game, as one use-case: the command line (``adjudicate game create``), the demo,
the tests and the benches all call :func:`set_up_game`.

The game's settings are read once: the caller may need them before its transaction
(``NewGame.stand_ins_may_play``: the command line makes the stand-ins' solution first, a slow
step no transaction should wait for), and the game is then made from the same reading.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlmodel import Session

from adjudicator.core.game import Setup
from adjudicator.games import UnknownGame
from adjudicator.notify.context import ServiceContext
from adjudicator.service import ServiceError
from adjudicator.service.announcements import tell_created
from adjudicator.service.closing import begin_game
from adjudicator.service.games import (
    Credentials,
    PlayerSpec,
    check_time_zone,
    create_game,
    refuse_absent_stand_in,
)
from adjudicator.service.settings import GameSettings, read_settings
from adjudicator.service.welcome import queue_welcome
from adjudicator.storage.models import Game


@dataclass(frozen=True)
class NewGame:
    """A game as its game master describes it, before it exists."""

    name: str
    kind: str
    players: Sequence[PlayerSpec]
    options: Mapping[str, str] = field(default_factory=dict)
    setup: Setup = field(default_factory=Setup)
    time_zone: str = "UTC"
    schedule: str | None = None
    """When rounds close (``72h``, ``'tue,fri 21:00'``); None: by the game master's hand."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    gm_address: str | None = None

    @cached_property
    def read(self) -> GameSettings:
        """The settings checked and read, once: ``ServiceError`` names a bad one (or the
        unknown game), or refuses ``absent=stand-in`` in a game played in turns."""
        kind = self.kind.lower()
        try:
            zone = check_time_zone(self.time_zone)
            read = read_settings(kind, self.schedule, zone, self.settings)
        except UnknownGame as error:
            raise ServiceError(str(error)) from None
        refuse_absent_stand_in(kind, read)
        return read

    @property
    def read_already(self) -> GameSettings | None:
        """:attr:`read` when the caller asked for it already; else None (``create_game`` then
        reads the settings, after it checked the game's name)."""
        return self.__dict__.get("read")

    @property
    def stand_ins_may_play(self) -> bool:
        """Whether the computer may play a seat (from the start, or for an absent player): its
        moves then need the game's solution from round 1."""
        return bool(self.read.stand_ins or self.read.absent_stand_in)


def set_up_game(
    session: Session,
    new: NewGame,
    *,
    ctx: ServiceContext,
    now: datetime,
    start: bool = True,
    welcome: bool = True,
    tell_gm: bool = True,
) -> tuple[Game, list[Credentials]]:
    """Create ``new`` in the caller's transaction: the game and its seats (``create_game``),
    then round 1 opened with the computer's seats moving (``begin_game``; not when ``start``
    is false: a game open for sign-up), then each player's welcome with their password
    (``welcome``), then the game master's summary (``tell_gm``, when the game has one). The
    game and the players' credentials, each shown once."""
    game, credentials = create_game(
        session,
        name=new.name,
        kind=new.kind,
        players=new.players,
        options=new.options,
        setup=new.setup,
        time_zone=new.time_zone,
        schedule=new.schedule,
        settings=new.settings,
        gm_address=new.gm_address,
        read=new.read_already,
        now=now,
    )
    first = begin_game(session, game, ctx=ctx, now=now) if start else None
    if welcome:
        queue_welcome(
            session, ctx=ctx, game=game, credentials=credentials, first_round=first, now=now
        )
    if tell_gm:
        tell_created(session, ctx=ctx, game=game, first_round=first, now=now)
    return game, credentials
