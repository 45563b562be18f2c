"""Giveaway, aka Order From Chaos (docs/rules/giveaway.md): give everything away, co-operate.

Every round each player gives all their points to other players. Equal gifts that go round a
closed ring of players, with no other gift between them, are multiplied by the size of the ring
(rules 5 and 6). A round's score is everything received; once someone scores 100, the highest
score that no one else shares wins (rule 1, read literally).

The package: :mod:`.state` holds the position between rounds (holdings, last scores and rings);
:mod:`.orders` reads and checks order lines; :mod:`.rings` finds the rings and the broken
cycles within a work budget; :mod:`.scoring` scores a round; :mod:`.rules` is the ``Rules``
object; :mod:`.kind`, :mod:`.pictures` and :mod:`.standin` as in every game; its templates are
in ``templates/``. There is no board (the position is each player's holding, in :mod:`.state`),
and no hints after the game: no solution is known.
"""

from __future__ import annotations

from adjudicator.games.giveaway.orders import Gift
from adjudicator.games.giveaway.rings import Ring
from adjudicator.games.giveaway.rules import RULES, TERMINATION, GiveawayRules
from adjudicator.games.giveaway.state import GiveawayState, retire_player

__all__ = [
    "RULES",
    "TERMINATION",
    "Gift",
    "GiveawayRules",
    "GiveawayState",
    "Ring",
    "retire_player",
]
