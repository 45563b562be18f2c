"""Starship Combat (docs/rules/starship-combat.md): two ships, missiles and shields, chosen
simultaneously.

Each round both captains choose at once to fire a missile, power their shields, do both or do
neither. A missile destroys the other ship unless its shields were powered that round. The game
ends when a ship is destroyed, when the missiles run out, or at the round limit.
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem, SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Rules, Setup
from adjudicator.core.options import int_option, resolve_options
from adjudicator.core.text import is_handle, normalise_line

START_MISSILES = 3
START_POWER = 6

_FIRE_WORDS = frozenset({"fire", "fires", "launch", "shoot"})
_SHIELD_WORDS = frozenset({"shield", "shields"})
_BOTH_WORDS = frozenset({"both"})
_NOTHING_WORDS = frozenset({"nothing", "pass", "none"})
_FILLER_WORDS = frozenset({"and", "a", "the", "my", "missile", "power", "raise", "up", "do"})
_FIRST_WORDS = _FIRE_WORDS | _SHIELD_WORDS | _BOTH_WORDS | _NOTHING_WORDS | {"do", "power", "raise"}
_ALL_WORDS = _FIRE_WORDS | _SHIELD_WORDS | _BOTH_WORDS | _NOTHING_WORDS | _FILLER_WORDS
_SEPARATORS = re.compile(r"[\s,+&/!]+")
_LONGEST_TYPO = 3
"""Longer lines with a word we do not know are chatter ("do you want peace?"), not orders."""


@dataclass(frozen=True)
class Choice:
    """What a ship does in a round: fire a missile, power its shields, both or neither."""

    fire: bool = False
    shield: bool = False


NOTHING = Choice()


@dataclass(frozen=True)
class StarshipState:
    """Both ships between rounds, in seat order, and the rounds played so far."""

    players: tuple[str, str]
    missiles: tuple[int, int]
    power: tuple[int, int]
    destroyed: tuple[bool, bool] = (False, False)
    round: int = 0
    max_rounds: int = 30


def parse_choice(text: str) -> Choice:
    """Read ``FIRE``, ``SHIELD``, ``FIRE SHIELD`` or ``NOTHING``, or a variant of them.

    Accepted: ``SHIELDS``, ``BOTH``, ``FIRE AND SHIELD``, ``SHIELD FIRE``, ``FIRE + SHIELDS``,
    ``POWER SHIELDS``, ``SHIELDS UP``, ``FIRE A MISSILE``, ``PASS``, ``NONE``, ``DO NOTHING``...
    """
    line = normalise_line(text)
    words = [w for w in _SEPARATORS.split(line.lower()) if w]
    if not words:
        raise NotAnOrder(f"not an order: {text!r}")
    if words[0] not in _FIRST_WORDS:
        close = difflib.get_close_matches(words[0], sorted(_FIRST_WORDS), n=1, cutoff=0.75)
        if close and len(words) <= _LONGEST_TYPO:
            raise OrderSyntaxError(
                f"unknown word {words[0]!r} in {line!r}: write FIRE, SHIELD, FIRE SHIELD or "
                "NOTHING",
                suggestion=_canonical_guess([close[0], *words[1:]]),
            )
        raise NotAnOrder(f"not an order: {text!r}")
    for word in words:
        if word not in _ALL_WORDS:
            if len(words) > _LONGEST_TYPO:
                raise NotAnOrder(f"not an order: {text!r}")
            close = difflib.get_close_matches(word, sorted(_ALL_WORDS), n=1, cutoff=0.75)
            raise OrderSyntaxError(
                f"cannot read {word!r} in {line!r}: write FIRE, SHIELD, FIRE SHIELD or NOTHING",
                suggestion=_canonical_guess([close[0] if w == word else w for w in words])
                if close
                else None,
            )
    return _choice_of_words(words, line)


def _choice_of_words(words: list[str], line: str) -> Choice:
    fires = sum(w in _FIRE_WORDS or w in _BOTH_WORDS for w in words)
    shields = sum(w in _SHIELD_WORDS or w in _BOTH_WORDS for w in words)
    nothing = any(w in _NOTHING_WORDS for w in words)
    if fires > 1 or shields > 1:
        raise OrderSyntaxError(
            f"{line!r} says the same thing twice: a ship fires at most one missile and powers "
            "its shields at most once a round",
            suggestion=format_choice(Choice(fire=fires > 0, shield=shields > 0)),
        )
    if nothing and (fires or shields):
        raise OrderSyntaxError(f"{line!r} says both NOTHING and something else: choose one")
    if not (nothing or fires or shields):
        raise OrderSyntaxError(
            f"{line!r} does not say what to do: write FIRE, SHIELD, FIRE SHIELD or NOTHING",
            suggestion="SHIELD" if "power" in words or "raise" in words else None,
        )
    return Choice(fire=fires == 1, shield=shields == 1)


def _canonical_guess(words: list[str]) -> str | None:
    try:
        return format_choice(_choice_of_words(words, " ".join(words)))
    except OrderSyntaxError:
        return None


def format_choice(choice: Choice) -> str:
    parts = [name for name, on in (("FIRE", choice.fire), ("SHIELD", choice.shield)) if on]
    return " ".join(parts) or "NOTHING"


def seat_of(state: StarshipState, player: str) -> int | None:
    """The seat of ``player`` (handles are case-insensitive), or ``None``."""
    wanted = player.lower()
    return next((i for i, p in enumerate(state.players) if p.lower() == wanted), None)


def affordable(state: StarshipState, seat: int, choice: Choice) -> list[Problem]:
    """Ruling 5: "FIRE with no missiles left or SHIELD with no power left is rejected"."""
    problems = []
    if choice.fire and state.missiles[seat] == 0:
        problems.append(Problem("no-missiles", "you cannot FIRE: you have no missiles left"))
    if choice.shield and state.power[seat] == 0:
        problems.append(
            Problem("no-power", "you cannot power your SHIELD: you have no shield power left")
        )
    return problems


def end_of_round(state: StarshipState) -> Outcome | None:
    """Ruling 5, End, checked after each round in the ruled order (never before round 1)."""
    if state.round == 0:
        return None
    a, b = state.players
    if any(state.destroyed):
        # (1) Exactly one ship destroyed: the other player wins. Both destroyed: draw.
        if all(state.destroyed):
            return Outcome("both-destroyed", draw=True)
        return Outcome("destroyed", (b,) if state.destroyed[0] else (a,))
    if state.missiles == (0, 0):
        # (2) Both ships out of missiles: draw.
        return Outcome("both-out-of-missiles", draw=True)
    if 0 in state.missiles:
        # (3) The ship out of missiles loses, at once, while the other still has one.
        return Outcome("out-of-missiles", (b,) if state.missiles[0] == 0 else (a,))
    if state.round >= state.max_rounds:
        # (4) Option max_rounds: the round limit reached is a draw.
        return Outcome("round-limit", draw=True)
    return None


def fight(choices: tuple[Choice, Choice]) -> tuple[bool, bool]:
    """Which ships are destroyed: a missile destroys the other ship unless it shielded."""
    return (choices[1].fire and not choices[0].shield, choices[0].fire and not choices[1].shield)


class StarshipCombatRules:
    """Starship Combat as ruled in docs/rules/starship-combat.md."""

    name: str = "starship-combat"
    sequential: bool = False
    min_players: int = 2
    max_players: int | None = 2
    option_defaults: Mapping[str, str] = MappingProxyType({"max_rounds": "30"})

    def start(
        self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup
    ) -> StarshipState:
        chosen = resolve_options(options, self.option_defaults)
        max_rounds = int_option(chosen, "max_rounds", minimum=1)
        if len(players) != 2:
            raise SetupError(f"starship-combat needs exactly 2 players, not {len(players)}")
        if not all(is_handle(p) for p in players) or players[0].lower() == players[1].lower():
            raise SetupError(f"players {list(players)!r} must be two different valid handles")
        if setup.colours or setup.pieces or setup.to_move:
            raise SetupError("starship-combat has no colours, pieces or side to move")
        seats = (players[0], players[1])
        counts = {"missiles": [START_MISSILES] * 2, "power": [START_POWER] * 2}
        for counter, values in setup.start.items():
            if counter not in counts:
                raise SetupError(f"start: starship-combat has no {counter!r}, only missiles, power")
            for player, value in values.items():
                seat = next((i for i, p in enumerate(seats) if p.lower() == player.lower()), None)
                if seat is None or value < 0:
                    raise SetupError(f"start: {counter} {player}={value} is not allowed")
                counts[counter][seat] = value
        missiles, power = counts["missiles"], counts["power"]
        return StarshipState(
            seats, (missiles[0], missiles[1]), (power[0], power[1]), max_rounds=max_rounds
        )

    def parse_order(self, text: str) -> Choice:
        return parse_choice(text)

    def format_order(self, order: Choice) -> str:
        return format_choice(order)

    def check(self, state: StarshipState, player: str, lines: Sequence[str]) -> Checked[Choice]:
        problems: list[Problem] = []
        unrecognised: list[str] = []
        choices: list[Choice] = []
        seat = seat_of(state, player)
        for line in lines:
            if not normalise_line(line):
                continue
            try:
                choice = parse_choice(line)
            except NotAnOrder:
                unrecognised.append(line)
                continue
            except OrderSyntaxError as error:
                problems.append(Problem("syntax", str(error), line, error.suggestion))
                continue
            choices.append(choice)
            if seat is not None:
                problems += [replace(p, line=line) for p in affordable(state, seat, choice)]
        if seat is None:
            problems.insert(0, Problem("not-a-player", f"{player!r} is not playing in this game"))
        elif end_of_round(state) is not None:
            problems.insert(0, Problem("game-over", "the game is over"))
        attempts = sum(1 for line in lines if normalise_line(line)) - len(unrecognised)
        if attempts > 1:
            problems.append(
                Problem(
                    "one-choice",
                    f"one order per round, but you sent {attempts}: to fire and shield, write "
                    "both on one line",
                    suggestion="FIRE SHIELD",
                )
            )
        return Checked(tuple(choices), tuple(problems), tuple(unrecognised))

    def to_move(self, state: StarshipState) -> tuple[str, ...]:
        return () if end_of_round(state) is not None else state.players

    def resolve(
        self, state: StarshipState, orders: Mapping[str, Sequence[Choice]]
    ) -> Resolution[StarshipState]:
        if end_of_round(state) is not None:
            raise ValueError("the game is over: there is no round to resolve")
        given = {seat_of(state, p): list(c) for p, c in orders.items()}
        picked: list[Choice] = []
        for seat in (0, 1):
            sent = given.get(seat) or [NOTHING]  # Ruling 5, NMR: "Treated as NOTHING".
            if len(sent) > 1 or affordable(state, seat, sent[0]):
                raise ValueError(f"unchecked orders for {state.players[seat]}: {sent!r}")
            picked.append(sent[0])
        choices = (picked[0], picked[1])
        # "Powering shields uses one power whether or not anything was fired."
        new = replace(
            state,
            missiles=(state.missiles[0] - choices[0].fire, state.missiles[1] - choices[1].fire),
            power=(state.power[0] - choices[0].shield, state.power[1] - choices[1].shield),
            destroyed=fight(choices),
            round=state.round + 1,
        )
        p = state.players
        public: dict[str, JSON] = {
            "round": new.round,
            "choices": {p[s]: format_choice(choices[s]) for s in (0, 1)},
            "no_orders": [p[s] for s in (0, 1) if not given.get(s)],
            **self.public_state(new),
        }
        codes = {p[s]: ["applied" if given.get(s) else "nmr-nothing"] for s in (0, 1)}
        return Resolution(new, Report(public, codes=codes))

    def outcome(self, state: StarshipState) -> Outcome | None:
        return end_of_round(state)

    def public_state(self, state: StarshipState) -> dict[str, JSON]:
        # Ruling 5, Report: both choices and both ships' missiles and power are public.
        return {
            "missiles": dict(zip(state.players, state.missiles, strict=True)),
            "power": dict(zip(state.players, state.power, strict=True)),
            "destroyed": [p for p, d in zip(state.players, state.destroyed, strict=True) if d],
        }

    def player_view(self, state: StarshipState, player: str) -> dict[str, JSON]:
        seat = seat_of(state, player)
        you = None if seat is None else state.players[seat]
        return {
            **self.public_state(state),
            "round": state.round,
            "max_rounds": state.max_rounds,
            "you": you,
        }

    def dump(self, state: StarshipState) -> dict[str, JSON]:
        return {
            "players": list(state.players),
            "missiles": list(state.missiles),
            "power": list(state.power),
            "destroyed": list(state.destroyed),
            "round": state.round,
            "max_rounds": state.max_rounds,
        }

    def load(self, data: Mapping[str, JSON]) -> StarshipState:
        a, b = (str(p) for p in data["players"])
        m0, m1 = (int(n) for n in data["missiles"])
        p0, p1 = (int(n) for n in data["power"])
        d0, d1 = (bool(d) for d in data["destroyed"])
        return StarshipState(
            (a, b), (m0, m1), (p0, p1), (d0, d1), int(data["round"]), int(data["max_rounds"])
        )

    def sample_orders(self, state: StarshipState, player: str, rng: random.Random) -> list[str]:
        seat = seat_of(state, player)
        if seat is None or end_of_round(state) is not None:
            return []
        fire = state.missiles[seat] > 0 and rng.random() < 0.4
        shield = state.power[seat] > 0 and rng.random() < 0.6
        return [format_choice(Choice(fire, shield))]


RULES: Rules[StarshipState, Choice] = StarshipCombatRules()
