"""Starship Combat as one :class:`GameKind` (docs/rules/starship-combat.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.core.kind import GameKind, Measure, Vocabulary, counter, numbered_picture
from adjudicator.games.starship_combat import pictures as sc
from adjudicator.games.starship_combat.hints import hint
from adjudicator.games.starship_combat.rules import RULES
from adjudicator.games.starship_combat.standin import stand_in

TERMINATIONS = frozenset(
    {"both-destroyed", "destroyed", "both-out-of-missiles", "out-of-missiles", "round-limit"}
)
PROBLEM_CODES = frozenset(
    {"game-over", "no-missiles", "no-power", "not-a-player", "one-choice", "syntax"}
)


pictures = numbered_picture(
    "ships",
    "Both ships' missiles and power",
    "round",
    (sc.ships_text, sc.ships_svg, sc.ships_words),
)


def seat_position(view: Mapping[str, Any], player: str) -> dict[str, Any]:
    """Both ships' missiles and shield power (docs/rules/starship-combat.md, "Ships": 3 and 6
    at the start) and the round limit."""
    you = view.get("you") or player
    opponent = next((p for p in view["missiles"] if p != you), None)
    return {
        "missiles": view["missiles"].get(you),
        "power": view["power"].get(you),
        "opponent": opponent,
        "their_missiles": view["missiles"].get(opponent),
        "their_power": view["power"].get(opponent),
        "max_rounds": view["max_rounds"],
    }


KIND = GameKind(
    name="starship-combat",
    title="Starship Combat",
    rules=RULES,
    vocabulary=Vocabulary(counters=("missiles", "power")),
    measures=(
        Measure("missiles", "Missiles left", counter("missiles")),
        Measure("power", "Shield power left", counter("power")),
    ),
    pictures=pictures,
    stand_in=stand_in,
    seat_position=seat_position,
    hint=hint,
    terminations=TERMINATIONS,
    problem_codes=PROBLEM_CODES,
)
