"""Both ships between rounds (docs/rules/starship-combat.md): missiles, power, what a ship can
afford, which missiles hit, and the end rules."""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.core.errors import Problem
from adjudicator.core.game import Outcome
from adjudicator.games.starship_combat.orders import Choice

START_MISSILES = 3
START_POWER = 6


@dataclass(frozen=True)
class StarshipState:
    """Both ships between rounds, in seat order, and the rounds played so far."""

    players: tuple[str, str]
    missiles: tuple[int, int]
    power: tuple[int, int]
    destroyed: tuple[bool, bool] = (False, False)
    round: int = 0
    max_rounds: int = 30


def seat_of(state: StarshipState, player: str) -> int | None:
    """The seat of ``player`` (handles are case-insensitive), or ``None``."""
    wanted = player.lower()
    return next((i for i, p in enumerate(state.players) if p.lower() == wanted), None)


def affordable(state: StarshipState, seat: int, choice: Choice) -> list[Problem]:
    """Ruling 5: "FIRE with no missiles left or SHIELD with no power left is rejected"."""
    problems = []
    if choice.fire and state.missiles[seat] == 0:
        problems.append(Problem("no-missiles", "you cannot FIRE: you have no missiles left"))
    if choice.shield and state.power[seat] == 0:
        problems.append(
            Problem("no-power", "you cannot power your SHIELD: you have no shield power left")
        )
    return problems


def end_of_round(state: StarshipState) -> Outcome | None:
    """Ruling 5, End, checked after each round in the ruled order (never before round 1)."""
    if state.round == 0:
        return None
    a, b = state.players
    if any(state.destroyed):
        # (1) Exactly one ship destroyed: the other player wins. Both destroyed: draw.
        if all(state.destroyed):
            return Outcome("both-destroyed", draw=True)
        return Outcome("destroyed", (b,) if state.destroyed[0] else (a,))
    if state.missiles == (0, 0):
        # (2) Both ships out of missiles: draw.
        return Outcome("both-out-of-missiles", draw=True)
    if 0 in state.missiles:
        # (3) The ship out of missiles loses, at once, while the other still has one.
        return Outcome("out-of-missiles", (b,) if state.missiles[0] == 0 else (a,))
    if state.round >= state.max_rounds:
        # (4) Option max_rounds: the round limit reached is a draw.
        return Outcome("round-limit", draw=True)
    return None


def fight(choices: tuple[Choice, Choice]) -> tuple[bool, bool]:
    """Which ships are destroyed: a missile destroys the other ship unless it shielded."""
    return (choices[1].fire and not choices[0].shield, choices[0].fire and not choices[1].shield)
