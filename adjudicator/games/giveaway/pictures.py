"""Pictures of a Giveaway round: the gift graph with its rings, and the standings.

Both are pure functions of the round's public report (docs/rules/giveaway.md, Report: ``gifts`` with
``from``, ``to``, ``amount`` and ``paid``, ``rings`` with ``members`` in ring order,
``no_orders``, ``scores``, ``winner``); without a report (before round 1) they fall back to the
public state's ``scores`` and ``rings``.

The gift graph puts the players on a circle in seat order, so that it stays readable with twenty
players: every gift is a curved arrow (a gift and its return gift bend apart), the gifts of each
ring are drawn thick in the ring's own colour, and everything else is thin and grey.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from adjudicator.games.giveaway.scoring import TARGET
from adjudicator.pictures.charts import (
    FONT,
    FRAME,
    INK,
    PAPER,
    Bar,
    bars_words,
    svg_chart,
    text_chart,
)

"""Rule 1: the game can end once a score reaches 100."""
RING_COLOURS = ("#25467f", "#d2691e", "#2f6b3a", "#b3262b", "#9a6f12", "#7b3f8c", "#1f7f86")
"""Each at least 3:1 against the paper (WCAG 1.4.11), neighbours far apart in lightness; but a
ring is never told by its colour alone: its arrows carry its letter and its own dash."""
RING_DASHES = ("", "14 5", "4 4", "14 4 3 4")
"""The stroke pattern of ring A, B, C, D, then again: the rings apart in greyscale too."""
_GREY = "#8c7c62"
"""The gifts outside rings, and their arrowheads: 3.8:1 against the paper, the least a
graphic needs being 3:1 (WCAG 1.4.11)."""
_LABELLED_GIFTS = 30
"""Above this many gifts, only ring gifts carry their amount: the others would be a thicket."""


@dataclass(frozen=True)
class Gift:
    giver: str
    recipient: str
    amount: int
    paid: int


@dataclass(frozen=True)
class Round:
    """What the pictures need of a round, read from its report (or state)."""

    number: int | None
    players: tuple[str, ...]
    gifts: tuple[Gift, ...]
    rings: tuple[tuple[tuple[str, ...], int], ...]  # (members in ring order, amount)
    scores: Mapping[str, int]
    no_orders: frozenset[str]
    winner: str | None


def read_round(state: Mapping[str, Any], report: Mapping[str, Any]) -> Round:
    """The round as the pictures see it; players in seat order (the order of ``scores``)."""
    scores = {str(p): int(n) for p, n in dict(report.get("scores") or state["scores"]).items()}
    rings = report.get("rings") if "rings" in report else state.get("rings", [])
    return Round(
        number=report.get("round"),
        players=tuple(scores),
        gifts=tuple(
            Gift(str(g["from"]), str(g["to"]), int(g["amount"]), int(g.get("paid", g["amount"])))
            for g in report.get("gifts", [])
        ),
        rings=tuple((tuple(r["members"]), int(r["amount"])) for r in rings or []),
        scores=scores,
        no_orders=frozenset(str(n["player"]) for n in report.get("no_orders", [])),
        winner=report.get("winner"),
    )


def ring_letter(index: int) -> str:
    """Rings are named A, B, ... Z, AA, AB ... in report order."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _rings_of_gifts(round_: Round) -> dict[tuple[str, str], list[int]]:
    """For each gift (giver, recipient), the indexes of the rings it belongs to."""
    found: dict[tuple[str, str], list[int]] = {}
    for index, (members, _) in enumerate(round_.rings):
        for giver, recipient in zip(members, members[1:] + members[:1], strict=True):
            found.setdefault((giver, recipient), []).append(index)
    return found


# --- text --------------------------------------------------------------------------------


def gifts_text(round_: Round) -> str:
    """Every gift by giver, ring gifts tagged with their ring's letter, then the rings::

    alice  -> bob 2 [A], dave 2
    ...
    Rings: [A] alice -> bob -> carol -> alice, 1 point each, every gift pays 3
    """
    in_rings = _rings_of_gifts(round_)
    by_giver: dict[str, list[str]] = {}
    for gift in round_.gifts:
        tags = "".join(
            f"[{ring_letter(i)}]" for i in in_rings.get((gift.giver, gift.recipient), [])
        )
        by_giver.setdefault(gift.giver, []).append(
            f"{gift.recipient} {gift.amount}" + (f" {tags}" if tags else "")
        )
    width = max((len(p) for p in round_.players), default=0)
    lines = []
    for player in round_.players:
        given = ", ".join(by_giver.get(player, [])) or "nothing"
        spread = " (no orders)" if player in round_.no_orders else ""
        lines += textwrap.wrap(
            f"{player.ljust(width)}  -> {given}{spread}",
            width=90,
            initial_indent="  ",
            subsequent_indent=" " * (width + 8),
        )
    if round_.rings:
        lines.append("")
        for index, (members, amount) in enumerate(round_.rings):
            lines.append(f"  [{ring_letter(index)}] {ring_text(members, amount)}")
    else:
        lines.append("")
        lines.append("  No ring this round.")
    return "\n".join(lines) + "\n"


def gifts_words(round_: Round) -> str:
    """The gift graph told in sentences: each player's gifts, ring gifts with their ring's
    letter, who sent no orders, then each ring, so that nothing of the graph rests on its
    colours or its layout."""
    in_rings = _rings_of_gifts(round_)
    by_giver: dict[str, list[str]] = {}
    for gift in round_.gifts:
        rings = in_rings.get((gift.giver, gift.recipient), [])
        tag = "".join(f" (ring {ring_letter(i)}, pays {gift.paid})" for i in rings[:1])
        by_giver.setdefault(gift.giver, []).append(f"{gift.recipient} {gift.amount}{tag}")
    sentences = []
    for player in round_.players:
        given = by_giver.get(player)
        told = f"{player} gave {_and_list(given)}" if given else f"{player} gave nothing"
        if player in round_.no_orders:
            told += " (no orders: spread)"
        sentences.append(told + ".")
    for index, (members, amount) in enumerate(round_.rings):
        sentences.append(
            f"Ring {ring_letter(index)}: {ring_text(members, amount, arrow='to', times='times ')}."
        )
    if not round_.rings:
        sentences.append("No ring this round.")
    return " ".join(sentences)


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def ring_text(members: Sequence[str], amount: int, *, arrow: str = "->", times: str = "x") -> str:
    """``alice -> bob -> carol -> alice: 2 points each, x3`` (rule 5: a ring of 3 triples its
    gifts)."""
    path = f" {arrow} ".join([*members, members[0]])
    points = "point" if amount == 1 else "points"
    return f"{path}: {amount} {points} each, {times}{len(members)}"


def standings_bars(round_: Round) -> list[Bar]:
    """Players by score this round, highest first (seat order among equals)."""
    reached = max(round_.scores.values(), default=0) >= TARGET
    counts: dict[int, int] = {}
    for score in round_.scores.values():
        counts[score] = counts.get(score, 0) + 1
    bars = []
    for player, score in sorted(round_.scores.items(), key=lambda item: -item[1]):
        note = ""
        if player == round_.winner:
            note = "wins"
        elif reached and counts[score] > 1:
            note = "tied"
        bars.append(
            Bar(
                player,
                score,
                colour="#e0b84f" if player == round_.winner else "#c9962e",
                note=note,
                emphasis=player == round_.winner,
            )
        )
    return bars


def standings_text(round_: Round) -> str:
    bars = standings_bars(round_)
    scale = max((bar.value for bar in bars), default=0)
    lines = text_chart(bars, scale=scale, width=30)
    reached = scale >= TARGET
    lines.append(
        "Rule 1: once a score reaches 100, the highest score that no one else has wins."
        if reached
        else f"Nobody has reached {TARGET} yet."
    )
    return "\n".join(lines) + "\n"


def standings_words(round_: Round) -> str:
    """The scores in a sentence, highest first, and how far from 100 the game is."""
    told = bars_words(standings_bars(round_), one="point", many="points")
    reached = max(round_.scores.values(), default=0) >= TARGET
    rule = (
        "Rule 1: once a score reaches 100, the highest score that no one else has wins."
        if reached
        else f"Nobody has reached {TARGET} yet."
    )
    return f"Highest first: {told} {rule}"


def standings_svg(round_: Round) -> str:
    bars = standings_bars(round_)
    top = max((bar.value for bar in bars), default=0)
    near = top >= TARGET * 0.6
    title = "Scores" + (f" of round {round_.number}" if round_.number else "")
    return svg_chart(
        bars,
        title=title,
        scale=max(top, TARGET) if near else max(top, 1),
        target=(TARGET, "100") if near else None,
        caption="Rule 1: from 100 on, the highest score no one else has wins"
        if near
        else f"Nobody has reached {TARGET} yet",
    )


# --- SVG gift graph ----------------------------------------------------------------------

_SIZE = 680
_RADIUS = 230
_CENTRE = (_SIZE / 2, 60 + _RADIUS + 24)
_LEGEND_TOP = _CENTRE[1] + _RADIUS + 88
"""Clear of the name under the lowest player (its baseline 45 below the circle)."""


def _positions(players: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Players on a circle, seat 1 at the top, clockwise."""
    radius = _RADIUS
    count = max(len(players), 1)
    return {
        player: (
            _CENTRE[0] + radius * math.sin(2 * math.pi * index / count),
            _CENTRE[1] - radius * math.cos(2 * math.pi * index / count),
        )
        for index, player in enumerate(players)
    }


def _node_radius(count: int) -> float:
    return 22.0 if count <= 8 else max(12.0, 22.0 - (count - 8) * 0.8)


def gifts_svg(round_: Round) -> str:
    """A standalone SVG of every gift of the round; see the module docstring."""
    positions = _positions(round_.players)
    radius = _node_radius(len(round_.players))
    in_rings = _rings_of_gifts(round_)
    colours = [RING_COLOURS[i % len(RING_COLOURS)] for i in range(len(round_.rings))]
    labelled = len(round_.gifts) <= _LABELLED_GIFTS
    title = "Gifts" + (f" of round {round_.number}" if round_.number else "")
    legend = _legend(round_, colours)
    height = round(_LEGEND_TOP + 24 * len(legend))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_SIZE}" height="{height}" '
        f'viewBox="0 0 {_SIZE} {height}" font-family="{FONT}">',
        f"<title>{escape(title)}</title>",
        "<defs>"
        + _marker("grey", _GREY)
        + "".join(_marker(f"ring{i}", c) for i, c in enumerate(colours))
        + "</defs>",
        f'<rect width="{_SIZE}" height="{height}" rx="12" fill="{PAPER}" stroke="{FRAME}" '
        'stroke-width="2"/>',
        f'<text x="18" y="30" font-size="18" font-weight="bold" fill="{INK}">'
        f"{escape(title)}</text>",
    ]
    ring_gifts = [g for g in round_.gifts if (g.giver, g.recipient) in in_rings]
    plain_gifts = [g for g in round_.gifts if (g.giver, g.recipient) not in in_rings]
    for gift in plain_gifts:  # under the rings
        parts.append(
            _arrow(
                gift,
                positions,
                radius,
                colour=_GREY,
                marker="grey",
                width=1.6,
                label=str(gift.amount) if labelled else None,
                ring=False,
            )
        )
    for gift in ring_gifts:
        first = in_rings[gift.giver, gift.recipient][0]
        parts.append(
            _arrow(
                gift,
                positions,
                radius,
                colour=colours[first],
                marker=f"ring{first}",
                width=4.5,
                label=f"{ring_letter(first)} {_ring_label(gift)}",
                ring=True,
                pattern=RING_DASHES[first % len(RING_DASHES)],
            )
        )
    for player in round_.players:
        parts.append(_node(player, positions[player], radius, round_))
    for index, line in enumerate(legend):
        parts.append(line.format(y=round(_LEGEND_TOP - 8 + 24 * index)))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _ring_label(gift: Gift) -> str:
    return f"{gift.amount}→{gift.paid}" if gift.paid != gift.amount else str(gift.amount)


def _marker(name: str, colour: str) -> str:
    return (
        f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" '
        'markerHeight="11" markerUnits="userSpaceOnUse" orient="auto">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    )


def _arrow(
    gift: Gift,
    positions: Mapping[str, tuple[float, float]],
    radius: float,
    *,
    colour: str,
    marker: str,
    width: float,
    label: str | None,
    ring: bool,
    pattern: str = "",
) -> str:
    (x1, y1), (x2, y2) = positions[gift.giver], positions[gift.recipient]
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    # Bend to the right of the direction of travel, so that A->B and B->A do not overlap.
    bend = 0.12 * length
    cx, cy = (x1 + x2) / 2 - uy * bend, (y1 + y2) / 2 + ux * bend
    sx, sy = _towards(x1, y1, cx, cy, radius + 2)
    ex, ey = _towards(x2, y2, cx, cy, radius + 3)
    kind = "ring-gift" if ring else "gift"
    dash = f' stroke-dasharray="{pattern}"' if pattern else ""
    path = (
        f'<path class="{kind}" d="M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}" '
        f'fill="none" stroke="{colour}" stroke-width="{width}"{dash} '
        f'stroke-linecap="round" marker-end="url(#{marker})"/>'
    )
    if label is None:
        return path
    # The curve's midpoint: a quadratic Bezier at t = 1/2.
    mx, my = 0.25 * sx + 0.5 * cx + 0.25 * ex, 0.25 * sy + 0.5 * cy + 0.25 * ey
    box = 7 + 7 * len(label)
    weight = ' font-weight="bold"' if ring else ""
    return (
        f"<g>{path}"
        f'<rect x="{mx - box / 2:.1f}" y="{my - 9:.1f}" width="{box}" height="17" rx="4" '
        f'fill="{PAPER}" stroke="{colour}" stroke-width="1"/>'
        f'<text x="{mx:.1f}" y="{my + 4:.1f}" font-size="12" fill="{INK}" '
        f'text-anchor="middle"{weight}>{escape(label)}</text></g>'
    )


def _towards(x: float, y: float, tx: float, ty: float, distance: float) -> tuple[float, float]:
    """The point ``distance`` from (x, y) in the direction of (tx, ty)."""
    dx, dy = tx - x, ty - y
    length = math.hypot(dx, dy) or 1.0
    return x + dx / length * distance, y + dy / length * distance


def _node(player: str, at: tuple[float, float], radius: float, round_: Round) -> str:
    x, y = at
    winner = player == round_.winner
    fill = "#e0b84f" if winner else "#f1e3c2"
    dash = ' stroke-dasharray="4 3"' if player in round_.no_orders else ""
    # The name outside the circle, away from the centre.
    angle = math.atan2(y - _CENTRE[1], x - _CENTRE[0])
    lx, ly = x + math.cos(angle) * (radius + 10), y + math.sin(angle) * (radius + 10) + 5
    anchor = "start" if math.cos(angle) > 0.3 else "end" if math.cos(angle) < -0.3 else "middle"
    if anchor == "middle":
        ly += 8 if math.sin(angle) > 0 else -4
    score = round_.scores.get(player, 0)
    size = 13 if radius >= 16 else 11
    return (
        f'<g class="player"><circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="{fill}" '
        f'stroke="{INK}" stroke-width="2"{dash}/>'
        f'<text x="{x:.1f}" y="{y + size / 2 - 1:.1f}" font-size="{size}" fill="{INK}" '
        f'text-anchor="middle" font-weight="bold">{score}</text>'
        f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="15" fill="{INK}" '
        f'text-anchor="{anchor}">{escape(player)}</text></g>'
    )


def _dash_of(index: int) -> str:
    pattern = RING_DASHES[index % len(RING_DASHES)]
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def _legend(round_: Round, colours: Sequence[str]) -> list[str]:
    """Legend lines with ``{y}`` left to fill in: one per ring, then the key."""
    lines = []
    for index, (members, amount) in enumerate(round_.rings):
        text = f"Ring {ring_letter(index)}: {ring_text(members, amount, arrow='→', times='×')}"
        lines.append(
            f'<line x1="18" y1="{{y}}" x2="46" y2="{{y}}" stroke="{colours[index]}" '
            f'stroke-width="4.5"{_dash_of(index)} transform="translate(0 -5)"/>'
            f'<text x="54" y="{{y}}" font-size="14" fill="{INK}">{escape(text)}</text>'
        )
    key = (
        "Ring gifts: ring, points given → points paid. " if round_.rings else "No ring this round. "
    )
    key += "In the circles: scores this round."
    if round_.no_orders:
        key += " Dashed: no orders."
    lines.append(f'<text x="18" y="{{y}}" font-size="13" fill="{INK}">{escape(key)}</text>')
    return lines
