"""The SiSSYFiGHT chips chart: every player's chips after the turn, in their colour, with the
chips lost this turn drawn faded after the bar, and who is out.

A pure function of the public report of a turn (``chips``, ``colours``, ``out``,
``chips_lost``, ``turn``) or, before the first turn, of the public state alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.games.sissyfight.state import START_CHIPS
from adjudicator.pictures.charts import Bar, bars_words, svg_chart, text_chart

COLOUR_FILLS = {
    "red": "#c0392b",
    "green": "#2e8b57",
    "blue": "#2f5fa7",
    "black": "#2b2b2b",
    "white": "#f7f4ec",
    "grey": "#8c8c8c",
}


def chip_bars(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Bar]:
    """One bar per player in seat order, labelled with handle and colour."""
    chips = dict(report.get("chips") or state["chips"])
    colours = dict(report.get("colours") or state["colours"])
    lost = dict(report.get("chips_lost") or {})
    out = set(report.get("out") or state.get("out") or [])
    bars = []
    for player, count in chips.items():
        colour = str(colours.get(player, "grey"))
        loss = int(lost.get(player, 0))
        notes = [f"lost {loss}"] if loss else []
        if player in out:
            notes.append("out")
        bars.append(
            Bar(
                f"{player} ({colour})",
                int(count),
                colour=COLOUR_FILLS.get(colour, "#8c8c8c"),
                lost=loss,
                note=", ".join(notes),
            )
        )
    return bars


def _scale(bars: list[Bar]) -> int:
    return max([START_CHIPS, *(bar.value + bar.lost for bar in bars)])


def chips_text(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """``#`` a chip, ``.`` a chip lost this turn::

    alice (green)  ######....   6  lost 4
    """
    bars = chip_bars(state, report)
    lines = text_chart(bars, scale=_scale(bars), width=_scale(bars))
    lines.append("# a chip, . a chip lost this turn")
    return "\n".join(lines) + "\n"


def chips_words(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """Every player's chips in a sentence, in seat order, with the chips lost this turn."""
    return bars_words(chip_bars(state, report), one="chip", many="chips")


def chips_svg(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    bars = chip_bars(state, report)
    turn = report.get("turn")
    return svg_chart(
        bars,
        title="Chips" + (f" after turn {turn}" if turn else ""),
        scale=_scale(bars),
        caption="Faded: chips lost this turn. A player with no chips is out.",
    )
