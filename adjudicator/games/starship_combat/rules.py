"""The ``Rules`` object of Starship Combat (docs/rules/starship-combat.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem, SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Rules, Setup
from adjudicator.core.options import int_option, resolve_options
from adjudicator.core.text import is_handle, normalise_line
from adjudicator.games.starship_combat.orders import NOTHING, Choice, format_choice, parse_choice
from adjudicator.games.starship_combat.state import (
    START_MISSILES,
    START_POWER,
    StarshipState,
    affordable,
    end_of_round,
    fight,
    seat_of,
)


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
