"""Hints after the game (docs/stand-ins.md): where a finished game was decided, for its
game-over result mail. The game kind says it (``GameKind.hint``, bounded in work, so the mail
is never held up); this reads the stored rounds it needs. A complete solution made since the
service started is handed to the game first: with it the hint is exact for every move."""

from __future__ import annotations

from sqlmodel import Session

from adjudicator.core.kind import Hint, game_hint
from adjudicator.games import kind_of
from adjudicator.readmodel.stored import setup_from_json
from adjudicator.service import solutions
from adjudicator.service.games import seats_of
from adjudicator.storage import queries
from adjudicator.storage.models import Game


def finished_game_hint(session: Session, game: Game) -> Hint | None:
    """The hint of a game whose last round is adjudicated, from its rounds' orders in force."""
    kind = kind_of(game.kind)
    if kind.hint is None:
        return None
    solutions.refresh(kind)
    return game_hint(
        kind,
        players=[seat.handle for seat in seats_of(session, game)],
        options=game.options,
        setup=setup_from_json(game.setup),
        rounds=[result.orders for result in queries.results_of_game(session, game.id)],
    )
