"""The two ships of Starship Combat after a round: missiles and shield power left, what each
captain chose, and what the missiles did (docs/rules/starship-combat.md, Report: both choices and
both ships' missiles and power are public).

A pure function of the public report of a round (``choices``, ``no_orders``, ``missiles``,
``power``, ``destroyed``, ``round``) or, before the first round, of the public state alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from adjudicator.games.starship_combat.state import START_MISSILES, START_POWER
from adjudicator.pictures.charts import FONT


@dataclass(frozen=True)
class Ship:
    captain: str
    missiles: int
    power: int
    destroyed: bool
    choice: str | None  # canonical FIRE, SHIELD, FIRE SHIELD, NOTHING; None before round 1
    no_orders: bool

    @property
    def fired(self) -> bool:
        return self.choice is not None and "FIRE" in self.choice

    @property
    def shielded(self) -> bool:
        return self.choice is not None and "SHIELD" in self.choice


def ships(state: Mapping[str, Any], report: Mapping[str, Any]) -> tuple[Ship, Ship]:
    source = report if "missiles" in report else state
    missiles, power = dict(source["missiles"]), dict(source["power"])
    destroyed = set(source.get("destroyed") or [])
    choices = dict(report.get("choices") or {})
    silent = set(report.get("no_orders") or [])
    first, second = (
        Ship(
            str(p),
            int(missiles[p]),
            int(power[p]),
            p in destroyed,
            choices.get(p),
            p in silent,
        )
        for p in missiles
    )
    return first, second


def _slots(left: int, start: int) -> str:
    return "#" * left + "." * max(start - left, 0)


def ships_text(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """A small table, one column per ship::

                kirk               kang
    this round  FIRE SHIELD        NOTHING (no orders)
    missiles    ##.  2 left        ###  3 left
    """
    first, second = ships(state, report)
    rows = [["", first.captain, second.captain]]
    if first.choice or second.choice:
        rows.append(["this round", _choice_words(first), _choice_words(second)])
    pair = (first, second)
    rows.append(
        ["missiles", *(f"{_slots(s.missiles, START_MISSILES)}  {s.missiles} left" for s in pair)]
    )
    rows.append(["power", *(f"{_slots(s.power, START_POWER)}  {s.power} left" for s in pair)])
    rows.append(["ship", *("DESTROYED" if s.destroyed else "intact" for s in pair)])
    widths = [max(len(row[i]) for row in rows) + gap for i, gap in ((0, 2), (1, 4))]
    lines = [f"{a.ljust(widths[0])}{b.ljust(widths[1])}{c}".rstrip() for a, b, c in rows]
    return "\n".join(lines) + "\n"


def ships_words(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """Both ships in sentences: what each captain chose, what each has left, and whether it
    still flies."""
    told = []
    for ship in ships(state, report):
        chose = f" chose {_choice_words(ship)};" if ship.choice else ""
        missiles = "missile" if ship.missiles == 1 else "missiles"
        state_of = "destroyed" if ship.destroyed else "intact"
        told.append(
            f"{ship.captain}'s ship:{chose} {ship.missiles} {missiles} and "
            f"{ship.power} shield power left; {state_of}."
        )
    return " ".join(told)


def _choice_words(ship: Ship) -> str:
    if ship.choice is None:
        return ""
    return ship.choice + (" (no orders)" if ship.no_orders else "")


# --- SVG ---------------------------------------------------------------------------------

_WIDTH, _HEIGHT = 600, 320
_SPACE, _STARLIGHT, _TEXT = "#1b2233", "#d9dcef", "#e9e4d4"
_HULLS = ("#7fb2e5", "#e59a7f")
_MISSILE, _POWER, _SHIELD, _BLAST = "#f5a742", "#5ec8e5", "#5ec8e5", "#f0532d"
_STARS = ((37, 61), (92, 196), (141, 33), (203, 302), (268, 72), (311, 231), (352, 41),
          (330, 296), (446, 92), (575, 306), (547, 58), (571, 201), (23, 174), (229, 148),
          (381, 161), (481, 133))  # fmt: skip


def ships_svg(state: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """Both ships facing each other, missiles and power as rows of icons under each; a fired
    missile flies towards the other ship and bursts on its hull or stops at its shield."""
    pair = ships(state, report)
    number = report.get("round")
    title = "The ships" + (f" after round {number}" if number else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="{FONT}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" rx="12" fill="{_SPACE}"/>',
        *(f'<circle cx="{x}" cy="{y}" r="1.3" fill="{_STARLIGHT}"/>' for x, y in _STARS),
        f'<text x="{_WIDTH / 2}" y="28" font-size="17" font-weight="bold" fill="{_TEXT}" '
        f'text-anchor="middle">{escape(title)}</text>',
    ]
    for seat, ship in enumerate(pair):
        parts += _ship(ship, seat)
    for seat, ship in enumerate(pair):
        if ship.fired:
            parts.append(_missile_flight(seat, pair[1 - seat]))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _centre(seat: int) -> tuple[int, int]:
    return (150 if seat == 0 else 450), 120


def _ship(ship: Ship, seat: int) -> list[str]:
    x, y = _centre(seat)
    facing = 1 if seat == 0 else -1
    hull = "#6b6f7d" if ship.destroyed else _HULLS[seat]
    points = [(44, 0), (-30, -24), (-18, 0), (-30, 24)]
    outline = " ".join(f"{x + facing * dx},{y + dy}" for dx, dy in points)
    parts = [
        f'<g class="ship"><polygon points="{outline}" fill="{hull}" stroke="{_TEXT}" '
        'stroke-width="2" stroke-linejoin="round"/>'
        f'<circle cx="{x + facing * 8}" cy="{y}" r="6" fill="{_SPACE}" fill-opacity="0.6"/></g>'
    ]
    if ship.shielded:
        parts.append(
            f'<ellipse class="shield" cx="{x + facing * 4}" cy="{y}" rx="62" ry="50" '
            f'fill="{_SHIELD}" fill-opacity="0.12" stroke="{_SHIELD}" stroke-width="3"/>'
        )
    if ship.destroyed:
        parts.append(_burst(x, y, 40, "destroyed"))
        parts.append(
            f'<text x="{x}" y="{y - 50}" font-size="14" font-weight="bold" fill="{_BLAST}" '
            'text-anchor="middle">DESTROYED</text>'
        )
    parts.append(
        f'<text x="{x}" y="{y + 84}" font-size="17" font-weight="bold" fill="{_TEXT}" '
        f'text-anchor="middle">{escape(ship.captain)}</text>'
    )
    if ship.choice is not None:
        parts.append(
            f'<text x="{x}" y="{y + 104}" font-size="13" fill="{_TEXT}" '
            f'text-anchor="middle">{escape(_choice_words(ship))}</text>'
        )
    parts += _icons(
        x,
        y + 124,
        left=ship.missiles,
        start=START_MISSILES,
        colour=_MISSILE,
        kind="missile",
        word="missiles",
    )
    parts += _icons(
        x, y + 152, left=ship.power, start=START_POWER, colour=_POWER, kind="power", word="power"
    )
    return parts


def _icons(
    x: int, y: int, *, left: int, start: int, colour: str, kind: str, word: str
) -> list[str]:
    """A row of ``max(start, left)`` icons, the first ``left`` filled, then ``n left``."""
    count = max(start, left)
    step = 18
    first = x - 60
    parts = []
    for index in range(count):
        filled = index < left
        fill = colour if filled else "none"
        ix = first + index * step
        if kind == "missile":
            shape = (
                f'<path d="M{ix},{y + 7} l4,-14 l4,14 z" fill="{fill}" stroke="{colour}" '
                'stroke-width="1.5" stroke-linejoin="round"/>'
            )
        else:
            shape = (
                f'<rect x="{ix}" y="{y - 7}" width="10" height="14" rx="2" fill="{fill}" '
                f'stroke="{colour}" stroke-width="1.5"/>'
            )
        parts.append(f'<g class="{kind}{"" if filled else " used"}">{shape}</g>')
    parts.append(
        f'<text x="{first + count * step + 4}" y="{y + 5}" font-size="13" '
        f'fill="{_TEXT}">{left} {word}</text>'
    )
    return parts


def _missile_flight(seat: int, target: Ship) -> str:
    (x1, y1), (x2, _) = _centre(seat), _centre(1 - seat)
    facing = 1 if seat == 0 else -1
    start = x1 + facing * 50
    stop = x2 - facing * (66 if target.shielded else 30)
    y = y1 - 8 + 16 * seat
    trail = (
        f'<line class="missile-flight" x1="{start}" y1="{y}" x2="{stop}" y2="{y}" '
        f'stroke="{_MISSILE}" stroke-width="3" stroke-dasharray="10 6"/>'
        f'<path d="M{stop},{y} l{-facing * 12},-6 v12 z" fill="{_MISSILE}"/>'
    )
    if target.shielded:
        return trail + _burst(stop, y, 12, "blocked")
    return trail


def _burst(x: int, y: int, size: int, kind: str) -> str:
    """A star-shaped burst: a missile's hit or the shield stopping it."""
    corners = []
    for index in range(16):
        radius = size if index % 2 == 0 else size * 0.45
        dx, dy = _UNIT[index]
        corners.append(f"{x + dx * radius:.1f},{y + dy * radius:.1f}")
    fill = _BLAST if kind == "destroyed" else _SHIELD
    return (
        f'<polygon class="{kind}" points="{" ".join(corners)}" fill="{fill}" '
        f'fill-opacity="0.85" stroke="#fff3c4" stroke-width="1.5"/>'
    )


_UNIT = (
    (1.0, 0.0), (0.924, 0.383), (0.707, 0.707), (0.383, 0.924), (0.0, 1.0), (-0.383, 0.924),
    (-0.707, 0.707), (-0.924, 0.383), (-1.0, 0.0), (-0.924, -0.383), (-0.707, -0.707),
    (-0.383, -0.924), (0.0, -1.0), (0.383, -0.924), (0.707, -0.707), (0.924, -0.383),
)  # fmt: skip
"""The 16 directions of a burst's corners (cos, sin of multiples of 22.5 degrees)."""
