"""SiSSYFiGHT 3000 as one :class:`GameKind` (docs/rules/sissyfight.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.core.kind import GameKind, Measure, Vocabulary, counter, numbered_picture
from adjudicator.games.sissyfight import pictures as sf
from adjudicator.games.sissyfight.rules import PRESS_POLICY, RULES
from adjudicator.games.sissyfight.standin import stand_in
from adjudicator.games.sissyfight.state import retire_player

TERMINATIONS = frozenset({"all-out", "last-standing"})
PROBLEM_CODES = frozenset(
    {
        "ambiguous-target",
        "game-over",
        "not-a-player",
        "one-action",
        "player-out",
        "self-target",
        "syntax",
        "target-out",
        "unknown-target",
    }
)


pictures = numbered_picture("chips", "Chips", "turn", (sf.chips_text, sf.chips_svg, sf.chips_words))


def seat_position(view: Mapping[str, Any], player: str) -> dict[str, Any]:
    """The player's colour and chips, and everybody else's (docs/rules/sissyfight.md, "Players
    and colours": orders name the others by colour)."""
    out = set(view["out"])
    you = view.get("you") or {}
    seats = [
        {"player": p, "colour": view["colours"][p], "chips": view["chips"][p], "out": p in out}
        for p in view["colours"]
    ]
    mine = next((s for s in seats if s["player"] == you.get("player")), None)
    return {
        "colour": mine["colour"] if mine else None,
        "chips": mine["chips"] if mine else None,
        "out": bool(mine and mine["out"]),
        "others": [s for s in seats if s is not mine],
    }


KIND = GameKind(
    name="sissyfight",
    title="SiSSYFiGHT 3000",
    rules=RULES,
    vocabulary=Vocabulary(counters=("chips",)),
    measures=(Measure("chips", "Chips", counter("chips")),),
    pictures=pictures,
    stand_in=stand_in,
    # docs/rules/sissyfight.md, "Players taken out": out at the end of the turn under way.
    retire=retire_player,
    seat_position=seat_position,
    # docs/rules/sissyfight.md, "Talk": communication must be public; no whispering.
    public_press_only=PRESS_POLICY == "public-only",
    # docs/rules/sissyfight.md speaks of turns ("What happens each turn"), never of rounds.
    round_word="turn",
    terminations=TERMINATIONS,
    problem_codes=PROBLEM_CODES,
)
