"""Hints after the game (issue 15, part 5), from the equilibrium values (:mod:`.standin`).

Against the other captain's equilibrium mix, a choice inside one's own equilibrium mix is worth
exactly the round's value; a choice outside it is worth less. The difference is what the choice
cost, in the expected result (+1 a win, -1 a loss); the round where a captain's choice cost the
most is where the game was decided, as far as equilibrium play can say (a choice that cost
nothing can still lose: that was the dice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from adjudicator.core.kind import Hint
from adjudicator.games.starship_combat.orders import NOTHING, Choice, format_choice
from adjudicator.games.starship_combat.rules import RULES
from adjudicator.games.starship_combat.standin import outcome_value, position, solve, value_of
from adjudicator.games.starship_combat.state import StarshipState, end_of_round

NEGLIGIBLE = Fraction(1, 10**9)
"""A cost this small or smaller is no cost: the table's values are rounded (an error under
10**-24 a round, ``standin.PRECISION``), so a choice inside the mix can seem to cost that."""


@dataclass(frozen=True)
class CostlyChoice:
    """In round ``round`` the captain of ``seat`` chose ``chose``, worth ``worth`` against the
    other's equilibrium mix; the round was worth ``value`` (a choice worth it: ``best``)."""

    round: int
    seat: int
    chose: Choice
    worth: Fraction
    value: Fraction
    best: Choice

    @property
    def cost(self) -> Fraction:
        return self.value - self.worth


def choice_worth(state: StarshipState, seat: int, choice: Choice) -> Fraction:
    """The expected result of ``choice`` for ``seat`` against the other's equilibrium mix."""
    pos = position(state, seat)
    solution = solve(pos)
    total = Fraction(0)
    for reply, weight in zip(solution.replies, solution.reply_mix, strict=True):
        if weight:
            result = outcome_value(pos, choice, reply)
            total += weight * (solve(result).value if isinstance(result, tuple) else result)
    return total


def costly_choices(
    start: StarshipState, rounds: Sequence[tuple[Choice, Choice]]
) -> list[CostlyChoice]:
    """Every choice of the game that cost something against the equilibrium, in order."""
    found = []
    state = start
    for choices in rounds:
        if end_of_round(state) is not None:
            break
        for seat in (0, 1):
            solution = solve(position(state, seat))
            worth = choice_worth(state, seat, choices[seat])
            if solution.value - worth > NEGLIGIBLE:
                best = max(solution.actions, key=lambda c: solution.mix[solution.actions.index(c)])
                found.append(
                    CostlyChoice(state.round + 1, seat, choices[seat], worth, solution.value, best)
                )
        orders = {state.players[seat]: [choices[seat]] for seat in (0, 1)}
        state = RULES.resolve(state, orders).state
    return found


def decisive_choice(
    start: StarshipState, rounds: Sequence[tuple[Choice, Choice]]
) -> CostlyChoice | None:
    """The costliest choice of the game (the earliest of equal ones), or None if none cost."""
    found = costly_choices(start, rounds)
    return max(found, key=lambda c: (c.cost, -c.round)) if found else None


def hint(start: StarshipState, rounds: Sequence[Mapping[str, Sequence[Choice]]]) -> Hint | None:
    """:data:`adjudicator.core.kind.GameKind.hint`: the costliest choice, where the game's
    start is in the shipped equilibrium table (its work is then a few small matrix games a
    round); a start outside it would need the table built, which takes seconds: no hint."""
    if value_of(position(start, 0)) is None:
        return None
    choices = [
        tuple((r.get(player) or [NOTHING])[0] for player in start.players)  # no orders: NOTHING
        for r in rounds
    ]
    found = decisive_choice(start, [(mine, theirs) for mine, theirs in choices])
    if found is None:
        return None
    return Hint(
        round=found.round,
        player=start.players[found.seat],
        played=format_choice(found.chose),
        better=format_choice(found.best),
        exact=False,
        worth=float(found.worth),
        value=float(found.value),
    )
