"""Standings over time: the numbers of each game's public state that tell who is ahead.

Which numbers, and how they are read from a public state, is each game's own
(``GameKind.measures``); here they are followed over the rounds of a game. Round 0 is the start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adjudicator.games import kind_of
from adjudicator.readmodel.model import GameView


@dataclass(frozen=True)
class Measure:
    """One number per player, after every round: a line of the standings chart per player."""

    key: str  # a stable name for file names and CSS
    label: str  # what it counts, for headings
    rounds: tuple[int, ...]  # 0 for the start, then each reported round
    values: Mapping[str, tuple[int | None, ...]]  # per player, aligned with ``rounds``

    def latest(self, player: str) -> int | None:
        series = self.values.get(player, ())
        return series[-1] if series else None

    def at(self, player: str, round_number: int) -> int | None:
        if round_number not in self.rounds:
            return None
        return self.values.get(player, ())[self.rounds.index(round_number)]


def measures_of(game: GameView) -> list[Measure]:
    """Every measure of ``game``'s kind, from the start to its last reported round."""
    players = [p.handle for p in game.players]
    states = [game.start_state, *(r.public_state for r in game.rounds)]
    rounds = (0, *(r.number for r in game.rounds))
    found = []
    for measure in kind_of(game.kind).measures:
        counts = [measure.read(state, players) for state in states]
        values = {p: tuple(c.get(p) for c in counts) for p in players}
        found.append(Measure(measure.key, measure.label, rounds, values))
    return found


def player_standing(game: GameView, handle: str) -> str:
    """A code for where a player stands after the last round (the templates word it):
    ``winner``, ``drawn``, ``out`` (SiSSYFiGHT), ``retired`` (taken out by the game master),
    ``lost`` (the game is over) or ``playing``. (A destroyed starship ends its game.)"""
    last = game.last
    state: Mapping[str, Any] = last.public_state if last else game.start_state
    seat = next((p for p in game.players if p.handle == handle), None)
    if last is not None and last.finished:
        if handle in last.winners:
            return "winner"
        return "drawn" if last.draw else "lost"
    if seat is not None and not seat.active:
        return "retired"
    if handle in state.get("out", []):
        return "out"
    return "playing"


TABLE_COLUMNS = 10
"""Rounds side by side in a plain-text table: each block of columns fits a mail's 78 columns."""
TABLE_ROUNDS = 36
"""More rounds than this, and a table shows every n-th round (and always the last)."""


def measure_table(measure: Measure, *, word: str = "round") -> tuple[str, bool]:
    """The measure as plain-text tables for mail: a row per player, a column per round (round 0
    is ``start``), in blocks of :data:`TABLE_COLUMNS`. Also whether rounds were left out (a
    long game shows every n-th round and the last, so that the table stays readable). ``word``
    heads the column of rounds: a game's own word for them (SiSSYFiGHT's turns)."""
    rounds = list(measure.rounds)
    shown = shown_rounds(measure)
    players = list(measure.values)
    name_width = max([len(word), *map(len, players)]) + 2
    blocks = []
    for start in range(0, len(shown), TABLE_COLUMNS):
        block = shown[start : start + TABLE_COLUMNS]
        cells = {p: [_cell(measure.at(p, r)) for r in block] for p in players}
        heads = ["start" if r == 0 else str(r) for r in block]
        width = max(len(text) for text in [*heads, *(c for row in cells.values() for c in row)])
        lines = [word.ljust(name_width) + " ".join(h.rjust(width) for h in heads)]
        lines += [p.ljust(name_width) + " ".join(c.rjust(width) for c in cells[p]) for p in players]
        blocks.append("\n".join(line.rstrip() for line in lines))
    return "\n\n".join(blocks), len(shown) < len(rounds)


def shown_rounds(measure: Measure) -> list[int]:
    """The rounds a mail's table shows: every round, or in a long game every n-th round and
    the last, so that the table stays readable."""
    rounds = list(measure.rounds)
    if not rounds:
        return []
    step = -(-len(rounds) // TABLE_ROUNDS)  # ceiling division
    shown = [r for i, r in enumerate(rounds) if i % step == 0]
    if shown[-1] != rounds[-1]:
        shown.append(rounds[-1])
    return shown


def measure_rows(measure: Measure, *, word: str = "round") -> list[list[str]]:
    """The same table as rows of cells, for an HTML table: a head row (``Player``, ``Start``,
    ``Round 1`` ...), then a row per player."""
    shown = shown_rounds(measure)
    head = ["Player", *("Start" if r == 0 else f"{word.capitalize()} {r}" for r in shown)]
    return [head] + [[p, *(_cell(measure.at(p, r)) for r in shown)] for p in measure.values]


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)
