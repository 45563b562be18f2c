"""The ``Rules`` object of SiSSYFiGHT 3000 (docs/rules/sissyfight.md) and the turn's losses."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from adjudicator.core.errors import NotAnOrder, OrderSyntaxError, Problem, SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Rules, Setup
from adjudicator.core.options import resolve_options
from adjudicator.core.text import did_you_mean, is_handle, normalise_line
from adjudicator.games.sissyfight.orders import (
    ACTIONS,
    DEFEND,
    SOLO,
    TEAM,
    Action,
    format_action,
    parse_action,
)
from adjudicator.games.sissyfight.state import (
    COLOURS,
    START_CHIPS,
    SissyState,
    TargetError,
    end_of_game,
    read_colour,
    remaining,
    seat_of,
    target_seat,
)

PRESS_POLICY = "public-only"
"""Talk rule 2: press goes to every player; private (one-to-one) press is refused."""


def attacks_on(actions: Mapping[int, Action], colour: str) -> tuple[int, int]:
    """How many SOLO and how many TEAM actions name ``colour``."""
    named = list(actions.values())
    return named.count(Action(SOLO, colour)), named.count(Action(TEAM, colour))


def damage(*, solos: int, teams: int, defending: bool) -> int:
    """The chips a player must discard this turn (ruling 2, Resolution).

    1 per SOLO, plus 2 per TEAM if at least two TEAMs name the player ("a lone TEAM does
    nothing"). A DEFENDer loses half of that, rounded down, if any SOLO or TEAM named them, even
    a lone harmless TEAM; otherwise exactly 1.
    """
    total = solos + (2 * teams if teams >= 2 else 0)
    if not defending:
        return total
    return total // 2 if solos + teams > 0 else 1


class SissyfightRules:
    """SiSSYFiGHT 3000 as ruled in docs/rules/sissyfight.md."""

    name: str = "sissyfight"
    sequential: bool = False
    min_players: int = 3
    max_players: int | None = 6
    option_defaults: Mapping[str, str] = MappingProxyType({})
    press_policy: str = PRESS_POLICY

    def start(
        self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup
    ) -> SissyState:
        resolve_options(options, self.option_defaults)
        seats = _check_players(players)
        if setup.pieces or setup.to_move:
            raise SetupError("sissyfight has no board: piece: and to-move: lines do not apply")
        colours = _assign_colours(seats, setup.colours)
        chips = _starting_chips(seats, setup.start)
        return SissyState(seats, colours, chips)

    def parse_order(self, text: str) -> Action:
        return parse_action(text)

    def format_order(self, order: Action) -> str:
        return format_action(order)

    def check(self, state: SissyState, player: str, lines: Sequence[str]) -> Checked[Action]:
        problems: list[Problem] = []
        unrecognised: list[str] = []
        read: list[tuple[str, Action]] = []
        attempts = 0
        for line in lines:
            if not normalise_line(line):
                continue
            try:
                read.append((line, parse_action(line)))
                attempts += 1
            except NotAnOrder:
                unrecognised.append(line)
            except OrderSyntaxError as error:
                attempts += 1
                problems.append(Problem("syntax", str(error), line, error.suggestion))
        seat = seat_of(state, player)
        if seat is None:
            problems.insert(0, Problem("not-a-player", f"{player!r} is not playing in this game"))
        elif end_of_game(state) is not None:
            problems.insert(0, Problem("game-over", "the game is over"))
        elif state.chips[seat] == 0:
            problems.insert(0, Problem("player-out", "you are out of the game (no chips left)"))
        elif seat in state.leaving:
            problems.insert(
                0, Problem("player-out", "the game master has taken you out of the game")
            )
        if attempts > 1:
            # Ruling 2: "One action per turn."
            problems.append(
                Problem(
                    "one-action",
                    f"one action per turn, but you sent {attempts}: send exactly one of "
                    "SOLO <colour>, TEAM <colour> or DEFEND",
                )
            )
        orders: list[Action] = []
        for line, action in read:
            if seat is None or action.target is None:
                orders.append(action)
                continue
            try:
                target = target_seat(state, seat, action.target)
                orders.append(Action(action.kind, state.colours[target]))
            except TargetError as error:
                orders.append(action)
                hint = error.suggestion and f"{action.kind} {error.suggestion}"
                problems.append(Problem(error.code, str(error), line, hint))
        return Checked(tuple(orders), tuple(problems), tuple(unrecognised))

    def to_move(self, state: SissyState) -> tuple[str, ...]:
        if end_of_game(state) is not None:
            return ()
        return tuple(state.players[i] for i in remaining(state) if i not in state.leaving)

    def resolve(
        self, state: SissyState, orders: Mapping[str, Sequence[Action]]
    ) -> Resolution[SissyState]:
        if end_of_game(state) is not None:
            raise ValueError("the game is over: there is no turn to resolve")
        actions, no_orders = _actions_of_turn(state, orders)
        attacks = {s: attacks_on(actions, state.colours[s]) for s in actions}
        losses = {
            s: damage(solos=solos, teams=teams, defending=actions[s].kind == DEFEND)
            for s, (solos, teams) in attacks.items()
        }
        # "Subtract all losses at once, never below 0."
        chips = tuple(max(0, c - losses.get(s, 0)) for s, c in enumerate(state.chips))
        # Seats taken out by the game master are out at the end of the turn, as if knocked out.
        removed = [s for s in sorted(state.leaving) if chips[s] > 0]
        chips = tuple(0 if s in state.leaving else c for s, c in enumerate(chips))
        new = SissyState(state.players, state.colours, chips, state.turn + 1)
        players = state.players
        public: dict[str, JSON] = {
            "turn": new.turn,
            "actions": {
                players[s]: {"action": a.kind, "target": a.target} for s, a in actions.items()
            },
            "no_orders": [players[s] for s in no_orders],
            "attacks": {players[s]: {"solo": so, "team": te} for s, (so, te) in attacks.items()},
            "damage": {players[s]: loss for s, loss in losses.items()},
            "chips_lost": {players[s]: state.chips[s] - chips[s] for s in actions},
            "knocked_out": [players[s] for s in actions if chips[s] == 0 and s not in removed],
            **({"removed": [players[s] for s in removed]} if removed else {}),
            **self.public_state(new),
        }
        codes = {players[s]: ["nmr-defend" if s in no_orders else "applied"] for s in actions}
        return Resolution(new, Report(public, codes=codes))

    def outcome(self, state: SissyState) -> Outcome | None:
        return end_of_game(state)

    def public_state(self, state: SissyState) -> dict[str, JSON]:
        return {
            "chips": dict(zip(state.players, state.chips, strict=True)),
            "colours": dict(zip(state.players, state.colours, strict=True)),
            "out": [p for p, c in zip(state.players, state.chips, strict=True) if c == 0],
        }

    def player_view(self, state: SissyState, player: str) -> dict[str, JSON]:
        seat = seat_of(state, player)
        view = self.public_state(state)
        if seat is not None:
            view["you"] = {"player": state.players[seat], "colour": state.colours[seat]}
        return view

    def dump(self, state: SissyState) -> dict[str, JSON]:
        dumped: dict[str, JSON] = {
            "players": list(state.players),
            "colours": list(state.colours),
            "chips": list(state.chips),
            "turn": state.turn,
        }
        if state.leaving:
            dumped["leaving"] = sorted(state.leaving)
        return dumped

    def load(self, data: Mapping[str, JSON]) -> SissyState:
        players = tuple(str(p) for p in data["players"])
        colours = tuple(str(c) for c in data["colours"])
        chips = tuple(int(c) for c in data["chips"])
        if not len(players) == len(colours) == len(chips):
            raise ValueError(f"players, colours and chips differ in length: {data!r}")
        leaving = data.get("leaving") or []
        if not isinstance(leaving, list):
            raise ValueError(f"leaving is a list of seats: {data!r}")
        seats = frozenset(int(seat) for seat in leaving)
        return SissyState(players, colours, chips, int(data["turn"]), seats)

    def sample_orders(self, state: SissyState, player: str, rng: random.Random) -> list[str]:
        seat = seat_of(state, player)
        if seat is None or state.chips[seat] == 0 or end_of_game(state) is not None:
            return []
        others = [s for s in remaining(state) if s != seat]
        kind = rng.choice(ACTIONS)
        if kind == DEFEND:
            return [DEFEND]
        target = rng.choice(others)
        name = rng.choice((state.colours[target], state.players[target]))
        return [f"{kind} {name}"]


def _check_players(players: Sequence[str]) -> tuple[str, ...]:
    if not 3 <= len(players) <= 6:
        raise SetupError(f"sissyfight needs 3 to 6 players, not {len(players)}")
    bad = [p for p in players if not is_handle(p)]
    if bad:
        raise SetupError(f"{bad[0]!r} is not a valid player handle")
    if len({p.lower() for p in players}) < len(players):
        raise SetupError(f"a player is listed twice in {list(players)!r}")
    return tuple(players)


def _assign_colours(players: tuple[str, ...], assigned: Mapping[str, str]) -> tuple[str, ...]:
    """The game master's colours, the rest given out in seat order from the unused colours."""
    chosen: dict[int, str] = {}
    lowered = [p.lower() for p in players]
    for player, raw in assigned.items():
        if player.lower() not in lowered:
            hint = did_you_mean(player, lowered)
            raise SetupError(
                f"colours: {player!r} is not a player of this game"
                + (f"; did you mean {hint!r}?" if hint else "")
            )
        colour = read_colour(raw.strip())
        if colour is None:
            raise SetupError(f"colours: {raw!r} is not a colour (use {', '.join(COLOURS)})")
        if colour in chosen.values():
            raise SetupError(f"colours: {colour} is given to more than one player")
        chosen[lowered.index(player.lower())] = colour
    spare = iter(c for c in COLOURS if c not in chosen.values())
    return tuple(chosen[i] if i in chosen else next(spare) for i in range(len(players)))


def _starting_chips(
    players: tuple[str, ...], start: Mapping[str, Mapping[str, int]]
) -> tuple[int, ...]:
    chips = dict.fromkeys((p.lower() for p in players), START_CHIPS)
    for counter, values in start.items():
        if counter != "chips":
            raise SetupError(f"start: sissyfight has no {counter!r} counter, only 'chips'")
        for player, value in values.items():
            if player.lower() not in chips:
                raise SetupError(f"start: chips: {player!r} is not a player of this game")
            if value < 1:
                raise SetupError(f"start: chips: {player} must start with at least 1 chip")
            chips[player.lower()] = value
    return tuple(chips.values())


def _actions_of_turn(
    state: SissyState, orders: Mapping[str, Sequence[Action]]
) -> tuple[dict[int, Action], list[int]]:
    """Each remaining seat's action with its target as a colour, and the seats that sent none.

    Ruling 2, NMR: "Treated as DEFEND".
    """
    given = {seat_of(state, p): list(a) for p, a in orders.items()}
    actions: dict[int, Action] = {}
    no_orders: list[int] = []
    for seat in remaining(state):
        sent = given.get(seat) or []
        if not sent:
            no_orders.append(seat)
            actions[seat] = Action(DEFEND)
            continue
        if len(sent) > 1:
            raise ValueError(f"{state.players[seat]} has more than one action: {sent!r}")
        action = sent[0]
        if action.target is not None:
            target = target_seat(state, seat, action.target)
            action = Action(action.kind, state.colours[target])
        actions[seat] = action
    return actions, no_orders


RULES: Rules[SissyState, Action] = SissyfightRules()
