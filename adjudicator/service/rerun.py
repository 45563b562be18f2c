"""``adjudicate --round N``: close and adjudicate an open round now, or re-run an adjudicated
one from its stored orders and show any difference from the archived result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from adjudicator.core.game import JSON
from adjudicator.readmodel.stored import game_state, rules_of, start_state
from adjudicator.service import ServiceError
from adjudicator.service.rounds import check_stored, lines_in_force
from adjudicator.storage import queries
from adjudicator.storage.models import Game, Round, RoundResult, RoundState


@dataclass(frozen=True)
class Rerun:
    """The result of adjudicating a round again, without storing anything."""

    public_state: dict[str, JSON]
    winners: list[str]
    draw: bool
    finished: bool
    differences: list[str]


def pick_game(session: Session, name: str | None) -> Game:
    if name:
        game = queries.game_named(session, name)
        if game is None:
            raise ServiceError(f"no game called {name!r}", exit_code=3)
        return game
    running = queries.unfinished_games(session)
    if not running:
        running = queries.all_games(session)  # only finished games: one may be meant
    if len(running) != 1:
        names = ", ".join(g.name for g in running) or "none"
        raise ServiceError(f"say which game with --game (games not finished: {names})", exit_code=2)
    return running[0]


def find_round(session: Session, game: Game, number: int) -> Round:
    round_ = queries.round_numbered(session, game.id, number)
    if round_ is None:
        raise ServiceError(
            f"game {game.name} has no round {number} (it is at round {game.current_round})",
            exit_code=3,
        )
    return round_


def state_before(session: Session, game: Game, round_: Round) -> Any:
    """The game state at the start of ``round_``: the stored result of the round before, or
    the game's start."""
    rules = rules_of(game)
    if round_.number == 1:
        players = [seat.handle for seat in queries.seats_of(session, game.id)]
        return start_state(game, players)
    previous = queries.result_of_round_numbered(session, game.id, round_.number - 1)
    assert previous is not None, "every round before an adjudicated one has its result"
    return rules.load(previous.state)


def _diff(archived: RoundResult, rerun: Rerun) -> list[str]:
    changes = []
    for key in sorted(set(archived.public_state) | set(rerun.public_state)):
        old, new = archived.public_state.get(key), rerun.public_state.get(key)
        if old != new:
            changes.append(f"{key}: archived {old!r}, now {new!r}")
    if archived.winners != rerun.winners or archived.draw != rerun.draw:
        changes.append(
            f"outcome: archived winners {archived.winners} draw {archived.draw}, "
            f"now winners {rerun.winners} draw {rerun.draw}"
        )
    return changes


def rerun_round(session: Session, game: Game, round_: Round) -> Rerun:
    """Adjudicate ``round_`` again without storing: from its archived orders when it has been
    adjudicated, else from the orders in force now (a dry run)."""
    rules = rules_of(game)
    archived = queries.result_of(session, round_.id)
    if archived is not None:
        state = state_before(session, game, round_)
        lines = archived.orders
    else:
        if round_.state not in (RoundState.OPEN, RoundState.CLOSING):
            raise ServiceError(f"round {round_.number} has no stored result")
        state = game_state(game)
        lines = lines_in_force(session, game, round_)
    orders, _, _ = check_stored(rules, state, lines)
    resolution = rules.resolve(state, orders)
    outcome = rules.outcome(resolution.state)
    rerun = Rerun(
        public_state=rules.public_state(resolution.state),
        winners=list(outcome.winners) if outcome else [],
        draw=outcome.draw if outcome else False,
        finished=outcome is not None,
        differences=[],
    )
    if archived is None:
        return rerun
    return Rerun(
        rerun.public_state, rerun.winners, rerun.draw, rerun.finished, _diff(archived, rerun)
    )
