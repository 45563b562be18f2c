"""The games, one pure module each, and the registry that names them.

The names are those of game records (RECORD-FORMAT.md). Modules are imported on first use so
that a service running one game does not load the others.
"""

from __future__ import annotations

import importlib
from typing import Any

from adjudicator.core.game import Rules

_MODULES: dict[str, str] = {
    "giveaway": "adjudicator.games.giveaway",
    "sissyfight": "adjudicator.games.sissyfight",
    "three-musketeers": "adjudicator.games.three_musketeers",
    "rock-scissors-paper": "adjudicator.games.rock_scissors_paper",
    "starship-combat": "adjudicator.games.starship_combat",
}

GAME_NAMES: tuple[str, ...] = tuple(_MODULES)

_TITLES: dict[str, str] = {
    "giveaway": "Giveaway",
    "sissyfight": "SiSSYFiGHT 3000",
    "three-musketeers": "Three Musketeers",
    "rock-scissors-paper": "Rock, Scissors, Paper",
    "starship-combat": "Starship Combat",
}


def game_title(name: str) -> str:
    """How people write the game's name (``name`` itself for a game we do not know)."""
    return _TITLES.get(name, name)


class UnknownGame(ValueError):
    """No game of that name."""


def get_rules(name: str) -> Rules[Any, Any]:
    """The rules of the game called ``name`` (a record's ``game:`` value)."""
    try:
        module_name = _MODULES[name.strip().lower()]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(GAME_NAMES)})") from None
    rules: Rules[Any, Any] = importlib.import_module(module_name).RULES
    return rules
