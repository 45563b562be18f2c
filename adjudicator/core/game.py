"""The game protocol: what every game module provides, and the values it exchanges.

A game is a :class:`Rules` object (fixed rules, no state of its own) working on immutable state
values of the game's own type. The service and ``adjudicate replay`` only ever speak to a game
through this protocol, so simultaneous and sequential games need no special cases outside their
own modules:

* a simultaneous game returns every active player from :meth:`Rules.to_move`; the round is
  resolved once, from everybody's orders, missing orders getting the game's no-orders rule;
* a sequential game returns the one player whose turn it is; a round is one move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from adjudicator.core.errors import Problem

JSON = Any
"""A value made only of dict, list, str, int, float, bool and None."""

S = TypeVar("S")
O = TypeVar("O")  # noqa: E741 - the conventional name: an order value


@dataclass(frozen=True)
class PieceSpec:
    """One ``piece:`` line of a game record, not yet checked by the game."""

    owner: str  # a side: "white", "cardinal"
    piece: str  # what stands there: "rock", "man"
    cell: str
    height: int = 1


@dataclass(frozen=True)
class Setup:
    """Everything a game record's header may say about the start, beyond players and options.

    ``start`` maps a public counter (``holdings``, ``chips``, ``missiles``, ``power``) to the
    players whose starting value it overrides. ``pieces`` replace the standard setup of a board
    game when not empty; ``to_move`` names the side that moves first in such a position.
    """

    colours: Mapping[str, str] = field(default_factory=dict)
    start: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    pieces: Sequence[PieceSpec] = ()
    to_move: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How a game ended. ``termination`` is a stable code the templates turn into words."""

    termination: str
    winners: tuple[str, ...] = ()
    draw: bool = False


@dataclass(frozen=True)
class Checked(Generic[O]):
    """A player's order lines after reading and checking them against the state.

    ``orders`` holds the orders that were read (in the game's canonical values); ``problems``
    lists everything wrong, all at once; ``unrecognised`` lists the lines that do not look like
    orders at all. Orders with any problem must not be applied.
    """

    orders: tuple[O, ...]
    problems: tuple[Problem, ...] = ()
    unrecognised: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Report:
    """What a resolved round tells people, as plain data for templates.

    ``public`` is for everybody; ``private`` holds, per player, what only that player may see
    (it may be empty); ``codes`` maps each player to result codes of their orders, in order.
    """

    public: Mapping[str, JSON]
    private: Mapping[str, Mapping[str, JSON]] = field(default_factory=dict)
    codes: Mapping[str, Sequence[str]] = field(default_factory=dict)


def move_report(
    public: Mapping[str, JSON],
    *,
    mover: str,
    side: JSON,
    move: object | None,
    last_move: object | None,
    ended: Outcome | None,
    **extra: JSON,
) -> Report:
    """The report of a turn of a game where one player moves at a time: the position after it
    (``public``), who moved with which side, the move (None: the mover was silent and
    forfeits), what the game adds (``extra``), the last move on the board and the result if
    the game ended. The mover's code is ``moved`` or ``forfeit``."""
    return Report(
        {
            **public,
            "player": mover,
            "side": side,
            "move": None if move is None else str(move),
            **extra,
            "last_move": None if last_move is None else str(last_move),
            "result": None if ended is None else ended.termination,
        },
        codes={mover: ["forfeit" if move is None else "moved"]},
    )


@dataclass(frozen=True)
class Resolution(Generic[S]):
    """The result of resolving one round: the new state and its report."""

    state: S
    report: Report


@runtime_checkable
class Placed(Protocol):
    """Rules that place every player of a finished game, not only its winners (a series of
    multiplayer games scores by placing: docs/tournaments.md). Optional: a game without it is
    placed by its outcome (the winners first, the others after them, tied)."""

    def placings(self, state: Any) -> tuple[tuple[str, ...], ...]:
        """The players from first place down, a group per place (players tied share one)."""
        ...


class Rules(Protocol[S, O]):
    """The protocol every game module implements (as a module-level ``RULES`` object)."""

    name: str
    """The game's name in game records (``giveaway``, ``three-musketeers``, ...)."""
    sequential: bool
    min_players: int
    max_players: int | None
    option_defaults: Mapping[str, str]
    """Every option the game knows, with its default value, as written in ``option:`` lines."""

    def start(self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup) -> S:
        """The state before round 1. Raises :class:`SetupError` naming what is wrong."""
        ...

    def parse_order(self, text: str) -> O:
        """Read one order line. Raises :class:`NotAnOrder` or :class:`OrderSyntaxError`."""
        ...

    def format_order(self, order: O) -> str:
        """The canonical text of an order; ``parse_order(format_order(o)) == o``."""
        ...

    def check(self, state: S, player: str, lines: Sequence[str]) -> Checked[O]:
        """Read and check one player's order lines against the state, collecting every problem."""
        ...

    def to_move(self, state: S) -> tuple[str, ...]:
        """The players whose orders the next round waits for (none once the game is over)."""
        ...

    def resolve(self, state: S, orders: Mapping[str, Sequence[O]]) -> Resolution[S]:
        """Resolve a round from checked orders; players of :meth:`to_move` missing from
        ``orders`` get the game's no-orders rule (in a sequential game: the timeout rule, applied
        once the grace period is over). Never fails on checked orders."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        ...

    def public_state(self, state: S) -> dict[str, JSON]:
        """The ``state`` object of the replay JSON (see docs/record-format.md)."""
        ...

    def player_view(self, state: S, player: str) -> dict[str, JSON]:
        """What ``player`` may see of the state (for mails); at least the public state."""
        ...

    def dump(self, state: S) -> dict[str, JSON]:
        """The state as JSON; ``load(dump(s)) == s``."""
        ...

    def load(self, data: Mapping[str, JSON]) -> S:
        """Rebuild a state from :meth:`dump`."""
        ...

    def sample_orders(self, state: S, player: str, rng: random.Random) -> list[str]:
        """Random legal order lines for ``player`` (random play tests, benchmarks, demos)."""
        ...
