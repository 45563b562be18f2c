"""A line chart as inline SVG: standings over rounds, one line per player, no script.

Pure: numbers in, markup out. Colours come from the page's stylesheet through the classes
``series-N`` (so the chart follows the light or dark scheme); each line also has its own marker
shape and dash pattern, so that lines stay apart for readers who do not tell the colours apart.
Lines with equal values are drawn a pixel apart instead of on top of each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 520, 250
LEFT, RIGHT, TOP, BOTTOM = 40, 14, 14, 42
SHAPES = ("circle", "square", "triangle", "diamond")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
PALETTE_SIZE = 8
MARKER_LIMIT = 40  # beyond this many rounds the markers would only blur the lines


def nice_step(span: float, ticks: int = 4) -> int:
    """A round step (1, 2, 5 times a power of ten) giving about ``ticks`` intervals."""
    raw = max(span / ticks, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return int(factor * power)
    return int(10 * power)


def series_class(index: int) -> str:
    return f"series-{index % PALETTE_SIZE}"


def dash_of(index: int) -> str:
    """Line ``index``'s dash pattern: with its colour and marker, unique up to 16 lines."""
    return DASHES[(index // len(SHAPES)) % len(DASHES)]


def marker(index: int, x: float, y: float) -> str:
    """The marker of line ``index`` at (x, y)."""
    shape = SHAPES[index % len(SHAPES)]
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.2"/>'
    if shape == "square":
        return f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6"/>'
    if shape == "triangle":
        corners = [(x, y - 4), (x + 4, y + 3), (x - 4, y + 3)]
    else:
        corners = [(x, y - 4), (x + 4, y), (x, y + 4), (x - 4, y)]
    return '<path d="M' + " L".join(f"{cx:.1f},{cy:.1f}" for cx, cy in corners) + ' z"/>'


def _x_labels(rounds: Sequence[int]) -> list[int]:
    """Which round numbers get a label: all of them, or every k-th when there are many."""
    step = max(1, math.ceil(len(rounds) / 12))
    chosen = list(rounds[::step])
    if rounds and rounds[-1] not in chosen:
        chosen[-1] = rounds[-1]
    return chosen


def line_chart(
    rounds: Sequence[int],
    values: Mapping[str, Sequence[int | None]],
    *,
    title: str,
    chart_id: str,
    x_label: str = "round (0 = start)",
    from_zero: bool = True,
) -> str:
    """An ``<svg>`` element: ``values[player][i]`` after round ``rounds[i]`` (0 is the start).

    ``chart_id`` keeps ids unique when several charts share a page; ``x_label`` says what the
    steps are (rounds of a game, or a player's rated games). ``from_zero``: the scale starts
    at 0 (counts of chips or points); else it spans the values alone (ratings near 1500).
    """
    numbers = [v for series in values.values() for v in series if v is not None]
    low = min([0, *numbers]) if from_zero or not numbers else min(numbers)
    high = max([1, *numbers]) if from_zero or not numbers else max([low + 1, *numbers])
    step = nice_step(high - low)
    top = math.ceil(high / step) * step
    bottom = math.floor(low / step) * step
    # Room for the widest tick label: 4 and 5 digits need more than the 40 of small counts.
    digits = max(len(str(top)), len(str(bottom)))
    left = max(LEFT, 10 + 8 * digits)
    plot_w, plot_h = WIDTH - left - RIGHT, HEIGHT - TOP - BOTTOM
    span_x = max(len(rounds) - 1, 1)

    def x_of(i: int) -> float:
        return left + (plot_w * i / span_x if len(rounds) > 1 else plot_w / 2)

    def y_of(v: float) -> float:
        return TOP + plot_h * (top - v) / (top - bottom)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-title" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{chart_id}-title">{escape(title)}</title>',
        '<g class="grid">',
    ]
    for tick in range(bottom, top + 1, step):
        y = y_of(tick)
        parts.append(f'<line x1="{left}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{y + 5:.1f}" text-anchor="end">{tick}</text>'
        )
    parts.append("</g>")
    parts.append('<g class="axis">')
    for number in _x_labels(rounds):
        x = x_of(rounds.index(number))
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">'
            f"{number}</text>"
        )
    parts.append(
        f'<text class="label" x="{left + plot_w / 2:.1f}" y="{HEIGHT - 6}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append("</g>")
    count = len(values)
    for index, (player, series) in enumerate(values.items()):
        nudge = (index - (count - 1) / 2) * 1.2  # equal lines side by side, not hidden
        points = [(x_of(i), y_of(v) + nudge) for i, v in enumerate(series) if v is not None]
        dash = dash_of(index)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<g class="series {series_class(index)}">')
        parts.append(f"<title>{escape(player)}</title>")
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f'<polyline points={quoteattr(path)} fill="none"{dash_attr}/>')
        if len(rounds) <= MARKER_LIMIT or len(points) == 1:
            parts += [marker(index, x, y) for x, y in points]
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def legend_marker(index: int) -> str:
    """A small standalone SVG of line ``index``'s marker and dash, for the HTML legend."""
    dash = dash_of(index)
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<svg class="swatch series {series_class(index)}" viewBox="0 0 28 12" width="28" '
        f'height="12" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">'
        f'<line x1="1" x2="27" y1="6" y2="6"{dash_attr}/>{marker(index, 14, 6)}</svg>'
    )
