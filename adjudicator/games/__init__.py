"""The games: one pure package each, and the one table that names them.

Every fact about a game that the rest of the service needs is in the game's :class:`GameKind`
(``adjudicator/games/<game>/kind.py``). :data:`KINDS` lists them; :func:`kind_of` finds one by
its name in game records (docs/record-format.md). A new game is a package here, of the shape
of the others (``tests/games/test_game_shape.py``) with its templates inside it, its rules page
in docs/rules/ and its golden files, plus one entry in :data:`KINDS`.
"""

from __future__ import annotations

from typing import Any

from adjudicator.core.game import JSON, Rules
from adjudicator.core.kind import GameKind, Vocabulary
from adjudicator.core.record import Record, parse_record
from adjudicator.core.replay import replay
from adjudicator.games.giveaway.kind import KIND as GIVEAWAY
from adjudicator.games.rock_scissors_paper.kind import KIND as ROCK_SCISSORS_PAPER
from adjudicator.games.sissyfight.kind import KIND as SISSYFIGHT
from adjudicator.games.starship_combat.kind import KIND as STARSHIP_COMBAT
from adjudicator.games.three_musketeers.kind import KIND as THREE_MUSKETEERS

KINDS: tuple[GameKind, ...] = (
    GIVEAWAY,
    SISSYFIGHT,
    THREE_MUSKETEERS,
    ROCK_SCISSORS_PAPER,
    STARSHIP_COMBAT,
)

GAME_NAMES: tuple[str, ...] = tuple(kind.name for kind in KINDS)
_BY_NAME = {kind.name: kind for kind in KINDS}


class UnknownGame(ValueError):
    """No game of that name."""


def kind_of(name: str) -> GameKind:
    """The game called ``name`` (a record's ``game:`` value, any case)."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(GAME_NAMES)})") from None


def vocabularies() -> dict[str, Vocabulary]:
    """What each game's records may say in their setup lines, for ``parse_record``."""
    return {kind.name: kind.vocabulary for kind in KINDS}


def read_record(text: str) -> Record:
    """Read a game record of any of these games (``parse_record`` with their vocabularies)."""
    return parse_record(text, vocabularies())


def replay_record(record: Record) -> dict[str, JSON]:
    """The ``adjudicate replay --json`` object of ``record``, by its game's rules."""
    return replay(record, kind_of(record.game).rules)


def get_rules(name: str) -> Rules[Any, Any]:
    """The rules of the game called ``name``."""
    return kind_of(name).rules


def game_title(name: str) -> str:
    """How people write the game's name (``name`` itself for a game we do not know)."""
    return _BY_NAME[name].title if name in _BY_NAME else name
