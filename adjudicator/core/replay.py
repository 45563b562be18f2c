"""Replaying a game record: the JSON of ``adjudicate replay`` (docs/record-format.md).

A replay runs each round through the game's own rules exactly as the service does: orders the
game would reject at submission are reported and count as no orders (in a sequential game a
rejected move changes nothing and the same side is still to move).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.core.errors import RecordError, SetupError
from adjudicator.core.game import JSON, Outcome, Report, Rules
from adjudicator.core.record import OrderLine, Record, RecordRound


@dataclass(frozen=True)
class Rejected:
    player: str
    order: str
    error: str

    def to_json(self) -> dict[str, str]:
        return {"player": self.player, "order": self.order, "error": self.error}


@dataclass(frozen=True)
class ReplayedRound:
    """One round of a replay: what was rejected, the state after it and its report."""

    number: int
    rejected: tuple[Rejected, ...]
    state: dict[str, JSON]
    outcome: Outcome | None
    report: Report | None

    def to_json(self, players: Sequence[str]) -> dict[str, JSON]:
        return {
            "round": self.number,
            "rejected": [r.to_json() for r in self.rejected],
            "state": self.state,
            **_outcome_json(self.outcome, players),
        }


def _outcome_json(outcome: Outcome | None, players: Sequence[str]) -> dict[str, JSON]:
    if outcome is None:
        return {"finished": False, "winners": [], "draw": False}
    winners = [p for p in players if p in outcome.winners]
    return {"finished": True, "winners": winners, "draw": outcome.draw}


def _group(orders: Sequence[OrderLine]) -> dict[str, list[OrderLine]]:
    grouped: dict[str, list[OrderLine]] = {}
    for order in orders:
        grouped.setdefault(order.player, []).append(order)
    return grouped


def _check_round(
    rules: Rules[Any, Any], state: Any, round_: RecordRound
) -> tuple[dict[str, list[Any]], list[Rejected]]:
    """Check each player's lines of one round; return the accepted orders and the rejections."""
    movers = rules.to_move(state)
    accepted: dict[str, list[Any]] = {}
    rejected: list[Rejected] = []
    for player, lines in _group(round_.orders).items():
        texts = [line.text for line in lines]
        if player not in movers:
            why = "it is not this player's turn" if rules.sequential else "this player is out"
            rejected += [Rejected(player, text, why) for text in texts]
            continue
        checked = rules.check(state, player, texts)
        problems = [(p.line, p.message) for p in checked.problems]
        problems += [
            (line, f"not understood as an order: {line!r}") for line in checked.unrecognised
        ]
        if problems:
            rejected += [Rejected(player, line or "\n".join(texts), msg) for line, msg in problems]
        else:
            accepted[player] = list(checked.orders)
    return accepted, rejected


def replay_rounds(record: Record, rules: Rules[Any, Any]) -> list[ReplayedRound]:
    """Replay ``record`` with ``rules``. Raises :class:`RecordError` for an ill-formed record."""
    try:
        state = rules.start(record.players, options=record.options, setup=record.setup)
    except SetupError as error:
        raise RecordError(1, f"the game cannot start: {error}") from None
    replayed: list[ReplayedRound] = []
    for round_ in record.rounds:
        if rules.outcome(state) is not None:
            raise RecordError(round_.line, f"the game is over before round {round_.number}")
        if rules.sequential and len(round_.orders) != 1:
            raise RecordError(
                round_.line,
                f"round {round_.number} of a sequential game must hold exactly one move, "
                f"it holds {len(round_.orders)}",
            )
        accepted, rejected = _check_round(rules, state, round_)
        report = None
        if accepted or not rules.sequential:
            resolution = rules.resolve(state, accepted)
            state, report = resolution.state, resolution.report
        replayed.append(
            ReplayedRound(
                number=round_.number,
                rejected=tuple(rejected),
                state=rules.public_state(state),
                outcome=rules.outcome(state),
                report=report,
            )
        )
    return replayed


def replay(record: Record, rules: Rules[Any, Any]) -> dict[str, JSON]:
    """The ``adjudicate replay --json`` object for ``record``, played by ``rules`` (the rules
    of ``record.game``: the caller looks them up, core knows no game)."""
    rounds = replay_rounds(record, rules)
    last: dict[str, JSON] = (
        rounds[-1].to_json(record.players)
        if rounds
        else {"finished": False, "winners": [], "draw": False}
    )
    return {
        "game": record.game,
        "players": list(record.players),
        "rounds": [r.to_json(record.players) for r in rounds],
        "finished": last["finished"],
        "winners": last["winners"],
        "draw": last["draw"],
    }
