"""Pictures of game positions: text diagrams for plain-text mail, SVG for HTML and the archive.

Pure functions from public state to text; no I/O. ``pictures_for`` is the one entry point the
mail and the archive use: it chooses the pictures of a game kind, after a round, from the round's
public state and public report (``RoundResult.public_state`` and ``report["public"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from adjudicator.pictures import giveaway as gw
from adjudicator.pictures import rock_scissors_paper as rsp
from adjudicator.pictures import sissyfight as sf
from adjudicator.pictures import starship_combat as sc
from adjudicator.pictures import three_musketeers as tm


@dataclass(frozen=True)
class Picture:
    """One picture in both forms: ``text`` for plain mail (monospace), ``svg`` for the rest."""

    name: str  # a file-name stem, e.g. "board" or "standings"
    title: str  # what it shows, for captions and alt text
    text: str
    svg: str


Painter = Callable[[Mapping[str, Any], Mapping[str, Any]], list[Picture]]


def _three_musketeers(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    last = report.get("last_move")
    title = "The board" + (f" after {last}" if last else "")
    return [
        Picture(
            "board",
            title,
            tm.text_diagram(state, last_move=last),
            tm.svg_diagram(state, last_move=last),
        )
    ]


def _rock_scissors_paper(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    last = report.get("last_move")
    title = "The board" + (f" after {last}" if last else "")
    return [
        Picture(
            "board",
            title,
            rsp.text_diagram(state, last_move=last),
            rsp.svg_diagram(state, last_move=last),
        )
    ]


def _giveaway(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    round_ = gw.read_round(state, report)
    after = f" of round {round_.number}" if round_.number else ""
    return [
        Picture(
            "gifts",
            f"The gifts{after} and their rings",
            gw.gifts_text(round_),
            gw.gifts_svg(round_),
        ),
        Picture(
            "standings", f"The scores{after}", gw.standings_text(round_), gw.standings_svg(round_)
        ),
    ]


def _sissyfight(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    turn = report.get("turn")
    title = "Chips" + (f" after turn {turn}" if turn else "")
    return [Picture("chips", title, sf.chips_text(state, report), sf.chips_svg(state, report))]


def _starship_combat(state: Mapping[str, Any], report: Mapping[str, Any]) -> list[Picture]:
    number = report.get("round")
    title = "Both ships' missiles and power" + (f" after round {number}" if number else "")
    return [Picture("ships", title, sc.ships_text(state, report), sc.ships_svg(state, report))]


PAINTERS: dict[str, Painter] = {
    "three-musketeers": _three_musketeers,
    "rock-scissors-paper": _rock_scissors_paper,
    "giveaway": _giveaway,
    "sissyfight": _sissyfight,
    "starship-combat": _starship_combat,
}


def pictures_for(
    kind: str, public_state: Mapping[str, Any], public_report: Mapping[str, Any]
) -> list[Picture]:
    """The pictures of a position of game ``kind`` (``[]`` for a kind without pictures)."""
    painter = PAINTERS.get(kind)
    return painter(public_state, public_report) if painter else []
