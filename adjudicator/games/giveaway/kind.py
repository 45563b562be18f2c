"""Giveaway as one :class:`GameKind` (docs/rules/giveaway.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.core.kind import GameKind, Measure, Picture, Vocabulary, counter
from adjudicator.games.giveaway import pictures as gw
from adjudicator.games.giveaway.rules import RULES, TERMINATION
from adjudicator.games.giveaway.scoring import TARGET
from adjudicator.games.giveaway.standin import stand_in
from adjudicator.games.giveaway.state import START_HOLDING, retire_player

PROBLEM_CODES = frozenset(
    {
        "amount-in-words",
        "amount-too-large",
        "bad-amount",
        "bad-recipient",
        "extra-words",
        "fractional-amount",
        "game-over",
        "inactive-player",
        "negative-amount",
        "no-recipient",
        "not-playing",
        "self-gift",
        "several-gifts",
        "unknown-player",
        "wrong-total",
    }
)


def pictures(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    """The gift graph with its rings, and the scores."""
    round_ = gw.read_round(state, report)
    after = f" of round {round_.number}" if round_.number else ""
    return [
        Picture(
            "gifts",
            f"The gifts{after} and their rings",
            gw.gifts_text(round_),
            gw.gifts_svg(round_),
            gw.gifts_words(round_),
        ),
        Picture(
            "standings",
            f"The scores{after}",
            gw.standings_text(round_),
            gw.standings_svg(round_),
            gw.standings_words(round_),
        ),
    ]


def state_line(key: str, value: Any) -> str | None:
    """The rings of the round as rings (``a -> b -> c -> a (3 each)``)."""
    if key != "rings":
        return None
    rings: Sequence[Mapping[str, Any]] = value
    text = "; ".join(
        f"{' -> '.join(ring['members'])} -> {ring['members'][0]} ({ring['amount']} each)"
        for ring in rings
    )
    return f"rings: {text or 'none'}"


def seat_position(view: Mapping[str, Any], player: str) -> dict[str, Any]:
    """The points the player holds to give away this round (docs/rules/giveaway.md, "Points":
    3 at the start), their last score, what every round adds and the score that decides."""
    return {
        "points": view.get("holding", 0),
        "score": view["scores"].get(player.lower(), 0),
        "each_round": START_HOLDING,
        "target": TARGET,
    }


KIND = GameKind(
    name="giveaway",
    title="Giveaway",
    rules=RULES,
    vocabulary=Vocabulary(counters=("holdings",)),
    measures=(Measure("scores", "Points received", counter("scores")),),
    pictures=pictures,
    stand_in=stand_in,
    state_line=state_line,
    retire=retire_player,
    seat_position=seat_position,
    terminations=frozenset({TERMINATION}),
    problem_codes=PROBLEM_CODES,
)
