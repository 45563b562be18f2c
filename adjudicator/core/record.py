"""Game records: the PGN of this project (docs/record-format.md).

``parse_record`` reads a record into a :class:`Record`; every error names its line. The games
and what their ``start:``, ``piece:`` and ``to-move:`` lines may name come from the caller
(each game's ``GameKind.vocabulary``): this module knows no game.
``format_record`` writes one back, so that the archive and the game master's tools can produce
records that parse to the same value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from adjudicator.core.errors import RecordError
from adjudicator.core.game import PieceSpec, Setup
from adjudicator.core.kind import Vocabulary
from adjudicator.core.text import HANDLE

_HEADER = re.compile(r"([a-z][a-z-]*)\s*:\s*(.*)\Z", re.IGNORECASE)
_ROUND = re.compile(r"round\s+(\S+)\Z", re.IGNORECASE)
_ORDER = re.compile(r"([^\s:]+)\s*:\s*(.*)\Z")
_PAIR = re.compile(r"([^\s=]+)=(\S+)\Z")


@dataclass(frozen=True)
class OrderLine:
    """One ``player: order`` line, with its line number in the record."""

    line: int
    player: str
    text: str


@dataclass(frozen=True)
class RecordRound:
    number: int
    line: int
    orders: tuple[OrderLine, ...] = ()


@dataclass(frozen=True)
class Record:
    game: str
    players: tuple[str, ...]
    options: Mapping[str, str] = field(default_factory=dict)
    setup: Setup = field(default_factory=Setup)
    rounds: tuple[RecordRound, ...] = ()


def _strip_comment(raw: str) -> str:
    return raw.split("#", 1)[0].strip()


def _pairs(value: str, *, line: int, what: str) -> list[tuple[str, str]]:
    pairs = []
    for word in value.split():
        match = _PAIR.match(word)
        if not match:
            raise RecordError(line, f"{what}: expected name=value, got {word!r}")
        pairs.append((match.group(1).lower(), match.group(2)))
    return pairs


class _Builder:
    """Collects the header and rounds while the lines are read."""

    def __init__(self, games: Mapping[str, Vocabulary]) -> None:
        self.games = games
        self.game: str | None = None
        self.players: tuple[str, ...] | None = None
        self.options: dict[str, str] = {}
        self.colours: dict[str, str] = {}
        self.start: dict[str, dict[str, int]] = {}
        self.pieces: list[PieceSpec] = []
        self.to_move: str | None = None
        self.rounds: list[RecordRound] = []

    def header(self, key: str, value: str, line: int) -> None:
        handler = {
            "game": self._game,
            "players": self._players,
            "option": self._option,
            "colours": self._colours,
            "colors": self._colours,
            "start": self._start,
            "piece": self._piece,
            "to-move": self._to_move,
        }.get(key.lower())
        if handler is None:
            raise RecordError(line, f"unknown header {key!r}")
        handler(value, line)

    def _game(self, value: str, line: int) -> None:
        if self.game is not None:
            raise RecordError(line, "the game is named twice")
        name = value.strip().lower()
        if name not in self.games:
            raise RecordError(line, f"unknown game {value!r} (known: {', '.join(self.games)})")
        self.game = name

    def _known(self, field: str) -> tuple[str, ...]:
        """The words the record's game allows in ``field`` of :class:`Vocabulary` (every
        game's, in order, while the game is not named yet)."""
        games = [self.games[self.game]] if self.game else list(self.games.values())
        words: list[str] = []
        for vocabulary in games:
            words += [w for w in getattr(vocabulary, field) if w not in words]
        return tuple(words)

    def _players(self, value: str, line: int) -> None:
        if self.players is not None:
            raise RecordError(line, "the players are listed twice")
        players = tuple(word.lower() for word in value.split())
        if not players:
            raise RecordError(line, "no players listed")
        for player in players:
            if not HANDLE.match(player):
                raise RecordError(
                    line,
                    f"{player!r} is not a player handle (a letter, then up to 31 letters, "
                    "digits, '_' or '-')",
                )
        duplicates = sorted({p for p in players if players.count(p) > 1})
        if duplicates:
            raise RecordError(line, f"player {duplicates[0]!r} is listed twice")
        self.players = players

    def _option(self, value: str, line: int) -> None:
        pairs = _pairs(value, line=line, what="option")
        if not pairs:
            raise RecordError(line, "option: expected name=value")
        for name, setting in pairs:
            if name in self.options:
                raise RecordError(line, f"option {name!r} is set twice")
            self.options[name] = setting

    def _colours(self, value: str, line: int) -> None:
        for player, colour in _pairs(value, line=line, what="colours"):
            self._known_player(player, line)
            self.colours[player] = colour.lower()

    def _start(self, value: str, line: int) -> None:
        counter, _, rest = value.strip().partition(" ")
        counter = counter.lower()
        counters = self._known("counters")
        if counter not in counters:
            raise RecordError(
                line, f"start: unknown counter {counter!r} (known: {', '.join(counters)})"
            )
        values = self.start.setdefault(counter, {})
        for player, amount in _pairs(rest, line=line, what="start"):
            self._known_player(player, line)
            if not re.fullmatch(r"\d+", amount):
                raise RecordError(line, f"start: {amount!r} is not a whole number")
            values[player] = int(amount)
        if not values:
            raise RecordError(line, "start: expected <counter> player=value ...")

    def _piece(self, value: str, line: int) -> None:
        words = value.lower().split()
        if len(words) not in (3, 4):
            raise RecordError(line, "piece: expected <owner> <kind> <cell> [height]")
        owner, kind, cell = words[:3]
        owners, kinds = self._known("owners"), self._known("pieces")
        if owner not in owners:
            raise RecordError(line, f"piece: unknown owner {owner!r} (known: {', '.join(owners)})")
        if kind not in kinds:
            raise RecordError(line, f"piece: unknown kind {kind!r} (known: {', '.join(kinds)})")
        height = 1
        if len(words) == 4:
            if not words[3].isdigit() or int(words[3]) < 1:
                raise RecordError(line, f"piece: height {words[3]!r} is not a whole number >= 1")
            height = int(words[3])
        self.pieces.append(PieceSpec(owner=owner, piece=kind, cell=cell, height=height))

    def _to_move(self, value: str, line: int) -> None:
        side = value.strip().lower()
        sides = self._known("sides")
        if side not in sides:
            raise RecordError(line, f"to-move: unknown side {value!r} (known: {', '.join(sides)})")
        self.to_move = side

    def _known_player(self, player: str, line: int) -> None:
        if self.players is None:
            raise RecordError(line, "the players: line must come first")
        if player not in self.players:
            raise RecordError(line, f"{player!r} is not one of the players")

    def begin_round(self, number: str, line: int) -> None:
        if self.game is None:
            raise RecordError(line, "the record has no game: line before its first round")
        if self.players is None:
            raise RecordError(line, "the record has no players: line before its first round")
        expected = len(self.rounds) + 1
        if number != str(expected):
            raise RecordError(line, f"expected round {expected}, found round {number!r}")
        self.rounds.append(RecordRound(number=expected, line=line))

    def order(self, player: str, text: str, line: int) -> None:
        self._known_player(player.lower(), line)
        if not text:
            raise RecordError(line, f"{player}: the order is empty")
        current = self.rounds[-1]
        order = OrderLine(line=line, player=player.lower(), text=text)
        self.rounds[-1] = RecordRound(current.number, current.line, (*current.orders, order))

    def build(self, last_line: int) -> Record:
        if self.game is None:
            raise RecordError(last_line, "the record has no game: line")
        if self.players is None:
            raise RecordError(last_line, "the record has no players: line")
        setup = Setup(
            colours=self.colours,
            start=self.start,
            pieces=tuple(self.pieces),
            to_move=self.to_move,
        )
        return Record(self.game, self.players, self.options, setup, tuple(self.rounds))


def parse_record(text: str, games: Mapping[str, Vocabulary]) -> Record:
    """Read a game record of one of ``games`` (name -> what its setup lines may say). Raises
    :class:`RecordError` naming the first bad line."""
    builder = _Builder(games)
    number = 0
    for number, raw in enumerate(text.replace("\ufeff", "").splitlines(), start=1):
        content = _strip_comment(raw)
        if not content:
            continue
        round_match = _ROUND.match(content)
        if round_match:
            builder.begin_round(round_match.group(1), number)
            continue
        if not builder.rounds:
            header = _HEADER.match(content)
            if not header:
                raise RecordError(number, f"expected a header line 'key: value', got {content!r}")
            builder.header(header.group(1), header.group(2).strip(), number)
            continue
        order = _ORDER.match(content)
        if not order:
            raise RecordError(number, f"expected 'player: order' or 'round N', got {content!r}")
        builder.order(order.group(1), order.group(2).strip(), number)
    return builder.build(max(number, 1))


def format_record(record: Record, *, orders: Sequence[RecordRound] | None = None) -> str:
    """Write ``record`` in the canonical record layout; ``parse_record`` reads it back."""
    lines = [f"game: {record.game}", f"players: {' '.join(record.players)}"]
    lines += [f"option: {name}={value}" for name, value in record.options.items()]
    setup = record.setup
    if setup.colours:
        lines.append("colours: " + " ".join(f"{p}={c}" for p, c in setup.colours.items()))
    for counter, values in setup.start.items():
        lines.append(f"start: {counter} " + " ".join(f"{p}={v}" for p, v in values.items()))
    for piece in setup.pieces:
        height = f" {piece.height}" if piece.height != 1 else ""
        lines.append(f"piece: {piece.owner} {piece.piece} {piece.cell}{height}")
    if setup.to_move:
        lines.append(f"to-move: {setup.to_move}")
    for round_ in record.rounds if orders is None else orders:
        lines += ["", f"round {round_.number}"]
        lines += [f"{order.player}: {order.text}" for order in round_.orders]
    return "\n".join(lines) + "\n"
