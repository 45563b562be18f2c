"""One kind of game, as the rest of the service sees it: everything per game in one value.

Each game package under ``adjudicator/games/`` exports one :class:`GameKind` as ``KIND``, and
``adjudicator.games`` lists them in one tuple. Nothing outside the game packages knows a game by
name: the record reader takes its setup vocabulary from here, the archive and the history mail
their standings, the mails and the archive their pictures, ``adjudicate replay`` its diagram,
the contract test its termination and problem codes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError
from adjudicator.core.game import JSON, Rules, Setup
from adjudicator.core.layered import LayeredGame


@dataclass(frozen=True)
class Picture:
    """One picture in both forms: ``text`` for plain mail (monospace), ``svg`` for the rest;
    and ``words``, what it shows told in sentences: the text equivalent that a reader who
    cannot see the picture gets (its alt text), position, rings, standings and all."""

    name: str  # a file-name stem, e.g. "board" or "standings"
    title: str  # what it shows, for captions
    text: str
    svg: str
    words: str


Painter = Callable[[Mapping[str, JSON], Mapping[str, JSON]], list[Picture]]
"""The pictures of a position from its public state and the public report of the round that
led to it (``{}`` before round 1)."""

Drawing = Callable[[Mapping[str, JSON], Mapping[str, JSON]], str]
"""One form of a picture (text, SVG or words) from a public state and a report."""


def numbered_picture(
    name: str, title: str, word: str, forms: tuple[Drawing, Drawing, Drawing]
) -> Painter:
    """The painter of a game that shows one picture of its position, drawn in its three
    ``forms`` (text, SVG, words), titled ``title`` and, after a round, "after <word> N" with
    the number the report gives under ``word`` (a "turn" or a "round")."""

    def paint(state: Mapping[str, JSON], report: Mapping[str, JSON]) -> list[Picture]:
        number = report.get(word)
        after = f" after {word} {number}" if number else ""
        text, svg, words = (draw(state, report) for draw in forms)
        return [Picture(name, title + after, text, svg, words)]

    return paint


M = TypeVar("M")  # a game's move value


def marked_move(
    state: Mapping[str, Any], last_move: str | None, parse: Callable[[str], M], game: str
) -> M | None:
    """The move a board picture marks, read by the game's own reader of moves ``parse``:
    ``last_move`` when given, else the state's ``last_move``; None when there is none. A text
    that is not a move of the game (named ``game``) is a ``ValueError``."""
    text = last_move if last_move is not None else state.get("last_move")
    if not text:
        return None
    try:
        return parse(str(text))
    except (NotAnOrder, OrderSyntaxError) as error:
        raise ValueError(f"not a {game} move: {text!r}") from error


@dataclass(frozen=True)
class Vocabulary:
    """What a game record's header may say about this game's start (docs/record-format.md):
    the counters of ``start:`` lines, the owners and kinds of ``piece:`` lines, the sides of a
    ``to-move:`` line. Empty where the game has no such lines."""

    counters: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()
    pieces: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()


Counts = dict[str, int]

SeatPosition = Callable[[Mapping[str, JSON], str], dict[str, JSON]]
"""What one seat has in a position, from that player's view (``Rules.player_view``) and the
player's handle: plain codes and numbers (``{"colour": "green", "chips": 10}``), never prose.
The game's template ``mail/<game>/position.txt.j2`` words them."""


@dataclass(frozen=True)
class Measure:
    """One number per player that tells who is ahead: a line per player in the standings
    chart. ``read`` takes a public state and the players in seat order."""

    key: str  # a stable name for file names and CSS
    label: str  # what it counts, for headings
    read: Callable[[Mapping[str, Any], Sequence[str]], Counts]


def counter(key: str) -> Callable[[Mapping[str, Any], Sequence[str]], Counts]:
    """A measure read straight from a ``{player: number}`` entry of the public state."""

    def read(state: Mapping[str, Any], _players: Sequence[str]) -> Counts:
        return {str(p): int(v) for p, v in state.get(key, {}).items()}

    return read


@dataclass(frozen=True)
class Hint:
    """Where a finished game was decided, for the archive and the game-over mail
    (docs/stand-ins.md, "Hints after the game"): in ``round``, ``player``'s order ``played``
    did worse than ``better``.

    ``exact``: ``played`` turned a won game into a lost one and ``better`` kept the win, as an
    exact search proves. Otherwise ``played`` was the costliest order against the other side's
    equilibrium mix: worth ``worth`` in the expected result (+1 a win, -1 a loss) where
    ``better`` was worth ``value``."""

    round: int
    player: str
    played: str
    better: str
    exact: bool
    worth: float | None = None
    value: float | None = None


@dataclass(frozen=True)
class Solution:
    """A game's complete solution (Three Musketeers, docs/stand-ins.md). The game describes its
    graph (``game``, a :class:`LayeredGame`); the service has it solved into a table of
    ``size`` bytes, keeps it in a file named ``file_name`` and gives the file's bytes back to
    the game with ``install``, which makes its stand-in and hints exact."""

    file_name: str
    size: int
    game: Callable[[], LayeredGame]
    install: Callable[[Any], None]
    old_file_names: tuple[str, ...] = ()
    """Files of earlier layouts: never read, removed once this one is made."""


Hinter = Callable[[Any, Sequence[Mapping[str, Sequence[Any]]]], Hint | None]
"""The hint of a finished game from its start state and the orders in force in each round
(checked orders, by player), or None: nothing can be said within the game's work budget."""


@dataclass(frozen=True)
class GameKind:
    """Everything the service needs to know of one game, beside its rules."""

    name: str  # the name in game records: "three-musketeers"
    title: str  # how people write it: "Three Musketeers"
    rules: Rules[Any, Any]
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    measures: tuple[Measure, ...] = ()
    pictures: Painter = lambda _state, _report: []
    text_diagram: Callable[[Mapping[str, JSON]], str] | None = None
    """A monospace diagram of a public state, for ``adjudicate replay`` (board games)."""
    state_line: Callable[[str, JSON], str | None] = lambda _key, _value: None
    """The game's own words for one entry of the public state where a generic ``key: value``
    line would garble it (Giveaway's rings), for ``adjudicate replay``; None: the generic one."""
    retire: Callable[[Any, str], Any] | None = None
    """What the game does to its state when the game master takes a player out of a running
    game (Giveaway: the player neither gives nor receives, and cannot win); None: nothing, the
    seat's orders are simply missing under the no-orders rule."""
    stand_in: Callable[[Any, str, random.Random], list[str]] | None = None
    """The computer player that can take a seat (docs/stand-ins.md): from the state, the seat's
    player and a seeded ``random.Random``, the order lines it sends, which the game's own
    ``check`` accepts ([] when the seat has nothing to do). Pure: no clock, no global random."""
    hint: Hinter | None = None
    """Where a finished game was decided (:class:`Hint`), bounded in work so that it never
    delays a mail: None where the game gives no hints."""
    solution: Solution | None = None
    """The game's complete solution, where one exists; None for most games."""
    public_press_only: bool = False
    """Whether the game's rules forbid private talk: the service then relays press only to
    every player (SiSSYFiGHT, docs/rules/sissyfight.md "Talk"); otherwise a game allows private
    press unless its game master turns it off."""
    seat_titles: tuple[str, ...] = ()
    """What each seat plays, in seat order and in the game's words ("the Musketeers"), for the
    mails that tell a player their side; empty where every seat plays alike."""
    seat_position: SeatPosition = lambda _view, _player: {}
    """A seat's side or colour and resources in a position, for the welcome (the start) and
    HELP for a game (now): a newcomer must not learn their colour from a rejection."""
    round_word: str = "round"
    """What the game's rules call a round, for the mails ("turn" in SiSSYFiGHT): one word in
    subjects and bodies alike."""
    terminations: frozenset[str] = frozenset()
    """Every ``Outcome.termination`` code the game can end with (templates word each one)."""
    problem_codes: frozenset[str] = frozenset()
    """Every ``Problem.code`` the game's order checking can give."""


def game_hint(
    kind: GameKind,
    *,
    players: Sequence[str],
    options: Mapping[str, str],
    setup: Setup,
    rounds: Sequence[Mapping[str, Sequence[str]]],
) -> Hint | None:
    """The hint of a finished game from its stored rounds (the order lines in force, as the
    game formats them), or None: the game gives none, or finds none within its budget."""
    if kind.hint is None:
        return None
    rules = kind.rules
    try:
        start = rules.start(list(players), options=options, setup=setup)
        parsed = [
            {player: [rules.parse_order(line) for line in lines] for player, lines in r.items()}
            for r in rounds
        ]
    except ValueError:  # a record the game cannot read back: say nothing rather than fail
        return None
    return kind.hint(start, parsed)
