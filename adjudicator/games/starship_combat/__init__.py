"""Starship Combat (docs/rules/starship-combat.md): two ships, missiles and shields, chosen
simultaneously.

Each round both captains choose at once to fire a missile, power their shields, do both or do
neither. A missile destroys the other ship unless its shields were powered that round. The game
ends when a ship is destroyed, when the missiles run out, or at the round limit.

The package: :mod:`.state` holds both ships between rounds, what a ship can afford, which
missiles hit and the end rules; :mod:`.orders` reads and writes a round's choice; :mod:`.rules`
is the ``Rules`` object; :mod:`.kind`, :mod:`.pictures` and :mod:`.standin` (which also solves
the game: its equilibrium table is ``equilibrium.txt``) as in every game, with :mod:`.hints`
after the game; its templates are in ``templates/``. There is no board: two ships' counters,
held in :mod:`.state`.
"""

from __future__ import annotations

from adjudicator.games.starship_combat.orders import NOTHING, Choice, format_choice, parse_choice
from adjudicator.games.starship_combat.rules import RULES, StarshipCombatRules
from adjudicator.games.starship_combat.state import (
    START_MISSILES,
    START_POWER,
    StarshipState,
    affordable,
    end_of_round,
    fight,
    seat_of,
)

__all__ = [
    "NOTHING",
    "RULES",
    "START_MISSILES",
    "START_POWER",
    "Choice",
    "StarshipCombatRules",
    "StarshipState",
    "affordable",
    "end_of_round",
    "fight",
    "format_choice",
    "parse_choice",
    "seat_of",
]
