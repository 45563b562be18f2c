"""Scoring a Giveaway round: missing orders, ring bonuses, scores and the victory of rule 1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from adjudicator.games.giveaway.rings import Gifts, Ring

TARGET = 100
"""Rule 1: victory is looked for "when at least one player has at least 100 points"."""

VICTORY = "victory"
NO_UNIQUE_SCORE = "no-unique-score-yet"
TARGET_NOT_REACHED = "no-score-of-100-yet"


def spread_holding(giver: str, holding: int, *, active: Sequence[str]) -> list[tuple[str, int]]:
    """NMR, option ``nmr=spread``: "The holding is split as evenly as possible among all other
    active players; the remainder goes 1 point each to the players following the NMR player in
    seat order." Returns (recipient, amount) in seat order from the giver on; no zero gifts."""
    seat = active.index(giver)
    others = len(active) - 1
    if others == 0:
        return []
    share, remainder = divmod(holding, others)
    receiving = others if share else remainder  # nobody is given 0
    return [
        (active[(seat + i) % len(active)], share + (1 if i <= remainder else 0))
        for i in range(1, receiving + 1)
    ]


def gift_totals(gifts: Iterable[tuple[str, str, int]]) -> dict[tuple[str, str], int]:
    """docs/rules/giveaway.md: "Several lines to the same recipient are added together"; the graph
    of rules 5 and 6 holds positive gifts only."""
    totals: Counter[tuple[str, str]] = Counter()
    for giver, recipient, amount in gifts:
        totals[giver, recipient] += amount
    return {pair: amount for pair, amount in totals.items() if amount > 0}


def ring_payments(totals: Gifts, rings: Iterable[Ring]) -> dict[tuple[str, str], int]:
    """What each gift pays its recipient. Rule 5: a ring's gift pays k x size instead of k;
    docs/rules/giveaway.md: "the gift pays k + sum over its rings of k x (size_i - 1)"."""
    paid = dict(totals)
    for ring in rings:
        for pair in ring.gifts():
            paid[pair] += ring.bonus
    return paid


def scores_received(paid: Mapping[tuple[str, str], int], players: Sequence[str]) -> list[int]:
    """docs/rules/giveaway.md, Score: "everything received that round (gifts plus bonus)"."""
    received: Counter[str] = Counter()
    for (_, recipient), amount in paid.items():
        received[recipient] += amount
    return [received[p] for p in players]


def rule_1_victory(scores: Mapping[str, int]) -> tuple[str, str | None]:
    """Rule 1, read literally: once any score is >= 100, only scores held by exactly one player
    count, and the highest of those wins, whatever its size. Returns (code, winner)."""
    if not scores or max(scores.values()) < TARGET:
        return TARGET_NOT_REACHED, None
    held_by = Counter(scores.values())
    unique = [(score, player) for player, score in scores.items() if held_by[score] == 1]
    if not unique:
        return NO_UNIQUE_SCORE, None
    return VICTORY, max(unique)[1]
