"""The readable text form of ``adjudicate replay`` (without ``--json``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from adjudicator.core.game import JSON
from adjudicator.core.kind import GameKind
from adjudicator.games import kind_of


def _value(value: JSON) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) or "-"
    return str(value)


def state_lines(kind: GameKind, state: Mapping[str, JSON]) -> list[str]:
    """A public state in words, a line an entry (the board as its diagram), indented."""
    diagram = kind.text_diagram(state) if kind.text_diagram else None
    lines = [] if diagram is None else ["  " + row for row in diagram.splitlines()]
    for key, value in state.items():
        if diagram is not None and key == "board":
            continue
        own_words = kind.state_line(key, value)
        if own_words is not None:
            lines.append(f"  {own_words}")
        elif key == "board" and isinstance(value, list):
            lines += ["  " + row for row in cast(list[str], value)]
        else:
            lines.append(f"  {key.replace('_', ' ')}: {_value(value)}")
    return lines


def _outcome(result: Mapping[str, JSON]) -> str | None:
    if not result["finished"]:
        return None
    winners = cast(list[str], result["winners"])
    if result["draw"]:
        return "Game over: a draw."
    if winners:
        return f"Game over: {' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}."
    return "Game over: nobody wins."


def format_replay(result: Mapping[str, JSON]) -> str:
    """Text for a terminal from the JSON object of ``replay``."""
    game = cast(str, result["game"])
    out = [f"{game}: {' '.join(cast(list[str], result['players']))}"]
    for round_ in cast(list[dict[str, Any]], result["rounds"]):
        out.append("")
        out.append(f"Round {round_['round']}")
        for rejected in round_["rejected"]:
            order = rejected["order"].replace("\n", " / ")
            out.append(f"  rejected {rejected['player']}: {order!r}: {rejected['error']}")
        out += state_lines(kind_of(game), round_["state"])
        ending = _outcome(round_)
        if ending:
            out.append(f"  {ending}")
    if not result["rounds"]:
        out.append("(no rounds)")
    return "\n".join(out) + "\n"
