"""Where a game not started yet stands (docs/commands.md, "Signing up"): how many players it
has, how many it starts with and what happens then. The welcome, the answer to orders sent
before the start and ``LIST`` all say it, so that nobody mistakes a game waiting for its
players for one whose deadline has passed."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from adjudicator.readmodel.stored import rules_of
from adjudicator.storage import queries
from adjudicator.storage.models import Game, GameStatus


@dataclass(frozen=True)
class NotStarted:
    """A game before its first round. ``starts_with``: the number of players at which it
    starts by itself (the ``signup`` number), or None when its game master starts it."""

    joined: int
    starts_with: int | None
    most: int | None
    """The most players the game takes (None: no limit)."""
    open_for_sign_up: bool

    @property
    def missing(self) -> int | None:
        """Players still to join before the game starts by itself (None: the game master
        starts it)."""
        return None if self.starts_with is None else max(self.starts_with - self.joined, 0)


def not_started(session: Session, game: Game) -> NotStarted | None:
    """Where the game stands before its start; None once it has started."""
    if game.status != GameStatus.SETUP:
        return None
    signup = game.settings.get("signup")
    number = signup if isinstance(signup, int) and not isinstance(signup, bool) else None
    return NotStarted(
        joined=len(queries.seats_of(session, game.id)),
        starts_with=number,
        most=rules_of(game).max_players,
        open_for_sign_up=bool(signup),
    )
