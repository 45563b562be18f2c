"""Who plays whom in a round of a tournament: pure pairing rules (docs/tournaments.md).

- **Round-robin** by the circle method: the last player (or a bye, with an odd number) stays
  put while the others turn one place a round; ``n`` players meet each other once in ``n - 1``
  rounds (``n`` with a bye).
- **Swiss** by the **Monrad** system: players ranked by score, then by seed (rating where the
  tournament has ratings, else sign-up order); the highest-ranked unpaired player meets the
  next one below him he has not met yet, going down the list, with backtracking when the
  players left cannot be paired without a repeat. Only when no pairing without a repeat exists
  at all is a repeat allowed (fewest repeats first). With an odd number, the lowest-ranked
  player who has not had a bye gets it (a bye: a won pairing).
- **Sides**: where a pairing plays one game (not both sides), the player who has had the first
  seat fewer times takes it; at equal counts the one whose last game was in the second seat;
  else the higher-ranked player.
- **Multiplayer** (tables): players are seated in games of ``size`` one at a time, by rank,
  each at the table with room where he has met the fewest of those already seated (the first
  such table), which spreads the meetings over the rounds.

Nothing here reads a clock, a database or a random source: the same history gives the same
pairing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """Two players of one round: ``first`` takes the first seat (the Musketeers, White) where
    a pairing plays one game; ``second`` is ``None`` for a bye."""

    first: str
    second: str | None

    @property
    def bye(self) -> bool:
        return self.second is None

    def players(self) -> tuple[str, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


@dataclass(frozen=True)
class Met:
    """One game a player has played already, as the pairing rules need it: with whom (``None``
    for a bye) and in which seat (0 first, 1 second)."""

    player: str
    opponent: str | None
    seat: int = 0


class PairingError(ValueError):
    """The players cannot be paired (too few of them)."""


def round_robin_rounds(players: int) -> int:
    """How many rounds a round-robin of ``players`` takes."""
    return players - 1 if players % 2 == 0 else players


def round_robin(players: Sequence[str], number: int) -> list[Pairing]:
    """Round ``number`` (from 1) of the circle method over ``players`` in seed order.

    The last player (a bye where the number is odd) stays put; the others, in a ring, turn one
    place each round. The fixed player takes the first seat in odd rounds and the second in even
    ones, so his sides alternate; in the ring the player ahead in it takes the first seat."""
    if len(players) < 2:
        raise PairingError(f"a round-robin needs two players or more, not {len(players)}")
    seated: list[str | None] = list(players)
    if len(seated) % 2:
        seated.append(None)
    size = len(seated)
    if not 1 <= number <= size - 1:
        raise PairingError(f"a round-robin of {len(players)} has no round {number}")
    fixed, others = seated[-1], seated[:-1]
    shift = number - 1
    ring = others[shift:] + others[:shift]
    pairs = [(fixed, ring[0]) if number % 2 else (ring[0], fixed)]
    pairs += [(ring[k], ring[size - 1 - k]) for k in range(1, size // 2)]
    return [_pairing(a, b) for a, b in pairs]


def _pairing(a: str | None, b: str | None) -> Pairing:
    """A pairing of two seats of the circle, one of which may be the bye."""
    if a is None:
        assert b is not None
        return Pairing(b, None)
    return Pairing(a, b)


def swiss(ranked: Sequence[str], history: Iterable[Met]) -> list[Pairing]:
    """A Monrad round over ``ranked`` (the players still in, best first: by score, then seed):
    the bye first (with an odd number), then pairs down the list, then the sides. ``history``
    holds every game played so far once from each player's side."""
    if len(ranked) < 2:
        raise PairingError(f"a Swiss round needs two players or more, not {len(ranked)}")
    games = list(history)
    met = Counter(
        frozenset((m.player, m.opponent))
        for m in games
        if m.opponent is not None and m.player < m.opponent
    )
    had_bye = {m.player for m in games if m.opponent is None}
    for repeats in range(len(games) + 1):
        for bye, rest in _bye_choices(ranked, had_bye):
            pairs = _monrad(rest, met, repeats)
            if pairs is not None:
                sided = [_sides(a, b, ranked, games) for a, b in pairs]
                return sided + ([Pairing(bye, None)] if bye is not None else [])
    raise PairingError("no pairing exists")  # pragma: no cover: repeats end it


def _bye_choices(
    ranked: Sequence[str], had_bye: set[str]
) -> Iterable[tuple[str | None, list[str]]]:
    """Who may sit out: nobody with an even number; else the lowest-ranked player first, those
    who had no bye before those who had one."""
    if len(ranked) % 2 == 0:
        yield None, list(ranked)
        return
    bottom_up = list(reversed(ranked))
    for player in [p for p in bottom_up if p not in had_bye] + [
        p for p in bottom_up if p in had_bye
    ]:
        yield player, [p for p in ranked if p != player]


def _monrad(
    players: list[str], met: Counter[frozenset[str]], repeats: int
) -> list[tuple[str, str]] | None:
    """The first pairing down the list with at most ``repeats`` meetings played before
    (depth first: the top player takes the next one he may meet, and so on)."""
    if not players:
        return []
    top, rest = players[0], players[1:]
    for index, other in enumerate(rest):
        before = met[frozenset((top, other))]
        if before > repeats:
            continue
        following = _monrad(rest[:index] + rest[index + 1 :], met, repeats - before)
        if following is not None:
            return [(top, other), *following]
    return None


def _sides(a: str, b: str, ranked: Sequence[str], games: Sequence[Met]) -> Pairing:
    """The seats of one game: fewer first seats first; then the one whose last game was in
    the second seat; else the higher-ranked (``a``, who is above ``b``)."""
    firsts = Counter(m.player for m in games if m.opponent is not None and m.seat == 0)
    if firsts[a] != firsts[b]:
        return Pairing(a, b) if firsts[a] < firsts[b] else Pairing(b, a)
    last_a, last_b = _last_seat(a, games), _last_seat(b, games)
    if last_a != last_b and last_a is not None and last_b is not None:
        return Pairing(a, b) if last_a == 1 else Pairing(b, a)
    return Pairing(a, b) if ranked.index(a) < ranked.index(b) else Pairing(b, a)


def _last_seat(player: str, games: Sequence[Met]) -> int | None:
    seats = [m.seat for m in games if m.player == player and m.opponent is not None]
    return seats[-1] if seats else None


def tables(
    ranked: Sequence[str],
    *,
    size: int,
    meetings: Mapping[frozenset[str], int],
    minimum: int = 2,
) -> list[list[str]]:
    """Multiplayer games of at most ``size`` for ``ranked`` (best first): as few tables as
    hold everybody, their sizes as even as may be; each player, in turn, at the table with room
    where the players seated already have met him the fewest times (``meetings`` per pair).
    A table never has fewer than ``minimum`` players: where ``size`` would leave one short,
    there is one table fewer, and some tables have more than ``size``."""
    if size < 2 or len(ranked) < max(2, minimum):
        raise PairingError(f"cannot seat {len(ranked)} players at tables of {size}")
    count = -(-len(ranked) // size)
    while count > 1 and len(ranked) // count < minimum:
        count -= 1
    room = [len(ranked) // count + (1 if i < len(ranked) % count else 0) for i in range(count)]
    seated: list[list[str]] = [[] for _ in range(count)]
    for player in ranked:
        open_tables = [i for i in range(count) if len(seated[i]) < room[i]]
        best = min(
            open_tables,
            key=lambda i: sum(meetings.get(frozenset((player, o)), 0) for o in seated[i]),
        )
        seated[best].append(player)
    return seated


def meetings_of(games: Iterable[Sequence[str]]) -> dict[frozenset[str], int]:
    """How often each two players sat in one game."""
    counted: Counter[frozenset[str]] = Counter()
    for players in games:
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                counted[frozenset((a, b))] += 1
    return dict(counted)
