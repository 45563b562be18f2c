"""SiSSYFiGHT 3000 (docs/rules/sissyfight.md): a simultaneous schoolyard fight for 3-6 players.

Every turn each player still in picks one action card: ``SOLO`` or ``TEAM`` against another
player, or ``DEFEND``. The turn's losses are worked out from all actions together and taken at
once; a player left with no chips is out, and the game ends when one or two players remain (they
win jointly) or when everybody still in drops to 0 in the same turn (nobody wins).

Talk must be public in this game: :data:`PRESS_POLICY` (also ``RULES.press_policy``) tells the
mail layer to relay press to every player and to refuse private press.

The package: :mod:`.state` holds the fight between turns (seats, colours, chips), who a target
names and the end rule; :mod:`.orders` reads and writes action cards; :mod:`.rules` works out a
turn's losses and is the ``Rules`` object; :mod:`.kind`, :mod:`.pictures` and :mod:`.standin`
as in every game; its templates are in ``templates/``. There is no board (the fight is chips
and colours, held in :mod:`.state`), and no hints after the game: no solution is known.
"""

from __future__ import annotations

from adjudicator.games.sissyfight.orders import (
    ACTIONS,
    DEFEND,
    SOLO,
    TEAM,
    Action,
    format_action,
    parse_action,
)
from adjudicator.games.sissyfight.rules import (
    PRESS_POLICY,
    RULES,
    SissyfightRules,
    attacks_on,
    damage,
)
from adjudicator.games.sissyfight.state import (
    COLOURS,
    START_CHIPS,
    SissyState,
    TargetError,
    end_of_game,
    read_colour,
    remaining,
    retire_player,
    seat_of,
    target_seat,
)

__all__ = [
    "ACTIONS",
    "COLOURS",
    "DEFEND",
    "PRESS_POLICY",
    "RULES",
    "SOLO",
    "START_CHIPS",
    "TEAM",
    "Action",
    "SissyState",
    "SissyfightRules",
    "TargetError",
    "attacks_on",
    "damage",
    "end_of_game",
    "format_action",
    "parse_action",
    "read_colour",
    "remaining",
    "retire_player",
    "seat_of",
    "target_seat",
]
