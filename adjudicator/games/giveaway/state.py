"""The Giveaway position between rounds, and its JSON forms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from adjudicator.core.game import JSON
from adjudicator.games.giveaway.rings import Ring

START_HOLDING = 3
"""Rule 2: "All players start round 1 with three points"; rule 4 adds three every round."""
NMR_RULES = ("spread", "lose")


@dataclass(frozen=True)
class GiveawayState:
    """Holdings for the next round and the last round's scores and rings, in seat order.

    ``inactive`` players (removed from the game by the game master) neither give nor receive and
    are left out of the scores and holdings that are shown; ``winner`` is set once rule 1 ends
    the game.
    """

    players: tuple[str, ...]
    holdings: tuple[int, ...]
    scores: tuple[int, ...]
    rings: tuple[Ring, ...] = ()
    inactive: frozenset[str] = field(default_factory=frozenset)
    round: int = 0
    nmr: str = "spread"
    winner: str | None = None

    @cached_property
    def active(self) -> tuple[str, ...]:
        """The players still in the game, in seat order."""
        return tuple(p for p in self.players if p not in self.inactive)

    @cached_property
    def seats(self) -> dict[str, int]:
        """Each player's seat number (0 for the first seat)."""
        return {player: seat for seat, player in enumerate(self.players)}

    def holding(self, player: str) -> int:
        return self.holdings[self.seats[player]]


def public_state(state: GiveawayState) -> dict[str, JSON]:
    """docs/record-format.md: ``scores``, ``holdings`` and ``rings`` sorted by members."""
    shown = [i for i, p in enumerate(state.players) if p not in state.inactive]
    return {
        "scores": {state.players[i]: state.scores[i] for i in shown},
        "holdings": {state.players[i]: state.holdings[i] for i in shown},
        "rings": [
            {"members": list(ring.members), "amount": ring.amount} for ring in sorted(state.rings)
        ],
    }


def dump_state(state: GiveawayState) -> dict[str, JSON]:
    return {
        "players": list(state.players),
        "holdings": list(state.holdings),
        "scores": list(state.scores),
        "rings": [{"members": list(r.members), "amount": r.amount} for r in state.rings],
        "inactive": sorted(state.inactive),
        "round": state.round,
        "nmr": state.nmr,
        "winner": state.winner,
    }


def load_state(data: Mapping[str, JSON]) -> GiveawayState:
    return GiveawayState(
        players=tuple(data["players"]),
        holdings=tuple(data["holdings"]),
        scores=tuple(data["scores"]),
        rings=tuple(Ring(tuple(r["members"]), r["amount"]) for r in data["rings"]),
        inactive=frozenset(data["inactive"]),
        round=data["round"],
        nmr=data["nmr"],
        winner=data["winner"],
    )


def retire_player(state: GiveawayState, player: str) -> GiveawayState:
    """Take ``player`` out of the game (a game master's decision): from the next round they
    neither give nor receive, and their holding is gone. Orders already accepted for the open
    round must be checked again: gifts to ``player`` are no longer valid."""
    seat = state.seats[player.lower()]
    holdings = list(state.holdings)
    holdings[seat] = 0
    return replace(state, inactive=state.inactive | {state.players[seat]}, holdings=tuple(holdings))
