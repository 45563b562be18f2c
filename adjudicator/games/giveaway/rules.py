"""The ``Rules`` object of Giveaway (docs/rules/giveaway.md): a round's gifts in, its scores,
rings and report out."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from adjudicator.core.errors import NotAnOrder, Problem, SetupError
from adjudicator.core.game import JSON, Checked, Outcome, Report, Resolution, Setup
from adjudicator.core.options import choice_option, resolve_options
from adjudicator.core.text import is_handle, normalise_line
from adjudicator.games.giveaway.orders import (
    Gift,
    GiftSyntaxError,
    format_gift,
    parse_gift,
    recipient_problems,
    total_problem,
)
from adjudicator.games.giveaway.rings import BrokenCycles, find_broken_cycles, find_rings
from adjudicator.games.giveaway.scoring import (
    gift_totals,
    ring_payments,
    rule_1_victory,
    scores_received,
    spread_holding,
)
from adjudicator.games.giveaway.state import (
    NMR_RULES,
    START_HOLDING,
    GiveawayState,
    dump_state,
    load_state,
    public_state,
)

TERMINATION = "highest-unique-score"


def _start_holdings(players: Sequence[str], setup: Setup) -> tuple[int, ...]:
    """Rule 2, unless the record's ``start: holdings alice=5`` overrides it."""
    holdings = dict.fromkeys(players, START_HOLDING)
    for counter, values in setup.start.items():
        if counter != "holdings":
            raise SetupError(f"start: giveaway has no {counter!r}, only holdings")
        for player, value in values.items():
            if player.lower() not in holdings or value < 0:
                raise SetupError(f"start: holdings {player}={value} is not allowed")
            holdings[player.lower()] = value
    return tuple(holdings.values())


def _orders_as_gifts(
    state: GiveawayState, orders: Mapping[str, Sequence[Gift]]
) -> tuple[list[tuple[str, str, int]], list[dict[str, JSON]], dict[str, list[str]]]:
    """Every gift of the round (those of the NMR rule included), the NMR list and the codes."""
    given = {player.lower(): list(gifts) for player, gifts in orders.items()}
    gifts: list[tuple[str, str, int]] = []
    no_orders: list[dict[str, JSON]] = []
    codes: dict[str, list[str]] = {}
    active = state.active
    for player in active:
        holding = state.holding(player)
        if player in given:
            _refuse_unchecked(state, player, gifts=given[player])
            gifts += [(player, g.recipient, g.amount) for g in given[player]]
            codes[player] = ["given"] * len(given[player])
        elif state.nmr == "spread":
            # These are ordinary gifts: "they count for rings and they break rings".
            gifts += [(player, to, n) for to, n in spread_holding(player, holding, active=active)]
            no_orders.append({"player": player, "holding": holding, "rule": "spread"})
            codes[player] = ["no-orders-spread"]
        else:
            no_orders.append({"player": player, "holding": holding, "rule": "lose"})
            codes[player] = ["no-orders-lost"]
    return gifts, no_orders, codes


def _refuse_unchecked(state: GiveawayState, player: str, *, gifts: Sequence[Gift]) -> None:
    """Resolve never fails on checked orders; unchecked bad ones are a caller's bug."""
    bad = [
        g
        for g in gifts
        if g.amount < 0
        or g.recipient == player
        or g.recipient not in state.seats
        or g.recipient in state.inactive
    ]
    if bad or sum(g.amount for g in gifts) != state.holding(player):
        raise ValueError(f"orders of {player!r} were not checked: {list(gifts)!r}")


def _report(
    state: GiveawayState,
    *,
    paid: Mapping[tuple[str, str], int],
    totals: Mapping[tuple[str, str], int],
    broken: BrokenCycles,
    no_orders: list[dict[str, JSON]],
    result: str,
) -> dict[str, JSON]:
    """docs/rules/giveaway.md, Report: everything is public after adjudication."""
    seats = state.seats
    shown = public_state(state)
    return {
        "round": state.round,
        "gifts": [
            {"from": giver, "to": recipient, "amount": totals[giver, recipient], "paid": amount}
            for (giver, recipient), amount in sorted(
                paid.items(), key=lambda item: (seats[item[0][0]], seats[item[0][1]])
            )
        ],
        "no_orders": no_orders,
        "rings": [
            {"members": list(r.members), "amount": r.amount, "size": r.size, "bonus": r.bonus}
            for r in state.rings
        ],
        "broken_cycles": [
            {
                "members": list(c.members),
                "amount": c.amount,
                "broken_by": [{"from": u, "to": v, "amount": n} for u, v, n in c.broken_by],
            }
            for c in broken.cycles
        ],
        "broken_cycles_total": broken.total,
        "scores": shown["scores"],
        "holdings": shown["holdings"],
        "result": result,
        "winner": state.winner,
    }


class GiveawayRules:
    """Giveaway as ruled in docs/rules/giveaway.md."""

    name: str = "giveaway"
    sequential: bool = False
    min_players: int = 3
    max_players: int | None = None
    option_defaults: Mapping[str, str] = MappingProxyType({"nmr": "spread"})

    def start(
        self, players: Sequence[str], *, options: Mapping[str, str], setup: Setup
    ) -> GiveawayState:
        chosen = resolve_options(options, self.option_defaults)
        nmr = choice_option(chosen, "nmr", NMR_RULES)
        seats = tuple(p.lower() for p in players)
        if len(seats) < self.min_players:
            raise SetupError(f"giveaway needs at least 3 players, not {len(seats)}")
        bad = [p for p in players if not is_handle(p)]
        if bad:
            raise SetupError(f"{bad[0]!r} is not a valid player handle")
        if len(set(seats)) != len(seats):
            raise SetupError("a player is listed twice")
        if setup.colours or setup.pieces or setup.to_move:
            raise SetupError("giveaway has no colours, pieces or side to move")
        holdings = _start_holdings(seats, setup)
        return GiveawayState(seats, holdings, (0,) * len(seats), nmr=nmr)

    def parse_order(self, text: str) -> Gift:
        return parse_gift(text)

    def format_order(self, order: Gift) -> str:
        return format_gift(order)

    def check(self, state: GiveawayState, player: str, lines: Sequence[str]) -> Checked[Gift]:
        player = player.lower()
        if state.winner is not None:
            return Checked((), (Problem("game-over", "the game is over"),))
        if player not in state.seats or player in state.inactive:
            return Checked((), (Problem("not-playing", f"{player!r} is not playing"),))
        holding = state.holding(player)
        held = f"you hold {holding} point{'' if holding == 1 else 's'}"
        gifts: list[Gift] = []
        problems: list[Problem] = []
        unrecognised: list[str] = []
        unreadable = 0
        for line in lines:
            if not normalise_line(line):
                continue
            try:
                gift = parse_gift(line)
            except NotAnOrder:
                unrecognised.append(line)
                continue
            except GiftSyntaxError as error:
                unreadable += 1
                problems.append(Problem(error.code, f"{error} ({held})", line, error.suggestion))
                continue
            gifts.append(gift)
            problems += [
                replace(p, message=f"{p.message} ({held})")
                for p in recipient_problems(
                    gift, giver=player, players=state.seats, inactive=state.inactive, line=line
                )
            ]
        wrong_total = total_problem(gifts, holding=holding, unreadable=unreadable)
        if wrong_total is not None:
            problems.append(wrong_total)
        return Checked(tuple(gifts), tuple(problems), tuple(unrecognised))

    def to_move(self, state: GiveawayState) -> tuple[str, ...]:
        return () if state.winner is not None else state.active

    def resolve(
        self, state: GiveawayState, orders: Mapping[str, Sequence[Gift]]
    ) -> Resolution[GiveawayState]:
        if state.winner is not None:
            raise ValueError("the game is over")
        gifts, no_orders, codes = _orders_as_gifts(state, orders)
        totals = gift_totals(gifts)
        rings = find_rings(totals)
        paid = ring_payments(totals, rings)
        scores = scores_received(paid, state.players)
        active = set(state.active)
        result, winner = rule_1_victory(
            {p: s for p, s in zip(state.players, scores, strict=True) if p in active}
        )
        new = replace(
            state,
            scores=tuple(scores),
            # Rule 4: "any points given to them ... plus any bonus points earned, plus three".
            holdings=tuple(
                s + START_HOLDING if p in active else 0
                for p, s in zip(state.players, scores, strict=True)
            ),
            rings=rings,
            round=state.round + 1,
            winner=winner,
        )
        public = _report(
            new,
            paid=paid,
            totals=totals,
            broken=find_broken_cycles(totals),
            no_orders=no_orders,
            result=result,
        )
        return Resolution(new, Report(public, codes=codes))

    def outcome(self, state: GiveawayState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(TERMINATION, (state.winner,))

    def placings(self, state: GiveawayState) -> tuple[tuple[str, ...], ...]:
        """The winner first; then the players still in by their score of the last round,
        highest first, equal scores sharing a place; last, together, those taken out of the
        game (docs/tournaments.md: a series of Giveaway games scores by these placings)."""
        first: tuple[str, ...] = (state.winner,) if state.winner is not None else ()
        score = dict(zip(state.players, state.scores, strict=True))
        others = [p for p in state.active if p not in first]
        groups: list[tuple[str, ...]] = [first] if first else []
        for value in sorted({score[p] for p in others}, reverse=True):
            groups.append(tuple(p for p in others if score[p] == value))
        out = tuple(p for p in state.players if p in state.inactive and p not in first)
        return tuple(groups + ([out] if out else []))

    def public_state(self, state: GiveawayState) -> dict[str, JSON]:
        return public_state(state)

    def player_view(self, state: GiveawayState, player: str) -> dict[str, JSON]:
        view = public_state(state)
        view["round"] = state.round
        player = player.lower()
        if player in state.seats and player not in state.inactive:
            view["holding"] = state.holding(player)
        return view

    def dump(self, state: GiveawayState) -> dict[str, JSON]:
        return dump_state(state)

    def load(self, data: Mapping[str, JSON]) -> GiveawayState:
        return load_state(data)

    def sample_orders(self, state: GiveawayState, player: str, rng: random.Random) -> list[str]:
        """A random legal split of the holding among up to three others (maybe one twice)."""
        player = player.lower()
        others = [p for p in state.active if p != player]
        holding = state.holding(player)
        if not others or holding == 0:
            return []
        recipients = [rng.choice(others) for _ in range(rng.randint(1, 3))]
        cuts = sorted(rng.randint(0, holding) for _ in recipients[1:])
        amounts = [b - a for a, b in zip([0, *cuts], [*cuts, holding], strict=True)]
        return [format_gift(Gift(n, to)) for to, n in zip(recipients, amounts, strict=True)]


RULES = GiveawayRules()
