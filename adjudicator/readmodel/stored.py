"""A stored game seen through its rules: the rules of its kind, its setup, its start and its
current state, and how it ended. The service and the read model both read games this way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.core.game import PieceSpec, Rules, Setup
from adjudicator.games import get_rules
from adjudicator.storage.models import Game, RoundResult


def setup_to_json(setup: Setup) -> dict[str, Any]:
    """The setup as stored in ``Game.setup``; :func:`setup_from_json` reads it back."""
    return {
        "colours": dict(setup.colours),
        "start": {k: dict(v) for k, v in setup.start.items()},
        "pieces": [[p.owner, p.piece, p.cell, p.height] for p in setup.pieces],
        "to_move": setup.to_move,
    }


def setup_from_json(data: Mapping[str, Any]) -> Setup:
    return Setup(
        colours=data.get("colours", {}),
        start=data.get("start", {}),
        pieces=tuple(PieceSpec(o, k, c, h) for o, k, c, h in data.get("pieces", [])),
        to_move=data.get("to_move"),
    )


def rules_of(game: Game) -> Rules[Any, Any]:
    return get_rules(game.kind)


def start_state(game: Game, handles: Sequence[str]) -> Any:
    """The state before round 1 for these players, from the game's options and setup."""
    return rules_of(game).start(handles, options=game.options, setup=setup_from_json(game.setup))


def game_state(game: Game) -> Any:
    """The game's current state (the cache of replaying its stored rounds)."""
    assert game.state is not None, "a created game always has a state"
    return rules_of(game).load(game.state)


def termination_of(game: Game, result: RoundResult) -> str | None:
    """How the game ended in this round (the game's own code, e.g. ``both-destroyed``), or
    None when it goes on."""
    if not result.finished:
        return None
    rules = rules_of(game)
    outcome = rules.outcome(rules.load(result.state))
    return outcome.termination if outcome else None
