"""A tournament's standings from its games' results: scores and tie-breaks (docs/tournaments.md).

- A two-player game gives the winner 1 point, the loser 0, each 1/2 in a draw; a game won by
  forfeit counts as won (and lost) all the same. A bye gives what a won pairing would (1 point
  per game of a pairing: 2 where a pairing plays both sides).
- **Buchholz**: the sum of the final scores of the opponents a player met, each opponent once
  per round (a pairing that plays both sides is one meeting). A bye adds nothing.
- **Sonneborn-Berger**: the sum, over the games played, of the points scored in the game times
  that opponent's final score (a win against a strong player counts most). A bye adds nothing.
- **Multiplayer games**: points per placing, :func:`placing_points` (winners, then the
  others), or :func:`placed_points` where the game places every player.
- Order: score, then Buchholz, then Sonneborn-Berger, then games won, then seed. Players equal
  on score and every tie-break share a rank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Result:
    """One game of a tournament, or a bye: the round, what each player scored in it, and how
    it ended (``forfeit``: a player lost on time, withdrew or was declared forfeited)."""

    round: int
    points: Mapping[str, Fraction]
    bye: bool = False
    forfeit: bool = False
    winners: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    rank: int
    player: str
    score: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    won: int
    played: int
    withdrawn: bool = False


WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


def two_player_points(
    players: Sequence[str], winners: Sequence[str], *, draw: bool
) -> dict[str, Fraction]:
    """What each of a two-player game's players scores: 1 a win, 1/2 a draw, 0 a loss."""
    if draw or not winners:
        return dict.fromkeys(players, DRAW)
    return {p: WIN if p in winners else LOSS for p in players}


def placing_points(
    players: Sequence[str], winners: Sequence[str], *, draw: bool
) -> dict[str, Fraction]:
    """The placing table of a multiplayer game of ``n`` players: place ``k`` (from 1) is worth
    ``n - k`` points; players sharing places share their points evenly. A game tells only its
    winners (``Outcome.winners``): they share the first places, the others the rest; a draw
    (nobody won) shares them all."""
    n = len(players)
    if draw or not winners:
        return dict.fromkeys(players, Fraction(n - 1, 2))
    first = len([p for p in players if p in winners])
    top = Fraction(sum(n - k for k in range(1, first + 1)), first)
    rest = n - first
    low = Fraction(sum(n - k for k in range(first + 1, n + 1)), rest) if rest else Fraction(0)
    return {p: top if p in winners else low for p in players}


def placed_points(groups: Sequence[Sequence[str]]) -> dict[str, Fraction]:
    """The placing table over a game's finer placings (``Placed.placings``: a group of tied
    players per place, first place first): of ``n`` players place ``k`` is worth ``n - k``,
    and the players of a group share the points of the places they fill evenly (two sharing
    places 2 and 3 of 4: (2 + 1) / 2 = 1½ each)."""
    n = sum(len(group) for group in groups)
    points: dict[str, Fraction] = {}
    place = 1
    for group in groups:
        if not group:
            continue
        filled = range(place, place + len(group))
        share = Fraction(sum(n - k for k in filled), len(group))
        points |= dict.fromkeys(group, share)
        place += len(group)
    return points


def standings(
    seeds: Sequence[str], results: Sequence[Result], *, withdrawn: frozenset[str] = frozenset()
) -> list[Standing]:
    """The standings of ``seeds`` (every player, in seed order) after ``results``."""
    score: dict[str, Fraction] = dict.fromkeys(seeds, Fraction(0))
    for result in results:
        for player, points in result.points.items():
            score[player] += points
    buchholz: dict[str, Fraction] = dict.fromkeys(seeds, Fraction(0))
    berger: dict[str, Fraction] = dict.fromkeys(seeds, Fraction(0))
    won: dict[str, int] = dict.fromkeys(seeds, 0)
    played: dict[str, int] = dict.fromkeys(seeds, 0)
    met: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for result in results:
        if result.bye:
            continue
        for player, points in result.points.items():
            played[player] += 1
            won[player] += player in result.winners
            for other in result.points:
                if other == player:
                    continue
                met[player].add((result.round, other))
                berger[player] += points * score[other]
    for player, meetings in met.items():
        buchholz[player] = sum((score[o] for _, o in meetings), Fraction(0))

    def key(player: str) -> tuple[Fraction, Fraction, Fraction, int]:
        return (-score[player], -buchholz[player], -berger[player], -won[player])

    ordered = sorted(seeds, key=lambda p: (key(p), seeds.index(p)))
    lines: list[Standing] = []
    for index, player in enumerate(ordered):
        shared = lines and key(lines[-1].player) == key(player)
        lines.append(
            Standing(
                rank=lines[-1].rank if shared else index + 1,
                player=player,
                score=score[player],
                buchholz=buchholz[player],
                sonneborn_berger=berger[player],
                won=won[player],
                played=played[player],
                withdrawn=player in withdrawn,
            )
        )
    return lines


def cross_table(results: Sequence[Result]) -> dict[tuple[str, str], list[Fraction]]:
    """Each player's points against each opponent, game by game (two-player games)."""
    table: dict[tuple[str, str], list[Fraction]] = defaultdict(list)
    for result in results:
        if result.bye:
            continue
        for player, points in result.points.items():
            for other in result.points:
                if other != player:
                    table[player, other].append(points)
    return dict(table)


def figure(value: Fraction) -> str:
    """A score as players write it: ``2``, ``2½``, ``½`` (scores are whole or halves: the
    placing points of players sharing places are the mean of consecutive whole numbers)."""
    whole = int(value)
    half = value - whole == Fraction(1, 2)
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)
